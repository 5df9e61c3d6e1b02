"""Stack traces and metadata lines: output pasted into a note, or fields describing the note, never
memory. Routine lines in general are found by recurrence (memory_sleep/engines/recurrence.py), not by
their words."""

from __future__ import annotations

import re
from datetime import date

from memory_sleep.engines.offline import values

STACK_TRACE = re.compile(
    r"^Exception in thread\b"
    r"|^\s*(?:Caused by:\s*)?(?:[a-z_]\w*\.)+[A-Z]\w*(?:Exception|Error)\b"
    r"|^panic: |^goroutine \d+ \[|^thread '[^']+' panicked at\b",
    re.MULTILINE,
)
_MARKUP = re.compile(r"[*_`]+")
# a field: a short key, an ASCII or full-width colon, a value ("优先级：P0", "Phi: 0.74")
_FIELD = re.compile(r"^\s*[^\s:：|][^:：|]{0,23}[:：]\s*\S")
# a value made only of tags: "[系统维护] [自检]", "#ops #backup" (a "#3107" is an issue, not a tag)
_TAG = re.compile(r"\[[^\[\]\n]+\]|#[^\W\d][\w-]*")
_TAGS_ONLY = re.compile(rf"^[^:：]{{1,24}}[:：]\s*(?:(?:{_TAG.pattern})\s*)+$")
_LIST_MARK = re.compile(r"^(?:[-+]|\d+[.)])\s+")
_FIELD_VALUE = re.compile(r"^[^:：]{1,24}[:：]\s*(?P<value>.+)$")
_DAY = re.compile(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b|(\d{4})年(\d{1,2})月(\d{1,2})日")
# what a stamp holds beside its day: clock times, a time zone ("UTC", "UTC+8", "WITA"), a weekday in
# parentheses, the marks of a range
_STAMP_PARTS = re.compile(
    r"\d{1,2}:\d{2}(?::\d{2})?|\b[A-Z]{2,5}(?:[+-]\d{1,2})?\b|\([A-Za-z]+\)|[-–—→~至到()（）,]|\bto\b"
)


def is_stack_trace(text: str) -> bool:
    return STACK_TRACE.search(text) is not None


def is_metadata(line: str) -> bool:
    """A line of fields about the note rather than a statement: a key whose value is only tags, or two
    or more `Key: value` fields on one line between "|" ("Type: [task] | Priority: P0 | Status: done")."""
    plain = _MARKUP.sub("", line).strip()
    if _TAGS_ONLY.match(plain) and (len(_TAG.findall(plain)) > 1 or not values.typed_values(plain)):
        return True  # one "#billing-eng" alone may be a channel: a value, not a tag
    parts = plain.split("|")
    return len(parts) >= 2 and all(_FIELD.match(part) for part in parts)


def stamps_the_note(line: str, day: date) -> bool:
    """A field whose value is only when its note (or session) was written: the note's own day, with
    clock times, a time zone or a weekday ("**Date:** 2026-02-07", "创建时间: 2026-03-13 00:15",
    "⏰ 当前时间: 2026-03-12 23:45:59 (Thursday)"). A field naming another day states a date worth
    keeping (a deadline, a launch); one naming only a clock time may be a fact ("Standup: 10:00")."""
    match = _FIELD_VALUE.match(_LIST_MARK.sub("", _MARKUP.sub("", line).strip()))
    if match is None:
        return False
    days = [_day(found) for found in _DAY.findall(match.group("value"))]
    rest = _STAMP_PARTS.sub(" ", _DAY.sub(" ", match.group("value")))
    return bool(days) and all(said == day for said in days) and not rest.strip()


def _day(found: tuple[str, ...]) -> date | None:
    """The day of a `_DAY` match; None for one no calendar has ("2026-02-30")."""
    year, month, number = (int(part) for part in (found[:3] if found[0] else found[3:]))
    try:
        return date(year, month, number)
    except ValueError:
        return None
