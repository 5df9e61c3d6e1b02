"""One run per workspace: an OS file lock, released by the kernel if the holder dies."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock, Timeout

from memory_sleep.errors import LockedError, WorkspaceError
from memory_sleep.workspace.atomic import atomic_write
from memory_sleep.workspace.layout import refuse_linked_folders, unwritable


@contextmanager
def workspace_lock(state_dir: Path, timeout: float) -> Iterator[None]:
    """Hold the workspace lock; wait up to `timeout` seconds, then fail naming the holder."""
    refuse_linked_folders(state_dir.parent, state_dir)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _cannot(f"{state_dir}: cannot create", state_dir, error) from None
    lock = FileLock(state_dir / "lock", timeout=timeout)
    holder_file = state_dir / "lock.holder"
    try:
        lock.acquire()
    except Timeout:
        raise LockedError(
            f"Another memory-sleep run holds {state_dir / 'lock'} ({_describe(holder_file)}). "
            "Wait for it to finish and rerun (`run` and `index` take --wait SECONDS; "
            "lock_timeout_secs in memory-sleep.toml sets how long every command waits)."
        ) from None
    except OSError as error:
        raise _cannot(f"{state_dir / 'lock'}: cannot lock", state_dir, error) from None
    try:
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "since": datetime.now(UTC).isoformat()}
        atomic_write(holder_file, json.dumps(holder).encode())
        yield
    finally:
        holder_file.unlink(missing_ok=True)
        lock.release()


def _cannot(what: str, state_dir: Path, error: OSError) -> WorkspaceError:
    """The state folder cannot be written: say whether the file system or the user's rights keep it so."""
    cause = unwritable(state_dir)
    if cause is None:
        return WorkspaceError(
            f"{what} ({error.strerror or error}); nothing was changed. Check free space and permissions, then rerun."
        )
    return WorkspaceError(
        f"{what} ({cause}); nothing was changed. Make the workspace writable (mount it read-write, or run "
        "as the user who owns it), then rerun; `memory-sleep recall` still searches it, and `run --dry-run` "
        "shows what a run would change."
    )


def _describe(holder_file: Path) -> str:
    try:
        holder = json.loads(holder_file.read_text())
        return f"pid {holder['pid']} on {holder['host']} since {holder['since']}"
    except (OSError, ValueError, KeyError):
        return "holder unknown"
