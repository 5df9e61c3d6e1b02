"""What a merge or a summary must not lose: each original's numbers, dates, names, handles and open actions.

The check is structural (values and capitalised names, compared as written), so it can hold any
engine to it: a merged statement that drops "5432", "2026-12-01", "@raj" or "Maya Chen" from one of
the statements it replaces is rejected, whoever wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_sleep.engines.offline.values import mentions_value, typed_values
from memory_sleep.engines.related import covers
from memory_sleep.sidecar.rows import CONTEXT_JOIN
from memory_sleep.text import tokens
from memory_sleep.workspace.memory_blocks import SECTION_FOR

_IN_IDENTIFIER = frozenset("./-_@#")
_TITLED = re.compile(r"\b[^\W\d_][^\W_]*\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?;:]\s+|[—–(]\s*|\]\s*|[-*+]\s+)$")


def key_details(text: str, known_names: frozenset[str] = frozenset()) -> list[str]:
    """The details of `text` a restatement must keep: its typed values and plain numbers, and its names
    (capitalised words not at a sentence's start, or at one when `known_names` has them)."""
    values = sorted({value for values in typed_values(text).values() for value in values})
    return list(dict.fromkeys(values + sorted(names_in(text) | (_titled_words(text) & known_names))))


def names_in(text: str) -> frozenset[str]:
    """Capitalised words inside a sentence ("Chen" in "Maya Chen leads design"), lower-cased: the
    first word of a sentence is capitalised whatever it is, so it is left out."""
    return frozenset(
        match.group(0).lower()
        for match in _TITLED.finditer(text)
        if match.group(0)[0].isupper()
        and not _SENTENCE_START.search(text[: match.start()])
        and text[match.start() - 1 : match.start()] not in _IN_IDENTIFIER  # "Agent" of "Cost.Agent"
        and match.group(0).lower() in tokens(match.group(0))
    )


def _titled_words(text: str) -> frozenset[str]:
    return frozenset(m.group(0).lower() for m in _TITLED.finditer(text) if m.group(0)[0].isupper())


def lost_details(originals: Sequence[str], kept: str, open_actions: Sequence[str] = ()) -> list[str]:
    """The details of `originals` that `kept` does not carry, and the open actions (texts among the
    originals) it does not restate; empty when `kept` may stand for them all."""
    known = frozenset().union(*(names_in(text) for text in originals)) if originals else frozenset()
    lost: list[str] = []
    for text in originals:
        for detail in key_details(text, known):
            if not mentions_value(kept, detail) and detail not in lost:
                lost.append(detail)
    lost.extend(f"open action “{action}”" for action in open_actions if not covers(kept, action))
    return lost


_OPEN_BOX = re.compile(r"^\s*(?:[-*+]\s+)?\[ \]\s")


def is_open_action(context: str, text: str) -> bool:
    """An entry of MEMORY.md's action section (its context starts with the section's title), or a note
    item with an unticked checkbox."""
    return context.split(CONTEXT_JOIN, 1)[0] == SECTION_FOR["action"] or _OPEN_BOX.match(text) is not None
