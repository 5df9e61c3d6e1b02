"""Incremental indexing: only files whose bytes changed are parsed, only items whose text changed are
embedded, an edited item updates its row in place, and a new embedder re-embeds everything.

Planning and embedding happen outside the write transaction (a remote embedder may be slow);
the writes then go in one transaction, skipping any source another indexer changed meanwhile.
"""

from __future__ import annotations

import dataclasses
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Protocol, TypeVar

import numpy as np

from memory_sleep.engines.redact import RULES
from memory_sleep.errors import StoreError
from memory_sleep.gc.ttl import inline_expiry
from memory_sleep.sidecar.archive_read import STATE_KEY as ARCHIVE_READ_KEY
from memory_sleep.sidecar.archive_read import appended, whole_read
from memory_sleep.sidecar.attribution import Sources
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.embed import Embedder, Vectors
from memory_sleep.sidecar.rows import FIRST_DAY_KEY, INDEX_REASONS, day_timestamp
from memory_sleep.sidecar.scrub import RULES_KEY, stale_secrets
from memory_sleep.sidecar.sources import (
    IMPORTANCE,
    SourceFile,
    SourceItem,
    content_hash,
    noise_ids,
    read_items,
    source_files,
)
from memory_sleep.sidecar.store import EntryRow, NewEntry, SourceRow
from memory_sleep.sidecar.tokenize import fts_document
from memory_sleep.sidecar.validity import update_validity
from memory_sleep.text import jaccard, terms, tokens
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.note_read import NoteReadError, decode, read_bytes

# soft deletes the indexer makes itself, and so undoes when the text comes back; a forgetting
# pass's soft deletes are never undone by indexing
PAIR_SIMILARITY = 0.35


@dataclass
class IndexReport:
    """What an index pass did (or, with dry_run, would do)."""

    embedder: str
    sources_seen: int = 0
    sources_read: int = 0
    added: int = 0
    updated: int = 0
    moved: int = 0
    removed: int = 0
    restored: int = 0
    reembedded: int = 0
    redacted: int = 0  # stored entries that held a secret the redaction rules now find
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    changed_ids: set[int] = field(default_factory=set)

    @property
    def changed(self) -> bool:
        return bool(
            self.added or self.updated or self.removed or self.restored or self.reembedded or self.redacted
        )


@dataclass
class _SourcePlan:
    source: SourceRow
    previous_hash: str | None
    inserts: list[NewEntry] = field(default_factory=list)
    rewrites: list[tuple[int, NewEntry]] = field(default_factory=list)
    moves: list[tuple[int, int, int]] = field(default_factory=list)
    restores: list[int] = field(default_factory=list)
    deletes: list[int] = field(default_factory=list)
    # what was read of archive.md, for the next pass to start from ("": none to keep, drop the last)
    archive_read: str | None = None


def index_workspace(
    store: SidecarStore,
    workspace: Workspace,
    embedder: Embedder,
    default_scope: str = "default",
    max_bytes: int = 2_000_000,
    batch_size: int = 256,
    dry_run: bool = False,
    now: float | None = None,
) -> IndexReport:
    """Bring the store up to date with the workspace's files."""
    started = time.perf_counter()
    moment = time.time() if now is None else now
    report = IndexReport(embedder=embedder.id)
    stored_embedder = store.meta("embedder")
    if stored_embedder not in (None, embedder.id):
        report.reembedded = store.entry_count()
        if not dry_run:
            reembed_all(store, embedder, batch_size)
    files = source_files(workspace)
    report.sources_seen = len(files)
    today = datetime.fromtimestamp(moment, UTC).date()
    plans = [
        plan
        for source in files
        if (plan := _plan_source(store, workspace, source, default_scope, max_bytes, report, today))
    ]
    _derived_scopes(store, plans, default_scope)
    gone = store.source_keys() - {source.key for source in files}
    for plan in plans:
        report.added += len(plan.inserts)
        report.updated += len(plan.rewrites)
        report.moved += len(plan.moves)
        report.restored += len(plan.restores)
        report.removed += len(plan.deletes)
    gone_ids = {key: _live_ids(store.entries_of_source(key)) for key in gone}
    report.removed += sum(len(ids) for ids in gone_ids.values())
    rules_changed = store.meta(RULES_KEY) != RULES
    if dry_run or not (plans or gone_ids or rules_changed or store.meta("embedder") is None):
        # nothing to write: a pass over unchanged files leaves the database byte for byte as it was
        report.seconds = time.perf_counter() - started
        return report
    scrubbed = stale_secrets(store) if rules_changed else []
    report.redacted = len(scrubbed)
    # in the order the loop below writes them: each plan's inserts, then its rewrites, then the scrubbed
    to_embed = [entry for plan in plans for entry in [*plan.inserts, *(entry for _, entry in plan.rewrites)]]
    to_embed += [entry for _, entry in scrubbed]
    vectors = _embed(
        embedder, [f"{e.context}: {e.text}" if e.context else e.text for e in to_embed], batch_size
    )
    offset = 0
    with store.transaction():
        if store.meta("embedder") is None:
            store.set_meta("embedder", embedder.id)
            store.set_meta("dimensions", str(embedder.dimensions))
        elif store.meta("embedder") != embedder.id:
            raise StoreError(
                f"{store.path}: another process re-embedded the store with {store.meta('embedder')} "
                "meanwhile. Run `memory-sleep index` again."
            )
        for plan in plans:
            current = store.source(plan.source.key)
            count = len(plan.inserts) + len(plan.rewrites)
            if (current.content_hash if current else None) != plan.previous_hash:
                report.warnings.append(
                    f"{plan.source.path}: changed by another indexer meanwhile; left for the next pass."
                )
                offset += count
                continue
            inserted = store.insert_entries(
                plan.inserts, vectors[offset : offset + len(plan.inserts)], embedder.id, moment
            )
            offset += len(plan.inserts)
            store.rewrite_entries(
                plan.rewrites, vectors[offset : offset + len(plan.rewrites)], embedder.id, moment
            )
            offset += len(plan.rewrites)
            for entry_id, line_start, line_end in plan.moves:
                store.move_entry(entry_id, plan.source.path, line_start, line_end)
            store.restore(plan.restores)
            store.soft_delete(plan.deletes, "item-removed", moment)
            store.put_source(plan.source, moment)
            if plan.archive_read:
                store.set_meta(ARCHIVE_READ_KEY, plan.archive_read)
            elif plan.archive_read == "":  # nothing to start from: no copy of text the file no longer has
                store.delete_meta(ARCHIVE_READ_KEY)
            report.changed_ids.update(inserted, (i for i, _ in plan.rewrites), plan.restores, plan.deletes)
        for key, ids in gone_ids.items():
            store.soft_delete(ids, "source-removed", moment)
            store.drop_source(key)
            report.changed_ids.update(ids)
        store.rewrite_entries(scrubbed, vectors[offset:], embedder.id, moment)
        report.changed_ids.update(entry_id for entry_id, _ in scrubbed)
        store.set_meta(RULES_KEY, RULES)
        update_validity(store, workspace)
        store.set_meta("last_indexed_at", str(moment))
        begun = min(
            (source.day.isoformat() for source in files if source.kind == "note" and source.day), default=None
        )
        if begun is not None and begun < (store.meta(FIRST_DAY_KEY) or "9999"):
            store.set_meta(FIRST_DAY_KEY, begun)
    if scrubbed and (why := store.reclaim()):  # no copy of a secret left in a free page or the WAL
        report.warnings.append(why)
    report.sources_read = len(plans)
    report.seconds = time.perf_counter() - started
    return report


def reembed_all(store: SidecarStore, embedder: Embedder, batch_size: int = 256) -> int:
    """Embed every entry, live or soft-deleted, with `embedder`; one transaction, so dimensions never mix."""
    inputs: list[tuple[int, str, str]] = []
    while True:
        chunk = store.embedding_inputs(inputs[-1][0] if inputs else 0, 10_000)
        if not chunk:
            break
        inputs.extend(chunk)
    vectors = _embed(embedder, [f"{c}: {t}" if c else t for _, c, t in inputs], batch_size)
    with store.transaction():
        store.set_embeddings([entry_id for entry_id, _, _ in inputs], vectors, embedder.id)
        store.set_meta("embedder", embedder.id)
        store.set_meta("dimensions", str(embedder.dimensions))
    return len(inputs)


def _embed(embedder: Embedder, texts: Sequence[str], batch_size: int) -> Vectors:
    """All texts' vectors, batch by batch into one preallocated matrix."""
    vectors = np.empty((len(texts), embedder.dimensions), dtype=np.float32)
    for start in range(0, len(texts), batch_size):
        batch = embedder.embed(texts[start : start + batch_size])
        if batch.shape != (min(batch_size, len(texts) - start), embedder.dimensions):
            raise StoreError(
                f"embedder {embedder.id} returned vectors of shape {batch.shape}, expected "
                f"({min(batch_size, len(texts) - start)}, {embedder.dimensions}). "
                "Check sidecar.dimensions against the model."
            )
        vectors[start : start + len(batch)] = batch
    return vectors


def _live_ids(rows: Sequence[EntryRow]) -> list[int]:
    return [row.id for row in rows if row.deleted_at is None]


def _plan_source(
    store: SidecarStore,
    workspace: Workspace,
    source: SourceFile,
    default_scope: str,
    max_bytes: int,
    report: IndexReport,
    today: date,
) -> _SourcePlan | None:
    """What must change for one file, or None when its bytes are as last indexed."""
    try:
        stat = source.path.stat()
    except FileNotFoundError:
        return None
    previous = store.source(source.key)
    if previous and (previous.size, previous.mtime_ns, previous.path) == (
        stat.st_size,
        stat.st_mtime_ns,
        source.relative,
    ):
        return None
    try:
        raw = read_bytes(source.path, source.relative)
    except NoteReadError as error:  # one unreadable file is not indexed; the others are
        if not error.missing:
            report.warnings.append(error.said("not indexed"))
        return None
    digest = content_hash(raw)
    row = SourceRow(source.key, source.relative, source.kind, stat.st_size, stat.st_mtime_ns, digest)
    plan = _SourcePlan(source=row, previous_hash=previous.content_hash if previous else None)
    if previous and previous.content_hash == digest:
        # touched or moved, same bytes: only the path and the file's stamp change
        existing = store.entries_of_source(source.key)
        plan.moves = [(r.id, r.line_start, r.line_end) for r in existing if r.source_path != source.relative]
        return plan
    try:
        # max_note_bytes guards against a note pasted wrong; archive.md, MEMORY.md and the weekly
        # files are the tool's own and grow with the years, so they are indexed whatever their size
        text = decode(source.relative, raw, max_bytes if source.kind == "note" else None)
    except NoteReadError as error:
        report.warnings.append(error.said("not indexed"))
        return None
    if source.kind == "archive":
        return _plan_archive(store, source, text, previous, plan, default_scope)
    items = read_items(source, text, noise_ids(workspace, source))
    if source.kind == "memory" and previous is not None:
        items = _undated_on(items, today)
    _sync(
        plan, store.entries_of_source(source.key), items, lambda item: _new_entry(source, item, default_scope)
    )
    return plan


def _plan_archive(
    store: SidecarStore,
    source: SourceFile,
    text: str,
    previous: SourceRow | None,
    plan: _SourcePlan,
    default_scope: str,
) -> _SourcePlan:
    """archive.md's plan: only its appended lines and the rows holding their content, when the last
    pass's state holds; else the whole file against all its rows."""
    found = appended(store, source, text, previous, plan.source)
    if found is not None:
        _sync(plan, found.rows, found.items, lambda item: _new_entry(source, item, default_scope))
        plan.archive_read = found.state(len(plan.inserts))
        return plan
    existing = store.entries_of_source(source.key)
    _sync(plan, existing, read_items(source, text), lambda item: _new_entry(source, item, default_scope))
    plan.archive_read = whole_read(source, text, plan.source, len(existing) + len(plan.inserts)) or ""
    return plan


def _undated_on(items: list[SourceItem], today: date) -> list[SourceItem]:
    """MEMORY.md's entries and hand-written rows that state no day, dated `today`, the day a pass
    after the file's first found them (a row already indexed keeps its row, and so its day): they
    age, and are compared with other results, as the dated ones are. Those the first pass finds stay
    undated: nothing tells when they were written (recall ranks them as old as the first note,
    `search.decay_factor`; nothing else acts on a guessed day)."""
    return [
        dataclasses.replace(item, day=today) if item.kind == "memory" and item.day is None else item
        for item in items
    ]


def _new_entry(source: SourceFile, item: SourceItem, default_scope: str) -> NewEntry:
    return NewEntry(
        source_key=source.key,
        source_path=source.relative,
        kind=item.kind,
        line_start=item.line_start,
        line_end=item.line_end,
        context=item.context,
        text=item.text,
        content_hash=item.content_hash,
        day=item.day.isoformat() if item.day else None,
        scope=item.scope or default_scope,
        importance=IMPORTANCE[item.kind],
        expires_at=_expires_at(item),
        tokens=fts_document(item.embed_text),
        discarded=item.discarded,
    )


def _expires_at(item: SourceItem) -> float | None:
    """The earliest of the note's front-matter expiry and an inline `expires:` or `ttl:` marker on the
    item (a `ttl` counts from the item's day), so recall and GC's TTL agree on what has expired."""
    found = [day_timestamp(item.expires)] if item.expires else []
    if item.day is not None:
        marker = inline_expiry(item.text, day_timestamp(item.day))
        found.extend([marker[0]] if marker else [])
    elif (marker := inline_expiry(item.text, float("inf"))) is not None and marker[0] != float("inf"):
        found.append(marker[0])  # a dated `expires:` needs no day to count from
    return min(found, default=None)


def _derived_scopes(store: SidecarStore, plans: Sequence[_SourcePlan], default_scope: str) -> None:
    """A MEMORY.md entry, weekly line or archive record that came from the notes of one scope other
    than the default takes that scope, so that `recall --scope` and `stats` count it with them."""
    derived = any(
        entry.kind != "note" for plan in plans for entry in [*plan.inserts, *(e for _, e in plan.rewrites)]
    )
    if not derived:  # a nightly pass over new notes only: nothing to read
        return
    texts: defaultdict[str, list[str]] = defaultdict(list)
    for scope, text in store.note_texts_outside(default_scope):
        texts[scope].append(text)
    for plan in plans:
        for entry in [*plan.inserts, *(entry for _, entry in plan.rewrites)]:
            if entry.kind == "note" and entry.scope != default_scope:
                texts[entry.scope].append(entry.text)
    if not texts:
        return
    notes = {scope: Sources(found) for scope, found in texts.items()}

    def scoped(entry: NewEntry) -> NewEntry:
        if entry.kind == "note" or entry.scope != default_scope:
            return entry
        words = tokens(entry.text)
        found = [scope for scope, sources in notes.items() if sources.explain(words)]
        return dataclasses.replace(entry, scope=found[0]) if len(found) == 1 else entry

    for plan in plans:
        plan.inserts = [scoped(entry) for entry in plan.inserts]
        plan.rewrites = [(entry_id, scoped(entry)) for entry_id, entry in plan.rewrites]


class _Placed(Protocol):
    """Where an item stands in its file and what it says (its content hash)."""

    @property
    def line_start(self) -> int: ...
    @property
    def line_end(self) -> int: ...
    @property
    def content_hash(self) -> str: ...


_Item = TypeVar("_Item", bound=_Placed)


def _sync(
    plan: _SourcePlan,
    existing: Sequence[EntryRow],
    items: Sequence[_Item],
    new_entry: Callable[[_Item], NewEntry],
) -> None:
    """Match a file's new items to its stored rows: same text keeps the row (and its history), an edited
    item rewrites the row it most resembles, the rest are added or soft-deleted. Only these are made
    entries (`new_entry`: their words tokenized): a file changed by a few lines costs a few lines."""
    by_hash: dict[str, list[EntryRow]] = defaultdict(list)
    for row in existing:
        by_hash[row.content_hash].append(row)
    leftover: list[NewEntry] = []
    matched: set[int] = set()
    for item in items:
        candidates = by_hash.get(item.content_hash)
        if not candidates:
            leftover.append(new_entry(item))
            continue
        row = candidates.pop(0)
        matched.add(row.id)
        if (row.source_path, row.line_start, row.line_end) != (
            plan.source.path,
            item.line_start,
            item.line_end,
        ):
            plan.moves.append((row.id, item.line_start, item.line_end))
        if row.deleted_at is not None and row.deleted_reason in INDEX_REASONS:
            plan.restores.append(row.id)
    open_rows = [row for row in existing if row.id not in matched and row.deleted_at is None]
    pairs = _pair_edits(open_rows, leftover)
    paired_entries = {id(entry) for _, entry in pairs}
    plan.rewrites = [(row.id, entry) for row, entry in pairs]
    plan.inserts = [entry for entry in leftover if id(entry) not in paired_entries]
    paired_rows = {row.id for row, _ in pairs}
    plan.deletes = [row.id for row in open_rows if row.id not in paired_rows]


def _pair_edits(rows: Sequence[EntryRow], entries: Sequence[NewEntry]) -> list[tuple[EntryRow, NewEntry]]:
    """Greedy best pairs of an old row and a new item that look like the same item edited."""
    if not rows or not entries:
        return []
    row_terms = [frozenset(terms(row.text)) for row in rows]
    scored = []
    for j, entry in enumerate(entries):
        entry_terms = frozenset(terms(entry.text))
        for i, row in enumerate(rows):
            similarity = jaccard(row_terms[i], entry_terms)
            same_place = row.line_start == entry.line_start and row.kind == entry.kind
            if similarity >= PAIR_SIMILARITY or same_place:
                scored.append((similarity + (0.5 if same_place else 0.0), i, j))
    pairs = []
    used_rows: set[int] = set()
    used_entries: set[int] = set()
    for _, i, j in sorted(scored, reverse=True):
        if i not in used_rows and j not in used_entries:
            used_rows.add(i)
            used_entries.add(j)
            pairs.append((rows[i], entries[j]))
    return pairs
