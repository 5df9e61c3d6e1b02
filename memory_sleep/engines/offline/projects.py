"""Which projects a run's notes name, and which one an item is about: memory, front matter, a "Project:
X" line, a note file's topic on two days, or a word that opens headings on two days and stands as a
name; never one bracketed tag or a link's text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from memory_sleep.engines.offline import cues
from memory_sleep.models import NoteItem

# the number after the name ends where its digits do: "Phase 1完成" is numbered 1 (CJK text is glued on)
_PROJECT_IN_HEADING = re.compile(
    r"^(?:project[:\s]+)?([A-Z][\w.-]{1,30})(?:\s+project)?\b(?:\s+#?(\d+)(?!\d))?"
)
_MARKS = re.compile(r"^[^\w\[\]()]+")  # emoji and marks a heading opens with, but a bracket
# "Project: Apollo", "**Project:** Apollo": a keyed line names the project; running text, a bracketed
# tag ("[Apollo]") or a link's text never does
_EXPLICIT_PROJECT = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*(?i:project):?\*\*:?|(?i:project):)\s*([A-Z][\w.-]{1,30})", re.M
)
# what may follow a name that is a heading of its own: nothing, a number, or a separator ("Orion — deploy")
_STANDS_ALONE = re.compile(r"^\s*(?:$|[—–:(|/·#-]|\d)")


def section_subject(item: NoteItem) -> str | None:
    """The name a heading above the item gives its section and the item names too ("Quokka milestone
    reached" under "## Quokka" or "# Quokka retro"): what it reports on, a project known or not yet."""
    for heading in reversed(item.headings):
        match = _PROJECT_IN_HEADING.match(_MARKS.sub("", heading))  # "## ☕ Quokka" names Quokka here
        if (
            match
            and match.group(1).lower() not in cues.GENERIC_HEADINGS
            and mentions(item.text, [match.group(1)])
        ):
            return match.group(1)
    return None


def _counts_parts(ordinals: Sequence[str | None]) -> bool:
    """A word always followed by a number that changes ("Cycle 1", "Cycle 2", "Phase 3") counts the
    parts of something; it names no project. One that keeps its number ("Phase 2") may."""
    return None not in ordinals and len(set(ordinals)) > 1


def known_projects(items: Sequence[NoteItem], known: Sequence[str]) -> tuple[list[str], list[str]]:
    """Projects by how sure we are: named in memory, front matter or a "Project: X" line (strong), or
    only the first word of headings on two or more days (weak). One bracketed tag or a link's text
    makes no project."""
    strong = set(known)
    heading_days: dict[str, set[date]] = {}
    alone: set[str] = set()  # words that are a heading of their own ("## Orion", "### Orion — deploy")
    ordinals: dict[str, list[str | None]] = {}  # the number after the word in each heading naming it
    file_days: dict[str, set[date]] = {}
    for item in items:
        if item.project_hint and item.project_hint[:1].isupper():
            if _names_the_file(item):  # "2026-03-15-FINAL.md": a project only if it recurs across days
                file_days.setdefault(item.project_hint, set()).add(item.day)
            else:
                strong.add(item.project_hint)
        for match in _EXPLICIT_PROJECT.finditer(item.text):
            name = match.group(1)
            if name.lower() not in cues.GENERIC_HEADINGS:
                strong.add(name)
        for heading in item.headings[1:]:
            for match in _EXPLICIT_PROJECT.finditer(heading):  # "## Project: Apollo"
                if match.group(1).lower() not in {*cues.GENERIC_HEADINGS, "project"}:
                    strong.add(match.group(1))
            heading_match = _PROJECT_IN_HEADING.match(heading)
            if heading_match and heading_match.group(1).lower() not in cues.GENERIC_HEADINGS:
                heading_days.setdefault(heading_match.group(1), set()).add(item.day)
                ordinals.setdefault(heading_match.group(1), []).append(heading_match.group(2))
                if _STANDS_ALONE.match(heading[heading_match.end(1) :]):
                    alone.add(heading_match.group(1))
    strong |= {name for name, days in file_days.items() if len(days) >= 2}
    weak = {
        word for word, days in heading_days.items() if len(days) >= 2 and not _counts_parts(ordinals[word])
    } - strong
    named = {word for word in weak if word in alone or _written_as_name(word, items)}
    return _longest_first(strong), _longest_first(named)


def _written_as_name(word: str, items: Sequence[NoteItem]) -> bool:
    """Whether the notes' text writes a word that opens headings as a name: capitalised within a
    sentence ("moved Orion to ..."), more often than in lower case. "Key", of "### Key Details" and
    "### Key Features", is a word of the language: capitalised only where a line starts, "the key
    is ..." elsewhere."""
    within = re.compile(rf"(?:[\w,;:)]\s+|[\u3040-\u30ff\u4e00-\u9fff]\s*){re.escape(word)}(?![\w-])")
    lower = re.compile(rf"(?<![\w./`@#-]){re.escape(word.lower())}(?![\w./`@-])")
    named = sum(len(within.findall(item.text)) for item in items)
    return named > 0 and named > sum(len(lower.findall(item.text)) for item in items)


def _names_the_file(item: NoteItem) -> bool:
    """Whether the item's project hint is its note's file-name topic rather than front matter's."""
    stem = item.file.rsplit("/", 1)[-1].removesuffix(".md")
    return stem[11:] == item.project_hint and stem[10:11] in ("-", "_")


def _longest_first(names: set[str]) -> list[str]:
    return sorted(names, key=lambda name: (-len(name), name))


def mentions(text: str, names: Sequence[str]) -> str | None:
    lowered = text.lower()
    for name in names:
        if re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", lowered):
            return name
    return None


def topic(item: NoteItem, strong: Sequence[str], weak: Sequence[str]) -> str | None:
    """The project an item is about: named in it, else in its headings, else the note's project."""
    for names in (strong, weak):
        found = mentions(item.text, names) or mentions(item.lead or "", names)
        for heading in reversed(item.headings):
            found = found or mentions(heading, names)
        if found:
            return found
        if names is strong and item.project_hint:
            return mentions(item.project_hint, strong) or None
    return None
