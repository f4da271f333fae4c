"""utstools: the Python side of uts (studies, benchmarks, figures, record
comparison). Each tool's code is a module of utstools.commands with a
main(); scripts/NAME runs it from a checkout with nothing installed, and
`pip install -e .` adds it as a console command (pyproject.toml)."""
