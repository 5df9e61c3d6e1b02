"""MEMORY.md as the last run left it (a copy in memory/.sleep/), and the checks that stop a run, and fail
`doctor`, when MEMORY.md was emptied or cut since, or is no text a run can read (binary, not UTF-8, or
holding a merge conflict left unresolved).

Cut means most of what the last run left is gone, as when an agent overwrites the file with a fragment
or a write truncates it; a person deleting a few entries by hand is editing, and runs go on.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from memory_sleep.text import counted, not_utf8
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import HEADER, MemoryDocument, with_open_block_closed
from memory_sleep.workspace.note_read import UTF16_BOMS

LAST_RUN_COPY = "MEMORY.last-run.md"  # in memory/.sleep/, written with every run that changes a file
_FEWEST_LOST = 3  # fewer missing entries is editing, whatever their share
_MARKER = re.compile(r"^(?:<{7}|>{7})(?: |$)|^={7}$")  # git's conflict markers, at the start of a line


@dataclass(frozen=True)
class Held:
    """What MEMORY.md holds that the tool keeps: entries (bullets of its sections) and project summaries."""

    entries: int
    projects: int

    @classmethod
    def of(cls, memory: str | MemoryDocument) -> Held:
        document = MemoryDocument.parse(memory) if isinstance(memory, str) else memory
        return cls(sum(1 for _ in document.entries()), len(document.projects()))

    @property
    def total(self) -> int:
        return self.entries + self.projects

    def __str__(self) -> str:
        entries = counted(self.entries, "entry", "entries")
        if not self.projects:
            return entries
        return f"{entries} and {counted(self.projects, 'project summary', 'project summaries')}"


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
    """The loss, when MEMORY.md (`memory_text` now) is empty or has lost most of what the last run left,
    read as a run reads it: a block left open over its sections is closed (`with_open_block_closed`)."""
    copy = workspace.state_dir / LAST_RUN_COPY
    try:
        left = Held.of(copy.read_text(encoding="utf-8", errors="replace"))
    except FileNotFoundError:
        return None  # no run has written here yet (or only a version before this check)
    document = MemoryDocument.parse(memory_text)
    if document.open_block is not None:
        document = MemoryDocument.parse(with_open_block_closed(memory_text)[0])
    now = Held.of(document)
    emptied = memory_text.lstrip("\ufeff").strip() in ("", HEADER.strip())
    lost = left.total - now.total
    if left.total and (emptied or (lost >= _FEWEST_LOST and 2 * lost > left.total)):
        return Loss(left, now, emptied, copy, workspace.memory_md)
    return None


def unreadable(workspace: Workspace, raw: bytes) -> tuple[str, str] | None:
    """Why MEMORY.md (`raw`) is no UTF-8 text, or no document a run may merge into (a merge conflict
    left in it), and what to do about it; None when it is fine."""
    if b"\x00" in raw and not raw.startswith(UTF16_BOMS):  # UTF-16 holds NULs too: re-saving fixes it
        copy, memory = workspace.state_dir / LAST_RUN_COPY, workspace.memory_md
        fix = (
            f"to restore the MEMORY.md the last run wrote: `cp {shlex.quote(str(copy))} {shlex.quote(str(memory))}`"
            if copy.is_file()
            else "put its text back (from a backup or version control), or move it out of the workspace: "
            "the next run then starts a new MEMORY.md"
        )
        return f"binary data, not text (a NUL byte at byte {raw.index(0)})", fix
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return not_utf8(error), "re-save it as UTF-8"
    if (line := _conflict_line(text)) is not None:
        return (
            f"an unresolved merge conflict at line {line} (`<<<<<<<`)",
            "keep what is right between `<<<<<<<` and `>>>>>>>`, delete the three marker lines, then run again",
        )
    return None


def _conflict_line(text: str) -> int | None:
    """The line of the first `<<<<<<<` that a `=======` and a `>>>>>>>` line follow, as a merge leaves
    them (outside fenced code, where a conflict is only quoted); None when there is none."""
    fence, opened, middle = "", None, False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = "" if fence == marker else fence or marker
            continue
        if fence:
            continue
        if _MARKER.match(line) is None:
            continue
        if line.startswith("<"):
            opened, middle = number, False
        elif line.startswith("=") and opened is not None:
            middle = True
        elif line.startswith(">") and middle:
            return opened
    return None
