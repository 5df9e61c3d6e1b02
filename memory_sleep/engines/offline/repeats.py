"""Offline REM: whether a kept item repeats an entry in other words, or gives a person a new address."""

from __future__ import annotations

import re

from memory_sleep.engines.offline import matching, statements
from memory_sleep.language import REPEAT_MARKS
from memory_sleep.text import tokens

_ADDRESS_KINDS = (*matching.IDENTITY_KINDS, "zone")
_PERSONAL_KINDS = ("zone", "email", "handle")
_REPEATED = 0.6  # share of a self-declared repeat's words an entry must hold
_SAYS_REPEAT = re.compile(
    r"^\W*(?:\d{1,2}:\d{2}\W*)?(?:" + "|".join(map(re.escape, REPEAT_MARKS)) + r")\b\s*[,:—–-]?",
    re.IGNORECASE,
)


def says_repeat(text: str) -> bool:
    """The note says it repeats: "Recap: ...", "To confirm: ..."."""
    return _SAYS_REPEAT.search(text) is not None


def same_address(text: str, other: str, projects: frozenset[str]) -> bool:
    """Both give one subject the same time zone, e-mail, handle, host, IP, URL or channel, and no
    other value: "Cy timezone: Europe/London" and "Cy works from Europe/London time", not
    "Oli works from Europe/London time" (the same names, or what each is about named in the other)."""
    if matching.values_conflict(text, other):
        return False
    own, theirs = matching.typed_values(text), matching.typed_values(other)
    if not any(own.get(kind, frozenset()) & theirs.get(kind, frozenset()) for kind in _ADDRESS_KINDS):
        return False
    if any(own.get(kind, frozenset()) - theirs.get(kind, frozenset()) for kind in _ADDRESS_KINDS):
        return False  # "new IP is 10.0.9.42 (10.0.4.17 is decommissioned)": it gives another address too
    named, named_other = _people(text, projects), _people(other, projects)
    if named or named_other:
        return named == named_other
    about, about_other = matching.subject(text) - projects, matching.subject(other) - projects
    return bool(about and about_other) and (about <= tokens(other) or about_other <= tokens(text))


def new_address(text: str, other: str, projects: frozenset[str]) -> bool:
    """The same person gets another time zone, e-mail, handle or channel: "Eva timezone:
    America/Sao_Paulo" after "Eva works from America/Los_Angeles time"."""
    own, theirs = matching.typed_values(text), matching.typed_values(other)
    kinds = [kind for kind in _PERSONAL_KINDS if kind in own and kind in theirs]
    if not kinds or not all(own[kind].isdisjoint(theirs[kind]) for kind in kinds):
        return False
    named = _people(text, projects)
    return bool(named) and named == _people(other, projects)


def _people(text: str, projects: frozenset[str]) -> frozenset[str]:
    """The capitalised names a statement gives, less project names and a time zone's words."""
    zones = matching.typed_values(text).get("zone", frozenset())
    return matching.names(text, projects) - {
        word for zone in zones for word in re.findall(r"[^\W\d_]+", zone)
    }


def repeats(text: str, other: str, other_words: frozenset[str], projects: frozenset[str]) -> bool:
    """An item that says it repeats ("For the record, ...", "... is still pending") repeats the entry
    that holds most of its words, or its values and a word of what they are about, and no other
    value: "For the record, Kai is in Europe/Berlin" and "Kai works from Europe/Berlin time"."""
    if matching.values_conflict(text, other):
        return False
    said = tokens(_SAYS_REPEAT.sub(" ", text)) - projects
    if len(statements.informative(said) & other_words) >= _REPEATED * len(
        statements.informative(said) or said
    ):
        return True
    values = {kind: found for kind, found in matching.typed_values(text).items() if kind != "number"}
    held = matching.typed_values(other)
    if not values or any(found.isdisjoint(held.get(kind, frozenset())) for kind, found in values.items()):
        return False
    value_words = {word for found in values.values() for value in found for word in tokens(value)}
    return bool((said - value_words) & other_words)
