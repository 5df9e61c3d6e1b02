"""TTL: entries past their expiry go. An expiry comes from the note's front matter (`expires:`), an
inline marker on the item (`expires: 2026-12-31`, `ttl: 7d`), or `[memory.gc.ttl] category_days` for
the entry's category (or the reason NREM discarded it: `debug = 7`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime

from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.gc.signals import DAY, written_at
from memory_sleep.sidecar.rows import EntryRow, day_timestamp

# markers are syntax, like front matter keys, not words of a language
MARKER = re.compile(r"(?<![\w-])(expires|ttl)\s*:\s*(\d{4}-\d{2}-\d{2}|\d+\s*[hdwmy]\b)", re.IGNORECASE)
UNIT_DAYS = {"h": 1 / 24, "d": 1, "w": 7, "m": 30, "y": 365}


def inline_expiry(text: str, written: float) -> tuple[float, str] | None:
    """The expiry an inline marker sets (Unix seconds) and the marker, or None."""
    found = MARKER.search(text)
    if found is None:
        return None
    value = found.group(2)
    if found.group(1).lower() == "expires" and "-" in value:
        try:
            return day_timestamp(date.fromisoformat(value)), found.group(0)
        except ValueError:
            return None
    if "-" in value:
        return None
    amount, unit = int(value[:-1].strip()), value[-1].lower()
    return written + amount * UNIT_DAYS[unit] * DAY, found.group(0)


def expiry(entry: EntryRow, context: GcContext) -> tuple[float, str] | None:
    """When an entry expires and why (the earliest of its expiries), or None."""
    found: list[tuple[float, str]] = []
    marker = inline_expiry(entry.text, written_at(entry))
    if marker is not None:
        found.append((marker[0], marker[1]))
    if entry.expires_at is not None:  # the indexer's: front matter's or the marker's, the earlier
        found.append((entry.expires_at, "expires: in front matter"))
    category = context.categories.get(entry.id)
    days = context.config.ttl.category_days.get(category or "")
    if days is not None:
        found.append((written_at(entry) + days * DAY, f"{category} entries live {days} days"))
    return min(found, key=lambda expiry: expiry[0]) if found else None  # a tie: the first named


@dataclass
class Ttl:
    name: StrategyName = "ttl"

    def plan(self, context: GcContext) -> list[GcAction]:
        actions = []
        for entry in context.entries:
            until = expiry(entry, context)
            if until is None or until[0] > context.now:
                continue
            day = datetime.fromtimestamp(until[0], UTC).date()
            actions.append(
                GcAction(
                    strategy=self.name,
                    op="soft_delete",
                    ids=[entry.id],
                    reason=f"expired {day.isoformat()} ({until[1]})",
                    day=day,
                )
            )
        return actions
