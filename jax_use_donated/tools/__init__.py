"""Command-line helpers used by the lit suite and examples."""
