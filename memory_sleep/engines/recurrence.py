"""Routine by recurrence: a line whose shape (its words, with every number, hash, time, id and date
masked) comes back day after day is routine, whatever its words say ("HEARTBEAT_OK", "Brain: 3571
memories | Phi: 0.74", "Build #3107 green", a cron report). A note's shapes are counted when it is
read and kept in its state, so a run sees the recent days' shapes without reading their notes again.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta

from memory_sleep.engines.offline.matching import IDENTITY_KINDS
from memory_sleep.engines.offline.values import typed_values
from memory_sleep.language import LEAD_INS
from memory_sleep.text import CJK_RANGES, DATE, INLINE_MARKUP, LIST_MARK, deadline_in

# a line is routine when its shape, or the key of a reading, comes on ROUTINE_DAYS of the last
# WINDOW_DAYS days: a weekly report is routine by its third week
WINDOW_DAYS = 30
ROUTINE_DAYS = 3
READING_WORDS = 5  # a reading's value is a few words around a measurement ("# unread, none urgent")
ROUTINE_IN_ONE_NOTE = 3  # ... or this many times in one day's notes
# ... or a line's shape this many times with as many different values, over two days or more:
# "disk 77% used" one day, "disk 24% used" and "disk 61% used" the next is a series of readings
ROUTINE_READINGS = 3
_DISTINCT = "="  # before a shape: how many different values a note gave it, when fewer than its count
# before a shape and its values: a note said the shape with those values (kept for shapes said with at
# most ROUTINE_READINGS different values in the note; more is a series whatever the values); alone,
# the key says the note's shapes record their values (a state written before they did says nothing)
_SAID = "~"
_WITHIN = "+"  # before a shape: how often the note's items said it besides on their first lines
SHAPE_CHARS = 400  # a shape is read from a line's start: masking a pasted 1 MB line must stay cheap

# "21.9 GB" and "3 PRs" are one value; a value ends where CJK text starts, as a space ends it: written
# with no space between, "面积：49.65%" is a key and its value, not one token masked whole
_HAS_DIGIT = re.compile(rf"[^\s{CJK_RANGES}]*\d[^\s{CJK_RANGES}]*(?:\s[a-z%]{{1,3}}\b)?")
_HEX = re.compile(r"\b[0-9a-f]{7,}\b")
# a setting's name before its value ("cache_ttl_s=64"): the name is what the line is about, the value
# what it reads, so "cache_ttl_s=64" and "retry_max=5" are two settings, not two readings of one
_ASSIGNED = re.compile(r"([a-z_][a-z_.]*=)(?=[^\s=])")
_SPACE = re.compile(r"\s+")
_JOINERS = frozenset("\ufe0e\ufe0f\u200d")  # a pictograph's variation selectors and joiner
_LEADING_MASKS = re.compile(r"^(?:[#\[\]()]+\s*)+")
_KEY = re.compile(r"^([^:：]{2,40}?)\s*[:：]\s+(\S.*)")
_VERSION = re.compile(r"\bv?\d+\.\d+\.\d+\b|\bv\d+(?:\.\d+)?\b")
# an identifier: ASCII letters and digits joined by "-", "/", ".", ":" or "@" ("feat/login",
# "#ops-alerts", "src/app/main.ts"), read after markup is dropped and values masked
_IDENTIFIER = re.compile(r"[a-z0-9./:@-]*[a-z0-9][-/.:@][a-z0-9][a-z0-9./:@-]*")
SENTENCE_WORDS = 3  # words besides values and identifiers that make a sentence, not a field naming one
# a status bar: fields between "·", "|", "—", a comma, a semicolon or a sentence's end ("tokens used today:
# 44k. inbox: 9 unread"), each a reading; the last key of a field is what it reads ("heartbeat: tokens used
# today: 58k" reads "tokens used today")
_FIELD_END = re.compile(r"\s+[·|•—–]\s+|[,;，；]\s+|(?<=[^\W\d_])[.!]\s+|(?<=\d[a-z%])[.!]\s+")
_LAST_KEY = re.compile(r"(?:.*[:：]\s+)?([^:：]{2,40}?)\s*[:：]\s+(\S[^:：]*)$")
STATUS_BAR_READINGS = 2  # readings that make a line a status bar


def _masked(line: str) -> str:
    text = _undecorated(INLINE_MARKUP.sub("", LIST_MARK.sub("", line[:SHAPE_CHARS].lower())))
    text = _HEX.sub("#", _HAS_DIGIT.sub("#", _ASSIGNED.sub(r"\1 ", text)))
    return _LEADING_MASKS.sub("", _SPACE.sub(" ", text).strip())  # a timestamp before the line


def _undecorated(text: str) -> str:
    """The text without pictographs and their joiners ("lunch break 🟡", "lunch break ☕"): a mark
    decorating a line says nothing of its shape."""
    return "".join(char for char in text if char not in _JOINERS and unicodedata.category(char) != "So")


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=5).hexdigest()


def line_shape(line: str) -> str:
    """A short digest of the line with markup dropped and every value (a token holding a digit, with a
    short unit after it, or a hex hash) masked: "- **14:02** Brain: 3571 memories" and "09:30 Brain:
    3612 memories" share it."""
    return _digest(_masked(line))


def _names_only(line: str) -> bool:
    """Every value the line holds is part of a name: a host, an address, a link, a handle ("Host:
    gristmill-db-01.int.example.net"): it says what a thing is called or where it is, not a reading of
    it. Two such lines with other values are two things (two cards' hosts), not a series."""
    values = _values(line)
    if not values:
        return False
    names = [
        name.lower() for kind, found in typed_values(line).items() if kind in IDENTITY_KINDS for name in found
    ]
    return all(any(value in name for name in names) for value in values)


def key_shape(line: str) -> str | None:
    """The shape of the key of a keyed reading: a key of words and a value that is mostly measurements
    ("**Backup:** ok, 21.9 GB" -> "backup", "Brain: 3571 memories | Phi: 0.74" -> "brain"); none for a
    label that names no subject ("Decision:", "Correction:", see lead_ins in languages/*.toml)."""
    match = _KEY.match(_masked(line))
    if match is None or "#" in match.group(1) or match.group(1) in LEAD_INS:
        return None  # no key, a key that is itself a value ("Fornax v0.14:"), or a label
    value = match.group(2).split()
    if "#" not in value or len(value) > READING_WORDS or _names_only(line):
        return None  # no measurement (a name is none), or a sentence ("Apollo: blocked on the API key")
    return "k" + _digest(match.group(1))[1:]


def reading_keys(line: str) -> frozenset[str]:
    """The shapes of the keys of a status bar's readings: a line of STATUS_BAR_READINGS fields or more
    each a key and a few words around a measurement ("tokens used today: 44k. inbox: 9 unread", "heartbeat:
    tokens used today: 37k | inbox: 7 unread | CI green" both read "tokens used today" and "inbox");
    none for a line of fewer. Written another way each day, the bar still reads the same keys."""
    keys = set()
    for part in _FIELD_END.split(line[:SHAPE_CHARS]):
        match = _LAST_KEY.match(_masked(part))
        if match is None or "#" in match.group(1) or match.group(1) in LEAD_INS:
            continue
        value = match.group(2).split()
        if "#" in value and len(value) <= READING_WORDS:
            keys.add("r" + _digest(match.group(1))[1:])
    return frozenset(keys) if len(keys) >= STATUS_BAR_READINGS else frozenset()


def sentence_shape(line: str) -> str | None:
    """The shape of a sentence with identifiers masked as values are: "synced `docs/api` to the wiki"
    and "synced `docs/guide` to the wiki" share it, as a status line naming one channel or another
    does, and a line naming no identifier has its own shape as this one. None for a line whose
    words besides values and identifiers are too few for a sentence ("Repo: org/app"): a field of another
    thing each day may be news each day."""
    sentence = _IDENTIFIER.sub("#", _masked(line))
    words = [word for word in sentence.split() if "#" not in word and any(char.isalpha() for char in word)]
    return _digest(sentence) if len(words) >= SENTENCE_WORDS else None


def note_shapes(first_lines: Iterable[str], inner_lines: Iterable[str] = ()) -> dict[str, int]:
    """How often each shape occurs among a note's items (by each item's first line), keys included;
    and, for the day's own count (ROUTINE_IN_ONE_NOTE), how often among the items' other lines: a line
    said again within one item ("[heartbeat] no new messages" six times in a paragraph) recurs within
    the day as one said in items of its own does. Other days see only first lines: a field inside
    one item each day (a card's "Tests: 17") is no line of its own written day after day."""
    inner = Counter(shape for line in inner_lines if line.strip() for shape in _shapes(line))
    shapes: Counter[str] = Counter()
    readings: dict[str, set[tuple[str, ...]]] = {}
    keys: set[str] = set()  # a series is read from a line's own shape and its sentence's, not its key's
    for line in first_lines:
        if line.strip():
            shape, values, key = line_shape(line), _values(line), key_shape(line)
            shapes[shape] += 1
            readings.setdefault(shape, set()).add(values)
            for other in (key, sentence_shape(line)):
                if other is not None and other != shape:
                    shapes[other] += 1
                    readings.setdefault(other, set()).add(values)
            for reading in reading_keys(line):
                shapes[reading] += 1
            keys.add(key or "")
    distinct = {_DISTINCT + shape: len(said) for shape, said in readings.items() if len(said) < shapes[shape]}
    said = {
        _said(shape, values): 1
        for shape, values_said in readings.items()
        if len(values_said) <= ROUTINE_READINGS and shape not in keys
        for values in values_said
        if values
    }
    within = {_WITHIN + shape: count for shape, count in inner.items()}
    return {**shapes, **distinct, **said, _SAID: 1, **within} if shapes else {}


def _shapes(line: str) -> set[str]:
    """The line's own shape, its key's and its sentence's."""
    return {shape for shape in (line_shape(line), key_shape(line), sentence_shape(line)) if shape is not None}


def _said(shape: str, values: tuple[str, ...]) -> str:
    return _SAID + _digest(shape + "\0" + "\0".join(values))


def _values(line: str) -> tuple[str, ...]:
    """What a line's shape masks: its numbers, hashes and identifiers ("77%", "db-01")."""
    text = INLINE_MARKUP.sub("", LIST_MARK.sub("", line[:SHAPE_CHARS].lower()))
    return tuple(_HAS_DIGIT.findall(text) + _HEX.findall(text) + _IDENTIFIER.findall(text))


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
        """The line's shape comes on ROUTINE_DAYS of the last WINDOW_DAYS days or ROUTINE_IN_ONE_NOTE
        times on `day`; or, with `by_key`, it is a reading whose key does ("Build:", "Uptime:": a value
        that changes every time). Days after `day` never count, so a line gets the verdict on a first
        run that it gets night by night. Recurrence says nothing of a line naming another day than its
        own (a deadline, a leave) and a line's shape nothing of a release (a version): each time, they
        state something new."""
        head = line[:SHAPE_CHARS]
        if _names_another_day(head, day):
            return False
        if not _VERSION.search(head):
            shape, sentence = line_shape(line), sentence_shape(line)
            readings = bool(_values(line)) and not _names_only(line)
            if self._recurs(shape, day, readings) or (
                sentence not in (None, shape) and self._recurs(sentence, day, readings)
            ):
                return True
        if not by_key:
            return False
        key = key_shape(line)
        return (key is not None and self._recurs(key, day)) or self._status_bar(line, day)

    def _status_bar(self, line: str, day: date) -> bool:
        """A status bar half of whose readings' keys recur (`_recurs`): "tokens used today: 44k · inbox:
        9 unread" after "heartbeat: tokens used today: 58k, inbox: 11 unread" and others, or a day's bar
        in another language that still reads "inbox"."""
        keys = reading_keys(line)
        return bool(keys) and 2 * sum(self._recurs(key, day) for key in keys) >= len(keys)

    def series_day(self, line: str, day: date) -> date | None:
        """The day later notes showed the line (of a note of `day`) to be a reading of a series: its
        shape said with ROUTINE_READINGS different values within WINDOW_DAYS days, over two days or
        more, counting only other values than the line's own on other days. The same line said again
        (a task copied day after day, a fact restated) is no series; a line with no value or naming
        another day never is, nor by its shape one naming a version. Or a reading whose key came with
        other values on ROUTINE_DAYS days (_key_series). None while no such day has come."""
        head, values = line[:SHAPE_CHARS], _values(line)
        if not values or _names_another_day(head, day) or _names_only(line):
            return None
        key, own = key_shape(line), line_shape(line)
        found = [self._key_series(key, own, values, day)] if key is not None else []
        readings = reading_keys(line)
        bar = sorted(seen for reading in readings if (seen := self._key_series(reading, own, values, day)))
        if bar and 2 * len(bar) >= len(readings):
            found.append(bar[(len(readings) + 1) // 2 - 1])  # the day half its keys were series
        if not _VERSION.search(head):
            shapes = {line_shape(line), sentence_shape(line)} - {None}
            found.extend(self._series(shape, values, day) for shape in shapes if shape is not None)
        return min((seen for seen in found if seen is not None), default=None)

    def _key_series(self, key: str, own: str, values: tuple[str, ...], day: date) -> date | None:
        """The day a reading's key ("Deploy:", "dependabot:") came, with other values than the line's own,
        on ROUTINE_DAYS days of the window: the reading that key's routine verdict (is_routine) would
        have found on a later day, a release's version included, as it is there. A day that said only
        the line's own values again (a fact restated) does not count."""
        by_day = self.days_by_shape.get(key, {})
        same = self.days_by_shape.get(_said(own, values), {})
        recorded = self.days_by_shape.get(_SAID, {})

        def other(seen: date, said: int) -> bool:
            return seen == day or (said - same.get(seen, 0) if seen in recorded else said - 1) > 0

        said_other = sorted(seen for seen, said in by_day.items() if other(seen, said))
        for index, shown in enumerate(said_other):
            if day < shown and (shown - day).days < WINDOW_DAYS and index + 1 >= ROUTINE_DAYS:
                first = bisect.bisect_left(said_other, shown - timedelta(days=WINDOW_DAYS - 1))
                if index + 1 - first >= ROUTINE_DAYS:
                    return shown
        return None

    def _series(self, shape: str, values: tuple[str, ...], day: date) -> date | None:
        by_day = self.days_by_shape.get(shape, {})
        distinct = self.days_by_shape.get(_DISTINCT + shape, {})
        same = self.days_by_shape.get(_said(shape, values), {})
        recorded = self.days_by_shape.get(_SAID, {})

        def readings(seen: date) -> int:
            """The values said on `seen`: all of them on the line's own day, else the other ones (at
            least one of them may be the line's own when the note did not record which)."""
            said = distinct.get(seen, by_day[seen])
            if seen == day:
                return said
            return said - same.get(seen, 0) if seen in recorded else max(said - 1, 0)

        for shown in sorted(seen for seen in by_day if day < seen and (seen - day).days < WINDOW_DAYS):
            window = [seen for seen in by_day if seen <= shown and (shown - seen).days < WINDOW_DAYS]
            if readings(shown) and sum(readings(seen) for seen in window) >= ROUTINE_READINGS:
                return shown
        return None

    def _recurs(self, shape: str, day: date, readings: bool = False) -> bool:
        """The shape comes on ROUTINE_DAYS days of the window or ROUTINE_IN_ONE_NOTE times on `day`;
        with `readings` (a line's own shape with values in it, not its key's), also with ROUTINE_READINGS
        different values over two days or more. The same values count once: "Port: 8343" one day and "Port: 9000" twice
        the next (the day's summary restating it) is one new value, not a series of readings; a line
        with no value ("- [ ] archive the old repo", then "- [x] ...") is never a series."""
        by_day = self.days_by_shape.get(shape)
        if not by_day:
            return False
        within = self.days_by_shape.get(_WITHIN + shape, {})
        if by_day.get(day, 0) + within.get(day, 0) >= ROUTINE_IN_ONE_NOTE:
            return True
        recent = [seen for seen in by_day if seen <= day and (day - seen).days < WINDOW_DAYS]
        if readings and len(recent) >= 2:
            distinct = self.days_by_shape.get(_DISTINCT + shape, {})
            if sum(distinct.get(seen, by_day[seen]) for seen in recent) >= ROUTINE_READINGS:
                return True
        return len(recent) >= ROUTINE_DAYS


def _names_another_day(text: str, day: date) -> bool:
    """An ISO date ("2026-11-21") or a CJK one ("11月21日") other than `day`, or a deadline on another
    day however it is written ("due 12/01", "by 29 Nov", "before Friday")."""
    for match in DATE.finditer(text):
        year, month, of_month, cjk_month, cjk_day = match.groups()
        named = (int(year), int(month), int(of_month)) if year else (day.year, int(cjk_month), int(cjk_day))
        if named != (day.year, day.month, day.day):
            return True
    return deadline_in(text, day) not in (None, day)
