"""`memory-sleep forget` and `memory-sleep restore` as changes of their own: a SleepGate pass now (or
a restore of what passes deleted), named in a manifest of the safe writer before it changes anything,
so that `memory-sleep undo` reverts it like a run and a process killed mid-way is rolled back by the
next run or undo. They write no file and no sleep-log record (they are no consolidation run: `run
--if-due` must not take one for a run)."""

from __future__ import annotations

import time

from memory_sleep.config import Config
from memory_sleep.cycle.undo import recover_runs, roll_back_failed
from memory_sleep.sidecar.recall import Clock, open_sidecar
from memory_sleep.sleepgate.forget import Explain, PassReport, new_pass_id
from memory_sleep.sleepgate.restore import RestoreReport
from memory_sleep.sleepgate.session import forget, restore
from memory_sleep.sleepgate.undo import unused_pass_id
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.lock import workspace_lock
from memory_sleep.workspace.writer import SafeWriter


def forget_now(
    workspace: Workspace,
    config: Config,
    explain: Explain,
    rebuild_budget_secs: float | None,
    clock: Clock = time.time,
) -> PassReport:
    """Run a pass now, due or not; a pass that forgot entries stays undoable as its own change."""
    writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=config.keep_snapshots)
    with workspace_lock(workspace.state_dir, config.lock_timeout_secs):
        recover_runs(workspace, config, writer)
        run_id = writer.new_run_id()
        try:
            with open_sidecar(workspace.root, config, clock=clock) as sidecar:
                pass_id = unused_pass_id(sidecar.store, new_pass_id(sidecar.clock()))
                writer.begin(run_id, [pass_id])
                report = forget(
                    sidecar, config.memory.forgetting, False, explain, rebuild_budget_secs, pass_id=pass_id
                )
            writer.apply(run_id, [], action="forget", sidecar_passes=[pass_id] if report.forgotten else [])
        except Exception:
            roll_back_failed(workspace, config, writer)
            raise
    return report


def restore_now(
    workspace: Workspace, config: Config, ids: list[int], pass_id: str | None, since: float | None
) -> RestoreReport:
    """Restore entries now; a restore that brought entries back is undoable as its own change."""
    writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=config.keep_snapshots)
    with workspace_lock(workspace.state_dir, config.lock_timeout_secs):
        recover_runs(workspace, config, writer)
        run_id = writer.new_run_id()
        record = "restore-" + run_id
        try:
            writer.begin(run_id, [record])
            with open_sidecar(workspace.root, config) as sidecar:
                report = restore(sidecar, ids, pass_id, since, False, record, config.keep_snapshots)
            writer.apply(run_id, [], action="restore", sidecar_passes=[record] if report.restored else [])
        except Exception:
            roll_back_failed(workspace, config, writer)
            raise
    return report
