"""The user-facing tools, one module each, each with main(argv=None) that
returns the exit status (scripts/NAME and the console commands call it)."""
