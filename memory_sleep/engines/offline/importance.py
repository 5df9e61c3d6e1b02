"""Importance without a model: from an entry's category, its structure and how often it recurs.

What lasts is worth more than what reports: a decision or a lesson outlives a status line, and noise
the run discarded (heartbeats, routine readings, debug output) is worth least. Typed values (a
number, a date, a handle, a link) make an entry something an agent looks up; a statement written on
several days is one the agent keeps coming back to; MEMORY.md's entries were already chosen as
worth keeping, the archive's were moved out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_sleep.engines.base import RatedEntry

BY_CATEGORY = {
    "decision": 0.8,
    "lesson": 0.8,
    "relationship": 0.7,
    "fact": 0.65,
    "action": 0.65,
    "status": 0.4,
    "debug": 0.15,
    "routine": 0.1,
    "heartbeat": 0.05,
}
UNKNOWN = 0.45
BY_KIND = {"memory": 0.1, "project": 0.1, "weekly": 0.0, "note": -0.05, "archive": -0.15}
TYPED_VALUE = re.compile(r"\d|@\w|https?://|`[^`]+`")
TYPED_BONUS = 0.05
RECURRENCE_BONUS = 0.05  # per further day the statement was written on, up to three
NOISE = frozenset({"debug", "routine", "heartbeat"})


class OfflineRater:
    def rate(self, entries: Sequence[RatedEntry]) -> dict[int, float]:
        return {entry.id: _importance(entry) for entry in entries}


def _importance(entry: RatedEntry) -> float:
    value = BY_CATEGORY.get(entry.category or "", UNKNOWN)
    if entry.category not in NOISE:
        value += BY_KIND.get(entry.kind, 0.0)
        if TYPED_VALUE.search(entry.text):
            value += TYPED_BONUS
        value += RECURRENCE_BONUS * min(3, max(0, entry.days_written - 1))
    return round(min(1.0, max(0.0, value)), 3)
