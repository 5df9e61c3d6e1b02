"""What the strategies measure an entry by: when it was last used, how confident memory still is of
it, and which entries no strategy but an explicit expiry may remove."""

from __future__ import annotations

import functools
from datetime import date
from typing import TYPE_CHECKING

from memory_sleep.sidecar.rows import EntryRow, day_timestamp

if TYPE_CHECKING:  # recall uses `confidence` and `written_at`: not the GC's pydantic models
    from memory_sleep.gc.actions import GcContext

DAY = 86_400.0
PROTECTED = frozenset({"action"})  # an open action stays until it is done (REM archives it then)


def written_at(entry: EntryRow) -> float:
    """Noon UTC of the day it speaks for, else when it was indexed."""
    return (_noon(entry.day) if entry.day else None) or entry.created_at


@functools.lru_cache(maxsize=4096)
def _noon(day: str) -> float | None:
    try:
        return day_timestamp(date.fromisoformat(day))
    except ValueError:
        return None


def last_used(entry: EntryRow, context: GcContext) -> float:
    """When it was last written, returned by recall, referenced by a note or restored."""
    return max(written_at(entry), entry.last_accessed_at or 0.0, context.used.get(entry.id, 0.0))


def confidence(importance: float, since: float, now: float, half_life_days: float) -> float:
    """importance x 0.5 ** (age / half-life): what memory still vouches for after `now - since`."""
    age_days = max(0.0, now - since) / DAY
    return float(importance * 0.5 ** (age_days / half_life_days))


def is_protected(entry: EntryRow, context: GcContext) -> bool:
    """An open action, or the current value of a changed fact (the line that superseded it): only an
    explicit expiry removes them."""
    return context.categories.get(entry.id) in PROTECTED or entry.id in context.replacing
