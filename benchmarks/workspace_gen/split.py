"""Reference item splitter: the unit rules the ground truth is keyed by.

memory-sleep's parser is expected to split notes the same way; the test suite checks that
every generated file splits into exactly the items recorded in ground-truth.json.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

HEADING = re.compile(r"^#{1,6}\s")
FENCE = re.compile(r"^(```|~~~)")
TABLE_ROW = re.compile(r"^\|")
BULLET = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s")
INDENTED = re.compile(r"^[ \t]+\S")
TIMESTAMP = re.compile(r"^(?:\*\*)?\[?\d{1,2}:\d{2}(?::\d{2})?\]?(?:\*\*)?(?:\s|$)")
BOLD_KEY = re.compile(r"^\*\*[^*\n]{1,60}?(?::\*\*|\*\*:)(?:\s|$)")


@dataclass(frozen=True)
class SplitItem:
    """One item: 1-based line of its first line, that line, and its kind."""

    line: int
    text: str
    kind: str  # bullet | line | paragraph | code | table


def front_matter_end(lines: list[str]) -> int:
    """Index of the first line after YAML front matter (0 when there is none)."""
    if not lines or lines[0].strip() != "---":
        return 0
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            return index + 1
    return 0


def split_items(text: str) -> list[SplitItem]:
    """Split a note into items, following the rules in benchmarks/README-generator.md."""
    lines = text.split("\n")
    items: list[SplitItem] = []
    current: str | None = None  # kind of the item that may still grow
    fence: str | None = None
    for index in range(front_matter_end(lines), len(lines)):
        line = lines[index]
        number = index + 1
        if fence is not None:
            if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
            continue
        if not line.strip():
            current = None
            continue
        if HEADING.match(line):
            current = None
            continue
        fence_match = FENCE.match(line)
        if fence_match:
            fence = fence_match.group(1)
            items.append(SplitItem(number, line, "code"))
            current = None
            continue
        if TABLE_ROW.match(line):
            if current != "table":
                items.append(SplitItem(number, line, "table"))
                current = "table"
            continue
        if BULLET.match(line):
            items.append(SplitItem(number, line, "bullet"))
            current = "bullet"
            continue
        if INDENTED.match(line) and current in ("bullet", "paragraph"):
            continue
        if TIMESTAMP.match(line) or BOLD_KEY.match(line):
            items.append(SplitItem(number, line, "line"))
            current = None
            continue
        if current != "paragraph":
            items.append(SplitItem(number, line, "paragraph"))
            current = "paragraph"
    return items
