"""Which kept items MEMORY.md receives (issue 15's conservative promotion): what structure shows
durable; the rest stays recallable in the notes and weekly summaries. A decision, lesson, action,
person's role or status change goes; so does a fact, unless it is a stamp (a key whose value is a date
and a clock time, on or before the note's day: "Checked: 2026-03-15 00:07") or a field of a card (see engines/cards.py: a session's,
a check's or a task's fields) that names no value that lasts (an address, host, link, version,
amount, handle, zone, a day) nor the value it replaced. A card's reading (a count or a measure, "Pending:
7") is never promoted, whatever category its key gave it. Nothing here reads the words of one
language."""

from __future__ import annotations

from datetime import date

from memory_sleep.engines.cards import KEYED
from memory_sleep.engines.offline import values
from memory_sleep.engines.recurrence import key_shape
from memory_sleep.models import Category

LASTING = frozenset({"email", "url", "ip", "host", "channel", "handle", "zone", "money"})
_MOMENT = frozenset({"date", "time", "number", "duration", "weekday"})
_TIMESTAMP = frozenset({"date", "time"})


def promoted(category: Category, text: str, day: date, in_card: bool) -> bool:
    """Whether a kept item of `category` (its plain `text`, in the note of `day`) belongs in MEMORY.md."""
    first = text.split("\n", 1)[0]
    if in_card and category not in ("decision", "lesson") and _reading(first):
        return False  # a count or measure among a card's fields ("Pending: 7"): a reading, whatever its key
    if category != "fact":
        return True
    keyed = KEYED.match(first)
    value = values.typed_values(keyed.group(1)) if keyed else {}
    if value.keys() <= _MOMENT and value.keys() >= _TIMESTAMP and max(value["date"]) <= day.isoformat():
        return False  # a stamp: when something happened (not a time planned ahead), not what holds
    if not in_card or values.replaced_values(text):
        return True
    return _names_lasting_value(text)


def _names_lasting_value(text: str) -> bool:
    """An address, host, link, amount, handle, zone, version or a day (no clock time)."""
    kinds = values.typed_values(text)
    versions = kinds.get("version", frozenset())  # "v2.1", "1.5.7"; "0.09" is a reading
    return bool(
        kinds.keys() & LASTING
        or kinds.keys() & _TIMESTAMP == {"date"}
        or any(v.startswith("v") or v.count(".") > 1 for v in versions)
    )


def _reading(line: str) -> bool:
    """A keyed value of a few words around a measurement ("Pending: 7"), naming no day, nor any
    lasting value."""
    kinds = values.typed_values(line)
    return (
        key_shape(line) is not None
        and not kinds.keys() & {"date", "weekday"}
        and not _names_lasting_value(line)
    )
