"""The Postgres store: the sidecar's reads and the connection, bound to one namespace of a shared
database (the agent's `[sidecar] scope`; entries keep their own scope inside it, as in SQLite).

Every agent (or user) writes its own namespace; a run's writes are one transaction holding an
advisory lock keyed by that namespace, so two agents never wait on each other and two runs of one
agent queue. Entry ids come from a sequence, counters are incremented in place, and a unique
constraint on (namespace, source, line, content) refuses a duplicate entry however writers interleave."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.pg.connect import PgDb, connect, shown
from memory_sleep.sidecar.pg.erase import PgErasure
from memory_sleep.sidecar.pg.migrations import MIGRATION_LOCK, migrate
from memory_sleep.sidecar.rows import ENTRY_COLUMNS, EntryRow, SourceRow, Vectors, from_blobs


def hnsw_index_name(dim: int) -> str:
    return f"entries_hnsw_{dim}"


def ensure_hnsw(db: PgDb, dim: int) -> None:
    """An HNSW index (cosine) over the live vectors of dimension `dim`, for large namespaces."""
    found = db.execute("SELECT 1 FROM pg_indexes WHERE indexname = ?", (hnsw_index_name(dim),)).fetchone()
    if found:
        return
    with db.connection.transaction():
        db.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
        db.execute(
            f"CREATE INDEX IF NOT EXISTS {hnsw_index_name(dim)} ON entries USING hnsw"
            f" ((embedding::vector({dim})) vector_cosine_ops) WHERE deleted_at IS NULL AND dim = {dim}"
        )


class PgStore(PgErasure):
    """One namespace of a Postgres sidecar. Use `PgStore.open(dsn, namespace, dimensions)`."""

    day_noon_sql = "extract(epoch FROM day::date) + 43200.0"

    @classmethod
    def open(cls, dsn: str, namespace: str, dimensions: int) -> PgStore:
        db = connect(dsn)
        migrate(db, shown(dsn))
        ensure_hnsw(db, dimensions)
        return cls(db, shown(dsn), namespace)

    def __init__(self, db: PgDb, path: str, namespace: str) -> None:
        self.db = db
        self.path = path
        self.namespace: str | None = namespace
        self.read_only: str | None = None  # the server says what this user may not do

    def close(self) -> None:
        self.db.close()

    def require_writable(self) -> None:
        return None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction holding this namespace's advisory lock: other agents' writers never wait."""
        with self.db.connection.transaction():
            self.db.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (self._namespace,))
            yield

    # meta, per namespace

    def meta(self, key: str) -> str | None:
        row = self.db.execute(
            "SELECT value FROM meta WHERE namespace = ? AND key = ?", (self._namespace, key)
        ).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (namespace, key, value) VALUES (?, ?, ?)"
            " ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value",
            (self._namespace, key, value),
        )

    def generation(self) -> int:
        row = self.db.execute("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM generation_seq")
        return int(row.fetchone()[0])

    def schema_version(self) -> int:
        return int(self.db.execute("SELECT coalesce(max(number), 0) FROM schema_migrations").fetchone()[0])

    # sources

    def source(self, key: str) -> SourceRow | None:
        row = self.db.execute(
            "SELECT key, path, kind, size, mtime_ns, content_hash FROM sources WHERE namespace = ? AND key = ?",
            (self._namespace, key),
        ).fetchone()
        return None if row is None else SourceRow(*row)

    def source_keys(self) -> set[str]:
        return {
            key
            for (key,) in self.db.execute("SELECT key FROM sources WHERE namespace = ?", (self._namespace,))
        }

    def put_source(self, source: SourceRow, now: float) -> None:
        self.db.execute(
            "INSERT INTO sources (namespace, key, path, kind, size, mtime_ns, content_hash, indexed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET path = excluded.path,"
            " kind = excluded.kind, size = excluded.size, mtime_ns = excluded.mtime_ns,"
            " content_hash = excluded.content_hash, indexed_at = excluded.indexed_at",
            (
                self._namespace,
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
        self.db.execute("DELETE FROM sources WHERE namespace = ? AND key = ?", (self._namespace, key))

    # entries

    def entries_of_source(self, key: str) -> list[EntryRow]:
        rows = self.db.execute(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE namespace = ? AND source_key = ? ORDER BY id",
            (self._namespace, key),
        )
        return [EntryRow(*row) for row in rows]

    def entry_count(self) -> int:
        return int(
            self.db.execute(
                "SELECT count(*) FROM entries WHERE namespace = ?", (self._namespace,)
            ).fetchone()[0]
        )

    def fetch(self, ids: Iterable[int]) -> dict[int, EntryRow]:
        wanted = [int(i) for i in ids]
        rows = self.db.execute(f"SELECT {ENTRY_COLUMNS} FROM entries WHERE id = ANY(?)", (wanted,))
        return {row[0]: EntryRow(*row) for row in rows}

    def embedding_inputs(self, after_id: int, limit: int) -> list[tuple[int, str, str]]:
        return list(
            self.db.execute(
                "SELECT id, context, text FROM entries WHERE namespace = ? AND id > ? ORDER BY id LIMIT ?",
                (self._namespace, after_id, limit),
            )
        )

    def vectors_changed_since(self, generation: int) -> tuple[list[int], list[tuple[int, str, bytes]]]:
        rows = self.db.execute(
            "SELECT id, scope, embedding, deleted_at FROM entries WHERE namespace = ? AND vector_generation > ?"
            " ORDER BY id",
            (self._namespace, generation),
        ).fetchall()
        live = [(row[0], row[1], row[2]) for row in rows if row[3] is None and row[2] is not None]
        return [row[0] for row in rows], live

    def live_vectors(self, dim: int) -> tuple[npt.NDArray[np.int64], list[str], Vectors]:
        """Ids (ascending), scopes and embeddings of this namespace's live entries."""
        cursor = self.db.execute(
            "SELECT id, scope, embedding FROM entries WHERE namespace = ? AND deleted_at IS NULL AND dim = ?"
            " ORDER BY id",
            (self._namespace, dim),
        )
        ids: list[int] = []
        scopes: list[str] = []
        parts: list[Vectors] = []
        while rows := cursor.fetchmany(65_536):
            ids.extend(row[0] for row in rows)
            scopes.extend(row[1] for row in rows)
            parts.append(from_blobs([row[2] for row in rows], dim))
        matrix = np.concatenate(parts) if parts else np.zeros((0, dim), dtype=np.float32)
        return np.array(ids, dtype=np.int64), scopes, matrix

    def term_counts(self, terms: Sequence[str]) -> dict[str, int]:
        if not terms:
            return {}
        rows = self.db.execute(
            "SELECT term, docs FROM fts_terms WHERE namespace = ? AND term = ANY(?)",
            (self._namespace, list(terms)),
        )
        return {term: int(docs) for term, docs in rows if docs > 0}

    def text_search(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        """(id, BM25) of this namespace's best live full-text matches of any term, best first."""
        rows = self._bm25(terms, limit, "deleted_at IS NULL", (), "")
        return [(int(row[0]), float(row[1])) for row in rows]

    def dated_matches(
        self, terms: Sequence[str], kinds: Sequence[str], start: str, end: str, limit: int
    ) -> list[tuple[int, str, str]]:
        """(id, day, text) of the best matches of these kinds dated from `start` to before `end`,
        soft-deleted or not, best first."""
        rows = self._bm25(
            terms, limit, "kind = ANY(?) AND day >= ? AND day < ?", (list(kinds), start, end), ", day, text"
        )
        return [(int(row[0]), str(row[2]), str(row[3])) for row in rows]

    def _bm25(
        self, terms: Sequence[str], limit: int, where: str, params: tuple[object, ...], extra: str
    ) -> list[Any]:
        """Matches of any term among this namespace's entries that pass `where`, by the GIN index,
        ranked by BM25 as SQLite's FTS5 ranks them (k1 1.2, b 0.75, IDF from the namespace's term
        counts): 26 of the retrieval set's 35 answers in the top 5, as SQLite, where `ts_rank_cd`
        found 21. Document lengths are averaged over the matches, not the namespace: close
        enough for ranking, and one scan fewer."""
        if not terms:
            return []
        query = " | ".join("'" + term.replace("\\", "\\\\").replace("'", "''") + "'" for term in terms)
        return list(
            self.db.execute(
                "WITH wanted AS (SELECT term, docs FROM fts_terms WHERE namespace = ? AND term = ANY(?)"
                "  AND docs > 0),"
                " total AS (SELECT count(*)::float8 AS n FROM entries WHERE namespace = ?),"
                f" matched AS (SELECT id{extra}, tokens, (SELECT sum(array_length(positions, 1))"
                "  FROM unnest(tokens)) AS length FROM entries WHERE namespace = ?"
                f"  AND tokens @@ to_tsquery('simple', ?) AND {where}),"
                " average AS (SELECT avg(length) AS length FROM matched)"
                f" SELECT m.id, sum(ln(greatest((total.n - w.docs + 0.5) / (w.docs + 0.5), 1.000001))"
                "  * u.tf * 2.2 / (u.tf + 1.2 * (0.25 + 0.75 * m.length / average.length))) AS score"
                f"{extra.replace(', ', ', m.')}"
                " FROM matched m CROSS JOIN total CROSS JOIN average"
                " CROSS JOIN LATERAL (SELECT lexeme, array_length(positions, 1) AS tf FROM unnest(m.tokens)) u"
                f" JOIN wanted w ON w.term = u.lexeme GROUP BY m.id{extra.replace(', ', ', m.')}"
                " ORDER BY score DESC, m.id LIMIT ?",
                (self._namespace, list(terms), self._namespace, self._namespace, query, *params, limit),
            )
        )

    def vector_search(self) -> PgVectors:
        return PgVectors(self)


class PgVectors:
    """Recall's vector side in the database: exact within the store's namespace (and an entry
    scope, if asked), read by the namespace's index. The HNSW index serves searches across
    namespaces: with pgvector 0.6 a filtered HNSW scan may return fewer than n rows of a small
    namespace, so an agent's own recall does not use it."""

    def __init__(self, store: PgStore) -> None:
        self.store = store

    def top(
        self, query: npt.NDArray[np.float32], n: int, scope: str | None = None
    ) -> list[tuple[int, float]]:
        vector = np.asarray(query, dtype=np.float32)
        rows = self.store.db.execute(
            "SELECT id, 1 - (embedding <=> ?) FROM entries WHERE namespace = ? AND deleted_at IS NULL"
            " AND dim = ? AND (?::text IS NULL OR scope = ?) ORDER BY embedding <=> ?, id LIMIT ?",
            (vector, self.store.namespace, len(vector), scope, scope, vector, n),
        ).fetchall()
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
