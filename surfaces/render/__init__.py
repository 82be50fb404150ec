"""Reports, cards and histories laid out once as blocks; each target renders them."""
