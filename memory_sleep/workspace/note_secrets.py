"""Secrets sitting in plain text in daily notes: where they are (run -v, status, doctor) and, on request,
their redaction in place (`memory-sleep redact`). Only a secret's note, line and kind are ever shown.

Everything the tool writes is redacted already (engines/redact.py); the note itself is the agent's
and stays as written unless the user asks, and then through the SafeWriter, so `undo` reverts it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import groupby

from memory_sleep.config import Config
from memory_sleep.engines.redact import find_secrets, redact
from memory_sleep.errors import WorkspaceError
from memory_sleep.models import NoteItem
from memory_sleep.text import not_utf8
from memory_sleep.workspace.layout import NoteFile, Workspace
from memory_sleep.workspace.lock import workspace_lock
from memory_sleep.workspace.writer import FileChange, Manifest, SafeWriter


@dataclass(frozen=True)
class Sighting:
    """A secret in plain text: the note (relative to the workspace), the line, the kind of secret."""

    note: str
    line: int
    kind: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def sightings_in_text(text: str, note: str) -> list[Sighting]:
    found = []
    line, counted = 1, 0
    for finding in find_secrets(text):  # first first, so lines are counted once over the text
        line += text.count("\n", counted, finding.start)
        counted = finding.start
        found.append(Sighting(note, line, finding.kind))
    return found


def sightings_in_items(items: Iterable[NoteItem]) -> list[Sighting]:
    """The secrets of note items (their text as read, before redaction), at their line in the note."""
    found = []
    for item in items:
        for sighting in sightings_in_text(item.written, item.file):
            found.append(Sighting(item.file, item.line_start + sighting.line - 1, sighting.kind))
    return found


def sightings_in_notes(notes: Iterable[NoteFile], workspace: Workspace) -> list[Sighting]:
    """The secrets of every readable note (unreadable ones are reported by the checks that read notes)."""
    found = []
    for note in notes:
        try:
            text = note.path.read_bytes().decode("utf-8-sig")
        except (OSError, UnicodeDecodeError):
            continue
        found.extend(sightings_in_text(text, workspace.relative(note.path)))
    return found


def by_note(sightings: Sequence[Sighting]) -> list[tuple[str, str]]:
    """(note, "line 28 (anthropic key), line 29 (openai key)") for each note holding secrets."""
    return [
        (note, ", ".join(f"line {s.line} ({s.kind})" for s in group))
        for note, group in groupby(sorted(sightings, key=lambda s: (s.note, s.line)), key=lambda s: s.note)
    ]


def run_warnings(sightings: Sequence[Sighting]) -> list[str]:
    """What `memory-sleep run` says about secrets it found in the notes it read."""
    return [
        f"{note}: secret in plain text at {where}; redacted in every file memory-sleep writes. "
        f"`memory-sleep redact {note}` (from the workspace) removes it from the note too."
        for note, where in by_note(sightings)
    ]


@dataclass
class Redaction:
    """What `memory-sleep redact` changed (or, with dry_run, would change)."""

    sightings: list[Sighting]
    changes: list[FileChange]
    manifest: Manifest | None = None


def redact_notes(workspace: Workspace, config: Config, notes: Sequence[NoteFile], dry_run: bool) -> Redaction:
    """Replace each secret in `notes` with a marker naming its kind, in place; one snapshot for undo."""
    sightings: list[Sighting] = []
    changes: list[FileChange] = []
    for note in notes:
        relative = workspace.relative(note.path)
        raw = note.path.read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise WorkspaceError(
                f"{relative}: {not_utf8(error)}; nothing was redacted. Re-save it as UTF-8."
            ) from None
        found = sightings_in_text(text, relative)
        if found:
            sightings.extend(found)
            changes.append(FileChange(relative, redact(text, None).encode("utf-8")))
    report = Redaction(sightings, changes)
    if dry_run or not changes:
        return report
    writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=config.keep_snapshots)
    with workspace_lock(workspace.state_dir, config.lock_timeout_secs):
        writer.recover()
        report.manifest = writer.apply(writer.new_run_id(), changes, action="redact")
    return report
