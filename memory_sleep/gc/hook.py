"""GC inside a run: after SleepGate, on the sidecar as the last index left it. The planner asks for
MEMORY.md's edits (part of the run's plan); once the run has written its files, the sidecar's side
is applied. Failures become warnings: the markdown run stands without GC."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext

from memory_sleep.config import Config
from memory_sleep.cycle.plan import DocumentEditor
from memory_sleep.engines.base import Engine
from memory_sleep.gc.actions import StrategyName
from memory_sleep.gc.apply import GcPlan, apply_to_sidecar, plan_edits
from memory_sleep.gc.entries import LAST_RUN_AT
from memory_sleep.gc.run import decide
from memory_sleep.sidecar.recall import Clock, Sidecar, open_sidecar
from memory_sleep.sidecar.store import DB_NAME
from memory_sleep.sidecar.vectors import worth_saving
from memory_sleep.workspace.layout import Workspace

log = logging.getLogger("memory_sleep")
Uses = Mapping[tuple[str | None, str], float]  # (section, text) of an entry of MEMORY.md: last referenced


class GcStep:
    """The run's GC: `strategies` on every scope; `scheduled` runs them only once SleepGate's
    `interval_secs` has passed since the last GC run (a nightly cycle, not every run)."""

    def __init__(
        self,
        workspace: Workspace,
        config: Config,
        engine: Engine,
        strategies: Sequence[StrategyName],
        scheduled: bool,
        clock: Clock,
    ) -> None:
        self.workspace, self.config, self.engine = workspace, config, engine
        self.strategies, self.scheduled, self.clock = tuple(strategies), scheduled, clock
        self.warnings: list[str] = []
        self.sidecar: Sidecar | None = None  # the run's open sidecar (SleepGate's); else GC opens its own

    def plan(self, editor: DocumentEditor, budget: int, uses: Uses) -> GcPlan | None:
        """The decision checked against MEMORY.md and its edits applied to `editor`; None when GC
        is not due, has nothing to look at, or failed (with a warning)."""
        if not self.strategies or (
            self.config.sidecar.store == "sqlite" and not (self.workspace.state_dir / DB_NAME).is_file()
        ):
            return None  # nothing indexed yet (and a dry run must not create the database)
        try:
            with self._sidecar() as sidecar:
                now = self.clock()
                last = sidecar.store.meta(LAST_RUN_AT)
                if (
                    self.scheduled
                    and last
                    and now - float(last) < self.config.memory.forgetting.interval_secs
                ):
                    return None
                decision = decide(
                    sidecar,
                    self.config.memory.gc,
                    self.engine,
                    self.strategies,
                    now,
                    self.config.stale_after_days,
                    uses,
                )
            plan = plan_edits(decision, editor, budget, editor.today)
        except Exception as error:  # the markdown run goes on; GC can wait a night
            log.debug("gc failed", exc_info=True)
            self.warnings.append(
                f"garbage collection not run ({type(error).__name__}: {error}). The markdown run is "
                "complete; run `memory-sleep gc all` to retry."
            )
            return None
        self.warnings.extend(decision.skipped)
        return plan

    def _sidecar(self) -> AbstractContextManager[Sidecar]:
        if self.sidecar is not None:
            return nullcontext(self.sidecar)
        return open_sidecar(self.workspace.root, self.config, clock=self.clock)

    def apply(self, plan: GcPlan) -> None:
        """The sidecar's side of a plan the run has written."""
        try:
            with self._sidecar() as sidecar:
                deleted = apply_to_sidecar(sidecar, plan, self.clock(), self.config.keep_snapshots)
                if worth_saving(deleted, plan.decision.entries):
                    # the vector cache file is brought up to date now (a load saves it), or every
                    # later run would read the deleted rows and patch them out again until one saved
                    sidecar.vectors()
        except Exception as error:
            log.debug("gc apply failed", exc_info=True)
            self.warnings.append(
                f"garbage collection of the sidecar not applied ({type(error).__name__}: {error}); "
                "MEMORY.md's part is written. Run `memory-sleep gc all` to retry."
            )
