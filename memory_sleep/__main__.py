"""`python -m memory_sleep` is the same as the `memory-sleep` command."""

from .cli import main

main()
