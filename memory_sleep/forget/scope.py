"""`memory-sleep forget-scope SCOPE`: delete for good everything of one user or agent id.

Its notes (the notes whose front matter names the scope) go whole, with their state; what the tool
derived from them goes from MEMORY.md, the archive, weekly summaries, the briefing, the tool's state
and logs; every snapshot is rewritten without it (so no undo brings it back); the sidecar loses its
rows, vectors, full-text terms and logged queries, then is VACUUMed with its WAL emptied; the response
cache, the agent's pending requests and the vector caches are deleted. The run is logged in
sleep-log.json as counts. Nothing here is undoable: that is what the user asked for.

Safe to rerun: the sidecar, caches and snapshots are cleaned first and the scope's notes deleted
last, so a run stopped half-way leaves the notes, and the next run finds the scope and finishes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from memory_sleep.config import Config, load_config
from memory_sleep.cycle.archive_displays import NAME as ARCHIVE_DISPLAYS
from memory_sleep.cycle.kept_vectors import NAME as KEPT_VECTORS
from memory_sleep.cycle.memory_loss import LAST_RUN_COPY
from memory_sleep.errors import MemorySleepError
from memory_sleep.forget.report import ErasureReport, logged, needles, traces
from memory_sleep.forget.scrub import Scrubber
from memory_sleep.gc.review import REVIEW_FILE
from memory_sleep.sidecar.attribution import ScopeText
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.embed import Embedder
from memory_sleep.sidecar.recall import Clock, open_sidecar
from memory_sleep.sidecar.sources import source_files
from memory_sleep.sidecar.vectors import PREFIX
from memory_sleep.workspace.atomic import sha256
from memory_sleep.workspace.layout import NoteFile, Workspace
from memory_sleep.workspace.lock import workspace_lock
from memory_sleep.workspace.notes import note_item_stream
from memory_sleep.workspace.writer import FileChange, SafeWriter

Row = tuple[int, str, str, str, float | None]


class ForgetError(MemorySleepError):
    """A forget or purge request that cannot be carried out as asked."""


@dataclass(frozen=True)
class _Note:
    relative: str
    name: str
    scope: str
    lines: list[str]


def forget_scope(
    folder: Path | str,
    scope: str,
    dry_run: bool = False,
    config: Config | None = None,
    embedder: Embedder | None = None,
    clock: Clock = time.time,
) -> ErasureReport:
    """Delete for good everything of `scope` in the workspace in `folder` (with `dry_run`, only say
    what would go). The caller has the user's confirmation."""
    workspace = Workspace.open(Path(folder))
    settings = config or load_config(workspace.config_file)
    if scope == settings.sidecar.scope:
        raise ForgetError(
            f"{scope!r} is this workspace's own scope ([sidecar] scope): MEMORY.md and every note without "
            "a scope of its own belong to it. Name another scope, or delete the workspace itself."
        )
    report = ErasureReport("forget-scope", dry_run, scope=scope)
    with (
        locked(workspace, settings, dry_run),
        open_sidecar(workspace.root, settings, embedder, clock) as sidecar,
    ):
        if not dry_run:
            sidecar.store.require_writable()
            sidecar.index()  # every note of the scope is in the sidecar, as it is now
        notes = _notes(workspace, settings.sidecar.scope)
        rows = list(scan_rows(sidecar.store))
        text = _scope_text(scope, notes, rows)
        if not text.own:
            known = sorted({row[1] for row in rows} | {note.scope for note in notes})
            raise ForgetError(
                f"No note or entry has scope {scope!r}; the scopes here are {', '.join(known) or 'none'}. "
                "Check the spelling (scopes come from notes' front matter `scope:`)."
            )
        mine = [note for note in notes if note.scope == scope]
        gone = {note.relative for note in mine} | {_state_file(note.name) for note in mine}
        scrub = Scrubber(text, frozenset(gone), frozenset(note.name for note in mine))
        changes, rehashed = _scrubbed_files(workspace, scrub, report)
        ids = [row[0] for row in rows if row[1] == scope or text.owns(row[3])]
        queries = sidecar.store.queries_to_forget(scope, ids)
        caches = derived_caches(workspace)
        report.removed = {
            "notes": len(mine),
            "entries_and_lines": sum(n for path, n in report.files.items() if n > 0),
            "sidecar_entries": len(ids),
            "logged_queries": len(queries),
            "cache_files": len(caches),
        }
        moment = clock()
        log = logged(_SLEEP_LOG, read_file(workspace, _SLEEP_LOG), report, moment, settings.history_runs)
        writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=settings.keep_snapshots)
        if log is not None:
            changes = [change for change in changes if change.path != _SLEEP_LOG]
            before = read_file(workspace, _SLEEP_LOG)
            rehashed[sha256(before or b"")] = sha256(log.content or b"")
        report.snapshots = writer.scrub_snapshots(scrub, rehashed, dry_run=True)
        if dry_run:
            return report
        # the derived copies first, the notes last: until they go, a rerun finds the scope again
        sidecar.store.hard_delete(ids, queries)
        for path in caches:
            path.unlink(missing_ok=True)
        problems = [sidecar.store.reclaim()]
        writer.scrub_snapshots(scrub, rehashed)
        writer.erase([*([log] if log else []), *changes])
        sidecar.index()  # the scrubbed files as they are now; the WAL is emptied again after it
        problems.append(sidecar.store.reclaim())
        report.warnings.extend(dict.fromkeys(problem for problem in problems if problem))
    report.traces = traces(
        workspace.root, needles(line for note in mine for line in note.lines if text.owns(line))
    )
    return report


_SLEEP_LOG = "memory/sleep-log.json"


def locked(workspace: Workspace, config: Config, dry_run: bool) -> AbstractContextManager[None]:
    """The workspace lock, unless nothing will be written."""
    if dry_run:
        return nullcontext()
    return workspace_lock(workspace.check_state_dir(), config.lock_timeout_secs)


def _notes(workspace: Workspace, default_scope: str) -> list[_Note]:
    """Every daily note (the archived ones too), with its scope and the lines of its body."""
    found = []
    for source in source_files(workspace):
        if source.kind != "note":
            continue
        try:
            text = source.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        note = NoteFile(path=source.path, name=source.path.name, day=source.day or date.min, topic=None)
        meta, _ = note_item_stream(note, text)
        scope = meta.get("scope")
        lines = text.splitlines()
        if lines and lines[0].strip() == "---" and "---" in (line.strip() for line in lines[1:]):
            lines = lines[[line.strip() for line in lines].index("---", 1) + 1 :]
        found.append(
            _Note(
                source.relative,
                source.path.name,
                scope.strip() if isinstance(scope, str) and scope.strip() else default_scope,
                [line for line in lines if line.strip()],
            )
        )
    return found


def scan_rows(store: SidecarStore) -> Iterator[Row]:
    after = 0
    while rows := store.scan_entries(after, 10_000):
        yield from rows
        after = rows[-1][0]


def _scope_text(scope: str, notes: list[_Note], rows: list[Row]) -> ScopeText:
    own = [line for note in notes if note.scope == scope for line in note.lines]
    others = [line for note in notes if note.scope != scope for line in note.lines]
    own += [row[3] for row in rows if row[2] == "note" and row[1] == scope]
    others += [row[3] for row in rows if row[2] == "note" and row[1] != scope]
    return ScopeText(own, others, (note.relative for note in notes if note.scope == scope))


def _state_file(name: str) -> str:
    return f"memory/.sleep/notes/{name}.json"


def _scrubbed_files(
    workspace: Workspace, scrub: Scrubber, report: ErasureReport
) -> tuple[list[FileChange], dict[str, str | None]]:
    """The change of every live file that holds the scope's text, and the hashes they replace."""
    paths = [
        "MEMORY.md",
        "memory/archive.md",
        "memory/briefing.md",
        _SLEEP_LOG,
        "memory/.sleep/state.json",
        f"memory/.sleep/{REVIEW_FILE}",
        f"memory/.sleep/{LAST_RUN_COPY}",
        "memory/.sleep/cron.log",
        *sorted(workspace.relative(path) for path in workspace.weekly_dir.glob("*.md")),
        *sorted(scrub.gone),
    ]
    changes = []
    rehashed: dict[str, str | None] = {}
    for path in paths:
        data = read_file(workspace, path)
        if data is None:
            continue
        after, count = scrub.scrub(path, data)
        if after != data:
            changes.append(FileChange(path, after))
            rehashed[sha256(data)] = None if after is None else sha256(after)
            report.files[path] = -1 if after is None else count
    return changes, rehashed


def read_file(workspace: Workspace, path: str) -> bytes | None:
    try:
        return (workspace.root / path).read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None


def derived_caches(workspace: Workspace) -> list[Path]:
    """The response cache, the agent's requests and answers, the vector matrices (the sidecar's and
    the candidate step's) and REM's parse of archive.md: derived, and holding prompts, answers, vectors
    or text of the scope."""
    state = workspace.state_dir
    found = [*state.glob(f"{PREFIX}-*"), *state.glob(KEPT_VECTORS), *state.glob(ARCHIVE_DISPLAYS)]
    for folder in (state / "llm-cache", state / "agent"):
        if folder.is_dir():
            found.extend(path for path in folder.rglob("*") if path.is_file())
    return sorted(found)
