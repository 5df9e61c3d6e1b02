"""A change told as a pair of keyed lines under one heading or item: "- **之前**: 9 个技能" then "- **现在**: 10
个技能", "**Before:** ..." then "**After:** ...". The subject (the item the pair belongs to, else its heading)
went from the first line's value to the second's: the second states the subject's current value, the first an
old one, which is no current fact. The label words are per language (`[changes]` before_label, now_label in
memory_sleep/languages/*.toml); found per note when it is read, as cards are, and the now line is kept as
what it states, so REM (which sees kept items without their headings) reads the change like "(was X)"."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from memory_sleep.language import BEFORE_LABELS, LEAD_INS, NOW_LABELS
from memory_sleep.models import NoteItem

Label = Literal["before", "now"]
# "- **Now:** 10", "**现在**: 10", "Before: 9", "**之前**（复杂版）: ...": a short key, a colon, a value
_KEYED = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?(?P<key>[^:：*\n()（）]{1,24})(?:\*\*)?\s*(?:[(（][^)）\n]{0,30}[)）])?"
    r"\s*(?:\*\*)?[:：](?:\*\*)?\s*(?P<value>\S.*)$"
)
_MARKUP = re.compile(r"[*`#]+")
_EDGES = re.compile(r"^[\W_]+|[\W_]+$")  # emoji, brackets, list numbers' dots at either end
_NO_WORDS = re.compile(r"^[\d\s\W_]*$")  # "2026-03-15 14:30", "📊": a date or a time names nothing
_LINE_GAP = 2  # the now line follows the before line, a blank line at most between them


@dataclass(frozen=True)
class Pair:
    """The old and the current value of one subject (None when its heading names no subject)."""

    subject: str | None
    before: str
    now: str


def label(text: str) -> tuple[Label, str] | None:
    """The line's label and value when it is one line keyed by a before or a now label."""
    if "\n" in text.strip():
        return None
    match = _KEYED.match(text)
    if match is None:
        return None
    key = " ".join(match.group("key").lower().split())
    kind: Label | None = "before" if key in BEFORE_LABELS else "now" if key in NOW_LABELS else None
    return (kind, match.group("value").strip()) if kind else None


def pairs(items: Iterable[NoteItem]) -> dict[str, Pair]:
    """The pairs among a note's items (in note order), by the ids of both of their lines."""
    found: dict[str, Pair] = {}
    previous: tuple[NoteItem, str] | None = None
    for item in items:
        labelled = label(item.text)
        if labelled is None:
            previous = None
            continue
        kind, value = labelled
        if kind == "now" and previous is not None and _together(previous[0], item):
            pair = Pair(subject(previous[0]), previous[1], value)
            found[previous[0].id] = found[item.id] = pair
        previous = (item, value) if kind == "before" else None
    return found


def is_before(item: NoteItem) -> bool:
    """The item is the old-value line of its pair."""
    labelled = label(item.text)
    return labelled is not None and labelled[0] == "before"


def promoted(item: NoteItem, pair: Pair, otherwise: bool) -> bool:
    """Whether a line of a pair belongs in MEMORY.md: never the old value; the current one as a fact of its
    subject, whatever shape it has (a count among a card's fields); without a subject, as `otherwise`."""
    if is_before(item):
        return False
    return True if pair.subject is not None else otherwise


def _together(before: NoteItem, now: NoteItem) -> bool:
    return (
        before.file == now.file
        and before.headings == now.headings
        and before.lead == now.lead
        and 0 < now.line_start - before.line_end <= _LINE_GAP
    )


def subject(item: NoteItem) -> str | None:
    """What the pair is about: the line introducing its list, else its innermost heading; None when that
    holds no word beyond a date or a time, or only a label ("Update", "Summary")."""
    for place in (item.lead, *reversed(item.headings)):
        if not place:
            continue
        name = _EDGES.sub("", _MARKUP.sub("", place)).strip()
        if _NO_WORDS.match(name) or " ".join(name.lower().split()) in LEAD_INS:
            return None
        return name
    return None


def stated(item: NoteItem, pair: Pair) -> NoteItem:
    """The now line as what it states, a keyed fact of the subject with the old value noted as the engines
    read a change ("技能生态: 10 个技能 (previously: 9 个技能)"); the before line as it is."""
    if is_before(item):
        return item
    now = _MARKUP.sub("", pair.now).strip()
    if pair.subject is None:
        return dataclasses.replace(item, text=now)  # nothing says whose value the old one was
    before = _MARKUP.sub("", pair.before).strip()
    return dataclasses.replace(item, text=f"{pair.subject}: {now} (previously: {before})")
