"""Layer 1, reports: the one report model every command produces, and its output formats."""
