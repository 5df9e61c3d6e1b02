"""The tool's memory of its own work, kept in memory/.sleep/: what it classified, folded and saw when.

State is split per daily note so that a nightly run reads and writes a few small files, whatever
the length of the history.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.dataclasses import dataclass

from .errors import StoreError
from .models import Category, DiscardReason, OperationKind, Verdict

STATE_VERSION = 1
M = TypeVar("M", bound=BaseModel)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(config=ConfigDict(extra="forbid"), slots=True)
class ItemRecord:
    """What NREM decided for one item, and whether REM has integrated it.

    A slotted dataclass, not a model: a noisy note holds hundreds of thousands of items, and a model
    instance costs five times the memory.
    """

    line: int
    verdict: Verdict
    category: Category | None = None
    discard_reason: DiscardReason | None = None
    topic: str | None = None
    text: str = ""
    deadline: date | None = None
    closes_action: bool = False
    operation: OperationKind | None = None

    @property
    def integrated(self) -> bool:
        """REM has placed this item (any operation, noop included)."""
        return self.operation is not None


class NoteState(_Model):
    """One daily note as last read."""

    sha256: str
    size: int
    mtime_ns: int
    items: dict[str, ItemRecord] = {}


class EntryRecord(_Model):
    first_seen: date
    last_referenced: date


class WorkspaceState(_Model):
    """Workspace-wide state: entry ages, folded notes, kept items awaiting REM, and each note's
    size and mtime when last read (so that a nightly run opens only notes that changed)."""

    version: int = STATE_VERSION
    entries: dict[str, EntryRecord] = {}
    folded: dict[str, str] = {}
    pending: dict[str, list[str]] = {}
    seen: dict[str, tuple[int, int]] = {}
    last_forgetting_pass: datetime | None = None


class StateStore:
    """Reads state files; writes go through the safe writer as ordinary file changes."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    @property
    def workspace_file(self) -> Path:
        return self.state_dir / "state.json"

    def note_file(self, note_name: str) -> Path:
        return self.state_dir / "notes" / f"{note_name}.json"

    def load_workspace(self) -> WorkspaceState:
        return _load(self.workspace_file, WorkspaceState) or WorkspaceState()

    def load_note(self, note_name: str) -> NoteState | None:
        return _load(self.note_file(note_name), NoteState)


def _load(path: Path, model: type[M]) -> M | None:
    if not path.exists():
        return None
    try:
        return model.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, ValidationError) as error:
        raise StoreError(
            f"{path}: unreadable state ({str(error).splitlines()[0]}). "
            "Run `memory-sleep undo` to go back to the last good run, or delete the file to rebuild it."
        ) from None


def dump(model: BaseModel) -> bytes:
    """State as stable, diff-friendly JSON bytes."""
    return (
        json.dumps(
            model.model_dump(mode="json", exclude_defaults=True),
            indent=1,
            sort_keys=True,
            ensure_ascii=False,
        )
        + "\n"
    ).encode("utf-8")
