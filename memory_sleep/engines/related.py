"""Lexical helpers for LLM engines: the slice of MEMORY.md a batch needs, and whether a text covers another.

Sending only related entries once MEMORY.md is large keeps a nightly run's input tokens flat
however long the history grows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from memory_sleep.models import EntryView
from memory_sleep.text import similarity, tokens

_TAG = re.compile(r"<(/?[A-Za-z_][\w:-]*)")
PER_ITEM = 6
MIN_SCORE = 0.2
COVERED = 0.5


def related_entries(
    entries: Sequence[EntryView],
    texts: Sequence[str],
    topics: Iterable[str | None],
    max_bytes: int,
) -> list[EntryView]:
    """All entries while they fit in `max_bytes`; otherwise those most related to `texts`, in document order.

    Each text gets its best PER_ITEM matches first, then entries of the batch's topics, then the
    rest by score, until the byte budget is spent.
    """
    if sum(_size(entry) for entry in entries) <= max_bytes:
        return list(entries)
    wanted_topics = {topic.lower() for topic in topics if topic}
    entry_words = [tokens(entry.text) for entry in entries]
    chosen: dict[int, float] = {}
    overall: dict[int, float] = {}
    for text in texts:
        words = tokens(text)
        scored = sorted(
            ((similarity(words, other), index) for index, other in enumerate(entry_words)),
            reverse=True,
        )
        for score, index in scored:
            overall[index] = max(overall.get(index, 0.0), score)
        for score, index in scored[:PER_ITEM]:
            if score >= MIN_SCORE:
                chosen[index] = max(chosen.get(index, 0.0), score)
    ranked = sorted(chosen, key=lambda index: -chosen[index])
    ranked += [
        index
        for index, entry in enumerate(entries)
        if index not in chosen and entry.topic and entry.topic.lower() in wanted_topics
    ]
    ranked += sorted(
        (index for index, score in overall.items() if score >= MIN_SCORE and index not in set(ranked)),
        key=lambda index: -overall[index],
    )
    picked: set[int] = set()
    spent = 0
    for index in ranked:
        if index in picked:
            continue
        size = _size(entries[index])
        if spent + size > max_bytes:
            continue
        picked.add(index)
        spent += size
    return [entry for index, entry in enumerate(entries) if index in picked]


def covers(text: str, required: str) -> bool:
    """Whether `text` carries `required` (reworded is fine: most of its content words are there)."""
    needed = tokens(required)
    return not needed or len(needed & tokens(text)) / len(needed) >= COVERED


def missing_from(lines: Sequence[str], required: Iterable[str]) -> list[str]:
    """The required texts no line covers."""
    return [need for need in required if not any(covers(line, need) for line in lines)]


def _size(entry: EntryView) -> int:
    return len(entry.text.encode("utf-8")) + len(entry.section) + 16


def as_data(text: str) -> str:
    """Text to place between the prompt's delimiters: anything shaped like a tag loses its '<',
    so a note cannot close `</note_items>` and speak as the prompt."""
    return _TAG.sub(r"‹\1", text)


def as_attribute(text: str | None) -> str | None:
    """Text to place inside a delimiter's attribute: data, and no double quote to end it early."""
    return None if text is None else as_data(text).replace('"', "'")


def entry_data(entries: Sequence[EntryView]) -> list[dict[str, Any]]:
    """Entries as template values, their text marked as data."""
    return [
        {
            "ref": entry.ref,
            "section": as_attribute(entry.section),
            "topic": as_attribute(entry.topic),
            "day": entry.day.isoformat() if entry.day else None,
            "text": as_data(entry.text),
        }
        for entry in entries
    ]
