"""Saved conversations: a note that holds an agent's chat session, its turns opening lines with "user:"
and "assistant:" (as a session log writes them). What is said in a conversation (a question, an offer,
a reply listing what was done) is no note the agent wrote to keep: from the note's first turn on, its
items stay recallable in the note and are not promoted to MEMORY.md by their words. Found per note when
it is read, as cards are (engines/cards.py): a batch of a note's items may hold no turn of its own."""

from __future__ import annotations

import re
from collections.abc import Iterable

from memory_sleep.models import NoteItem

SPEAKERS = ("user", "assistant")  # the roles a saved chat session labels its turns with
_TURN = re.compile(rf"^({'|'.join(SPEAKERS)}):", re.M)


def conversation_items(items: Iterable[NoteItem]) -> set[str]:
    """The ids of a note's items from its first turn on, when turns of both speakers open its lines (an
    item's first line or another: "Current time: ...\\nassistant: NO_REPLY" is one paragraph)."""
    listed = list(items)
    first: dict[str, int] = {}
    for item in listed:
        for turn in _TURN.finditer(item.text):
            line = item.line_start + item.text.count("\n", 0, turn.start())
            first[turn.group(1)] = min(first.get(turn.group(1), line), line)
    if len(first) < len(SPEAKERS):
        return set()
    start = min(first.values())
    return {item.id for item in listed if item.line_start >= start}
