"""The Postgres store: the sidecar's reads and the connection, bound to one scope of a shared database.

Every agent (workspace) writes its own scope; a run's writes are one transaction holding an advisory
lock keyed by that scope, so two agents never wait on each other and two runs of one agent queue.
Entry ids come from a sequence, counters are incremented in place, and a unique constraint on
(scope, source, line, content) refuses a duplicate entry however the writers interleave."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.pg.connect import PgDb, connect, shown
from memory_sleep.sidecar.pg.migrations import MIGRATION_LOCK, migrate
from memory_sleep.sidecar.pg.writes import PgWrites
from memory_sleep.sidecar.rows import ENTRY_COLUMNS, EntryRow, SourceRow, Vectors


def hnsw_index_name(dim: int) -> str:
    return f"entries_hnsw_{dim}"


def ensure_hnsw(db: PgDb, dim: int) -> None:
    """An HNSW index (cosine) over the live vectors of dimension `dim`, for searches across scopes."""
    found = db.execute("SELECT 1 FROM pg_indexes WHERE indexname = ?", (hnsw_index_name(dim),)).fetchone()
    if found:
        return
    with db.connection.transaction():
        db.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
        db.execute(
            f"CREATE INDEX IF NOT EXISTS {hnsw_index_name(dim)} ON entries USING hnsw"
            f" ((embedding::vector({dim})) vector_cosine_ops) WHERE deleted_at IS NULL AND dim = {dim}"
        )


class PgStore(PgWrites):
    """One scope of a Postgres sidecar. Use `PgStore.open(dsn, scope, dimensions)`."""

    day_noon_sql = "extract(epoch FROM day::date) + 43200.0"

    @classmethod
    def open(cls, dsn: str, scope: str, dimensions: int) -> PgStore:
        db = connect(dsn)
        migrate(db, shown(dsn))
        ensure_hnsw(db, dimensions)
        return cls(db, shown(dsn), scope)

    def __init__(self, db: PgDb, path: str, scope: str) -> None:
        self.db = db
        self.path = path
        self.scope: str | None = scope
        self.read_only: str | None = None  # the server says what this user may not do

    @property
    def _scope(self) -> str:
        assert self.scope is not None
        return self.scope

    def close(self) -> None:
        self.db.close()

    def require_writable(self) -> None:
        return None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction holding this scope's advisory lock: other scopes' writers never wait."""
        with self.db.connection.transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (self._scope,))
            yield

    # meta, per scope

    def meta(self, key: str) -> str | None:
        row = self.db.execute(
            "SELECT value FROM meta WHERE scope = ? AND key = ?", (self._scope, key)
        ).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (scope, key, value) VALUES (?, ?, ?)"
            " ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value",
            (self._scope, key, value),
        )

    def generation(self) -> int:
        row = self.db.execute("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM generation_seq")
        return int(row.fetchone()[0])

    def schema_version(self) -> int:
        return int(self.db.execute("SELECT coalesce(max(number), 0) FROM schema_migrations").fetchone()[0])

    # sources

    def source(self, key: str) -> SourceRow | None:
        row = self.db.execute(
            "SELECT key, path, kind, size, mtime_ns, content_hash FROM sources WHERE scope = ? AND key = ?",
            (self._scope, key),
        ).fetchone()
        return None if row is None else SourceRow(*row)

    def source_keys(self) -> set[str]:
        return {key for (key,) in self.db.execute("SELECT key FROM sources WHERE scope = ?", (self._scope,))}

    def put_source(self, source: SourceRow, now: float) -> None:
        self.db.execute(
            "INSERT INTO sources (scope, key, path, kind, size, mtime_ns, content_hash, indexed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET path = excluded.path,"
            " kind = excluded.kind, size = excluded.size, mtime_ns = excluded.mtime_ns,"
            " content_hash = excluded.content_hash, indexed_at = excluded.indexed_at",
            (
                self._scope,
                source.key,
                source.path,
                source.kind,
                source.size,
                source.mtime_ns,
                source.content_hash,
                now,
            ),
        )

    def drop_source(self, key: str) -> None:
        self.db.execute("DELETE FROM sources WHERE scope = ? AND key = ?", (self._scope, key))

    # entries

    def entries_of_source(self, key: str) -> list[EntryRow]:
        rows = self.db.execute(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE scope = ? AND source_key = ? ORDER BY id",
            (self._scope, key),
        )
        return [EntryRow(*row) for row in rows]

    def entry_count(self) -> int:
        return int(
            self.db.execute("SELECT count(*) FROM entries WHERE scope = ?", (self._scope,)).fetchone()[0]
        )

    def fetch(self, ids: Iterable[int]) -> dict[int, EntryRow]:
        wanted = [int(i) for i in ids]
        rows = self.db.execute(f"SELECT {ENTRY_COLUMNS} FROM entries WHERE id = ANY(?)", (wanted,))
        return {row[0]: EntryRow(*row) for row in rows}

    def embedding_inputs(self, after_id: int, limit: int) -> list[tuple[int, str, str]]:
        return list(
            self.db.execute(
                "SELECT id, context, text FROM entries WHERE scope = ? AND id > ? ORDER BY id LIMIT ?",
                (self._scope, after_id, limit),
            )
        )

    def vectors_changed_since(self, generation: int) -> tuple[list[int], list[tuple[int, str, bytes]]]:
        rows = self.db.execute(
            "SELECT id, scope, embedding, deleted_at FROM entries WHERE scope = ? AND vector_generation > ?"
            " ORDER BY id",
            (self._scope, generation),
        ).fetchall()
        live = [(row[0], row[1], _blob(row[2])) for row in rows if row[3] is None and row[2] is not None]
        return [row[0] for row in rows], live

    def live_vectors(self, dim: int) -> tuple[npt.NDArray[np.int64], list[str], Vectors]:
        """Ids (ascending), scopes and embeddings of this scope's live entries, read in binary."""
        cursor = self.db.connection.cursor(binary=True)
        cursor.execute(
            "SELECT id, embedding FROM entries WHERE scope = %s AND deleted_at IS NULL AND dim = %s ORDER BY id",
            (self._scope, dim),
        )
        ids: list[int] = []
        parts: list[Vectors] = []
        while rows := cursor.fetchmany(65_536):
            ids.extend(row[0] for row in rows)
            parts.append(np.stack([row[1].to_numpy() for row in rows]).astype(np.float32))
        matrix = np.concatenate(parts) if parts else np.zeros((0, dim), dtype=np.float32)
        return np.array(ids, dtype=np.int64), [self._scope] * len(ids), matrix

    def term_counts(self, terms: Sequence[str]) -> dict[str, int]:
        if not terms:
            return {}
        rows = self.db.execute(
            "SELECT term, docs FROM fts_terms WHERE scope = ? AND term = ANY(?)", (self._scope, list(terms))
        )
        return {term: int(docs) for term, docs in rows if docs > 0}

    def text_search(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        """(id, ts_rank_cd) of this scope's best live full-text matches of any term, best first."""
        if not terms:
            return []
        query = " | ".join("'" + term.replace("\\", "\\\\").replace("'", "''") + "'" for term in terms)
        rows = self.db.execute(
            "SELECT id, ts_rank_cd(tokens, q) AS rank FROM entries, to_tsquery('simple', ?) q"
            " WHERE scope = ? AND deleted_at IS NULL AND tokens @@ q ORDER BY rank DESC, id LIMIT ?",
            (query, self._scope, limit),
        )
        return [(int(row[0]), float(row[1])) for row in rows]

    def vector_search(self) -> PgVectors:
        return PgVectors(self)


class PgVectors:
    """Recall's vector side in the database: exact within a scope (its rows, by the scope index),
    HNSW across scopes."""

    def __init__(self, store: PgStore) -> None:
        self.store = store

    def top(
        self, query: npt.NDArray[np.float32], n: int, scope: str | None = None
    ) -> list[tuple[int, float]]:
        dim = len(query)
        vector = np.asarray(query, dtype=np.float32)
        if scope is not None:
            rows = self.store.db.execute(
                "SELECT id, 1 - (embedding <=> ?) AS similarity FROM entries WHERE scope = ?"
                " AND deleted_at IS NULL AND dim = ? ORDER BY embedding <=> ?, id LIMIT ?",
                (vector, scope, dim, vector, n),
            )
        else:
            rows = self.store.db.execute(
                f"SELECT id, 1 - (embedding::vector({dim}) <=> ?) FROM entries WHERE deleted_at IS NULL"
                f" AND dim = {dim} ORDER BY embedding::vector({dim}) <=> ? LIMIT ?",
                (vector, vector, n),
            )
        return [(int(row[0]), float(row[1])) for row in rows]

    def allowed(self, ids: Iterable[int], scope: str | None) -> list[bool]:
        wanted = [int(i) for i in ids]
        live = {
            int(i)
            for (i,) in self.store.db.execute(
                "SELECT id FROM entries WHERE id = ANY(?) AND deleted_at IS NULL AND (?::text IS NULL OR scope = ?)",
                (wanted, scope, scope),
            )
        }
        return [i in live for i in wanted]


def _blob(embedding: object) -> bytes:
    return np.asarray(embedding, dtype="<f4").tobytes()
