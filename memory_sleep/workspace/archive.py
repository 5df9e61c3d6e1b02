"""memory/archive.md: every entry removed from MEMORY.md, with the day and the reason. Append-only."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date

ARCHIVE_HEADER = (
    "# Archive\n\nEntries memory-sleep removed from MEMORY.md, newest last, with the reason. "
    "Nothing here is deleted; copy a line back into MEMORY.md to restore it.\n"
)

_HEADING = re.compile(r"^## (\d{4}-\d{2}-\d{2})\s*$")
_RECORD = re.compile(r"^- (?P<entry>.+) — from (?P<section>[^;]+); (?P<reason>.+)$")
_TRIMMED = "MEMORY.md over memory_max_bytes"
_STALE = "stale: no reference since"


def trimmed_reason(limit: int) -> str:
    return f"{_TRIMMED} ({limit:,})"


def stale_reason(last_used: date) -> str:
    return f"{_STALE} {last_used.isoformat()}"


@dataclass(frozen=True)
class ArchiveRecord:
    """One removed (or rewritten) entry."""

    day: date
    section: str
    entry: str
    reason: str

    @property
    def still_true(self) -> bool:
        """Moved out for room or for lack of use, not because anything replaced or finished it."""
        return self.reason.startswith((_TRIMMED, _STALE))


def records_since(text: str, since: date) -> Iterator[ArchiveRecord]:
    """The records archived on `since` or later, oldest first; lines that are not records are skipped
    (people edit archive.md by hand)."""
    lines = text.splitlines()
    start = len(lines)
    for number in range(len(lines) - 1, -1, -1):  # the file is newest last: read only its tail
        heading = _HEADING.match(lines[number])
        if heading and heading.group(1) < since.isoformat():
            break
        if heading:
            start = number
    day = None
    for line in lines[start:]:
        heading = _HEADING.match(line)
        if heading:
            day = _day(heading.group(1))
        elif day and (record := _RECORD.match(line)):
            yield ArchiveRecord(day, record["section"].strip(), record["entry"], record["reason"].strip())


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


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:  # a heading edited into a day that does not exist
        return None
