"""What a run that raised leaves behind: a `failed` (or `refused`) record with the error in
memory/sleep-log.json. Never silence: under cron no one is watching."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from memory_sleep.config import Config, load_config
from memory_sleep.errors import ConfigError, GuardError, LockedError, MemorySleepError
from memory_sleep.workspace import sleep_log
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.lock import workspace_lock
from memory_sleep.workspace.writer import FileChange, SafeWriter, new_run_id

log = logging.getLogger("memory_sleep")

# long enough for a run that just released the lock to finish writing; a live run keeps its own record
RECORD_LOCK_WAIT_SECS = 5.0


@dataclass(frozen=True)
class Attempt:
    """One invocation of the cycle, as `run` or the MCP `consolidate` tool starts it."""

    folder: Path
    today: date
    engine: str | None = None
    dry_run: bool = False


@contextmanager
def recorded_outcome(attempt: Attempt) -> Iterator[None]:
    """Run the body; on an error write the failure to sleep-log.json, then re-raise it.

    A locked workspace is not a run (another one is under way and writes its own record), and a dry run
    writes nothing, so neither leaves a record.
    """
    try:
        yield
    except (LockedError, BrokenPipeError):  # another run's; output piped into `head`: not failed runs
        raise
    except Exception as error:
        if not attempt.dry_run:
            record_failure(attempt, error)
        raise


def describe(error: BaseException) -> str:
    """The error as one line for the log: our messages as they are, anything else with its type."""
    if isinstance(error, MemorySleepError):
        return str(error)
    return f"unexpected {type(error).__name__}: {error}"


def record_failure(attempt: Attempt, error: BaseException) -> bool:
    """Add a `failed` record (`refused` for a guard) to memory/sleep-log.json; False when it could not.

    Written by the safe writer like a run's files (`undo` of the run before takes it back too). Writes
    only into an existing memory/ folder (a damaged layout is worth a record, a folder that is no
    workspace gets none), under the workspace lock, and never raises: the caller is already reporting
    an error and must not lose it to a second one.
    """
    try:
        workspace = Workspace.locate(attempt.folder)
    except MemorySleepError:
        return False
    if not workspace.notes_dir.is_dir():
        return False
    try:
        config = load_config(workspace.config_file)
    except ConfigError:
        config = Config()
    memory_size = workspace.memory_md.stat().st_size if workspace.memory_md.is_file() else 0
    now = datetime.now(UTC)
    run_id = new_run_id(now)
    record = sleep_log.RunRecord(
        lastRun=now,
        runId=run_id,
        today=attempt.today.isoformat(),
        dailyFilesProcessed=0,
        itemsKept=0,
        itemsDiscarded=0,
        memoryMdSizeBefore=memory_size,
        memoryMdSizeAfter=memory_size,
        briefingGenerated=False,
        status="refused" if isinstance(error, GuardError) else "failed",
        engine=attempt.engine or config.engine.name,
        error=describe(error),
    )
    try:
        with workspace_lock(workspace.state_dir, RECORD_LOCK_WAIT_SECS):
            raw = workspace.sleep_log.read_bytes() if workspace.sleep_log.is_file() else None
            updated = sleep_log.with_run(sleep_log.read_sleep_log(raw), record, config.history_runs)
            change = FileChange(workspace.relative(workspace.sleep_log), sleep_log.render(updated))
            writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=config.keep_snapshots)
            writer.apply(run_id, [change], action="failed-run")
    except (MemorySleepError, OSError):
        log.debug("could not record the failed run in %s", workspace.sleep_log, exc_info=True)
        return False
    return True
