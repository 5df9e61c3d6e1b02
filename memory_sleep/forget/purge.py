"""`memory-sleep purge --older-than 90d`: delete for good the sidecar entries soft-deleted that long
ago (their rows, vectors, full-text terms and density state; the queries that returned them lose only
those results), then VACUUM and empty the WAL.

An entry whose item is still in its file (forgotten by SleepGate, say) is kept: purged, it would be
indexed again, live, the next time its file changes. The markdown is not touched: what a run archived
stays in archive.md, as "nothing is lost" promises; only the sidecar's copies of removed items go.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from memory_sleep.config import Config, load_config
from memory_sleep.forget.report import ErasureReport, logged, needles, traces
from memory_sleep.forget.scope import ForgetError, derived_caches, locked, read_file, scan_rows
from memory_sleep.sidecar.embed import Embedder
from memory_sleep.sidecar.recall import Clock, open_sidecar
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.sidecar.sources import noise_ids, read_items, source_files
from memory_sleep.text import counted
from memory_sleep.workspace.atomic import sha256
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.note_read import NoteReadError, decode, read_bytes
from memory_sleep.workspace.writer import SafeWriter

DAY = 86_400.0
_SLEEP_LOG = "memory/sleep-log.json"


def purge(
    folder: Path | str,
    older_than_days: float,
    dry_run: bool = False,
    config: Config | None = None,
    embedder: Embedder | None = None,
    clock: Clock = time.time,
) -> ErasureReport:
    """Delete for good what was soft-deleted over `older_than_days` ago (with `dry_run`, say what)."""
    if older_than_days < 0:
        raise ForgetError(f"--older-than {older_than_days:g} days: give a positive age, e.g. 90d.")
    workspace = Workspace.open(Path(folder))
    settings = config or load_config(workspace.config_file)
    report = ErasureReport("purge", dry_run, older_than_days=older_than_days)
    moment = clock()
    with (
        locked(workspace, settings, dry_run),
        open_sidecar(workspace.root, settings, embedder, clock) as sidecar,
    ):
        store = sidecar.store
        if not dry_run:
            store.require_writable()
        rows = store.fetch(store.soft_deleted_before(moment - older_than_days * DAY))
        held = _still_in_their_file(workspace, rows.values(), settings.max_note_bytes)
        ids = sorted(entry_id for entry_id in rows if entry_id not in held)
        caches = [path for path in derived_caches(workspace) if path.name.startswith("sidecar-vectors")]
        report.removed = {"sidecar_entries": len(ids), "cache_files": len(caches) if ids else 0}
        if held:
            one = len(held) == 1
            report.warnings.append(
                f"{counted(len(held), 'soft-deleted entry', 'soft-deleted entries')} kept: "
                + (
                    "its item is still in its file, so purged it"
                    if one
                    else "their items are still in their files, so purged they"
                )
                + " would be indexed again, live"
            )
        if dry_run or not ids:
            return report
        log = logged(_SLEEP_LOG, read_file(workspace, _SLEEP_LOG), report, moment, settings.history_runs)
        store.hard_delete(ids, [])
        for path in caches:
            path.unlink(missing_ok=True)
        problem = store.reclaim()
        if problem:
            report.warnings.append(problem)
        kept = "\n".join(row[3] for row in scan_rows(store))
    if log is not None:
        writer = SafeWriter(workspace.root, workspace.state_dir / "snapshots", keep=settings.keep_snapshots)
        before = sha256(read_file(workspace, _SLEEP_LOG) or b"")
        writer.erase([log])
        # the log's new hash, so that undo does not take the record for a person's edit
        writer.scrub_snapshots(lambda _path, data: data, {before: sha256(log.content or b"")})
    gone = [rows[entry_id].text for entry_id in ids]
    report.traces = traces(
        workspace.root, [n for n in needles(gone) if n.decode() not in kept and not _in_files(workspace, n)]
    )
    return report


def _still_in_their_file(workspace: Workspace, rows: Iterable[EntryRow], max_bytes: int) -> set[int]:
    """The ids of `rows` whose item their source file still holds (same text, by content hash)."""
    by_source: defaultdict[str, list[EntryRow]] = defaultdict(list)
    for row in rows:
        by_source[row.source_key].append(row)
    held: set[int] = set()
    for source in source_files(workspace):
        if source.key not in by_source:
            continue
        try:
            text = decode(source.relative, read_bytes(source.path, source.relative), max_bytes)
        except NoteReadError:
            continue
        hashes = {item.content_hash for item in read_items(source, text, noise_ids(workspace, source))}
        held.update(row.id for row in by_source[source.key] if row.content_hash in hashes)
    return held


def _in_files(workspace: Workspace, needle: bytes) -> bool:
    """Whether a workspace markdown file still says it (an archived entry stays in archive.md)."""
    return any(
        needle in path.read_bytes() for path in workspace.root.rglob("*.md") if ".sleep" not in path.parts
    )
