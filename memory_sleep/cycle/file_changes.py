"""The one function that turns an accepted plan into file changes, and reading what they replace.

MEMORY.md's edits were applied to the parsed document by `DocumentEditor` as the phases planned them;
here the document is rendered, and the cleanup's `fold` and `brief` edits, which name whole files,
become those files.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memory_sleep.cycle import memory_loss
from memory_sleep.cycle.plan import Edit
from memory_sleep.errors import WorkspaceError
from memory_sleep.text import not_utf8
from memory_sleep.workspace.archive import ArchiveRecord, append_records
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import HEADER
from memory_sleep.workspace.writer import FileChange


def file_changes(
    workspace: Workspace,
    plan: Sequence[Edit],
    memory_after: bytes,
    memory_before: bytes | None,
    archived: Sequence[ArchiveRecord],
    move_folded_notes: bool,
) -> list[FileChange]:
    """The files an accepted plan writes, in order: the weekly summaries (and, with
    `move_folded_notes`, each folded note moved to memory/archive/daily/), the briefing, MEMORY.md
    (`memory_after`, the document the plan's edits were applied to) and archive.md."""
    folds = [edit for edit in plan if edit.op == "fold"]
    changes = [FileChange(edit.path or "", (edit.text or "").encode("utf-8")) for edit in folds]
    if move_folded_notes:
        for note in (note for edit in folds for note in edit.sources or ()):
            name = note.removeprefix("memory/")
            changes.append(FileChange(f"memory/archive/daily/{name}", (workspace.root / note).read_bytes()))
            changes.append(FileChange(note, None))
    changes.extend(
        FileChange(edit.path or "", (edit.text or "").encode("utf-8")) for edit in plan if edit.op == "brief"
    )
    if memory_after != (memory_before or b""):
        changes.append(FileChange("MEMORY.md", memory_after))
    if archived:
        current = read_text(workspace.archive, "memory/archive.md")
        changes.append(FileChange("memory/archive.md", append_records(current, list(archived)).encode()))
    return changes


def only_changed(
    workspace: Workspace, changes: Sequence[FileChange], memory_after: bytes
) -> list[FileChange]:
    """The changes that change a file; with any, the copy of MEMORY.md the next run compares it with
    (and restores it from)."""
    kept = [change for change in changes if read_bytes(workspace.root / change.path) != change.content]
    copy = FileChange(workspace.relative(workspace.state_dir / memory_loss.LAST_RUN_COPY), memory_after)
    if kept and read_bytes(workspace.root / copy.path) != copy.content:
        kept.append(copy)
    return kept


def read_bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise WorkspaceError(
            f"{path}: is a folder, where memory-sleep keeps a file of that name. Nothing was changed. "
            "Rename or move the folder, then run again."
        ) from None


def decode_memory(workspace: Workspace, raw: bytes | None) -> str:
    """MEMORY.md's text (the header alone when it is empty or missing); refused when it is no UTF-8 text
    or holds an unresolved merge conflict."""
    problem = memory_loss.unreadable(workspace, raw or b"")
    if problem is not None:
        reason, fix = problem
        raise WorkspaceError(f"MEMORY.md: {reason}. Nothing was changed; {fix}.")
    text = (raw or b"").decode("utf-8")
    return text if text.strip() else HEADER


def read_text(path: Path, name: str) -> str | None:
    raw = read_bytes(path)
    return None if raw is None else _decode(raw, name)


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WorkspaceError(
            f"{name}: {not_utf8(error)}. Nothing was changed; re-save it as UTF-8."
        ) from None
