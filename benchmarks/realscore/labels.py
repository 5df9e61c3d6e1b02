"""The hand labels of benchmarks/realnotes/labels/*.json (schema: labels/README.md), read and checked
against the notes as the parser splits them today."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, model_validator

from memory_sleep.models import Category, DiscardReason, NoteItem, Verdict
from memory_sleep.workspace.layout import Workspace, discover
from memory_sleep.workspace.notes import read_note

PREFIX_CHARS = 40
NEARBY_LINES = 20  # how far an item may have moved when the parser changed and the label was not redone
NOISE_REASONS = ("routine", "heartbeat")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Pointer(_Model):
    file: str
    line: int
    prefix: str


class ItemLabel(_Model):
    file: str
    line: int
    prefix: str
    verdict: Verdict
    category: Category | None = None
    discard_reason: DiscardReason | None = None
    durable: bool = False
    open_action: bool = False
    supersedes: Pointer | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ItemLabel:
        keep = self.verdict == "KEEP"
        if keep != (self.category is not None) or keep == (self.discard_reason is not None):
            raise ValueError(f"{self.file}:{self.line}: KEEP needs a category, DISCARD a discard_reason")
        if (self.durable or self.open_action) and not keep:
            raise ValueError(f"{self.file}:{self.line}: only a KEEP item can be durable or an open action")
        return self

    @property
    def noise(self) -> bool:
        """Routine noise: heartbeats, status readings, self-checks, stamps."""
        return self.discard_reason in NOISE_REASONS


class Question(_Model):
    question: str
    answers: list[str]  # file:line
    current: str | None = None


class Projects(_Model):
    real: list[list[str]]
    tags_and_links: list[str] = []


class WorkspaceLabels(_Model):
    workspace: str
    notes: list[str]
    projects: Projects
    questions: list[Question]
    items: list[ItemLabel]


@dataclass(frozen=True)
class Labelled:
    """A label and the parser item it names today."""

    label: ItemLabel
    item: NoteItem


class StaleLabels(Exception):
    """A label names an item the parser no longer gives; the message says which."""


def load_labels(path: Path) -> WorkspaceLabels:
    return WorkspaceLabels.model_validate_json(path.read_text(encoding="utf-8"))


def prefix(text: str) -> str:
    return " ".join(text.split())[:PREFIX_CHARS]


class NoteItems:
    """The parser's items of a workspace's notes, read once per note."""

    def __init__(self, folder: Path) -> None:
        self._notes = {note.relative: note for note in discover(Workspace.open(folder)).notes}
        self._items: dict[str, list[NoteItem]] = {}

    def of(self, file: str) -> list[NoteItem]:
        if file not in self._items:
            if file not in self._notes:
                raise StaleLabels(f"{file}: labelled, but not a note of the workspace")
            self._items[file] = read_note(self._notes[file], 10**9).items
        return self._items[file]

    def find(self, file: str, line: int, text_prefix: str) -> NoteItem:
        """The item at `line` if its text starts as labelled, else the nearest item that does."""
        candidates = [i for i in self.of(file) if prefix(i.written) == text_prefix]
        near = sorted(
            (abs(i.line_start - line), i.line_start, i)
            for i in candidates
            if abs(i.line_start - line) <= NEARBY_LINES
        )
        if not near:
            raise StaleLabels(f"{file}:{line}: no item starting {text_prefix!r} near that line; relabel it")
        return near[0][2]

    def at(self, file: str, line: int) -> NoteItem:
        """The item whose span holds `line` (a question's answer location)."""
        for item in self.of(file):
            if item.line_start <= line <= item.line_end:
                return item
        raise StaleLabels(f"{file}:{line}: no item holds this line; fix the question's answer")


def resolve(labels: WorkspaceLabels, items: NoteItems) -> list[Labelled]:
    """Every label with its item; each labelled note must have every item labelled exactly once."""
    resolved = [Labelled(label, items.find(label.file, label.line, label.prefix)) for label in labels.items]
    for note in labels.notes:
        labelled = sorted(r.item.line_start for r in resolved if r.item.file == note)
        parsed = sorted(i.line_start for i in items.of(note))
        if labelled != parsed:
            missing = sorted(set(parsed) - set(labelled))
            raise StaleLabels(f"{note}: items without a label at lines {missing[:10]}, or labelled twice")
    return resolved
