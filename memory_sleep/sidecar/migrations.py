"""The sidecar's schema as numbered migrations, applied once each, in order, each in its own transaction.

Times are Unix seconds (REAL) so that scoring code can read whole columns as numbers; `day` is the
ISO date the source gives the entry (a note's day, an entry's trailing date).
"""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass

from memory_sleep.errors import StoreError
from memory_sleep.text import counted

MigrationStep = Callable[[sqlite3.Connection], None]
_NAME = re.compile(r"^m(\d{3})_\w+$")
log = logging.getLogger("memory_sleep")


@dataclass(frozen=True)
class Migration:
    number: int
    name: str
    apply: MigrationStep


class Migrations:
    """An ordered registry: `@migrations.register` on functions named m001_..., m002_..., in order."""

    def __init__(self) -> None:
        self.steps: list[Migration] = []

    def register(self, step: MigrationStep) -> MigrationStep:
        match = _NAME.match(step.__name__)
        if not match or int(match.group(1)) != len(self.steps) + 1:
            raise ValueError(
                f"migration {step.__name__}: name it m{len(self.steps) + 1:03d}_<what>; "
                "migrations are numbered in the order they are registered"
            )
        self.steps.append(Migration(int(match.group(1)), step.__name__, step))
        return step

    def missing(self, db: sqlite3.Connection, path: str) -> list[str]:
        """The migrations the database lacks, without applying any (it may be read-only)."""
        done = self._done(db, path)
        return [migration.name for migration in self.steps if migration.number not in done]

    def _done(self, db: sqlite3.Connection, path: str) -> set[int]:
        tables = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").fetchone()
        done = (
            {number for (number,) in db.execute("SELECT number FROM schema_migrations")} if tables else set()
        )
        newest = max(done, default=0)
        if newest > len(self.steps):
            raise StoreError(
                f"{path}: schema version {newest} was written by a newer memory-sleep "
                f"(this one knows {len(self.steps)}). Upgrade memory-sleep, or move the file away to rebuild it."
            )
        return done

    def apply(self, db: sqlite3.Connection, path: str) -> list[str]:
        """Apply every migration the database lacks; return their names. Each one's version check and
        its statements hold the write lock together (BEGIN IMMEDIATE), so processes creating one new
        file at once queue, and each migration runs once."""
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations"
            " (number INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at REAL NOT NULL)"
        )
        lacking = set(self.missing(db, path))
        applied = []
        for migration in self.steps:
            if migration.name not in lacking:
                continue
            db.execute("BEGIN IMMEDIATE")
            try:
                if migration.number in self._done(db, path):  # another process applied it while we waited
                    db.execute("COMMIT")
                    continue
                migration.apply(db)
                db.execute(
                    "INSERT INTO schema_migrations (number, name, applied_at) VALUES (?, ?, ?)",
                    (migration.number, migration.name, time.time()),
                )
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            applied.append(migration.name)
        return applied


MIGRATIONS = Migrations()


def _run(db: sqlite3.Connection, *statements: str) -> None:
    for statement in statements:
        db.execute(statement)


@MIGRATIONS.register
def m001_entries(db: sqlite3.Connection) -> None:
    """Entries with provenance, the signals SleepGate scores, embeddings, and the files they came from."""
    _run(
        db,
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE sources (
            key TEXT PRIMARY KEY,
            path TEXT NOT NULL,
            kind TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            indexed_at REAL NOT NULL
        )""",
        """CREATE TABLE entries (
            id INTEGER PRIMARY KEY,
            source_key TEXT NOT NULL,
            source_path TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('memory', 'project', 'weekly', 'note')),
            line_start INTEGER NOT NULL,
            line_end INTEGER NOT NULL,
            context TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            day TEXT,
            scope TEXT NOT NULL DEFAULT 'default',
            importance REAL NOT NULL DEFAULT 0.5,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_accessed_at REAL,
            access_count INTEGER NOT NULL DEFAULT 0,
            expires_at REAL,
            deleted_at REAL,
            deleted_reason TEXT,
            deleted_pass TEXT,
            embedder TEXT,
            dim INTEGER,
            embedding BLOB
        )""",
        "CREATE INDEX entries_by_source ON entries (source_key)",
        "CREATE INDEX entries_live_by_scope ON entries (scope) WHERE deleted_at IS NULL",
        "CREATE INDEX entries_deleted_pass ON entries (deleted_pass) WHERE deleted_pass IS NOT NULL",
        # tokens are pre-split in Python (CJK as character bigrams), so unicode61 only splits on spaces
        "CREATE VIRTUAL TABLE entries_fts USING fts5 (tokens, tokenize = 'porter unicode61 remove_diacritics 2')",
    )


@MIGRATIONS.register
def m002_query_log(db: sqlite3.Connection) -> None:
    """Every recall: its text, embedding and time, and the entries it returned with their ranks."""
    _run(
        db,
        """CREATE TABLE queries (
            id INTEGER PRIMARY KEY,
            text TEXT NOT NULL,
            scope TEXT,
            k INTEGER NOT NULL,
            created_at REAL NOT NULL,
            embedder TEXT NOT NULL,
            embedding BLOB
        )""",
        """CREATE TABLE query_results (
            query_id INTEGER NOT NULL REFERENCES queries (id) ON DELETE CASCADE,
            rank INTEGER NOT NULL,
            entry_id INTEGER NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
            score REAL NOT NULL,
            PRIMARY KEY (query_id, rank)
        )""",
        "CREATE INDEX query_results_by_entry ON query_results (entry_id)",
        "CREATE INDEX queries_by_time ON queries (created_at)",
    )


@MIGRATIONS.register
def m003_term_counts(db: sqlite3.Connection) -> None:
    """Full-text terms stemmed in Python (no porter in FTS5), with each term's document count, so a
    query can leave out terms so common that ranking their matches would cost more than they tell."""
    _run(
        db,
        "DROP TABLE entries_fts",
        "CREATE VIRTUAL TABLE entries_fts USING fts5 (tokens, tokenize = 'unicode61 remove_diacritics 2')",
        "CREATE TABLE fts_terms (term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID",
    )
    _fill_text_index(db)


def _fill_text_index(db: sqlite3.Connection) -> int:
    """Index every entry's text in the (empty) full-text table and count its terms; how many entries."""
    from memory_sleep.sidecar.tokenize import fts_document

    counts: dict[str, int] = {}
    rows = db.execute("SELECT id, context, text FROM entries").fetchall()
    for entry_id, context, text in rows:
        tokens = fts_document(f"{context}: {text}" if context else text)
        db.execute("INSERT INTO entries_fts (rowid, tokens) VALUES (?, ?)", (entry_id, tokens))
        for term in set(tokens.split()):
            counts[term] = counts.get(term, 0) + 1
    db.executemany("INSERT INTO fts_terms (term, docs) VALUES (?, ?)", counts.items())
    return len(rows)


@MIGRATIONS.register
def m004_sleepgate(db: sqlite3.Connection) -> None:
    """SleepGate's state: each counted entry's near-neighbour count (maintained incrementally), the
    embedding an entry had when it was counted if it changed since (kept by a trigger, so the next
    update can take it out of its old neighbours' counts), restores, and a record of every pass.
    No trigger keeps the embedding of a hard-deleted entry: hard deletion must be complete."""
    _run(
        db,
        "CREATE TABLE entry_density (entry_id INTEGER PRIMARY KEY, neighbours INTEGER NOT NULL)",
        "CREATE TABLE density_retired (entry_id INTEGER PRIMARY KEY, scope TEXT NOT NULL, embedding BLOB NOT NULL)",
        # the first old embedding since the last density update is the one that was counted
        """CREATE TRIGGER density_keep_old_embedding BEFORE UPDATE OF embedding ON entries
            WHEN OLD.embedding IS NOT NULL AND OLD.embedder IS NEW.embedder
            BEGIN
                INSERT OR IGNORE INTO density_retired (entry_id, scope, embedding)
                VALUES (OLD.id, OLD.scope, OLD.embedding);
            END""",
        "CREATE TABLE entry_restores (entry_id INTEGER PRIMARY KEY, restored_at REAL NOT NULL)",
        """CREATE TABLE forgetting_passes (
            id TEXT PRIMARY KEY,
            started_at REAL NOT NULL,
            seconds REAL NOT NULL,
            dry_run INTEGER NOT NULL,
            entries INTEGER NOT NULL,
            candidates INTEGER NOT NULL,
            load_bearing INTEGER NOT NULL,
            forgotten INTEGER NOT NULL,
            skipped TEXT
        )""",
        "CREATE INDEX forgetting_passes_by_time ON forgetting_passes (started_at)",
    )


@MIGRATIONS.register
def m005_vector_generation(db: sqlite3.Connection) -> None:
    """Each entry's vector generation: the store generation at which its vector or liveness last
    changed, so a cached matrix of generation g is brought up to date by reading only newer rows."""
    _run(
        db,
        "ALTER TABLE entries ADD COLUMN vector_generation INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX entries_by_vector_generation ON entries (vector_generation)",
    )


@MIGRATIONS.register
def m006_density_build(db: sqlite3.Connection) -> None:
    """An unfinished full density count (entry ids in build order, their counts, the next row, and
    the near pairs found while they are few), saved in the database so that resuming it and
    consuming the retired embeddings it has accounted for commit together."""
    _run(
        db,
        """CREATE TABLE density_build (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            threshold REAL NOT NULL,
            embedder TEXT NOT NULL,
            next_row INTEGER NOT NULL,
            ids BLOB NOT NULL,
            counts BLOB NOT NULL,
            pair_firsts BLOB,
            pair_seconds BLOB
        )""",
    )


@MIGRATIONS.register
def m007_validity(db: sqlite3.Connection) -> None:
    """When each entry stopped being true (valid_to, status, ended_by; it became true on its `day`),
    whether the run discarded it as noise, and archive.md's records as a kind of entry. The kind's
    CHECK cannot be altered in place, so the table is copied (ids kept: the FTS rows and the query
    log name entries by id)."""
    columns = [row[1] for row in db.execute("PRAGMA table_info(entries)")]
    kept = [  # its indexes and triggers, made again on the copy
        sql
        for (sql,) in db.execute(
            "SELECT sql FROM sqlite_master WHERE tbl_name = 'entries' AND type IN ('index', 'trigger')"
            " AND sql IS NOT NULL"
        )
    ]
    _run(
        db,
        """CREATE TABLE entries_new (
            id INTEGER PRIMARY KEY,
            source_key TEXT NOT NULL,
            source_path TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('memory', 'project', 'weekly', 'note', 'archive')),
            line_start INTEGER NOT NULL,
            line_end INTEGER NOT NULL,
            context TEXT NOT NULL DEFAULT '',
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            day TEXT,
            scope TEXT NOT NULL DEFAULT 'default',
            importance REAL NOT NULL DEFAULT 0.5,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            last_accessed_at REAL,
            access_count INTEGER NOT NULL DEFAULT 0,
            expires_at REAL,
            deleted_at REAL,
            deleted_reason TEXT,
            deleted_pass TEXT,
            embedder TEXT,
            dim INTEGER,
            embedding BLOB,
            vector_generation INTEGER NOT NULL DEFAULT 0,
            valid_to TEXT,
            status TEXT CHECK (status IN ('superseded', 'done', 'finished', 'expired')),
            ended_by TEXT,
            discarded INTEGER NOT NULL DEFAULT 0
        )""",
        f"INSERT INTO entries_new ({', '.join(columns)}) SELECT {', '.join(columns)} FROM entries",
        "DROP TABLE entries",
        "ALTER TABLE entries_new RENAME TO entries",
        *kept,
        "CREATE INDEX entries_ended ON entries (status) WHERE status IS NOT NULL",
        "CREATE INDEX entries_by_day ON entries (day)",
    )


@MIGRATIONS.register
def m008_realign_vectors(db: sqlite3.Connection) -> None:
    """Before this, a pass that rewrote an item of one file and added items to a later one stored
    each of those vectors on the wrong row: naming the embedder anew makes the next open re-embed."""
    _run(db, "UPDATE meta SET value = value || ' (vectors misaligned)' WHERE key = 'embedder'")


@MIGRATIONS.register
def m009_day_items(db: sqlite3.Connection) -> None:
    """entries_by_day holds what each index pass digests of a day's items (id, kind, content hash:
    sidecar/validity.py's day_digests), so that reading them reads the index alone, not every row
    with its vector: at 365 days, 56k rows spread over most of the database's pages."""
    _run(
        db,
        "DROP INDEX entries_by_day",
        "CREATE INDEX entries_by_day ON entries (day, id, kind, content_hash)",
    )


@MIGRATIONS.register
def m010_whole_words(db: sqlite3.Connection) -> None:
    """Words joined by marks ("v0.6.5", "10.0.9.42", "node-18") indexed whole beside their parts, where
    the full-text index held only the parts (a recall of "v0.6.5" looked for "v0"). The index is built
    again from the entries' texts in this migration's one transaction: a crash halfway leaves the old
    index, built again on the next open."""
    from memory_sleep.sidecar.tokenize import FTS_TOKENIZE

    _run(
        db,
        "DROP TABLE entries_fts",
        f"CREATE VIRTUAL TABLE entries_fts USING fts5 (tokens, tokenize = '{FTS_TOKENIZE}')",
        "DELETE FROM fts_terms",
    )
    if entries := _fill_text_index(db):
        log.warning(
            "memory-sleep: rebuilt the sidecar's full-text index (%s) so that recall finds versions, "
            "addresses and joined names such as v0.6.5 whole; done once, nothing to do.",
            counted(entries, "entry", "entries"),
        )


@MIGRATIONS.register
def m011_notes_by_scope(db: sqlite3.Connection) -> None:
    """The note items of each scope, so that indexing finds those outside the default scope (what a
    MEMORY.md entry, weekly line or archive record derives its scope from: sidecar/index.py's
    `_derived_scopes`) without reading every row with its vector: at 365 days a tenth of the nightly
    index pass, to find none. Partial, so no other query's plan changes."""
    _run(db, "CREATE INDEX entries_notes_by_scope ON entries (scope) WHERE kind = 'note'")


@MIGRATIONS.register
def m012_values_key(db: sqlite3.Connection) -> None:
    """Each entry's values key (sidecar/statement.py `values_key`): SleepGate counts two entries as
    near only when they state the same values, where it counted by embedding alone and forgot one
    release's statement as a copy of another's. The key is kept with a retired embedding too, and the
    density counts start again (rebuilt by the next forgetting pass). An entry indexed before has its
    key worked out when SleepGate first reads it."""
    counted_before = int(db.execute("SELECT count(*) FROM entry_density").fetchone()[0])
    _run(
        db,
        "ALTER TABLE entries ADD COLUMN values_key INTEGER",
        "ALTER TABLE density_retired ADD COLUMN values_key INTEGER",
        "DROP TRIGGER density_keep_old_embedding",
        """CREATE TRIGGER density_keep_old_embedding BEFORE UPDATE OF embedding ON entries
            WHEN OLD.embedding IS NOT NULL AND OLD.embedder IS NEW.embedder
            BEGIN
                INSERT OR IGNORE INTO density_retired (entry_id, scope, values_key, embedding)
                VALUES (OLD.id, OLD.scope, OLD.values_key, OLD.embedding);
            END""",
        "DELETE FROM entry_density",
        "DELETE FROM density_retired",
        "DELETE FROM density_build",
        "DELETE FROM meta WHERE key IN ('density_threshold', 'density_embedder')",
    )
    if counted_before:
        log.warning(
            "memory-sleep: SleepGate now tells near-duplicates by the values they state too (one "
            "release's line is no copy of another's): its density counts (%s) start again and the next "
            "forgetting pass makes them, once; nothing to do.",
            counted(counted_before, "entry", "entries"),
        )
