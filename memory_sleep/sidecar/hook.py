"""Indexing at the end of `memory-sleep run`: after the markdown is written, never at its expense."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from memory_sleep.config import Config
from memory_sleep.sidecar import index_failure
from memory_sleep.workspace.layout import Workspace

log = logging.getLogger("memory_sleep")


def index_after_run(
    workspace: Workspace, config: Config, clock: Callable[[], float] = time.time
) -> list[str]:
    """Index the workspace incrementally, on `clock` (the run's: a MEMORY.md row that states no day is
    dated the day it is first indexed); return warnings instead of raising if anything fails."""
    if not config.sidecar.enabled:
        return []
    try:
        from memory_sleep.sidecar.recall import open_sidecar

        with open_sidecar(workspace.root, config, clock=clock) as sidecar:
            report = sidecar.index()
        log.debug(
            "sidecar: %d added, %d updated, %d removed in %.2fs",
            report.added,
            report.updated,
            report.removed,
            report.seconds,
        )
        return report.warnings
    except Exception as error:  # the markdown run has succeeded; the index can catch up next time
        log.debug("sidecar indexing failed", exc_info=True)
        index_failure.record(workspace.state_dir, f"{type(error).__name__}: {error}")
        return [
            f"vector sidecar not updated ({type(error).__name__}: {error}). The markdown run is complete; "
            "run `memory-sleep index` to retry."
        ]
