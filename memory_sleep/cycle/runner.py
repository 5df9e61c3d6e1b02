"""One sleep cycle: take the lock, run a due SleepGate pass, plan every file change (planner.py, with the
GC run's edits), log the run, write it safely, then apply GC's sidecar side and index."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, date, datetime

from memory_sleep.config import Config
from memory_sleep.cycle import PHASES
from memory_sleep.cycle.archive_displays import ArchiveDisplays
from memory_sleep.cycle.candidates import Candidates, HybridCandidates, configured
from memory_sleep.cycle.file_changes import read_bytes
from memory_sleep.cycle.planner import Planner, Progress
from memory_sleep.cycle.report import RunOptions, RunReport
from memory_sleep.cycle.undo import recover_runs, roll_back_failed
from memory_sleep.engines.base import Engine
from memory_sleep.gc.hook import GcStep
from memory_sleep.gc.run import selected
from memory_sleep.sidecar.hook import index_after_run
from memory_sleep.sidecar.recall import Sidecar, open_sidecar
from memory_sleep.sidecar.rows import day_timestamp
from memory_sleep.sleepgate.hook import DuePass, forget_when_due
from memory_sleep.workspace import sleep_log
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.lock import workspace_lock
from memory_sleep.workspace.writer import FileChange, SafeWriter, new_run_id

__all__ = ["PHASES", "RunOptions", "RunReport", "run_cycle"]
log = logging.getLogger("memory_sleep")


def run_cycle(
    workspace: Workspace,
    config: Config,
    engine: Engine,
    options: RunOptions,
    progress: Progress | None = None,
    candidate_step: Candidates | None = None,
) -> RunReport:
    """Run the phases in `options`; with dry_run nothing is written (and no lock is taken). The
    candidate step picks the entries engines are shown (default: the sidecar's hybrid search)."""
    with _no_cycle_collection():
        return _run_cycle(workspace, config, engine, options, progress, candidate_step)


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused for the run, and resumed as it was. A run holds every live
    entry of the sidecar, archive.md's records and their parses: each full collection walks them all,
    so on a year of history the collector alone cost a nightly run 0.3 s (0.1 s on 30 days) and grew
    with the history. The objects a run leaves in cycles are few (its peak memory is the same) and
    the collector takes them once it runs again."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def _run_cycle(
    workspace: Workspace,
    config: Config,
    engine: Engine,
    options: RunOptions,
    progress: Progress | None,
    candidate_step: Candidates | None,
) -> RunReport:
    say = progress or (lambda _: None)
    writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=config.keep_snapshots)
    step = candidate_step or configured(config, workspace.state_dir)
    displays = ArchiveDisplays(workspace.state_dir)
    displays.start()  # archive.md's lines as the last run parsed them
    gc = _gc_step(workspace, config, engine, options)
    if options.dry_run:
        report = Planner(workspace, config, engine, options, say, step, gc).plan(
            new_run_id(datetime.now(UTC))
        )
        report.waiting = engine.gate.waiting() if engine.gate else []
        return _logged(report, workspace, config)
    with workspace_lock(workspace.state_dir, config.lock_timeout_secs), ExitStack() as sidecar_open:
        rolled_back = recover_runs(workspace, config, writer)
        run_id = writer.new_run_id()
        forgetting = DuePass({}, None, None)
        # one connection for SleepGate and GC, before the markdown is written; indexing has its own
        clock = _clock(options.today)
        shared = _open_sidecar(workspace, config, sidecar_open, clock) if (options.forget or gc) else None
        if gc is not None:
            gc.sidecar = shared
        try:
            if config.sidecar.enabled and options.forget:
                # before planning, so that GC sees the sidecar SleepGate left and the run writes
                # sleep-log.json once, with the pass's counts in it; the run's manifest names the
                # pass before it changes anything, so a run that stops after it rolls it back
                forgetting = forget_when_due(
                    workspace, config, shared, lambda pass_id: writer.begin(run_id, [pass_id]), clock
                )
            report = Planner(workspace, config, engine, options, say, step, gc).plan(run_id)
            report.record.forgetting = forgetting.counts
            report.record.warnings.extend([forgetting.warning] if forgetting.warning else [])
            # what `undo` reverts in the sidecar: the pass's soft deletes, GC's side once applied below
            gc_pass = report.gc.decision.pass_id if report.gc is not None else None
            report.record.sidecarPasses = [p for p in (gc_pass, forgetting.pass_id) if p is not None]
            report.rolled_back = rolled_back
            report.waiting = engine.gate.waiting() if engine.gate else []
            if report.waiting:  # decided in part provisionally: the agent's answers come first
                # nothing is written; a pass that forgot entries stays, to be undone on its own
                writer.apply(run_id, [], sidecar_passes=_forgot(forgetting))
                return report
            _logged(report, workspace, config, changed_sidecar=bool(_forgot(forgetting)) or _gc_acts(report))
            if report.changes:
                say("writing")
            # the manifest names the pass made before the write (GC's comes after: the record names it)
            passes = [forgetting.pass_id] if forgetting.pass_id and report.changes else []
            writer.apply(run_id, report.changes, sidecar_passes=passes)
        except Exception:
            sidecar_open.close()
            roll_back_failed(workspace, config, writer)
            raise
        if isinstance(step, HybridCandidates):
            step.keep()  # its vectors, for the next run's candidate step
        if engine.gate:
            engine.gate.settled()
        if gc is not None and report.gc is not None:
            say("garbage collection of the sidecar")
            known = len(gc.warnings)
            gc.apply(report.gc)
            report.record.warnings.extend(gc.warnings[known:])
        sidecar_open.close()
        if config.sidecar.enabled:
            say("indexing the vector sidecar")
            said = report.record.warnings
            said.extend(_unsaid(index_after_run(workspace, config, clock), said))
        displays.save()  # archive.md's lines as this run parsed them, for the next run
    return report


def _clock(today: date) -> Callable[[], float]:
    """The clock of a run on `today`: the real one, or noon UTC of a `--today` that is not today (a
    simulated night dates what it indexes, and SleepGate's pass and ages, on its own day, as
    `clock_for` does for the other verbs)."""
    if today == date.today():
        return time.time
    moment = day_timestamp(today)
    return lambda: moment


def _unsaid(warnings: list[str], said: list[str]) -> list[str]:
    """The index's warnings about what the run has not already warned of: a note the run could not
    read is not indexed either, and one line says so ("memory/x.md: not valid UTF-8 (line 4, byte 56)")."""
    subjects = {warning.split(";", 1)[0] for warning in said}
    return [warning for warning in warnings if warning.split(";", 1)[0] not in subjects]


def _forgot(forgetting: DuePass) -> list[str]:
    """The forgetting pass, when it forgot entries."""
    forgot = forgetting.counts.get("forgotten", 0) > 0
    return [forgetting.pass_id] if forgetting.pass_id is not None and forgot else []


def _gc_acts(report: RunReport) -> bool:
    """Whether the run's GC changes an entry (its marks alone are no change a user would undo)."""
    return report.gc is not None and bool(report.gc.decision.counts())


def _open_sidecar(
    workspace: Workspace, config: Config, stack: ExitStack, clock: Callable[[], float]
) -> Sidecar | None:
    """The sidecar on the run's `clock`, open until `stack` closes; None when it is off or cannot be
    opened (then SleepGate and GC each try on their own and say what failed)."""
    if not config.sidecar.enabled:
        return None
    try:
        return stack.enter_context(open_sidecar(workspace.root, config, clock=clock))
    except Exception:
        log.debug("sidecar not opened for SleepGate and GC", exc_info=True)
        return None


def _gc_step(workspace: Workspace, config: Config, engine: Engine, options: RunOptions) -> GcStep | None:
    """The run's GC: the strategies `options` names now, or the enabled ones on SleepGate's schedule."""
    if not config.sidecar.enabled or (options.gc is None and not config.memory.gc.enabled):
        return None
    strategies = selected(options.gc or ("all",), config.memory.gc)
    moment = day_timestamp(options.today)
    return GcStep(workspace, config, engine, strategies, options.gc is None, lambda: moment)


def _logged(
    report: RunReport, workspace: Workspace, config: Config, changed_sidecar: bool = False
) -> RunReport:
    """Add the run's record to sleep-log.json's change, when the run changes a file or the sidecar."""
    if report.changes or changed_sidecar:
        path = workspace.relative(workspace.sleep_log)
        report.before[path] = read_bytes(workspace.sleep_log)
        previous = sleep_log.read_sleep_log(report.before[path])
        if previous is None and report.before[path]:
            report.record.warnings.append(
                f"{path} could not be read (not JSON, or a shape this version does not know): this run "
                "starts a new log. The old file is kept in the run's snapshot; `memory-sleep undo` puts it back."
            )
        log = sleep_log.with_run(previous, report.record, config.history_runs)
        report.changes.append(FileChange(path, sleep_log.render(log)))
    return report
