"""codedesk vocabulary: models, settings, errors and pure policies (no I/O)."""
