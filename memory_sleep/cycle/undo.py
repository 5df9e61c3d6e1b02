"""`memory-sleep undo`: the last run's sidecar passes (SleepGate's soft deletes, GC's soft deletes,
merges, ratings, validity marks and its last-run mark), then its files, then the index follows them.

The passes go first, in one transaction that does nothing the second time, so an undo that stops
anywhere before its files are back is finished by asking again (an undo that stops while putting
files back is finished by the next undo or run, as the writer's recovery does for a run).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from memory_sleep.config import Config
from memory_sleep.cycle.file_changes import read_bytes
from memory_sleep.errors import StoreError
from memory_sleep.sidecar.hook import index_after_run
from memory_sleep.sidecar.recall import Clock
from memory_sleep.sleepgate.undo import UndoReport
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.lock import workspace_lock
from memory_sleep.workspace.sleep_log import read_sleep_log
from memory_sleep.workspace.writer import Manifest, SafeWriter


@dataclass
class UndoOutcome:
    """The run undone, the sidecar passes undone with it (newest first) and what they gave back."""

    manifest: Manifest
    passes: list[str] = field(default_factory=list)
    sidecar: UndoReport = field(default_factory=UndoReport)
    warnings: list[str] = field(default_factory=list)


def run_passes(workspace: Workspace, writer: SafeWriter, targets: list[Manifest]) -> list[str]:
    """The sidecar passes of the runs `targets` (newest first) undoes, newest first: those of the
    records the runs added to sleep-log.json (a log from before the field holds none)."""
    path = workspace.relative(workspace.sleep_log)
    logged = [manifest for manifest in targets if any(entry.path == path for entry in manifest.files)]
    current = read_sleep_log(read_bytes(workspace.sleep_log))
    if not logged or current is None:
        return []
    before = read_sleep_log(writer.before(logged[-1], path))
    records = [current, *current.history]
    return [
        pass_id
        for record in records
        if before is None or record.lastRun > before.lastRun
        for pass_id in record.sidecarPasses
    ]


def undo_last_run(
    workspace: Workspace, config: Config, force: bool = False, clock: Clock = time.time
) -> UndoOutcome:
    """Undo the last run (with the failed runs after it): sidecar passes, files, then index."""
    writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=config.keep_snapshots)
    step = _SidecarStep(workspace, config, writer, clock)
    with workspace_lock(workspace.state_dir, config.lock_timeout_secs):
        manifest = writer.undo(force=force, first=step.undo)
        if config.sidecar.enabled and _has_sidecar(workspace, config):
            warning = index_after_run(workspace, config)
            step.warnings.extend([warning] if warning else [])
    return UndoOutcome(manifest, step.passes, step.report, step.warnings)


def _has_sidecar(workspace: Workspace, config: Config) -> bool:
    from memory_sleep.sidecar.store import DB_NAME

    return config.sidecar.store == "postgres" or (workspace.state_dir / DB_NAME).is_file()


@dataclass
class _SidecarStep:
    """The writer's `first` step of an undo: the sidecar passes of the runs it undoes."""

    workspace: Workspace
    config: Config
    writer: SafeWriter
    clock: Clock
    passes: list[str] = field(default_factory=list)
    report: UndoReport = field(default_factory=UndoReport)
    warnings: list[str] = field(default_factory=list)

    def undo(self, targets: list[Manifest]) -> None:
        self.passes = run_passes(self.workspace, self.writer, targets)
        if not self.passes:
            return
        if not self.config.sidecar.enabled:
            self.warnings.append(
                f"the sidecar is off ([sidecar] enabled = false), so its passes {', '.join(self.passes)} "
                "stay; turn it on and `memory-sleep restore --pass ID` brings their entries back"
            )
            return
        from memory_sleep.sidecar.recall import open_sidecar
        from memory_sleep.sleepgate.undo import undo_passes

        try:
            with open_sidecar(self.workspace.root, self.config) as sidecar:
                self.report = undo_passes(sidecar.store, self.passes, self.clock())
        except Exception as error:
            raise StoreError(
                f"{error} The run's sidecar passes ({', '.join(self.passes)}) could not be undone, so "
                "nothing was undone; fix that and run `memory-sleep undo` again."
            ) from error
