"""The tool's memory of its own work, kept in memory/.sleep/: what it classified, folded and saw when.

State is split per daily note so that a nightly run reads and writes a few small files, whatever
the length of the history.
"""

from __future__ import annotations

import io
import json
from datetime import date, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from pydantic.dataclasses import dataclass

from memory_sleep.errors import StoreError
from memory_sleep.models import Category, DiscardReason, OperationKind, Verdict

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
    lead: str | None = None  # the lead-in line a kept item's list hangs from ("**Follow-ups:**")
    deadline: date | None = None
    closes_action: bool = False
    operation: OperationKind | None = None
    promote: bool = True  # see Classification.promote
    # the text REM gave the MEMORY.md entry it added or changed, and the text it replaced (cycle/series.py)
    wrote: str = ""
    replaced: str = ""

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
    shapes: dict[str, int] = {}  # line shape -> occurrences (engines/recurrence.py)


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


_RECORD = TypeAdapter(ItemRecord)


def _load(path: Path, model: type[M]) -> M | None:
    if not path.exists():
        return None
    try:
        text = path.read_text(encoding="utf-8")
        try:
            return model.model_validate(json.loads(text, object_pairs_hook=_item_record))
        except (ValueError, ValidationError):
            return model.model_validate(json.loads(text))  # read again as a whole, to say what is wrong
    except (ValueError, ValidationError) as error:
        raise StoreError(
            f"{path}: unreadable state ({str(error).splitlines()[0]}). "
            "Run `memory-sleep undo` to go back to the last good run, or delete the file to rebuild it."
        ) from None


def _item_record(pairs: list[tuple[str, Any]]) -> Any:
    """An item's record made as soon as it is read: a noisy note's state holds hundreds of thousands,
    and as plain JSON objects they took three times the memory."""
    fields = dict(pairs)
    if "line" in fields and "verdict" in fields:
        return _RECORD.validate_python(fields)
    return fields


_ENCODER = json.JSONEncoder(indent=1, sort_keys=True, ensure_ascii=False)


def dump(model: BaseModel) -> bytes:
    """State as stable, diff-friendly JSON bytes.

    A note's items are encoded one at a time, each indented as it would be inside the whole: encoding
    hundreds of thousands of them at once took ten times the memory of the file.
    """
    items = model.items if isinstance(model, NoteState) else {}
    data = model.model_dump(mode="json", exclude_defaults=True, exclude={"items"} if items else None)
    if not items:
        return (_ENCODER.encode(data) + "\n").encode("utf-8")
    rest = _ENCODER.encode(data)  # "items" sorts before every other field of a note's state
    out = io.BytesIO()
    out.write(b'{\n "items": {')
    for number, key in enumerate(sorted(items)):
        record = _ENCODER.encode(_RECORD.dump_python(items[key], mode="json", exclude_defaults=True))
        head = ",\n  " if number else "\n  "
        out.write(f"{head}{_ENCODER.encode(key)}: {record.replace(chr(10), chr(10) + '  ')}".encode())
    out.write(b"\n }" + (b",\n" + rest[2:].encode() if len(rest) > 2 else b"\n}") + b"\n")
    return out.getvalue()
