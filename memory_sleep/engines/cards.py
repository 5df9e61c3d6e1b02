"""Cards: three or more `Key: value` lines making up most of a section ("**Checked:** 00:07", "**Load:**
0.09", "**Session ID:** f1b5…") record one moment (a session, a check, a task), as a table row or front
matter does. Found per note when it is read, whatever the language of the keys; so are the paragraphs
that open a section (the sentence saying what the section is about)."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from memory_sleep.models import NoteItem

CARD_FIELDS = 3  # a section of at least this many `Key: value` items, most of its items, is a card
# "- **Key:** value", "**Key**: value", "Key: value" (a key of at most three words), with an ASCII or a
# full-width colon; "shadow run over the weekend: 0 diffs" is a sentence, not a field
_KEY = r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:\*\*[^*\n]{1,60}?(?:[:：]\*\*|\*\*\s*[:：])|[^\s:：]{1,24}(?:\s[^\s:：]{1,24}){0,2}(?::(?=\s|$)|：))"
KEYED = re.compile(_KEY + r"\s*(\S.*)")
LABEL = re.compile(_KEY + r"\s*$")  # a key alone on its line: its value is laid out below it


def section_openers(items: Iterable[NoteItem]) -> set[str]:
    """The ids of a note's items that open a section: the first item under a heading, a paragraph."""
    seen: set[tuple[str, ...]] = set()
    found: set[str] = set()
    for item in items:
        if item.headings and item.headings not in seen and item.kind in ("line", "paragraph"):
            found.add(item.id)
        seen.add(item.headings)
    return found


def card_fields(items: Iterable[NoteItem]) -> set[str]:
    """The ids of a note's items that are fields of a card."""
    sections: dict[tuple[str, ...], list[NoteItem]] = defaultdict(list)
    for item in items:
        sections[item.headings].append(item)
    fields: set[str] = set()
    for members in sections.values():
        keyed = [item.id for item in members if KEYED.match(item.text.split("\n", 1)[0])]
        if len(keyed) >= CARD_FIELDS and len(keyed) * 2 >= len(members):
            fields.update(keyed)
    return fields
