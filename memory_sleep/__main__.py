"""`python -m memory_sleep` is the same as the `memory-sleep` command."""

from memory_sleep.cli.main import main

main()
