"""What a run left in MEMORY.md: the entries it wrote, the projects it made, the supersedes it noted."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from quality.textmatch import containment, current_text, informative_tokens

from memory_sleep.workspace.memory_doc import PROJECTS, MemoryDocument, ProjectBlock

ACTIONS = "Action items"
SAME = 0.6  # share of one text's tokens found in the other for the two to say the same thing
_PREVIOUSLY = re.compile(r"\(previously:\s*")
_NAME = re.compile(r"[\W_]+")


@dataclass(frozen=True)
class Written:
    """An entry of the final MEMORY.md that the original did not hold (added, updated or superseded)."""

    section: str
    text: str  # as written, "(previously: ...)" included


def read_doc(path: Path) -> MemoryDocument:
    return MemoryDocument.parse(path.read_text(encoding="utf-8") if path.exists() else "")


def written_entries(original: MemoryDocument, final: MemoryDocument) -> list[Written]:
    before = {" ".join(entry.text.split()) for _, entry in original.entries()}
    return [
        Written(section.title, entry.text)
        for section, entry in final.entries()
        if " ".join(entry.text.split()) not in before
    ]


def project_names(document: MemoryDocument) -> list[str]:
    return [
        block.name
        for section in document.sections
        if section.title == PROJECTS
        for block in section.blocks
        if isinstance(block, ProjectBlock)
    ]


def invented_projects(
    original: MemoryDocument, final: MemoryDocument, real: Sequence[Sequence[str]]
) -> list[str]:
    """Projects the runs made that are none of the real ones (by any of their spellings)."""
    known = {_squash(name) for name in project_names(original)}
    aliases = [_squash(alias) for names in real for alias in names]
    made = [name for name in project_names(final) if _squash(name) not in known]
    return [name for name in made if not any(_same_name(_squash(name), alias) for alias in aliases)]


def _squash(name: str) -> str:
    return _NAME.sub("", name.casefold())


def _same_name(name: str, alias: str) -> bool:
    if name == alias:
        return True
    shorter = min(len(name), len(alias))
    return shorter >= 3 and (name in alias or alias in name)


def says_same(item_text: str, entry_text: str) -> float:
    """How well an entry restates an item: the larger containment either way (an entry may be a cut
    or a rewording of a long item), the entry's "(previously: ...)" left out."""
    item = informative_tokens(item_text)
    entry = informative_tokens(current_text(entry_text))
    backward = containment(entry, item) if len(entry) >= 3 else 0.0
    return max(containment(item, entry), backward)


def best_match(text: str, candidates: Iterable[str]) -> tuple[float, str | None]:
    best: tuple[float, str | None] = (0.0, None)
    for candidate in candidates:
        score = says_same(text, candidate)
        if score > best[0]:
            best = (score, candidate)
    return best


def previous_value(entry_text: str) -> str | None:
    """The text inside an entry's first "(previously: ...)", or None."""
    match = _PREVIOUSLY.search(entry_text)
    if match is None:
        return None
    depth = 1
    for index in range(match.end(), len(entry_text)):
        depth += {"(": 1, ")": -1}.get(entry_text[index], 0)
        if depth == 0:
            return entry_text[match.end() : index]
    return entry_text[match.end() :]


def superseded_lines(final: MemoryDocument, archive: Path) -> list[str]:
    """Every line of MEMORY.md and archive.md that notes a supersede."""
    lines = [entry.text for _, entry in final.entries()]
    if archive.exists():
        lines += archive.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if previous_value(line) is not None]
