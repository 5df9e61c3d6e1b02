"""The forgetting pass of `memory-sleep run`, when due: before the run writes, so its counts are in the
run's one write of sleep-log.json; it prunes the sidecar as the previous run indexed it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, NamedTuple

from memory_sleep.config import Config
from memory_sleep.workspace.layout import Workspace

if TYPE_CHECKING:
    from memory_sleep.sidecar.recall import Sidecar

log = logging.getLogger("memory_sleep")


class DuePass(NamedTuple):
    """A due pass's counts for sleep-log.json, its id (None: no pass ran), and a warning instead of
    an error."""

    counts: dict[str, int]
    pass_id: str | None
    warning: str | None


def forget_when_due(
    workspace: Workspace,
    config: Config,
    sidecar: Sidecar | None = None,
    journal: Callable[[str], object] | None = None,
    clock: Callable[[], float] = time.time,
) -> DuePass:
    """Run a due pass (on `sidecar`, or one opened for it on `clock`); `journal` is told its id first,
    before it changes anything."""
    settings = config.memory.forgetting
    if not (config.sidecar.enabled and settings.enabled):
        return DuePass({}, None, None)
    try:
        from memory_sleep.sidecar.recall import open_sidecar
        from memory_sleep.sleepgate.forget import new_pass_id
        from memory_sleep.sleepgate.session import forget, not_due_reason
        from memory_sleep.sleepgate.undo import unused_pass_id

        with nullcontext(sidecar) if sidecar else open_sidecar(workspace.root, config, clock=clock) as opened:
            reason = not_due_reason(opened, settings)
            if reason is not None:
                log.debug("sleepgate: not due: %s", reason)
                return DuePass({}, None, None)
            pass_id = unused_pass_id(opened.store, new_pass_id(opened.clock()))
            if journal is not None:
                journal(pass_id)
            report = forget(
                opened,
                settings,
                explain="none",
                rebuild_budget_secs=settings.rebuild_budget_secs,
                pass_id=pass_id,
            )
        return DuePass(report.counts(), report.pass_id, None)
    except Exception as error:  # the markdown run has succeeded; forgetting can wait a night
        log.debug("sleepgate pass failed", exc_info=True)
        return DuePass(
            {},
            None,
            f"forgetting pass not run ({type(error).__name__}: {error}). The markdown run is complete; "
            "run `memory-sleep forget` to retry.",
        )
