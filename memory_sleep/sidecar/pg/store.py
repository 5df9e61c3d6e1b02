"""The Postgres store: the sidecar's reads and the connection, bound to one namespace of a shared
database (the agent's `[sidecar] scope`; entries keep their own scope inside it, as in SQLite).

Every agent (or user) writes its own namespace; a run's writes are one transaction holding an
advisory lock keyed by that namespace, so two agents never wait on each other and two runs of one
agent queue. Entry ids come from a sequence, counters are incremented in place, and a unique
constraint on (namespace, source, line, content) refuses a duplicate entry however writers interleave."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.pg.connect import PgDb, connect, shown
from memory_sleep.sidecar.pg.erase import PgErasure
from memory_sleep.sidecar.pg.migrations import MIGRATION_LOCK, migrate
from memory_sleep.sidecar.rows import ENTRY_COLUMNS, DatedMatch, EntryRow, SourceRow, Vectors, from_blobs


def hnsw_index_name(dim: int) -> str:
    return f"entries_hnsw_{dim}"


def ensure_hnsw(db: PgDb, dim: int) -> None:
    """An HNSW index (cosine) over the live vectors of dimension `dim`, for large namespaces; pgvector's
    default graph (m 16, ef_construction 64): a larger one builds slower on a loaded table, and
    this one finds 0.975 of the exact top 10 of 1M entries at ef_search 200 (bench_postgres.py). On
    a loaded table, give the session a large maintenance_work_mem first (the graph is built in
    memory, several times faster) and max_parallel_maintenance_workers."""
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

    def delete_meta(self, key: str) -> None:
        self.db.execute("DELETE FROM meta WHERE namespace = ? AND key = ?", (self._namespace, key))

    def meta_keys(self, prefix: str) -> list[str]:
        """The meta keys starting with `prefix`, sorted."""
        rows = self.db.execute(
            "SELECT key FROM meta WHERE namespace = ? AND substr(key, 1, ?) = ? ORDER BY key",
            (self._namespace, len(prefix), prefix),
        )
        return [str(key) for (key,) in rows]

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
        return [EntryRow.read(row) for row in rows]

    def entry_count(self) -> int:
        return int(
            self.db.execute(
                "SELECT count(*) FROM entries WHERE namespace = ?", (self._namespace,)
            ).fetchone()[0]
        )

    def fetch(self, ids: Iterable[int]) -> dict[int, EntryRow]:
        wanted = [int(i) for i in ids]
        rows = self.db.execute(f"SELECT {ENTRY_COLUMNS} FROM entries WHERE id = ANY(?)", (wanted,))
        return {row[0]: EntryRow.read(row) for row in rows}

    def entry_at(self, source_key: str, line: int, live: bool = True) -> EntryRow | None:
        row = self.db.execute(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE namespace = ? AND source_key = ? AND line_start <= ?"
            f" AND line_end >= ? AND deleted_at IS {'' if live else 'NOT '}NULL ORDER BY line_start DESC LIMIT 1",
            (self._namespace, source_key, line, line),
        ).fetchone()
        return EntryRow.read(row) if row else None

    def ended_by(self, link: str) -> list[EntryRow]:
        rows = self.db.execute(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE namespace = ? AND status = 'superseded'"
            " AND ended_by = ? ORDER BY day, source_path, line_start",
            (self._namespace, link),
        )
        return [EntryRow.read(row) for row in rows]

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
        self, terms: Sequence[str], kinds: Sequence[str], start: str, end: str, limit: int, after_id: int = 0
    ) -> list[DatedMatch]:
        """The best matches of these kinds dated from `start` to before `end`, soft-deleted or not,
        best first; only ids above `after_id`."""
        rows = self._bm25(
            terms,
            limit,
            "id > ? AND kind = ANY(?) AND day >= ? AND day < ?",
            (after_id, list(kinds), start, end),
            ", day, text, kind, context, source_path",
        )
        return [DatedMatch(int(row[0]), *row[2:]) for row in rows]

    def dated_terms(self, after_id: int, days: Sequence[str], kinds: Sequence[str], limit: int) -> None:
        """None: Postgres reads a term as its text search does, which `validity` does not imitate (it
        asks `dated_matches` instead)."""
        return None

    def term_tokens(self, terms: Sequence[str]) -> None:
        """None, as `dated_terms`."""
        return None

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


EXACT_ROWS = 20_000  # a namespace this small is searched exactly: 1k rows take ~1 ms, 10k ~13 ms
# HNSW candidates at least: over 1M entries, queries near their answer, recall@10 against exact was
# 0.776 at ef_search 40, 0.941 at 100 and 0.975 at 200 (8.0 and 11.4 ms p50; bench_postgres.py)
EF_SEARCH_MIN = 200
EF_SEARCH_MAX = 1_000  # pgvector's limit


def ef_search(wanted: int, namespace_rows: int, table_rows: int) -> int | None:
    """hnsw.ef_search for an HNSW scan of the whole table kept to one namespace, or None: search the
    namespace exactly. The scan filters after the graph search (pgvector 0.6 has no iterative scan),
    so of its ef_search candidates only the namespace's share remains: ask for enough that about
    four times `wanted` survive. A small namespace, or one too small a share of the table for 1,000
    candidates to hold its nearest, is read whole: exact, and cheap at that size."""
    if namespace_rows <= EXACT_ROWS or table_rows <= 0:
        return None
    needed = math.ceil(4 * wanted * max(table_rows, namespace_rows) / namespace_rows)
    return None if needed > EF_SEARCH_MAX else max(EF_SEARCH_MIN, needed)


class PgVectors:
    """Recall's vector side in the database, kept to the store's namespace (and an entry scope, if
    asked): exact over a small namespace, the HNSW index over a large one (see `ef_search`)."""

    def __init__(self, store: PgStore) -> None:
        self.store = store

    def top(
        self,
        query: npt.NDArray[np.float32],
        n: int,
        scope: str | None = None,
        helper: Executor | None = None,  # unused: the database does the work
    ) -> list[tuple[int, float]]:
        vector = np.asarray(query, dtype=np.float32)
        dim = len(vector)
        candidates = ef_search(n, *self._rows(dim))
        if candidates is not None:
            with self.store.db.connection.transaction():
                self.store.db.execute(f"SET LOCAL hnsw.ef_search = {candidates}")
                found = self._nearest(vector, n, scope, hnsw=True)
            if len(found) == n:  # else the filter starved the scan: read the namespace exactly
                return found
        return self._nearest(vector, n, scope)

    def _rows(self, dim: int) -> tuple[int, int]:
        """This namespace's live vectors of `dim` (counted up to just past EXACT_ROWS, the planner's
        estimate beyond) and the table's rows (estimated): counting a large namespace costs more
        than searching it."""
        live = f"FROM entries WHERE namespace = ? AND deleted_at IS NULL AND dim = {dim}"
        db, namespace = self.store.db, (self.store.namespace,)
        counted = int(
            db.execute(
                f"SELECT count(*) FROM (SELECT 1 {live} LIMIT {EXACT_ROWS + 1}) AS n", namespace
            ).fetchone()[0]
        )
        table = int(
            db.execute("SELECT reltuples FROM pg_class WHERE oid = 'entries'::regclass").fetchone()[0]
        )
        if counted <= EXACT_ROWS:
            return counted, table
        plan = db.execute(f"EXPLAIN (FORMAT JSON) SELECT 1 {live}", namespace).fetchone()[0]  # parsed
        return max(counted, int(plan[0]["Plan"]["Plan Rows"])), table

    def _nearest(
        self, vector: npt.NDArray[np.float32], n: int, scope: str | None, hnsw: bool = False
    ) -> list[tuple[int, float]]:
        """Ordered by the indexed expression alone, the scan takes the HNSW index; by the column (ties
        by id), it reads the namespace exactly. `dim` is written in, so the index's predicate
        matches in any plan."""
        dim = len(vector)
        order = f"embedding::vector({dim}) <=> ?" if hnsw else "embedding <=> ?, id"
        rows = self.store.db.execute(
            "SELECT id, 1 - (embedding <=> ?) FROM entries WHERE namespace = ? AND deleted_at IS NULL"
            f" AND dim = {dim} AND (?::text IS NULL OR scope = ?) ORDER BY {order} LIMIT ?",
            (vector, self.store.namespace, scope, scope, vector, n),
        ).fetchall()
        return [(int(row[0]), float(row[1])) for row in rows]

    def cosines(self, query: npt.NDArray[np.float32], ids: Iterable[int]) -> dict[int, float]:
        vector = np.asarray(query, dtype=np.float32)
        rows = self.store.db.execute(
            "SELECT id, 1 - (embedding <=> ?) FROM entries WHERE id = ANY(?) AND namespace = ?"
            f" AND deleted_at IS NULL AND dim = {len(vector)}",
            (vector, [int(i) for i in ids], self.store.namespace),
        ).fetchall()
        return {int(row[0]): float(row[1]) for row in rows}

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
