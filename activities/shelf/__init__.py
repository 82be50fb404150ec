"""The shelf of clones on a host: adding, adopting and describing them."""
