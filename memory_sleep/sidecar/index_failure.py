"""What the last failed indexing said, kept in the workspace's state folder until an index succeeds:
a run's indexing fails after its markdown is written, and says so on that run's stderr only, while
doctor and every recall after it must say that the sidecar is behind the notes."""

from __future__ import annotations

import contextlib
from pathlib import Path

FAILED = "index-failed.txt"


def record(state_dir: Path, why: str) -> None:
    """Keep `why` (the error, "ValueError: ...") as the last failed indexing's."""
    from memory_sleep.workspace.atomic import atomic_write

    with contextlib.suppress(OSError):  # a state folder that cannot be written: the run's warning says it
        atomic_write(state_dir / FAILED, why.encode("utf-8"))


def clear(state_dir: Path) -> None:
    """An index succeeded: the sidecar is no longer behind."""
    with contextlib.suppress(FileNotFoundError):
        (state_dir / FAILED).unlink()


def behind(state_dir: Path) -> str | None:
    """What the last failed indexing said, "the last run could not update the sidecar (...)", or None
    when the last indexing succeeded."""
    try:
        why = (state_dir / FAILED).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return f"the last run could not update the sidecar ({why}): recall misses what changed since"


def recall_warning(state_dir: Path, root: Path) -> str | None:
    """What a recall says beside its hits while the sidecar is behind the notes (`behind`), with the fix."""
    said = behind(state_dir)
    return f"Warning: {said}. `memory-sleep index {root}` retries." if said else None
