"""MEMORY.md as the last run left it (a copy in memory/.sleep/), and the check that stops a run, and fails
`doctor`, when MEMORY.md was emptied or cut since.

Cut means most of what the last run left is gone, as when an agent overwrites the file with a fragment
or a write truncates it; a person deleting a few entries by hand is editing, and runs go on.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import HEADER, MemoryDocument

LAST_RUN_COPY = "MEMORY.last-run.md"  # in memory/.sleep/, written with every run that changes a file
_FEWEST_LOST = 3  # fewer missing entries is editing, whatever their share


@dataclass(frozen=True)
class Held:
    """What MEMORY.md holds that the tool keeps: entries (bullets of its sections) and project summaries."""

    entries: int
    projects: int

    @classmethod
    def of(cls, text: str) -> Held:
        document = MemoryDocument.parse(text)
        return cls(sum(1 for _ in document.entries()), len(document.projects()))

    @property
    def total(self) -> int:
        return self.entries + self.projects

    def __str__(self) -> str:
        entries = f"{self.entries} {'entry' if self.entries == 1 else 'entries'}"
        if not self.projects:
            return entries
        return f"{entries} and {self.projects} project summar{'y' if self.projects == 1 else 'ies'}"


@dataclass(frozen=True)
class Loss:
    """MEMORY.md emptied or cut since the last run, and where the last run's version is kept."""

    left: Held
    now: Held
    emptied: bool
    copy: Path
    memory: Path

    def finding(self) -> str:
        now = "MEMORY.md is empty" if self.emptied else f"MEMORY.md holds {self.now}"
        return f"{now}, but the last run left {self.left} in it"

    def restore_command(self) -> str:
        return f"cp {shlex.quote(str(self.copy))} {shlex.quote(str(self.memory))}"

    def refusal(self) -> str:
        since = "" if self.emptied else " (copy out anything you wrote in it since first)"
        return (
            f"Refused: {self.finding()}. Nothing was changed. To restore the MEMORY.md the last run wrote"
            f"{since}: `{self.restore_command()}`, then run again. To go on from MEMORY.md as it is now: "
            "run with --accept-memory-reset."
        )


def find_loss(workspace: Workspace, memory_text: str) -> Loss | None:
    """The loss, when MEMORY.md (`memory_text` now) is empty or has lost most of what the last run left."""
    copy = workspace.state_dir / LAST_RUN_COPY
    try:
        left = Held.of(copy.read_text(encoding="utf-8", errors="replace"))
    except FileNotFoundError:
        return None  # no run has written here yet (or only a version before this check)
    now = Held.of(memory_text)
    emptied = memory_text.lstrip("\ufeff").strip() in ("", HEADER.strip())
    lost = left.total - now.total
    if left.total and (emptied or (lost >= _FEWEST_LOST and 2 * lost > left.total)):
        return Loss(left, now, emptied, copy, workspace.memory_md)
    return None
