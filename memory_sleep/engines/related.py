"""Helpers for LLM engines: the candidate entries that fit a prompt's budget, whether a text covers
another, and text marked as data.

The candidate step (memory_sleep/cycle/candidates.py) chose the entries a batch is shown, best first;
cutting them to a byte budget keeps a nightly run's input tokens flat however long the history grows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from memory_sleep.models import EntryView
from memory_sleep.text import tokens

_TAG = re.compile(r"<(/?[A-Za-z_][\w:-]*)")
COVERED = 0.5


def within_bytes(entries: Sequence[EntryView], max_bytes: int) -> list[EntryView]:
    """The entries in their order (the candidate step's, best first) while they fit in `max_bytes`."""
    kept: list[EntryView] = []
    spent = 0
    for entry in entries:
        size = _size(entry)
        if spent + size <= max_bytes:
            kept.append(entry)
            spent += size
    return kept


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
