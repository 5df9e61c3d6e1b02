"""Absence notices ("Ana is out from 2026-11-08 for 10 days", "heads-up: Ben on leave 2026-12-05,
4 days", "Xia's leave from 2026-12-24 is now 14 days (was 3 days)"): who is away, from when, until when.

An absence is an event, not a fact that changes: two notices about the same person and start date
tell of one absence (the same, or a new length of it); two start dates are two absences; and once
the last day is past, the notice is about finished business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from memory_sleep.text import LOWER, UPPER

# a name right before the words for being away: "Ana is out", "Ben on leave", "Xia's leave"
_AWAY = re.compile(
    rf"\b(?P<name>[{UPPER}][{LOWER}]{{1,20}})(?i:'s\s+(?:leave|vacation|holidays?|time off|pto|parental leave)\b"
    r"|\s+(?:is\s+|will be\s+|goes\s+)?(?:on (?:leave|vacation|holidays?|pto|parental leave|sick leave)"
    r"|out of (?:the )?office|ooo)\b|\s+(?:is|will be)\s+(?:out|away|off)\b)"
)
_NEAR = 30  # characters between the words for being away, the first day and the length
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_LENGTH = re.compile(r"\b(\d{1,3})\s*(days?|weeks?)\b", re.IGNORECASE)
_UNTIL = re.compile(
    r"\b(?:until|till|through|thru|to|back on|returns on|returning)\s+(\d{4}-\d{2}-\d{2})\b", re.I
)
# what a notice says is no longer so: "(was 3 days)", "(previously: ...)"
_OLD = re.compile(r"\((?:was|were|previously|before|formerly)\b[^)]*\)|\s*\(previously: .*$", re.IGNORECASE)


@dataclass(frozen=True)
class Absence:
    """One person away from `start` to `end`, both days included."""

    person: str
    start: date
    end: date


@lru_cache(maxsize=16_384)
def absence(text: str) -> Absence | None:
    """The absence a notice tells of: the person named just before the word for being away, the
    first date, and the length ("for 5 days", ", 2 weeks") or last day ("until 2026-12-20");
    a notice without either is one day. None when the text is no absence notice."""
    found = _read(_OLD.sub(" ", text))
    return found[0] if found else None


def _read(claim: str) -> tuple[Absence, str, int] | None:
    """The absence `claim` tells of, the person's name as written, and where what tells it ends (its
    last date or length)."""
    away = _AWAY.search(claim)
    if away is None:
        return None
    dated = _DATE.search(claim, away.end(), away.end() + _NEAR)
    if dated is None:
        return None
    try:
        start = date(int(dated.group(1)), int(dated.group(2)), int(dated.group(3)))
    except ValueError:
        return None
    end, told = start, dated.end()
    until = _UNTIL.search(claim, dated.end())
    length = _LENGTH.search(claim, dated.end(), dated.end() + _NEAR)
    if until is not None:
        end, told = max(start, date.fromisoformat(until.group(1))), until.end()
    elif length is not None:
        days = int(length.group(1)) * (7 if length.group(2).lower().startswith("week") else 1)
        end, told = start + timedelta(days=max(1, days) - 1), length.end()
    name = away.group("name")
    return Absence(person=name.lower(), start=start, end=end), name, told


def ended_before(text: str, today: date) -> Absence | None:
    """The absence `text` tells of, if its last day is before `today`."""
    found = absence(text)
    return found if found is not None and found.end < today else None


def describe(away: Absence, text: str) -> str:
    """One unambiguous line for an absence: who, first and last day, length ("Ana on leave 2026-12-12
    to 2026-12-25 (14 days)"), whatever shape the note gave it; the person's name as the note wrote it,
    and what the notice says after its dates as it said it ("; Marco covers reviews")."""
    claim = _OLD.sub(" ", text)
    read = _read(claim)
    name = read[1] if read else away.person.title()
    days = (away.end - away.start).days + 1
    line = f"{name} on leave {away.start.isoformat()}"
    if days > 1:
        line += f" to {away.end.isoformat()} ({days} days)"
    rest = claim[read[2] :].strip().rstrip(".") if read else ""
    if not rest.strip(" ,;:.—–-"):
        return line
    return line + (rest if rest[0] in ",;:—–" else f" {rest}")
