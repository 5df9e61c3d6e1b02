"""Appending an item to today's daily note, the way an agent writes one, safely."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import date

from memory_sleep.errors import WorkspaceError
from memory_sleep.text import not_utf8
from memory_sleep.workspace.atomic import atomic_write
from memory_sleep.workspace.layout import Workspace

MAX_ITEM_CHARS = 4000
_SCOPE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")  # safe in a file name and in YAML, unquoted
_APPEND_LOCK = threading.Lock()  # appends from one process (the MCP server's threads) never interleave


@dataclass(frozen=True)
class Remembered:
    path: str  # workspace-relative
    line: int  # 1-based line of the new bullet
    created: bool


def remember(
    workspace: Workspace, text: str, today: date | None = None, scope: str | None = None
) -> Remembered:
    """Append `text` as a bullet to memory/YYYY-MM-DD.md (created if missing), written atomically;
    with `scope` (a user or agent id), to memory/YYYY-MM-DD-<scope>.md, whose front matter names it.

    Lines after the first become the bullet's continuation, so the next NREM pass reads one item.
    """
    cleaned = [line.rstrip() for line in text.strip().replace("\r\n", "\n").split("\n")]
    cleaned = [line for line in cleaned if line.strip()]
    if not cleaned:
        raise WorkspaceError("Nothing to remember: the text is empty.")
    if sum(len(line) for line in cleaned) > MAX_ITEM_CHARS:
        raise WorkspaceError(
            f"An item of over {MAX_ITEM_CHARS} characters is a document, not a note: "
            "save it as a file and remember a line that points to it."
        )
    day = today or date.today()
    if scope is not None and not _SCOPE.match(scope):
        raise WorkspaceError(
            f"scope {scope!r}: use letters, digits, '.', '_' or '-' (a user or agent id), at most 64."
        )
    path = workspace.notes_dir / f"{day.isoformat()}{f'-{scope}' if scope else ''}.md"
    relative = workspace.relative(path)
    bullet = "\n".join([f"- {cleaned[0]}", *(f"  {line.strip()}" for line in cleaned[1:])]) + "\n"
    with _APPEND_LOCK:
        if path.is_symlink():
            raise WorkspaceError(f"{relative}: is a link; memory-sleep never writes through links.")
        try:
            current = path.read_bytes()
        except FileNotFoundError:
            current = None
        if current is None:
            front_matter = f"---\nscope: {scope}\n---\n" if scope else ""
            body = f"{front_matter}# {day.isoformat()}\n\n"
        else:
            try:
                body = current.decode("utf-8")
            except UnicodeDecodeError as error:
                raise WorkspaceError(
                    f"{relative}: {not_utf8(error)}; nothing appended. Re-save it as UTF-8."
                ) from None
            newline = "\r\n" if "\r\n" in body else "\n"
            if body and not body.endswith("\n"):
                body += newline
            bullet = bullet.replace("\n", newline)
        line = body.count("\n") + 1
        try:
            atomic_write(path, (body + bullet).encode("utf-8"))
        except OSError as error:
            raise WorkspaceError(
                f"{relative}: cannot write ({error.strerror}). Is the workspace writable?"
            ) from None
    return Remembered(relative, line, created=current is None)
