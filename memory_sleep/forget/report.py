"""What a hard deletion removed (or, dry, would remove), its record in sleep-log.json (counts, never
text), and the check that none of the deleted text is left in any file under the workspace."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from memory_sleep.text import counted
from memory_sleep.workspace import sleep_log
from memory_sleep.workspace.writer import FileChange

_MARKER = re.compile(r"^\s*(?:[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)?")
_NOUNS = {
    "notes": ("note", "notes"),
    "entries_and_lines": ("entry or line", "entries and lines"),
    "sidecar_entries": ("sidecar entry", "sidecar entries"),
    "logged_queries": ("logged query", "logged queries"),
    "cache_files": ("cache file", "cache files"),
}
MIN_TRACE = 12  # characters: shorter lines ("## Actions") are not the scope's own text


@dataclass
class ErasureReport:
    """Counts by kind (`removed`), entries or lines removed per file (-1: the whole file), the runs
    whose snapshot was rewritten, files still holding the text afterwards, and warnings."""

    action: Literal["forget-scope", "purge"]
    dry_run: bool
    scope: str | None = None
    older_than_days: float | None = None
    removed: dict[str, int] = field(default_factory=dict)
    files: dict[str, int] = field(default_factory=dict)
    snapshots: list[str] = field(default_factory=list)
    traces: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "dry_run": self.dry_run,
            "scope": self.scope,
            "older_than_days": self.older_than_days,
            "removed": self.removed,
            "files": self.files,
            "snapshots_rewritten": self.snapshots,
            "traces": self.traces,
            "warnings": self.warnings,
        }

    def lines(self) -> list[str]:
        verb = "Would remove" if self.dry_run else "Removed"
        what = (
            f"scope {self.scope!r}"
            if self.scope
            else f"entries soft-deleted over {self.older_than_days:g} days ago"
        )
        counts = ", ".join(counted(number, *_NOUNS[kind]) for kind, number in self.removed.items() if number)
        lines = [f"{verb} for good, {what}: {counts or 'nothing'}."]
        for path, number in self.files.items():
            lines.append(
                f"  {path}: "
                + ("the whole file" if number < 0 else counted(number, "entry or line", "entries or lines"))
            )
        if self.snapshots:
            lines.append(
                f"  snapshots of {counted(len(self.snapshots), 'run')} "
                + ("would be rewritten" if self.dry_run else "rewritten")
                + " without it (undo of those runs cannot bring it back): "
                + ", ".join(self.snapshots)
            )
        if self.dry_run:
            again = " Run again with --yes to delete; this cannot be undone." if counts else ""
            lines.append(f"Nothing was changed.{again}")
        elif self.traces:
            lines.append(f"Still found in: {', '.join(self.traces)}.")
        else:
            lines.append(
                "Checked: none of it is left in any file under the workspace (database and WAL included)."
            )
        lines.extend(f"Warning: {warning}" for warning in self.warnings)
        return lines

    def record(self, moment: float) -> sleep_log.ErasureRecord:
        return sleep_log.ErasureRecord(
            at=datetime.fromtimestamp(moment, UTC),
            action=self.action,
            scope=self.scope,
            olderThanDays=self.older_than_days,
            removed={kind: number for kind, number in self.removed.items() if number},
            snapshotsRewritten=self.snapshots,
        )


def logged(
    path: str, current: bytes | None, report: ErasureReport, moment: float, keep: int
) -> FileChange | None:
    """sleep-log.json (as `current` holds it) with this erasure first in `erasures`; None when there
    is no log yet (no run has written one)."""
    log = sleep_log.read_sleep_log(current)
    if log is None:
        report.warnings.append(
            "no memory/sleep-log.json yet (no run has written one): this erasure is not logged"
        )
        return None
    log.erasures = [report.record(moment), *log.erasures][:keep]
    return FileChange(path, sleep_log.render(log))


def needles(lines: Iterable[str]) -> list[bytes]:
    """The lines to look for afterwards, without their list markers, long enough to be the scope's own."""
    found = {_MARKER.sub("", line).strip() for line in lines}
    return sorted(line.encode("utf-8") for line in found if len(line) >= MIN_TRACE)


def traces(root: Path, wanted: Iterable[bytes]) -> list[str]:
    """The files under `root` (every one: the database, its WAL, caches, snapshots) holding any of `wanted`."""
    patterns = sorted(set(wanted), key=len, reverse=True)
    if not patterns:
        return []
    finder = re.compile(b"|".join(re.escape(pattern) for pattern in patterns))
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink() and finder.search(path.read_bytes()):
            found.append(path.relative_to(root).as_posix())
    return found
