"""The Postgres schema as numbered migrations, applied once each, in order, in one transaction
under an advisory lock (two agents starting at once do not both migrate).

Every agent's entries share one table; each store reads and writes its own namespace (the agent's
`[sidecar] scope`); an entry's own `scope` (a note's front matter may set one) works as in SQLite. Times are
Unix seconds (double precision), as in SQLite, so scoring code reads both alike."""

from __future__ import annotations

import time

from memory_sleep.errors import StoreError
from memory_sleep.sidecar.pg.connect import PgDb

MIGRATION_LOCK = 0x6D656D5F736C  # pg_advisory_xact_lock key for migrations ("mem_sl")

M001_SCHEMA = (
    "CREATE TABLE meta (namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, key))",
    "CREATE SEQUENCE generation_seq",
    """CREATE TABLE sources (
        namespace TEXT NOT NULL, key TEXT NOT NULL, path TEXT NOT NULL, kind TEXT NOT NULL,
        size BIGINT NOT NULL, mtime_ns BIGINT NOT NULL, content_hash TEXT NOT NULL,
        indexed_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (namespace, key))""",
    """CREATE TABLE entries (
        id BIGSERIAL PRIMARY KEY,
        namespace TEXT NOT NULL,
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
        importance DOUBLE PRECISION NOT NULL DEFAULT 0.5,
        created_at DOUBLE PRECISION NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        last_accessed_at DOUBLE PRECISION,
        access_count BIGINT NOT NULL DEFAULT 0,
        expires_at DOUBLE PRECISION,
        deleted_at DOUBLE PRECISION,
        deleted_reason TEXT,
        deleted_pass TEXT,
        embedder TEXT,
        dim INTEGER,
        embedding vector,
        vector_generation BIGINT NOT NULL DEFAULT 0,
        valid_to TEXT,
        status TEXT CHECK (status IN ('superseded', 'done', 'finished', 'expired')),
        ended_by TEXT,
        discarded INTEGER NOT NULL DEFAULT 0,
        tokens tsvector,
        CONSTRAINT entries_one_per_place UNIQUE (namespace, source_key, line_start, content_hash)
            DEFERRABLE INITIALLY DEFERRED
    )""",
    "CREATE INDEX entries_by_source ON entries (namespace, source_key)",
    "CREATE INDEX entries_live ON entries (namespace, id) WHERE deleted_at IS NULL",
    "CREATE INDEX entries_deleted_pass ON entries (deleted_pass) WHERE deleted_pass IS NOT NULL",
    "CREATE INDEX entries_by_vector_generation ON entries (vector_generation)",
    "CREATE INDEX entries_ended ON entries (status) WHERE status IS NOT NULL",
    "CREATE INDEX entries_tokens ON entries USING gin (tokens)",
    """CREATE TABLE fts_terms (namespace TEXT NOT NULL, term TEXT NOT NULL, docs BIGINT NOT NULL,
        PRIMARY KEY (namespace, term))""",
    """CREATE TABLE queries (id BIGSERIAL PRIMARY KEY, namespace TEXT NOT NULL, text TEXT NOT NULL, scope TEXT, k INTEGER NOT NULL,
        created_at DOUBLE PRECISION NOT NULL, embedder TEXT NOT NULL, embedding vector)""",
    """CREATE TABLE query_results (
        query_id BIGINT NOT NULL REFERENCES queries (id) ON DELETE CASCADE,
        rank INTEGER NOT NULL,
        entry_id BIGINT NOT NULL REFERENCES entries (id) ON DELETE CASCADE,
        score DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (query_id, rank))""",
    "CREATE INDEX query_results_by_entry ON query_results (entry_id)",
    "CREATE INDEX queries_by_namespace ON queries (namespace, id)",
    """CREATE TABLE entry_density (entry_id BIGINT PRIMARY KEY REFERENCES entries (id) ON DELETE CASCADE,
        neighbours BIGINT NOT NULL)""",
    "CREATE TABLE density_retired (entry_id BIGINT PRIMARY KEY, namespace TEXT NOT NULL, scope TEXT NOT NULL,"
    " embedding vector NOT NULL)",
    """CREATE FUNCTION density_keep_old_embedding() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.embedding IS NOT NULL AND OLD.embedder IS NOT DISTINCT FROM NEW.embedder
               AND OLD.embedding IS DISTINCT FROM NEW.embedding THEN
                INSERT INTO density_retired (entry_id, namespace, scope, embedding)
                VALUES (OLD.id, OLD.namespace, OLD.scope, OLD.embedding) ON CONFLICT DO NOTHING;
            END IF;
            RETURN NEW;
        END $$""",
    """CREATE TRIGGER density_keep_old_embedding BEFORE UPDATE OF embedding ON entries
        FOR EACH ROW EXECUTE FUNCTION density_keep_old_embedding()""",
    "CREATE TABLE entry_restores (entry_id BIGINT PRIMARY KEY, restored_at DOUBLE PRECISION NOT NULL)",
    """CREATE TABLE forgetting_passes (
        id TEXT PRIMARY KEY, namespace TEXT NOT NULL, started_at DOUBLE PRECISION NOT NULL,
        seconds DOUBLE PRECISION NOT NULL, dry_run INTEGER NOT NULL, entries BIGINT NOT NULL,
        candidates BIGINT NOT NULL, load_bearing BIGINT NOT NULL, forgotten BIGINT NOT NULL, skipped TEXT)""",
    "CREATE INDEX forgetting_passes_by_time ON forgetting_passes (namespace, started_at)",
    """CREATE TABLE density_build (
        namespace TEXT PRIMARY KEY, threshold DOUBLE PRECISION NOT NULL, embedder TEXT NOT NULL,
        next_row BIGINT NOT NULL, ids BYTEA NOT NULL, counts BYTEA NOT NULL, pair_firsts BYTEA,
        pair_seconds BYTEA)""",
)

# before it, a pass that rewrote an item of one file and added items to a later one stored those
# vectors on the wrong rows: naming the embedder anew makes the next open re-embed
M002_REALIGN_VECTORS = ("UPDATE meta SET value = value || ' (vectors misaligned)' WHERE key = 'embedder'",)

# each entry's values key (sidecar/migrations.py m012_values_key): kept with a retired embedding too;
# density counts start again
M003_VALUES_KEY = (
    "ALTER TABLE entries ADD COLUMN values_key BIGINT",
    "ALTER TABLE density_retired ADD COLUMN values_key BIGINT",
    """CREATE OR REPLACE FUNCTION density_keep_old_embedding() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.embedding IS NOT NULL AND OLD.embedder IS NOT DISTINCT FROM NEW.embedder
               AND OLD.embedding IS DISTINCT FROM NEW.embedding THEN
                INSERT INTO density_retired (entry_id, namespace, scope, values_key, embedding)
                VALUES (OLD.id, OLD.namespace, OLD.scope, OLD.values_key, OLD.embedding) ON CONFLICT DO NOTHING;
            END IF;
            RETURN NEW;
        END $$""",
    "DELETE FROM entry_density",
    "DELETE FROM density_retired",
    "DELETE FROM density_build",
    "DELETE FROM meta WHERE key IN ('density_threshold', 'density_embedder')",
)

MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("m001_schema", M001_SCHEMA),
    ("m002_realign_vectors", M002_REALIGN_VECTORS),
    ("m003_values_key", M003_VALUES_KEY),
)


def applied(db: PgDb) -> set[int]:
    exists = db.execute("SELECT to_regclass('schema_migrations')").fetchone()[0]
    return {number for (number,) in db.execute("SELECT number FROM schema_migrations")} if exists else set()


def missing(db: PgDb, where: str) -> list[str]:
    done = applied(db)
    newest = max(done, default=0)
    if newest > len(MIGRATIONS):
        raise StoreError(
            f"{where}: schema version {newest} was written by a newer memory-sleep (this one knows "
            f"{len(MIGRATIONS)}). Upgrade memory-sleep on every agent that shares this database."
        )
    return [name for number, (name, _) in enumerate(MIGRATIONS, 1) if number not in done]


def migrate(db: PgDb, where: str) -> list[str]:
    """Apply every migration the database lacks; return their names."""
    if not missing(db, where):
        return []
    names = []
    with db.connection.transaction():
        db.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
        db.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (number INTEGER PRIMARY KEY, name TEXT NOT NULL,"
            " applied_at DOUBLE PRECISION NOT NULL)"
        )
        done = applied(db)  # another agent may have migrated while we waited for the lock
        for number, (name, statements) in enumerate(MIGRATIONS, 1):
            if number in done:
                continue
            for statement in statements:
                db.execute(statement)
            db.execute(
                "INSERT INTO schema_migrations (number, name, applied_at) VALUES (?, ?, ?)",
                (number, name, time.time()),
            )
            names.append(name)
    return names
