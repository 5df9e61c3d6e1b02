"""Absence notices ("Ana is out from 2026-11-08 for 10 days", "heads-up: Ben on leave 2026-12-05,
4 days", "Xia's leave from 2026-12-24 is now 14 days (was 3 days)", "Ben ist vom 2026-12-01 bis
2026-12-05 im Urlaub"): who is away, from when, until when. The words for being away, for a last day
and for a length are each language's (memory_sleep/languages/, the `away` cues).

An absence is an event, not a fact that changes: two notices about the same person and start date
tell of one absence (the same, or a new length of it); two start dates are two absences; and once
the last day is past, the notice is about finished business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from memory_sleep.engines.offline import cues
from memory_sleep.text import LOWER, UPPER

_NAME = rf"[{UPPER}][{LOWER}]{{1,20}}"
# the name right before the words for being away (cues.AWAY): "Ana is out", "Ben on leave", "Xia's leave"
_NAME_BEFORE = re.compile(rf"(?<![\w'])(?P<name>{_NAME})\s*$")
# a notice that opens with the name (the text's, a sentence's or a label's first word), then at most two
# words before its first day: "Ben ist vom 2026-12-01 ...", "Info: Ana 2026-12-02 ..."
_NAME_FIRST = re.compile(
    rf"(?:^|[;.!?:]\s)\W*(?P<name>{_NAME})(?:\s+[^\s\d]\S*){{0,2}}?\s+(?=\d{{4}}-\d{{2}}-\d{{2}}\b)"
)
_NEAR = 30  # characters between the words for being away, the first day and the length
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_LENGTH = re.compile(rf"\b(\d{{1,3}})\s*(?:(?P<days>{cues.AWAY_DAYS})|{cues.AWAY_WEEKS})", re.IGNORECASE)
_UNTIL = re.compile(rf"{cues.AWAY_UNTIL}\s+(\d{{4}}-\d{{2}}-\d{{2}})\b", re.IGNORECASE)
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


def _read(claim: str) -> tuple[Absence, str, int | None] | None:
    """The absence `claim` tells of, the person's name as written, and where what tells it ends (its
    last date or length; None when the words for being away come after it, as German puts them)."""
    before = _named_before(claim)
    found = before or _named_first(claim)
    if found is None:
        return None
    name, dated = found
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
        days = int(length.group(1)) * (1 if length.group("days") else 7)
        end, told = start + timedelta(days=max(1, days) - 1), length.end()
    return Absence(person=name.lower(), start=start, end=end), name, told if found is before else None


def _named_before(claim: str) -> tuple[str, re.Match[str]] | None:
    """The name right before the words for being away, and the first day just after them."""
    for away in cues.AWAY.finditer(claim):
        named = _NAME_BEFORE.search(claim, 0, away.start())
        dated = _DATE.search(claim, away.end(), away.end() + _NEAR) if named else None
        if named and dated:
            return named.group("name"), dated
    return None


def _named_first(claim: str) -> tuple[str, re.Match[str]] | None:
    """The name a notice opens with, and its first day, when the words for being away follow that day
    ("Ben ist vom 2026-12-01 bis 2026-12-05 im Urlaub")."""
    for named in _NAME_FIRST.finditer(claim):
        dated = _DATE.match(claim, named.end())
        if dated and cues.AWAY_AFTER_DAYS.search(claim, dated.end(), dated.end() + _NEAR):
            return named.group("name"), dated
    return None


def ended_before(text: str, today: date) -> Absence | None:
    """The absence `text` tells of, if its last day is before `today`."""
    found = absence(text)
    return found if found is not None and found.end < today else None


def describe(away: Absence, text: str) -> str:
    """One unambiguous line for an absence: who, first and last day, length ("Ana on leave 2026-12-12
    to 2026-12-25 (14 days)"), whatever shape the note gave it; the person's name as the note wrote it,
    and what the notice says after its dates as it said it ("; Marco covers reviews"). A notice that
    says where the person is after its days ("Ben ist vom 2026-12-01 bis 2026-12-05 im Urlaub") is
    kept in its own words."""
    claim = _OLD.sub(" ", text)
    read = _read(claim)
    if read is not None and read[2] is None:
        return " ".join(claim.split()).rstrip(".")
    name = read[1] if read else away.person.title()
    days = (away.end - away.start).days + 1
    line = f"{name} on leave {away.start.isoformat()}"
    if days > 1:
        line += f" to {away.end.isoformat()} ({days} days)"
    rest = claim[read[2] :].strip().rstrip(".") if read and read[2] is not None else ""
    if not rest.strip(" ,;:.—–-"):
        return line
    return line + (rest if rest[0] in ",;:—–" else f" {rest}")
