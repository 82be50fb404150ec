"""What surfaces ask of the desk's workflows, as typed calls (Temporal clients)."""
