"""The Postgres store's writes: entries (insert, rewrite, move, soft-delete, restore, re-embed,
validity) and the query log. Counters change in place (`x = x + 1`), never read-modify-write."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.pg.connect import PgDb
from memory_sleep.sidecar.rows import STORED_ENDINGS, NewEntry, Vectors, validity_writes
from memory_sleep.sidecar.tokenize import fts_document

_LOAD_COLUMNS = (
    "id, namespace, source_key, source_path, kind, line_start, line_end, context, text, content_hash, day,"
    " scope, importance, created_at, updated_at, expires_at, values_key, embedder, dim, embedding, discarded"
)
_LOAD_TYPES = [  # of _LOAD_COLUMNS, then tokens and vector_generation
    *("int8", "text", "text", "text", "text", "int4", "int4", "text", "text", "text", "text", "text"),
    *("float8", "float8", "float8", "float8", "int8", "text", "int4", "vector", "int4", "text", "int8"),
]
_STAGING = (  # this connection's own; emptied after each load
    "CREATE TEMP TABLE IF NOT EXISTS entries_load (id BIGINT, namespace TEXT, source_key TEXT,"
    " source_path TEXT, kind TEXT, line_start INTEGER, line_end INTEGER, context TEXT, text TEXT,"
    " content_hash TEXT, day TEXT, scope TEXT, importance DOUBLE PRECISION, created_at DOUBLE PRECISION,"
    " updated_at DOUBLE PRECISION, expires_at DOUBLE PRECISION, values_key BIGINT, embedder TEXT, dim INTEGER,"
    " embedding vector, discarded INTEGER, tokens TEXT, vector_generation BIGINT)"
)


class PgWrites:
    """The writing half of the Postgres store."""

    db: PgDb
    namespace: str | None

    @property
    def _namespace(self) -> str:
        assert self.namespace is not None  # a Postgres store is always one agent's namespace
        return self.namespace

    def _stamp(self, ids: Sequence[int]) -> int:
        """Mark these entries' vectors (or liveness) changed at a new generation (a sequence: no lock)."""
        generation = int(self.db.execute("SELECT nextval('generation_seq')").fetchone()[0])
        if ids:
            self.db.execute(
                "UPDATE entries SET vector_generation = ? WHERE id = ANY(?)",
                (generation, [int(i) for i in ids]),
            )
        return generation

    def insert_entries(
        self, entries: Sequence[NewEntry], vectors: Vectors, embedder: str, now: float
    ) -> list[int]:
        if not entries:
            return []
        ids = [
            int(i)
            for (i,) in self.db.execute(
                "SELECT nextval('entries_id_seq') FROM generate_series(1, ?)", (len(entries),)
            )
        ]
        generation = self._stamp([])
        with self.db.connection.transaction():  # binary COPY into a staging table: one round trip
            self.db.execute(_STAGING)
            cursor = self.db.connection.cursor()
            with cursor.copy(
                f"COPY entries_load ({_LOAD_COLUMNS}, tokens, vector_generation) FROM STDIN"
                " WITH (FORMAT BINARY)"
            ) as copy:
                copy.set_types(_LOAD_TYPES)
                for entry_id, entry, vector in zip(ids, entries, vectors, strict=True):
                    copy.write_row(
                        (
                            entry_id,
                            self._namespace,
                            *entry.columns(now),
                            embedder,
                            len(vector),
                            np.asarray(vector, dtype=np.float32),
                            int(entry.discarded),
                            entry.tokens,
                            generation,
                        )
                    )
            self.db.execute(
                f"INSERT INTO entries ({_LOAD_COLUMNS}, tokens, vector_generation) SELECT {_LOAD_COLUMNS},"
                " to_tsvector('simple', tokens), vector_generation FROM entries_load ORDER BY id"
            )
            self.db.execute("TRUNCATE entries_load")
        self._count_terms(Counter(term for entry in entries for term in set(entry.tokens.split())), 1)
        return ids

    def _count_terms(self, counts: Counter[str], sign: int) -> None:
        self.db.executemany(
            "INSERT INTO fts_terms (namespace, term, docs) VALUES (?, ?, ?) ON CONFLICT (namespace, term)"
            " DO UPDATE SET docs = fts_terms.docs + excluded.docs",
            [(self._namespace, term, sign * count) for term, count in sorted(counts.items())],
        )

    def rewrite_entries(
        self, pairs: Sequence[tuple[int, NewEntry]], vectors: Vectors, embedder: str, now: float
    ) -> None:
        """Replace the text (and so the embedding) of existing entries, keeping their id and history."""
        if not pairs:
            return
        old = self.db.execute(
            "SELECT context, text FROM entries WHERE id = ANY(?)", ([entry_id for entry_id, _ in pairs],)
        )
        self._count_terms(
            Counter(t for context, text in old for t in set(_document(context, text).split())), -1
        )
        self.db.executemany(
            "UPDATE entries SET source_path = ?, line_start = ?, line_end = ?, context = ?, text = ?,"
            " content_hash = ?, day = ?, scope = ?, expires_at = ?, updated_at = ?, values_key = ?, embedder = ?,"
            " dim = ?, embedding = ?, discarded = ?, tokens = to_tsvector('simple', ?) WHERE id = ?",
            [
                (
                    *entry.rewritten(now),
                    embedder,
                    len(vector),
                    np.asarray(vector, dtype=np.float32),
                    int(entry.discarded),
                    entry.tokens,
                    entry_id,
                )
                for (entry_id, entry), vector in zip(pairs, vectors, strict=True)
            ],
        )
        self._count_terms(Counter(t for _, entry in pairs for t in set(entry.tokens.split())), 1)
        self._stamp([entry_id for entry_id, _ in pairs])

    def move_entry(self, entry_id: int, path: str, line_start: int, line_end: int) -> None:
        self.db.execute(
            "UPDATE entries SET source_path = ?, line_start = ?, line_end = ? WHERE id = ?",
            (path, line_start, line_end, entry_id),
        )

    def soft_delete(self, ids: Sequence[int], reason: str, now: float, pass_id: str | None = None) -> int:
        changed: int = self.db.execute(
            "UPDATE entries SET deleted_at = ?, deleted_reason = ?, deleted_pass = ?"
            " WHERE id = ANY(?) AND deleted_at IS NULL",
            (now, reason, pass_id, [int(i) for i in ids]),
        ).rowcount
        if changed:
            self._stamp(ids)
        return changed

    def restore(self, ids: Sequence[int]) -> int:
        changed: int = self.db.execute(
            "UPDATE entries SET deleted_at = NULL, deleted_reason = NULL, deleted_pass = NULL"
            " WHERE id = ANY(?) AND deleted_at IS NOT NULL",
            ([int(i) for i in ids],),
        ).rowcount
        if changed:
            self._stamp(ids)
        return changed

    def set_embeddings(self, ids: Sequence[int], vectors: Vectors, embedder: str) -> None:
        self.db.executemany(
            "UPDATE entries SET embedder = ?, dim = ?, embedding = ? WHERE id = ?",
            [
                (embedder, len(vector), np.asarray(vector, dtype=np.float32), int(entry_id))
                for entry_id, vector in zip(ids, vectors, strict=True)
            ],
        )
        self._stamp(ids)

    def set_validity(self, endings: Mapping[int, tuple[str, str, str | None]]) -> None:
        stored = self.db.execute(
            f"{STORED_ENDINGS} WHERE namespace = ? AND status IS NOT NULL", (self._namespace,)
        )
        cleared, changed = validity_writes(stored, endings)
        self.db.executemany(
            "UPDATE entries SET valid_to = NULL, status = NULL, ended_by = NULL WHERE id = ?", cleared
        )
        self.db.executemany("UPDATE entries SET valid_to = ?, status = ?, ended_by = ? WHERE id = ?", changed)

    # the query log

    def log_query(
        self,
        text: str,
        scope: str | None,
        k: int,
        embedder: str,
        embedding: npt.NDArray[np.float32] | None,
        results: Sequence[tuple[int, float]],
        now: float,
    ) -> int:
        with self.db.connection.transaction():
            query_id = int(
                self.db.execute(
                    "INSERT INTO queries (namespace, text, scope, k, created_at, embedder, embedding)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (self._namespace, text, scope, k, now, embedder, embedding),
                ).fetchone()[0]
            )
            self.db.executemany(
                "INSERT INTO query_results (query_id, rank, entry_id, score) VALUES (?, ?, ?, ?)",
                [(query_id, rank, entry_id, score) for rank, (entry_id, score) in enumerate(results, 1)],
            )
            self._count_access([entry_id for entry_id, _ in results], now)
        return query_id

    def record_access(self, ids: Sequence[int], now: float | None = None) -> None:
        with self.db.connection.transaction():
            self._count_access(ids, time.time() if now is None else now)

    def _count_access(self, ids: Sequence[int], now: float) -> None:
        self.db.executemany(
            "UPDATE entries SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?",
            [(now, int(entry_id)) for entry_id in ids],
        )

    def logged_queries(self, limit: int) -> list[tuple[int, str, str | None, float, list[int]]]:
        queries = self.db.execute(
            "SELECT q.id, q.text, q.scope, q.created_at, array_remove(array_agg(r.entry_id ORDER BY r.rank), NULL)"
            " FROM queries q LEFT JOIN query_results r ON r.query_id = q.id WHERE q.namespace = ?"
            " GROUP BY q.id ORDER BY q.id DESC LIMIT ?",
            (self._namespace, limit),
        )
        return [
            (int(i), text, scope, float(at), [int(e) for e in ranked])
            for i, text, scope, at, ranked in queries
        ]


def _document(context: str, text: str) -> str:
    return fts_document(f"{context}: {text}" if context else text)
