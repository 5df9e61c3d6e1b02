"""Where a workspace keeps its files, and which files in memory/ are daily notes."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from memory_sleep.errors import WorkspaceError
from memory_sleep.workspace.note_read import NoteReadError

DAILY_NOTE_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})(?:[-_]([^/\\]+))?\.md$")
_TOOL_FILES = {"briefing.md", "archive.md", "sleep-log.json"}
_TOOL_DIRS = {"weekly", "archive", ".sleep"}


@dataclass(frozen=True)
class Workspace:
    """The paths of one workspace folder (see the layout in README.md)."""

    root: Path

    @classmethod
    def open(cls, folder: Path) -> Workspace:
        """The workspace in `folder`; refuses a folder that is not one, or whose MEMORY.md or memory/
        has the wrong type, so that no verb turns a folder of code into a workspace or reads a
        MEMORY.md folder as an empty memory."""
        space = cls.locate(folder)
        problem = space.layout_problem()
        if problem:
            raise WorkspaceError(problem)
        return space

    @classmethod
    def locate(cls, folder: Path) -> Workspace:
        """The folder as a workspace, whatever it holds: for `doctor`, which reports what is wrong with
        it, and for what writes nothing there (removing its cron line, recording a failed run)."""
        root = folder.expanduser().resolve()
        if not root.is_dir():
            raise WorkspaceError(f"{folder}: no such folder. Pass the folder that holds MEMORY.md.")
        return cls(root)

    def layout_problem(self) -> str | None:
        """What keeps this folder from being used as a workspace, with the next step; None when nothing."""
        if not self.memory_md.exists() and not self.notes_dir.exists():
            return (
                f"{self.root}: not a memory-sleep workspace (no MEMORY.md, no memory/ folder); nothing was "
                f"written. Pass the folder that holds MEMORY.md, or `memory-sleep init {self.root}` to make "
                "this one a workspace."
            )
        if self.memory_md.exists() and not self.memory_md.is_file():
            return (
                f"{self.memory_md}: is a folder, where memory-sleep keeps a file of that name. Nothing was "
                "changed. Rename or move the folder, then rerun."
            )
        if self.notes_dir.exists() and not self.notes_dir.is_dir():
            return (
                f"{self.notes_dir}: is a file, where memory-sleep keeps the folder of daily notes. Nothing "
                "was changed. Rename or move the file, then rerun."
            )
        return None

    @property
    def memory_md(self) -> Path:
        return self.root / "MEMORY.md"

    @property
    def config_file(self) -> Path:
        return self.root / "memory-sleep.toml"

    @property
    def notes_dir(self) -> Path:
        return self.root / "memory"

    @property
    def weekly_dir(self) -> Path:
        return self.notes_dir / "weekly"

    @property
    def daily_archive_dir(self) -> Path:
        return self.notes_dir / "archive" / "daily"

    @property
    def briefing(self) -> Path:
        return self.notes_dir / "briefing.md"

    @property
    def archive(self) -> Path:
        return self.notes_dir / "archive.md"

    @property
    def sleep_log(self) -> Path:
        return self.notes_dir / "sleep-log.json"

    @property
    def state_dir(self) -> Path:
        return self.notes_dir / ".sleep"

    def check_state_dir(self) -> Path:
        """memory/.sleep, after refusing a memory/ or memory/.sleep that is a link (nothing is ever
        written through one)."""
        refuse_linked_folders(self.notes_dir, self.state_dir)
        return self.state_dir

    def links(self) -> list[str]:
        """What to do about MEMORY.md, memory/ or memory/.sleep being a link, which every run refuses."""
        return [
            problem for path in (self.memory_md, self.notes_dir, self.state_dir) if (problem := linked(path))
        ]

    def relative(self, path: Path) -> str:
        """The workspace-relative POSIX path of `path`, as shown to users and stored in state."""
        return path.relative_to(self.root).as_posix()


def unwritable(path: Path) -> str | None:
    """Why `path` cannot be written (while it does not exist: the folder it would be made in); None when
    it can. Says whether the cause is the file system or permissions, never that the file is damaged."""
    existing = next(candidate for candidate in (path, *path.parents) if candidate.exists())
    if os.access(existing, os.W_OK):
        return None
    if os.statvfs(existing).f_flag & os.ST_RDONLY:
        return f"{existing} is on a read-only file system"
    return f"{existing} is not writable by this user"


def refuse_linked_folders(*folders: Path) -> None:
    for folder in folders:
        if problem := linked(folder):
            raise WorkspaceError(problem)


def linked(path: Path) -> str | None:
    """What to do about a folder or file of the workspace that is a link; None when it is not one."""
    if not path.is_symlink():
        return None
    target = Path(os.path.realpath(path))
    kind = "file" if target.is_file() else "folder"
    return (
        f"{path}: is a link; memory-sleep never writes through links. Replace it with the {kind} it "
        f"points to: `rm {path} && mv {target} {path}`."
    )


@dataclass(frozen=True)
class NoteFile:
    """A daily note found on disk."""

    path: Path
    name: str
    day: date
    topic: str | None

    @property
    def relative(self) -> str:
        return f"memory/{self.name}"

    def days_ahead(self, today: date) -> int:
        """How many days after `today` the note is dated: 0 for today and before, and for tomorrow,
        no typo where the agent's day begins before this machine's (time zones)."""
        ahead = (self.day - today).days
        return ahead if ahead > 1 else 0


@dataclass
class Discovery:
    """What memory/ holds: daily notes, files left alone, and names that look wrong."""

    notes: list[NoteFile] = field(default_factory=list)
    strays: list[str] = field(default_factory=list)
    problems: list[NoteReadError] = field(default_factory=list)  # daily notes it cannot read


def discover(workspace: Workspace) -> Discovery:
    """Sort the top level of memory/ into daily notes, stray files and misnamed or unsafe ones."""
    found = Discovery()
    if not workspace.notes_dir.is_dir():
        return found
    for path in sorted(workspace.notes_dir.iterdir()):
        name = path.name
        if name in _TOOL_FILES or (name in _TOOL_DIRS and path.is_dir()):
            continue
        relative = f"memory/{name}"
        match = DAILY_NOTE_NAME.match(name)
        if not match:
            found.strays.append(relative)
            continue
        if path.is_symlink() and not path.resolve().is_relative_to(workspace.root):
            found.problems.append(
                NoteReadError(
                    relative,
                    f"a link to {path.resolve()}, outside the workspace",
                    "Copy the note into memory/ instead.",
                )
            )
            continue
        if path.is_symlink() and not path.exists():
            found.problems.append(
                NoteReadError(
                    relative,
                    f"a link to {path.readlink()}, which does not exist",
                    "Point it at the note, or remove it.",
                    outcome="not read",
                )
            )
            continue
        if not path.is_file():
            what = "a folder" if path.is_dir() else "not a regular file"
            found.problems.append(
                NoteReadError(
                    relative,
                    f"{what}, named like a daily note",
                    f"Daily notes are files: rename it, and save what it holds as memory/{name}.",
                    outcome="not read",
                )
            )
            continue
        year, month, day_of_month, topic = match.groups()
        try:
            day = date(int(year), int(month), int(day_of_month))
        except ValueError:
            found.problems.append(
                NoteReadError(
                    relative,
                    f"{year}-{month}-{day_of_month} is not a calendar date",
                    "Rename it to the day it covers.",
                )
            )
            continue
        found.notes.append(NoteFile(path=path, name=name, day=day, topic=topic))
    found.notes.sort(key=lambda note: (note.day, note.name))
    return found
