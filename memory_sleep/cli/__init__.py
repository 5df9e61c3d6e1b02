"""The interfaces: the command line, doctor, status, init, cron and the MCP server."""

import os

# One BLAS thread unless the user set otherwise (read when numpy loads, so before any import of it):
# a run's matrix products are small, and OpenBLAS's second thread spun on the other core for them,
# ~0.2 s CPU of a 30-day night and ~0.3 s of a 365-day one, the output the same.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from memory_sleep.cli.main import main

__all__ = ["main"]
