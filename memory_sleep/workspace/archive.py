"""memory/archive.md: every entry removed from MEMORY.md, with the day and the reason. Append-only.

A record of an entry that stopped being true ends with how and when, and by what:
`[superseded 2026-11-25 by memory/2026-11-25.md:14]`, `[done 2026-11-20 by memory/2026-11-20.md:9]`,
`[finished 2026-11-30]`; the sidecar derives every indexed item's validity from these.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal, get_args

from memory_sleep.models import Category
from memory_sleep.text import ENDING, similarity, tokens, without_ending
from memory_sleep.workspace.layout import DAILY_NOTE_NAME
from memory_sleep.workspace.memory_doc import Entry, entry_from_display

Status = Literal["superseded", "done", "finished", "expired"]
STATUSES: tuple[str, ...] = get_args(Status)

ARCHIVE_HEADER = (
    "# Archive\n\nEntries memory-sleep removed from MEMORY.md, newest last, with the reason. "
    "Nothing here is deleted; copy a line back into MEMORY.md to restore it.\n"
)

_HEADING = re.compile(r"^## (\d{4}-\d{2}-\d{2})\s*$")
_RECORD = re.compile(r"^- (?P<entry>.+) — from (?P<section>[^;]+); (?P<reason>.+)$")
SAME_STATEMENT = 0.8
SAME_RESTATEMENT = 0.9
_STATED_DAY = re.compile(r"\((\d{4}-\d{2}-\d{2})\)(?: \[[^\]]*\])?$")
# a weekly summary's line: "- fact: Pim is @pim on GitHub (2026-09-19)", maybe with its ending
_SUMMARY_LINE = re.compile(
    rf"^(?:[-*] )?(?:{'|'.join(get_args(Category))}): (?P<said>.*) \(\d{{4}}-\d{{2}}-\d{{2}}\)$"
)
_TRIMMED = "MEMORY.md over memory_max_bytes"
_STALE = "stale: no reference since"


def trimmed_reason(limit: int) -> str:
    return f"{_TRIMMED} ({limit:,})"


def stale_reason(last_used: date) -> str:
    return f"{_STALE} {last_used.isoformat()}"


@dataclass(frozen=True)
class Ending:
    """When and how an entry stopped being true, and what ended it (the note line, or the entry)."""

    status: Status
    day: date
    by: str | None = None

    def render(self) -> str:
        by = f" by {self.by}" if self.by else ""
        return f"[{self.status} {self.day.isoformat()}{by}]"


@dataclass(frozen=True)
class ArchiveRecord:
    """One removed (or rewritten) entry; `ended` when it stopped being true (not when moved for room)."""

    day: date
    section: str
    entry: str
    reason: str
    ended: Ending | None = None
    line: int = field(default=0, compare=False)  # its line in archive.md, once read from there

    @property
    def still_true(self) -> bool:
        """Moved out for room or for lack of use, not because anything replaced or finished it."""
        return self.reason.startswith((_TRIMMED, _STALE))


def archive_text(path: Path) -> str:
    """archive.md's text as `path.read_text(encoding="utf-8", errors="replace")` gives it ("" when there
    is none): bytes that are not UTF-8 replaced, every line ending read as "\n". Decoded whole rather
    than through a text stream, which took ten times as long on a year's archive (1.4 MB, read by GC
    and by the index's validity pass each night)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return ""
    return raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


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
    records = _records(text)
    yield from records[bisect_right([record.line for record in records], start) :]


@dataclass(frozen=True)
class _Read:
    text: str
    records: tuple[ArchiveRecord, ...]
    lines: int
    day: date | None  # of the last heading: the day of records appended below it


_last_read: list[_Read] = []


@lru_cache(maxsize=4)
def _records(text: str) -> tuple[ArchiveRecord, ...]:
    """Every record of archive.md's text, read once per text: a run, its GC and the index after it
    read the file several times; a text that only appends to the one read last (archive.md is
    append-only) reads just the lines appended."""
    last = _last_read[0] if _last_read else None
    if last is None or not last.text.endswith("\n") or not text.startswith(last.text):
        last = _Read("", (), 0, None)
    tail = text[len(last.text) :].splitlines()
    found, day = records_in(tail, last.lines + 1, last.day)
    _last_read[:] = [_Read(text, (*last.records, *found), last.lines + len(tail), day)]
    return _last_read[0].records


def records_in(
    lines: Sequence[str], first_line: int = 1, day: date | None = None
) -> tuple[list[ArchiveRecord], date | None]:
    """The records among archive.md's `lines` (numbered from `first_line`), those before a heading of
    their own archived on `day` (the last heading above them); and the day of the last heading read.
    The file is append-only: its appended lines are read starting from what the lines above left."""
    found = []
    for number, line in enumerate(lines, first_line):
        heading = _HEADING.match(line)
        if heading:
            day = _day(heading.group(1))
        elif day and (record := _RECORD.match(line)):
            reason, ended = _ending(record["reason"].strip())
            found.append(
                ArchiveRecord(day, record["section"].strip(), record["entry"], reason, ended, number)
            )
    return found, day


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
        ended = f" {record.ended.render()}" if record.ended else ""
        lines.append(f"- {entry} — from {record.section}; {record.reason}{ended}\n")
    return text + "".join(lines)


def _day(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:  # a heading edited into a day that does not exist
        return None


def _ending(reason: str) -> tuple[str, Ending | None]:
    match = ENDING.match(reason)
    day = _day(match["day"]) if match else None
    if match is None or day is None:
        return reason, None
    return match["rest"].strip(), Ending(match["status"], day, match["by"])  # type: ignore[arg-type]


Latest = dict[str, tuple[tuple[str, str | None, date | None], Ending | None]]  # by entry key


@dataclass(frozen=True)
class _Ended:
    text: str
    records: int  # how many of the text's records `latest` holds
    latest: Latest


_last_ended: list[_Ended] = []


def ended_statements(text: str, appended: Sequence[ArchiveRecord] = ()) -> list[tuple[Entry, Ending]]:
    """Each entry archive.md's `text` (and then `appended`) records as stopped being true, with its latest
    ending (a record of the same entry appended later, e.g. superseded after it was archived for room,
    wins). A run asks this of the file three times (GC, cleanup, the index's validity), the last time
    with the run's records appended: a text that only appends to the one read last reads just those."""
    last = _last_ended[0] if _last_ended else None
    if last is None or not last.text.endswith("\n") or not text.startswith(last.text):
        last = _Ended("", 0, {})
    if last.text != text:
        records, latest = _records(text), dict(last.latest)
        _latest(latest, records[last.records :])
        last = _Ended(text, len(records), latest)
        _last_ended[:] = [last]
    latest = last.latest
    if appended:
        latest = dict(latest)
        _latest(latest, appended)
    return [(Entry(*said), ended) for said, ended in latest.values() if ended is not None]


def superseded_by_day(statements: Iterable[tuple[Entry, Ending]]) -> dict[date, tuple[str, ...]]:
    """What a line of each day's note superseded, by that day ("superseded by memory/2026-11-02.md:36"):
    the statements an entry written from that day's note may be the new value of. archive.md names the
    note line, not the entry it became, so an engine tells which of a day's statements an entry replaced."""
    found: dict[date, list[str]] = {}
    for entry, ending in statements:
        named = DAILY_NOTE_NAME.match(PurePosixPath(ending.by.rpartition(":")[0]).name) if ending.by else None
        day = _day(named.group(0)[:10]) if named else None  # a hand-edited record may name no real day
        if ending.status == "superseded" and day is not None:
            found.setdefault(day, []).append(entry.text)
    return {day: tuple(texts) for day, texts in found.items()}


def _latest(latest: Latest, records: Iterable[ArchiveRecord]) -> None:
    for record in records:
        found = _displayed(record.entry.removeprefix("- ").removeprefix("* "))
        if found is not None:
            key, said = found
            latest.pop(key, None)  # keep the order of the last record
            latest[key] = (said, record.ended)


def displayed_entry(line: str) -> tuple[str, Entry] | None:
    """`entry_from_display(line)` (a copy of its own) with its key; archive.md's lines are read by
    several steps of a run, each line is parsed once (or read from the parse of the run before: see
    `parse_from`)."""
    found = _displayed(line)
    if found is None:
        return None
    key, (text, topic, day) = found
    return key, Entry(text, topic, day)


Displayed = tuple[str, tuple[str, str | None, date | None]] | None  # a line's entry: key, (text, topic, day)


class Unknown:
    """What an earlier parse says of a line it did not read."""


UNKNOWN = Unknown()
EarlierParse = Callable[[str], "Displayed | Unknown"]  # what parsing a line gave an earlier run


@dataclass
class _Parse:
    """The archive lines' entries parsed this run (`now`), reading first what an earlier run parsed."""

    earlier: EarlierParse = field(default=lambda _: UNKNOWN)
    now: dict[str, Displayed] = field(default_factory=dict)


_parse = _Parse()
_MOST_LINES = 1 << 16


def parse_from(earlier: EarlierParse) -> dict[str, Displayed]:
    """Start a run's parse of archive lines, reading what `earlier` says of a line (what parsing it
    gave a run before) before parsing it; the dict of the lines this run reads, which it fills. The
    ended statements read from the last parse go with it: a run's are read from its own."""
    _parse.earlier, _parse.now = earlier, {}
    _last_ended.clear()
    return _parse.now


def _displayed(line: str) -> Displayed:
    if line in _parse.now:
        return _parse.now[line]
    found = _parse.earlier(line)
    if isinstance(found, Unknown):
        entry = entry_from_display(line)
        found = None if entry is None else (entry.key, (entry.text, entry.topic, entry.day))
    if len(_parse.now) >= _MOST_LINES:  # a long-lived process that starts no run: as a bounded cache
        _parse.now.clear()
    _parse.now[line] = found
    return found


def stated_day(line: str) -> date | None:
    """The day a summary line states for its item ("... (2026-11-25)", maybe followed by its ending)."""
    match = _STATED_DAY.search(line)
    return _day(match.group(1)) if match else None


def stated_words(line: str) -> frozenset[str]:
    """The words of what a note or summary line states: a weekly summary's line without the category
    label it opens with, the day it states for its item and the ending marked after it. A short
    statement has no words to spare: "Pim is @pim on GitHub" is two words, which
    "- fact: Pim is @pim on GitHub (2026-09-19)" must say alone to state it."""
    line = without_ending(line)
    summary = _SUMMARY_LINE.match(line)
    return tokens(summary["said"] if summary else line)


def says_the_same(old: frozenset[str], text: frozenset[str], restated: bool = False) -> bool:
    """Whether a note line (or weekly line) states what an archived entry said: the smaller of the two
    token sets lies almost all in the other (lines are shortened, entries get a topic); all but one
    word in ten for a line of another day than the entry's (a restatement, not its source)."""
    if min(len(old), len(text)) < 3:
        return old == text
    return similarity(old, text) >= (SAME_RESTATEMENT if restated else SAME_STATEMENT)


def may_say_the_same(shared: int, old: int, text: int) -> bool:
    """Whether token sets of `old` and `text` words, `shared` of them in both, can pass `says_the_same`
    at all: a bound that needs no set operation, to skip most pairs before comparing them."""
    return shared >= SAME_STATEMENT * min(old, text)
