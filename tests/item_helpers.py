"""Note items for unit tests of the phases and the offline engine."""

from __future__ import annotations

from datetime import date

from memory_sleep.models import ItemKind, NoteItem


def note_item(text: str, day: date = date(2026, 11, 20), kind: ItemKind = "line") -> NoteItem:
    """One item of the day's note, at line 3."""
    return NoteItem(
        id="i1", file=f"memory/{day.isoformat()}.md", day=day, line_start=3, line_end=3, kind=kind, text=text
    )
