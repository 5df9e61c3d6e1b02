"""Which MEMORY.md entries later notes still use, offline: the stale rule archives only entries nobody
referenced.

An entry is referenced when a note item restates it (most of its words, and mostly the same words),
and a People entry also when a kept item names the person it is about (the first capitalised name).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date

from memory_sleep.language import LEAD_IN_WORDS
from memory_sleep.models import EntryView, NoteItem
from memory_sleep.text import LOWER, UPPER, jaccard, tokens, without_history

_RESTATES = 0.6  # share of the entry's words (and of the union) a repeat must carry
_LEADING_WORDS = LEAD_IN_WORDS | {"working", "met", "again", "for", "the"}  # words a line may start with
_NAME = re.compile(rf"\b[{UPPER}][{LOWER}]{{2,}}\b")


def restated_entries(entries: Sequence[EntryView], repeats: Sequence[NoteItem]) -> list[tuple[str, date]]:
    """The entry (its ref) each repeat restates (most of its words, and mostly the same words), with
    the day of the note."""
    known_words = [(entry, tokens(without_history(entry.text))) for entry in entries]
    found = []
    for item in repeats:
        words = tokens(item.text)
        best, best_score = None, 0.0
        for entry, known in known_words:
            if not known:
                continue
            shared = len(words & known) / len(known)
            if shared >= _RESTATES and jaccard(words, known) >= _RESTATES / 2 and shared > best_score:
                best, best_score = entry, shared
        if best is not None:
            found.append((best.ref, item.day))
    return found


def people_named(
    entries: Sequence[EntryView], items: Iterable[NoteItem], projects: Iterable[str] = ()
) -> list[tuple[str, date]]:
    """The People entries (their refs) whose person (the first name in the entry) a later item names,
    with the day of the note."""
    ignore = {name.lower() for name in projects} | _LEADING_WORDS
    people = [
        (entry, names[0])
        for entry in entries
        if entry.section == "People" and (names := person_names(entry.text, ignore))
    ]
    found = []
    for item in items:
        named = set(person_names(item.text, ignore))
        for entry, person in people:
            if person in named and (entry.day is None or entry.day <= item.day):
                found.append((entry.ref, item.day))
    return found


def person_names(text: str, ignore: Iterable[str] = ()) -> list[str]:
    """Capitalised words that may name a person or an organisation ("Yara", "Wayne"), lower-cased, in
    order: the first is whom a People entry is about ("Yara moved to ..., ping Oli")."""
    skip = set(ignore) | _LEADING_WORDS
    found = (name.lower() for name in _NAME.findall(without_history(text)))
    return list(dict.fromkeys(name for name in found if name not in skip))
