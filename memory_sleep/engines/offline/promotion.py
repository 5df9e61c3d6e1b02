"""Which kept items MEMORY.md receives (issue 15's conservative promotion): what structure shows
durable; the rest stays recallable in the notes and weekly summaries. A decision, lesson, action,
person's role or status change goes; so does a fact, unless it is a stamp (a key whose value is a date
and a clock time, on or before the note's day: "Checked: 2026-03-15 00:07") or a field of a card (see engines/cards.py: a session's,
a check's or a task's fields) that names no value that lasts (an address, host, link, version,
amount, handle, zone, a day) nor the value it replaced. Nothing here reads the words of one
language."""

from __future__ import annotations

from datetime import date

from memory_sleep.engines.cards import KEYED
from memory_sleep.engines.offline import matching
from memory_sleep.models import Category

LASTING = frozenset({"email", "url", "ip", "host", "channel", "handle", "zone", "money"})
_MOMENT = frozenset({"date", "time", "number", "duration", "weekday"})
_TIMESTAMP = frozenset({"date", "time"})


def promoted(category: Category, text: str, day: date, in_card: bool) -> bool:
    """Whether a kept item of `category` (its plain `text`, in the note of `day`) belongs in MEMORY.md."""
    if category != "fact":
        return True
    keyed = KEYED.match(text.split("\n", 1)[0])
    value = matching.typed_values(keyed.group(1)) if keyed else {}
    if value.keys() <= _MOMENT and value.keys() >= _TIMESTAMP and max(value["date"]) <= day.isoformat():
        return False  # a stamp: when something happened (not a time planned ahead), not what holds
    if not in_card or matching.replaced_values(text):
        return True
    kinds = matching.typed_values(text)
    versions = kinds.get("version", frozenset())  # "v2.1", "1.5.7"; "0.09" is a reading
    return bool(
        kinds.keys() & LASTING
        or kinds.keys() & _TIMESTAMP == {"date"}
        or any(v.startswith("v") or v.count(".") > 1 for v in versions)
    )
