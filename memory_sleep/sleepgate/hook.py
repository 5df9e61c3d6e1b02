"""The forgetting pass at the end of `memory-sleep run`, after the sidecar index step, when due."""

from __future__ import annotations

import logging

from ..config import Config
from ..sleep_log import RunRecord, read_sleep_log, render
from ..workspace import Workspace
from ..writer import atomic_write

log = logging.getLogger("memory_sleep")


def forget_after_run(workspace: Workspace, config: Config) -> tuple[dict[str, int], str | None]:
    """Run a due pass; return its counts for sleep-log.json and a warning instead of raising."""
    settings = config.memory.forgetting
    if not (config.sidecar.enabled and settings.enabled):
        return {}, None
    try:
        from ..sidecar.recall import open_sidecar
        from .session import forget, not_due_reason

        with open_sidecar(workspace.root, config) as sidecar:
            reason = not_due_reason(sidecar, settings)
            if reason is not None:
                log.debug("sleepgate: not due: %s", reason)
                return {}, None
            report = forget(
                sidecar, settings, explain="none", rebuild_budget_secs=settings.rebuild_budget_secs
            )
        return report.counts(), None
    except Exception as error:  # the markdown run has succeeded; forgetting can wait a night
        log.debug("sleepgate pass failed", exc_info=True)
        return {}, (
            f"forgetting pass not run ({type(error).__name__}: {error}). The markdown run is complete; "
            "run `memory-sleep forget` to retry."
        )


def note_in_sleep_log(workspace: Workspace, record: RunRecord) -> None:
    """Put the pass's counts into the run's record in sleep-log.json, written before the pass ran."""
    if not record.forgetting:
        return
    path = workspace.sleep_log
    try:
        current = read_sleep_log(path.read_bytes())
    except OSError:
        return
    if current is None or current.lastRun != record.lastRun:
        return
    current.forgetting = dict(record.forgetting)
    atomic_write(path, render(current))
