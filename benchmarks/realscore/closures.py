"""Which closures of open actions were right: what the runs archived as done, against the hand labels
of labels/closures/<workspace>.json (format: labels/README.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from .labels import NoteItems, prefix

# "- TEXT (DAY) — from Action items; done (memory/FILE:LINE) [...]", as cycle/close_actions.py archives it
_DONE = re.compile(r"^- (?P<action>.*) \(\d{4}-\d{2}-\d{2}\) — from Action items; done \((?P<by>[^)]+:\d+)\)")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClosureLabel(_Model):
    action: str  # the action entry's first 40 characters, whitespace collapsed
    closed_by: str  # file:line of the closing item's first line
    prefix: str  # the closing item's first 40 characters
    right: bool
    why: str


class ClosureLabels(_Model):
    workspace: str
    closures: list[ClosureLabel]


@dataclass(frozen=True)
class Closed:
    """One action a run archived as done, and the note item that closed it; `own` is the action's prefix
    without a lead-in written before it ("Follow-ups › ask Pim ..."), which labels do not hold."""

    action: str
    closed_by: str  # file:line
    own: str = ""

    def __str__(self) -> str:
        return f"{self.action!r} by {self.closed_by}"


@dataclass(frozen=True)
class ClosureCounts:
    right: int
    wrong: tuple[Closed, ...]
    unlabelled: tuple[Closed, ...]


def load_closure_labels(path: Path) -> ClosureLabels | None:
    """The workspace's closure labels, or None when nobody labelled its closures."""
    if not path.exists():
        return None
    return ClosureLabels.model_validate_json(path.read_text(encoding="utf-8"))


def closed_actions(archive: Path) -> list[Closed]:
    """Every action archive.md says a note item closed."""
    if not archive.exists():
        return []
    matches = (_DONE.match(line) for line in archive.read_text(encoding="utf-8").splitlines())
    return [
        Closed(prefix(m["action"]), m["by"], prefix(m["action"].split(_LEAD, 1)[-1])) for m in matches if m
    ]


_LEAD = " › "  # how an entry is written after the lead-in line its list hangs from


def count_closures(closed: list[Closed], labels: ClosureLabels | None, items: NoteItems) -> ClosureCounts:
    """Right, wrong and unlabelled closures; a label finds its closing item as an item label does (by
    file and line, or by its prefix near that line), and its action by the entry's prefix, or by its
    own words' when a lead-in is written before them."""
    verdicts: dict[tuple[str, str], bool] = {}
    for label in labels.closures if labels else []:
        file, line = label.closed_by.rsplit(":", 1)
        item = items.find(file, int(line), label.prefix)
        verdicts[(label.action, f"{item.file}:{item.line_start}")] = label.right
    judged = [(c, verdicts.get((c.action, c.closed_by), verdicts.get((c.own, c.closed_by)))) for c in closed]
    return ClosureCounts(
        right=sum(verdict is True for _, verdict in judged),
        wrong=tuple(c for c, verdict in judged if verdict is False),
        unlabelled=tuple(c for c, verdict in judged if verdict is None),
    )
