"""`memory-sleep undo`: the last run's sidecar passes (SleepGate's soft deletes, GC's soft deletes,
merges, ratings, validity marks and its last-run mark), then its files, then the index follows them.
A run that stopped before it finished (killed, or raised after a pass) is the last run: recovery rolls
it back the same way, passes first (`recover_runs`, also at the start of every run).

The passes go first, in one transaction that does nothing the second time, so an undo that stops
anywhere before its files are back is finished by asking again (an undo that stops while putting
files back is finished by the next undo or run, as the writer's recovery does for a run).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import UTC

from memory_sleep.config import Config
from memory_sleep.cycle.file_changes import read_bytes
from memory_sleep.errors import StoreError
from memory_sleep.sidecar.hook import index_after_run
from memory_sleep.sidecar.recall import Clock
from memory_sleep.sleepgate.undo import UndoReport
from memory_sleep.text import counted
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.lock import workspace_lock
from memory_sleep.workspace.sleep_log import read_sleep_log
from memory_sleep.workspace.writer import Manifest, SafeWriter

log = logging.getLogger("memory_sleep")


@dataclass
class UndoOutcome:
    """The run undone (rolled back, if it had stopped before it finished), the sidecar passes undone
    with it (newest first: those the sidecar held; a pass its run never applied is none) and what
    they gave back."""

    manifest: Manifest
    passes: list[str] = field(default_factory=list)
    sidecar: UndoReport = field(default_factory=UndoReport)
    warnings: list[str] = field(default_factory=list)


def run_passes(workspace: Workspace, writer: SafeWriter, targets: list[Manifest]) -> list[str]:
    """The sidecar passes of the runs `targets` (newest first), newest first: those their manifests
    name (SleepGate's, made before the write), then those of the runs' records in sleep-log.json
    (GC's, made after it, and every pass of a run from before manifests named them; a log from
    before that field holds none)."""
    named = [pass_id for manifest in targets for pass_id in manifest.sidecar_passes]
    # a run that stopped before it finished wrote no record of its own: its manifest names its passes
    finished = all(manifest.status == "done" for manifest in targets)
    logged = _logged_passes(workspace, writer, targets) if finished else []
    return list(dict.fromkeys([*named, *logged]))


def held_run_passes(
    workspace: Workspace, config: Config, writer: SafeWriter, targets: list[Manifest]
) -> list[str]:
    """The passes of `targets` an undo would put back: `run_passes` that the sidecar holds (all of
    them when the sidecar is off or absent: the undo then says they stay)."""
    passes = run_passes(workspace, writer, targets)
    if not passes or not config.sidecar.enabled or not _has_sidecar(workspace, config):
        return passes
    from memory_sleep.sidecar.recall import open_sidecar
    from memory_sleep.sleepgate.undo import held_passes

    with open_sidecar(workspace.root, config) as sidecar:
        return held_passes(sidecar.store, passes)


def _logged_passes(workspace: Workspace, writer: SafeWriter, targets: list[Manifest]) -> list[str]:
    """The passes of the records `targets` wrote: those naming one of their run ids. A record from
    before records named their run is theirs when it is newer than the log they found."""
    path = workspace.relative(workspace.sleep_log)
    logged = [manifest for manifest in targets if any(entry.path == path for entry in manifest.files)]
    current = read_sleep_log(read_bytes(workspace.sleep_log))
    if not logged or current is None:
        return []
    runs = {manifest.run_id for manifest in targets}
    before = read_sleep_log(writer.before(logged[-1], path))
    return [
        pass_id
        for record in [current, *current.history]
        if (
            record.runId in runs
            if record.runId is not None
            else before is None or record.lastRun > before.lastRun
        )
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
            step.warnings.extend(index_after_run(workspace, config, clock))
    return UndoOutcome(manifest, step.report.passes, step.report, step.warnings)


def recover_runs(workspace: Workspace, config: Config, writer: SafeWriter) -> list[str]:
    """Roll back the runs that stopped before they finished, their sidecar passes first (the caller
    holds the lock); returns their ids."""
    return writer.recover(first=_SidecarStep(workspace, config, writer, time.time).undo)


def roll_back_failed(workspace: Workspace, config: Config, writer: SafeWriter) -> None:
    """After a run raised, roll back the passes it made (a failed or refused run changes nothing);
    never raises over the run's own error: what cannot be rolled back now, the next run or undo does."""
    try:
        recover_runs(workspace, config, writer)
    except Exception:
        log.debug("could not roll back the failed run now", exc_info=True)


def undone_text(outcome: UndoOutcome) -> str:
    """What an undo did, for the user: which change, the files it restored, the passes it undid."""
    manifest = outcome.manifest
    if manifest.action == "redact":
        notes = ", ".join(f.path for f in manifest.files)
        return (
            f"Undid `memory-sleep redact` {manifest.run_id}: restored {notes}, secrets in plain text again."
        )
    if manifest.status == "rolled-back":
        what = f"Rolled back run {manifest.run_id}, which stopped before it finished"
    else:
        what = f"Undid {undo_target(manifest)}"
    created = sum(1 for file in manifest.files if file.before_sha256 is None)  # undo removed them
    put_back = len(manifest.files) - created
    files = [f"restored {counted(put_back, 'file')}"] if put_back else []
    files += [f"removed {counted(created, 'file')} it created"] if created else []
    parts = [] if manifest.action in ("forget", "restore") or not files else [", ".join(files)]
    if outcome.passes:
        back, removed, again = outcome.sidecar.restored, outcome.sidecar.removed, outcome.sidecar.deleted
        details = [counted(back, "entry", "entries") + " back"] if back else []
        details += [counted(removed, "GC entry", "GC entries") + " removed"] if removed else []
        details += [counted(again, "restored entry", "restored entries") + " deleted again"] if again else []
        passes = f"undid {counted(len(outcome.passes), 'sidecar pass', 'sidecar passes')}"
        parts.append(passes + (f": {', '.join(details)}" if details else ""))
    lines = [f"{what}: {'; '.join(parts) or 'nothing left to put back'}."]
    if outcome.passes:
        lines.append(f"Sidecar passes undone: {', '.join(outcome.passes)}.")
    return "\n".join(lines)


def undo_target(manifest: Manifest) -> str:
    """Which change an undo takes back, and when it was made: a run that found nothing to do leaves no
    record, so a second run of the day that changed nothing is not what `undo` undoes, the one before is."""
    when = manifest.created.astimezone(UTC).isoformat(timespec="seconds")
    if manifest.action in ("forget", "restore", "review", "redact"):
        return f"`memory-sleep {manifest.action}` {manifest.run_id}, made {when}"
    if manifest.action == "failed-run":
        return f"the failure record of run {manifest.run_id}, made {when}"
    return f"run {manifest.run_id}, made {when} (the last run that changed anything)"


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
