"""The interfaces: the command line, doctor, status, init, cron and the MCP server."""

from memory_sleep.cli.main import main

__all__ = ["main"]
