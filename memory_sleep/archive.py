"""memory/archive.md: every entry removed from MEMORY.md, with the day and the reason. Append-only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

ARCHIVE_HEADER = (
    "# Archive\n\nEntries memory-sleep removed from MEMORY.md, newest last, with the reason. "
    "Nothing here is deleted; copy a line back into MEMORY.md to restore it.\n"
)


@dataclass(frozen=True)
class ArchiveRecord:
    """One removed (or rewritten) entry."""

    day: date
    section: str
    entry: str
    reason: str


def append_records(current: str | None, records: Sequence[ArchiveRecord]) -> str:
    """archive.md with `records` appended under a heading per day (the file is created if missing)."""
    text = current if current else ARCHIVE_HEADER
    if not records:
        return text
    if not text.endswith("\n"):
        text += "\n"
    last_heading = None
    for line in reversed(text.splitlines()):
        if line.startswith("## "):
            last_heading = line[3:].strip()
            break
    lines = []
    for record in records:
        heading = record.day.isoformat()
        if heading != last_heading:
            lines.append(f"\n## {heading}\n")
            last_heading = heading
        entry = record.entry.removeprefix("- ").removeprefix("* ")
        lines.append(f"- {entry} — from {record.section}; {record.reason}\n")
    return text + "".join(lines)
