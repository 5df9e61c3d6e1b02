"""The parts of MEMORY.md: raw lines, entries, project summaries and sections, each rendering itself."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from memory_sleep.models import Category, ProjectFields
from memory_sleep.text import normalize, stable_id

PROJECTS = "Projects"
SECTION_FOR: dict[Category, str] = {
    "decision": "Decisions",
    "fact": "Facts",
    "lesson": "Lessons",
    "action": "Action items",
    "relationship": "People",
}
PROJECT_FIELDS = ("Status", "Contacts", "Last event", "Next")
_FIELD_LINE = re.compile(
    r"^[ \t]*[-*+][ \t]+(?:\*\*)?(Status|Contacts|Last event|Next)(?:\*\*)?:(?:\*\*)?[ \t]*(.*)$",
    re.I,
)


def strip_newline(line: str) -> str:
    return line.rstrip("\r\n")


def content_end(lines: list[str]) -> int:
    """Index after the last non-blank line."""
    end = len(lines)
    while end > 0 and not lines[end - 1].strip():
        end -= 1
    return end


def _canonical_field(name: str) -> str:
    return next(f for f in PROJECT_FIELDS if f.lower() == name.lower())


@dataclass
class RawBlock:
    """Lines the tool does not own, kept verbatim."""

    raw: str


# "[Quokka] ...": the project an entry is about, before its text
TOPIC_TAG = re.compile(r"^\[(?![xX ]\])([A-Za-z0-9][^\]\n]{0,40})\]\s+")


@dataclass
class Entry:
    """A bullet in one of the tool's sections; `raw` is None once the tool changed it."""

    text: str
    topic: str | None
    day: date | None
    raw: str | None = None
    prefix: str = "- "

    @property
    def key(self) -> str:
        """Identity of the entry's content, used to remember when it was first seen and referenced."""
        return stable_id(normalize(self.text))

    def render(self, newline: str) -> str:
        if self.raw is not None:
            return self.raw
        topic = f"[{self.topic}] " if self.topic else ""
        text = " ".join(self.text.split())
        if not self.topic and TOPIC_TAG.match(text):
            text = "\\" + text  # "\[P0] fix the login": its own bracket, escaped as Markdown does, not a tag
        day = f" ({self.day.isoformat()})" if self.day else ""
        return f"{self.prefix}{topic}{text}{day}{newline}"

    def display(self) -> str:
        """The entry as one line, for the archive and messages."""
        return strip_newline(self.render("\n"))


@dataclass
class ProjectBlock:
    """A `### Name` summary under `## Projects`; the four field lines are the tool's, the rest stays."""

    name: str
    heading_raw: str
    lines: list[str]

    def fields(self) -> dict[str, str]:
        found = {}
        for line in self.lines:
            match = _FIELD_LINE.match(strip_newline(line))
            if match:
                found[_canonical_field(match.group(1))] = match.group(2).strip()
        return found

    def field_lines(self) -> list[str]:
        """The Status, Contacts, Last event and Next lines: the tool's part of the block."""
        return [line for line in self.lines if _FIELD_LINE.match(strip_newline(line))]

    def set_fields(self, values: ProjectFields, newline: str) -> bool:
        """Write the four lines in place (appending missing ones); True if anything changed."""
        wanted = dict(
            zip(
                PROJECT_FIELDS,
                (values.status, values.contacts, values.last_event, values.next),
                strict=True,
            )
        )
        changed = False
        last_field_index = -1
        for index, line in enumerate(self.lines):
            match = _FIELD_LINE.match(strip_newline(line))
            if not match:
                continue
            name = _canonical_field(match.group(1))
            last_field_index = index
            value = " ".join(wanted.pop(name).split())
            if match.group(2).strip() != value:
                ending = line[len(strip_newline(line)) :] or newline
                self.lines[index] = strip_newline(line)[: match.start(2)] + value + ending
                changed = True
        insert_at = last_field_index + 1 if last_field_index >= 0 else content_end(self.lines)
        if wanted:
            # the block may end the file without a newline; new lines must not run on from it
            if insert_at > 0 and not self.lines[insert_at - 1].endswith("\n"):
                self.lines[insert_at - 1] += newline
            elif insert_at == 0 and not self.heading_raw.endswith("\n"):
                self.heading_raw += newline
        for offset, (name, value) in enumerate(wanted.items()):
            self.lines.insert(insert_at + offset, f"- {name}: {' '.join(value.split())}{newline}")
            changed = True
        return changed

    def render(self) -> str:
        return self.heading_raw + "".join(self.lines)


Block = RawBlock | Entry | ProjectBlock


@dataclass
class Section:
    """A `##` section; `owned` sections hold entries the tool may change."""

    title: str
    heading_raw: str
    blocks: list[Block] = field(default_factory=list)

    @property
    def owned(self) -> bool:
        return self.title in SECTION_FOR.values() or self.title == PROJECTS

    def entries(self) -> list[Entry]:
        return [block for block in self.blocks if isinstance(block, Entry)]

    def render(self, newline: str) -> str:
        parts = [self.heading_raw]
        for block in self.blocks:
            parts.append(
                block.render(newline)
                if isinstance(block, Entry)
                else block.render()
                if isinstance(block, ProjectBlock)
                else block.raw
            )
        return "".join(parts)
