"""What a run left in the workspace, read once for scoring: MEMORY.md, archive, weekly summaries, briefing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from memory_sleep.workspace.memory_doc import PROJECTS, MemoryDocument, ProjectBlock

from .textmatch import current_text


@dataclass(frozen=True)
class MemoryEntry:
    """One entry of MEMORY.md; `current` is its text without "(previously: ...)"."""

    section: str
    topic: str | None
    text: str
    day: date | None

    @property
    def current(self) -> str:
        return current_text(self.text)


@dataclass
class Outputs:
    """The files memory-sleep writes, as text."""

    memory: str
    archive: str = ""
    weekly: dict[str, str] = field(default_factory=dict)
    briefing: str = ""
    entries: list[MemoryEntry] = field(default_factory=list)
    project_lines: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def from_texts(
        cls, memory: str, archive: str = "", weekly: dict[str, str] | None = None, briefing: str = ""
    ) -> Outputs:
        entries, projects = parse_memory(memory)
        return cls(memory, archive, weekly or {}, briefing, entries, projects)

    @classmethod
    def load(cls, root: Path) -> Outputs:
        weekly_dir = root / "memory" / "weekly"
        weekly = (
            {path.name: _read(path) for path in sorted(weekly_dir.glob("*.md"))}
            if weekly_dir.is_dir()
            else {}
        )
        return cls.from_texts(
            _read(root / "MEMORY.md"),
            _read(root / "memory" / "archive.md"),
            weekly,
            _read(root / "memory" / "briefing.md"),
        )

    @property
    def weekly_text(self) -> str:
        return "\n".join(self.weekly.values())

    def current_lines(self) -> list[str]:
        """What MEMORY.md states as current: entries without their history, and project summary lines."""
        lines = [entry.current for entry in self.entries]
        for project_lines in self.project_lines.values():
            lines.extend(project_lines)
        return lines


def parse_memory(text: str) -> tuple[list[MemoryEntry], dict[str, list[str]]]:
    """Entries of the tool's sections, and each `### Project` block's non-blank lines."""
    document = MemoryDocument.parse(text)
    entries = [
        MemoryEntry(section.title, entry.topic, entry.text, entry.day)
        for section, entry in document.entries()
    ]
    projects: dict[str, list[str]] = {}
    section = document.find_section(PROJECTS)
    if section is not None:
        for block in section.blocks:
            if isinstance(block, ProjectBlock):
                projects[block.name] = [line.strip() for line in block.lines if line.strip()]
    return entries, projects


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""
