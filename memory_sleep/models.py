"""Data passed between the phases and the engines; every engine answer is validated against these."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["KEEP", "DISCARD"]
Category = Literal["decision", "fact", "lesson", "action", "relationship", "status"]
DiscardReason = Literal[
    "routine", "heartbeat", "narration", "debug", "resolved", "duplicate", "recalled", "other"
]
ItemKind = Literal["bullet", "line", "paragraph", "code", "table", "quote"]
OperationKind = Literal["noop", "update", "add", "supersede"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True, slots=True)
class NoteItem:
    """One unit of a daily note: a bullet, a timestamped or `**Key:**` line, a paragraph, a block.

    A slotted dataclass, not a model: a noisy note splits into hundreds of thousands of items, and a
    model instance costs ten times the memory; items are made by the parser, never read from outside.
    """

    id: str
    file: str  # path relative to the workspace, e.g. memory/2026-11-03.md
    day: date
    line_start: int  # 1-based
    line_end: int
    kind: ItemKind
    text: str  # what the item says: as written, less the stamps leading it
    headings: tuple[str, ...] = ()
    project_hint: str | None = None
    lead: str | None = None  # the line ending in ':' that introduces this item
    # the lines leading the item that only say when ("**时间：** 2026-03-22 08:19\n"; workspace/stamps.py):
    # when it was written, not what; read apart, so that no phase judges, places or counts the item by them
    stamp: str = ""

    @property
    def source(self) -> str:
        return f"{self.file}:{self.line_start}"

    @property
    def written(self) -> str:
        """The item as the note has it, its lines from line_start on."""
        return self.stamp + self.text


@dataclass(frozen=True, slots=True)
class Classification:
    """NREM's verdict on one item (made by an engine from a validated answer, or by rules)."""

    item_id: str
    verdict: Verdict
    category: Category | None = None
    discard_reason: DiscardReason | None = None
    topic: str | None = None
    reason: str = ""
    closes_action: bool = False  # the item reports an action item as done or cancelled
    deadline: date | None = None
    # a KEEP that is not promoted stays recallable in the notes and weekly summaries, out of MEMORY.md
    promote: bool = True


class KeptItem(Strict):
    """An item NREM kept, with what REM needs to place it."""

    item: NoteItem
    category: Category
    topic: str | None
    deadline: date | None = None
    promote: bool = True  # False: REM may change an entry with it, never add it (it stays in the notes)
    # what memory entries and recent kept items say much the same by meaning (the sidecar's embeddings):
    # an engine may find the item only repeats one (cycle/rem.py fills it in)
    echoes: tuple[str, ...] = ()


class EntryView(Strict):
    """A MEMORY.md entry as shown to an integrator; `ref` is only valid within one call."""

    ref: str
    section: str
    topic: str | None
    text: str
    day: date | None
    source: str | None = None  # file:line of the note item this run wrote it from; None if written before
    # the headings and the list's lead-in over that note item: the section of its note it was written in
    source_headings: tuple[str, ...] = ()
    source_lead: str | None = None
    # statements archive.md says a line of this entry's day superseded: what it may be the new value of
    replaced: tuple[str, ...] = ()

    def written_after(self, item: NoteItem) -> bool:
        """The entry was written after `item`, which cannot report it done: it is of a later day, or
        further down the same note (a "next steps" list below the day's finished work)."""
        if self.day and item.day < self.day:
            return True
        if self.source is None:
            return False
        file, line = self.source.rsplit(":", 1)
        return file == item.file and item.line_start < int(line)


class Operation(Strict):
    """REM's decision for one kept item against MEMORY.md."""

    item_id: str
    op: OperationKind
    target: str | None = Field(
        default=None,
        description="the entry changed: its ref (E1, E2, ...) or the id of an item added earlier in the batch",
    )
    text: str | None = Field(default=None, description="entry text for add/update/supersede")
    reason: str = ""


class Closure(Strict):
    """Which open action a note reports done (or cancelled)."""

    item_id: str
    target: str = Field(description="the action entry's ref (E1, E2, ...) as shown")
    reason: str = ""


class EntryJudgement(Strict):
    """What an engine finds an entry to be about, beyond its age: finished business ("ended": an
    absence that is over), or of little lasting worth ("routine": a reading, a stack trace; "past": an
    event whose dates are all over), or a fact people keep up to date ("changing": it replaced an
    older value)."""

    ref: str
    kind: Literal["ended", "routine", "past", "changing"]
    reason: str = ""


class ProjectFields(Strict):
    """The four lines of a per-project summary under `## Projects`."""

    status: str
    contacts: str
    last_event: str
    next: str


class WeeklySummary(Strict):
    """What a week of daily notes comes to, for memory/weekly/YYYY-Www.md."""

    overview: str
    highlights: dict[str, list[str]] = Field(description="topic -> lines")


class Briefing(Strict):
    """The morning briefing's parts, most important first within each list."""

    priorities: list[str]
    actions: list[str]
    context: list[str]
    warnings: list[str]
