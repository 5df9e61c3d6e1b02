"""Routine by recurrence: a line whose shape (its words, with every number, hash, time, id and date
masked) comes back day after day is routine, whatever its words say ("HEARTBEAT_OK", "Brain: 3571
memories | Phi: 0.74", "Build #3107 green", a cron report). A note's shapes are counted when it is
read and kept in its state, so a run sees the recent days' shapes without reading their notes again.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date

from memory_sleep.language import LEAD_INS

WINDOW_DAYS = 30  # the days before a note whose shapes count
ROUTINE_DAYS = 3  # a shape on this many days (the item's own included) is routine
ROUTINE_IN_ONE_NOTE = 3  # ... or this many times in one day's notes

_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_INLINE_MARKUP = re.compile(r"[*_`~#>|]")
_HAS_DIGIT = re.compile(r"\S*\d\S*(?:\s[a-z%]{1,3}\b)?")  # "21.9 GB" and "3 PRs" are one value
_HEX = re.compile(r"\b[0-9a-f]{7,}\b")
_SPACE = re.compile(r"\s+")
_LEADING_MASKS = re.compile(r"^(?:[#\[\]()]+\s*)+")
_KEY = re.compile(r"^([^:：]{2,40}?)\s*[:：]\s+(\S.*)")


def _masked(line: str) -> str:
    text = _INLINE_MARKUP.sub("", _LIST_MARK.sub("", line.lower()))
    text = _HEX.sub("#", _HAS_DIGIT.sub("#", text))
    return _LEADING_MASKS.sub("", _SPACE.sub(" ", text).strip())  # a timestamp before the line


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=5).hexdigest()


def line_shape(line: str) -> str:
    """A short digest of the line with markup dropped and every value (a token holding a digit, with a
    short unit after it, or a hex hash) masked: "- **14:02** Brain: 3571 memories" and "09:30 Brain:
    3612 memories" share it."""
    return _digest(_masked(line))


def key_shape(line: str) -> str | None:
    """The shape of the key of a keyed reading, a line whose value measures something ("**Backup:** ok,
    21.9 GB" -> "backup"); none for a label that names no subject ("Decision:", "Correction:", see
    lead_ins in languages/*.toml)."""
    match = _KEY.match(_masked(line))
    if match is None or match.group(1) in LEAD_INS or "#" not in match.group(2):
        return None  # no key, a label, or a value that measures nothing ("Atlas: blocked on the API key")
    return "k" + _digest(match.group(1))[1:]


def note_shapes(first_lines: Iterable[str]) -> dict[str, int]:
    """How often each shape occurs among a note's items (by each item's first line), keys included."""
    shapes: Counter[str] = Counter()
    for line in first_lines:
        if line.strip():
            shapes[line_shape(line)] += 1
            key = key_shape(line)
            if key is not None:
                shapes[key] += 1
    return dict(shapes)


@dataclass(frozen=True)
class Recurrence:
    """The shapes of the notes of recent days: shape -> day -> occurrences."""

    days_by_shape: Mapping[str, Mapping[date, int]] = field(default_factory=dict)

    def with_notes(self, notes: Iterable[tuple[date, Mapping[str, int]]]) -> Recurrence:
        """These shapes and those of more notes (day, shapes)."""
        found = {shape: dict(by_day) for shape, by_day in self.days_by_shape.items()}
        for day, shapes in notes:
            for shape, count in shapes.items():
                by_day = found.setdefault(shape, {})
                by_day[day] = by_day.get(day, 0) + count
        return Recurrence(found)

    def is_routine(self, line: str, day: date, by_key: bool = True) -> bool:
        """The line's shape, or with `by_key` its key's ("Build:", "Uptime:": a reading whose value
        changes every time), recurs: on ROUTINE_DAYS days up to `day` within WINDOW_DAYS, or
        ROUTINE_IN_ONE_NOTE times on `day`. Later days never count, so a line gets the verdict on the
        first run that it gets night by night."""
        key = key_shape(line) if by_key else None
        return self._recurs(line_shape(line), day) or (key is not None and self._recurs(key, day))

    def _recurs(self, shape: str, day: date) -> bool:
        by_day = self.days_by_shape.get(shape)
        if not by_day:
            return False
        if by_day.get(day, 0) >= ROUTINE_IN_ONE_NOTE:
            return True
        recent = [seen for seen in by_day if seen <= day and (day - seen).days < WINDOW_DAYS]
        return len(recent) >= ROUTINE_DAYS
