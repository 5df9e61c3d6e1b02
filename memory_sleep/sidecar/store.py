"""The sidecar database: SQLite in WAL mode holding entries, their embeddings, the FTS index and the query log.

Only this module writes SQL; the indexer, search and the forgetting pass call its methods.
"""

from __future__ import annotations

import sqlite3
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memory_sleep.errors import StoreError
from memory_sleep.sidecar.migrations import MIGRATIONS, Migrations

Vectors = npt.NDArray[np.float32]
DB_NAME = "sidecar.db"
_ENTRY_COLUMNS = (
    "id, source_key, source_path, kind, line_start, line_end, context, text, content_hash, day, scope,"
    " importance, created_at, updated_at, last_accessed_at, access_count, expires_at, deleted_at,"
    " deleted_reason, deleted_pass"
)


@dataclass(frozen=True)
class EntryRow:
    """One indexed entry as stored (the embedding is read separately, in bulk)."""

    id: int
    source_key: str
    source_path: str
    kind: str
    line_start: int
    line_end: int
    context: str
    text: str
    content_hash: str
    day: str | None
    scope: str
    importance: float
    created_at: float
    updated_at: float
    last_accessed_at: float | None
    access_count: int
    expires_at: float | None
    deleted_at: float | None
    deleted_reason: str | None
    deleted_pass: str | None


@dataclass(frozen=True)
class SourceRow:
    key: str
    path: str
    kind: str
    size: int
    mtime_ns: int
    content_hash: str


@dataclass(frozen=True)
class NewEntry:
    """What the indexer writes for one entry; `tokens` feed the full-text index."""

    source_key: str
    source_path: str
    kind: str
    line_start: int
    line_end: int
    context: str
    text: str
    content_hash: str
    day: str | None
    scope: str
    importance: float
    expires_at: float | None
    tokens: str


def to_blob(vector: npt.NDArray[np.float32]) -> bytes:
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()


def from_blobs(blobs: Sequence[bytes], dim: int) -> Vectors:
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim).astype(np.float32)


def _connect_read_only(name: str, reason: str, migrations: Migrations) -> sqlite3.Connection:
    """A connection that writes nothing. A WAL database whose -shm file cannot be created opens only as
    immutable, which is sound here: nothing can write where we cannot."""
    location = Path(name).absolute().as_uri()
    if not Path(name).is_file():
        raise StoreError(
            f"{name}: no sidecar yet, and none can be built: {reason}. Make the workspace writable, "
            "then run `memory-sleep index`."
        )
    for options in ("mode=ro", "mode=ro&immutable=1"):
        try:
            db = sqlite3.connect(
                f"{location}?{options}", uri=True, isolation_level=None, check_same_thread=False
            )
            missing = migrations.missing(db, name)
            break
        except sqlite3.OperationalError:
            continue
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{name}: cannot read the sidecar database ({error}): it looks damaged. Once the "
                f"workspace is writable ({reason} now), move the file away and run `memory-sleep index`."
            ) from None
    else:
        raise StoreError(
            f"{name}: cannot read the sidecar database ({reason}). Check that this user can read it."
        )
    if missing:
        raise StoreError(
            f"{name}: built by an older memory-sleep and must be upgraded, which writes: {reason}. "
            "Make the workspace writable and rerun; the upgrade keeps every entry and the recall history."
        )
    return db


class Store:
    """An open sidecar database. Use `Store.open(path)`; ":memory:" works for tests."""

    def __init__(self, db: sqlite3.Connection, path: str, read_only: str | None = None) -> None:
        self.db = db
        self.path = path
        self.read_only = read_only  # why nothing can be written, or None

    @classmethod
    def open(
        cls, path: Path | str, migrations: Migrations = MIGRATIONS, read_only: str | None = None
    ) -> Store:
        """Open (creating it if needed) the database at `path`; with `read_only`, the reason writing is
        impossible, open the existing file without writing anything, not even its journal."""
        name = str(path)
        if read_only is not None:
            return cls(_connect_read_only(name, read_only, migrations), name, read_only)
        if name != ":memory:":
            Path(name).parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(name, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA busy_timeout = 10000")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = ON")
            migrations.apply(db, name)
        except sqlite3.OperationalError as error:  # access, locking, disk: the file itself may be fine
            raise StoreError(
                f"{name}: cannot open the sidecar database ({error}). Check that this user can read and "
                "write the file and its folder, then rerun; keep the file: it holds the recall history."
            ) from None
        except sqlite3.DatabaseError as error:
            raise StoreError(
                f"{name}: cannot open the sidecar database ({error}). "
                "Move the file away and run `memory-sleep index` to rebuild it."
            ) from None
        return cls(db, name)

    def close(self) -> None:
        self.db.close()

    def require_writable(self) -> None:
        if self.read_only is not None:
            raise StoreError(
                f"{self.path}: cannot write the sidecar: {self.read_only}; nothing was changed. Make it "
                "writable (mount it read-write, or run as the user who owns it) and rerun; "
                "`memory-sleep recall` still searches it, unlogged."
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction; BEGIN IMMEDIATE so two indexers queue instead of interleaving."""
        self.require_writable()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # meta

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.require_writable()
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def generation(self) -> int:
        """A counter bumped whenever the set of live vectors changes; derived caches compare it."""
        return int(self.meta("generation") or 0)

    def bump_generation(self) -> int:
        generation = self.generation() + 1
        self.set_meta("generation", str(generation))
        return generation

    def _stamp(self, ids: Sequence[int]) -> None:
        """Record that these entries' vectors (or liveness) changed, at a new generation."""
        if not ids:
            return
        generation = self.bump_generation()
        self.db.executemany(
            "UPDATE entries SET vector_generation = ? WHERE id = ?",
            [(generation, entry_id) for entry_id in ids],
        )

    def schema_version(self) -> int:
        return int(self.db.execute("SELECT coalesce(max(number), 0) FROM schema_migrations").fetchone()[0])

    # sources

    def source(self, key: str) -> SourceRow | None:
        row = self.db.execute(
            "SELECT key, path, kind, size, mtime_ns, content_hash FROM sources WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else SourceRow(*row)

    def source_keys(self) -> set[str]:
        return {key for (key,) in self.db.execute("SELECT key FROM sources")}

    def put_source(self, source: SourceRow, now: float) -> None:
        self.db.execute(
            "INSERT INTO sources (key, path, kind, size, mtime_ns, content_hash, indexed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET path = excluded.path,"
            " kind = excluded.kind, size = excluded.size, mtime_ns = excluded.mtime_ns,"
            " content_hash = excluded.content_hash, indexed_at = excluded.indexed_at",
            (source.key, source.path, source.kind, source.size, source.mtime_ns, source.content_hash, now),
        )

    def drop_source(self, key: str) -> None:
        self.db.execute("DELETE FROM sources WHERE key = ?", (key,))

    # entries

    def entries_of_source(self, key: str) -> list[EntryRow]:
        rows = self.db.execute(
            f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE source_key = ? ORDER BY id", (key,)
        )
        return [EntryRow(*row) for row in rows]

    def fetch(self, ids: Iterable[int]) -> dict[int, EntryRow]:
        wanted = list(ids)
        found: dict[int, EntryRow] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(f"SELECT {_ENTRY_COLUMNS} FROM entries WHERE id IN ({marks})", chunk):
                found[row[0]] = EntryRow(*row)
        return found

    def insert_entries(
        self, entries: Sequence[NewEntry], vectors: Vectors, embedder: str, now: float
    ) -> list[int]:
        if not entries:
            return []
        first = int(self.db.execute("SELECT coalesce(max(id), 0) + 1 FROM entries").fetchone()[0])
        ids = list(range(first, first + len(entries)))
        # in slices, so the BLOBs of a 100k-entry build are never all in memory twice
        for start in range(0, len(entries), 1_000):
            self._insert_slice(
                ids[start : start + 1_000],
                entries[start : start + 1_000],
                vectors[start : start + 1_000],
                embedder,
                now,
            )
        self._stamp(ids)
        return ids

    def _insert_slice(
        self, ids: Sequence[int], entries: Sequence[NewEntry], vectors: Vectors, embedder: str, now: float
    ) -> None:
        self.db.executemany(
            "INSERT INTO entries (id, source_key, source_path, kind, line_start, line_end, context, text,"
            " content_hash, day, scope, importance, created_at, updated_at, expires_at, embedder, dim,"
            " embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    entry_id,
                    entry.source_key,
                    entry.source_path,
                    entry.kind,
                    entry.line_start,
                    entry.line_end,
                    entry.context,
                    entry.text,
                    entry.content_hash,
                    entry.day,
                    entry.scope,
                    entry.importance,
                    now,
                    now,
                    entry.expires_at,
                    embedder,
                    len(vector),
                    to_blob(vector),
                )
                for entry_id, entry, vector in zip(ids, entries, vectors, strict=True)
            ],
        )
        self._index_texts([(entry_id, entry.tokens) for entry_id, entry in zip(ids, entries, strict=True)])

    def rewrite_entries(
        self, pairs: Sequence[tuple[int, NewEntry]], vectors: Vectors, embedder: str, now: float
    ) -> None:
        """Replace the text (and so the embedding) of existing entries, keeping their id and history."""
        for (entry_id, entry), vector in zip(pairs, vectors, strict=True):
            self.db.execute(
                "UPDATE entries SET source_path = ?, line_start = ?, line_end = ?, context = ?, text = ?,"
                " content_hash = ?, day = ?, scope = ?, expires_at = ?, updated_at = ?, embedder = ?, dim = ?,"
                " embedding = ? WHERE id = ?",
                (
                    entry.source_path,
                    entry.line_start,
                    entry.line_end,
                    entry.context,
                    entry.text,
                    entry.content_hash,
                    entry.day,
                    entry.scope,
                    entry.expires_at,
                    now,
                    embedder,
                    len(vector),
                    to_blob(vector),
                    entry_id,
                ),
            )
            self._unindex_text(entry_id)
            self._index_texts([(entry_id, entry.tokens)])
        self._stamp([entry_id for entry_id, _ in pairs])

    def _index_texts(self, texts: Sequence[tuple[int, str]]) -> None:
        """Add entries to the full-text index and their distinct terms to the document counts."""
        self.db.executemany("INSERT INTO entries_fts (rowid, tokens) VALUES (?, ?)", texts)
        counts = Counter(term for _, tokens in texts for term in set(tokens.split()))
        self.db.executemany(
            "INSERT INTO fts_terms (term, docs) VALUES (?, ?)"
            " ON CONFLICT (term) DO UPDATE SET docs = docs + excluded.docs",
            counts.items(),
        )

    def _unindex_text(self, entry_id: int) -> None:
        row = self.db.execute("SELECT tokens FROM entries_fts WHERE rowid = ?", (entry_id,)).fetchone()
        if row is None:
            return
        self.db.execute("DELETE FROM entries_fts WHERE rowid = ?", (entry_id,))
        self.db.executemany(
            "UPDATE fts_terms SET docs = docs - 1 WHERE term = ?", [(term,) for term in set(row[0].split())]
        )

    def move_entry(self, entry_id: int, path: str, line_start: int, line_end: int) -> None:
        """Same text, new place (lines shifted or the file moved): no re-embedding."""
        self.db.execute(
            "UPDATE entries SET source_path = ?, line_start = ?, line_end = ? WHERE id = ?",
            (path, line_start, line_end, entry_id),
        )

    def soft_delete(self, ids: Sequence[int], reason: str, now: float, pass_id: str | None = None) -> int:
        """Mark live entries deleted (text and embedding kept, restorable); returns how many changed."""
        changed = 0
        for entry_id in ids:
            cursor = self.db.execute(
                "UPDATE entries SET deleted_at = ?, deleted_reason = ?, deleted_pass = ?"
                " WHERE id = ? AND deleted_at IS NULL",
                (now, reason, pass_id, entry_id),
            )
            changed += cursor.rowcount
        if changed:
            self._stamp(ids)
        return changed

    def restore(self, ids: Sequence[int]) -> int:
        """Bring soft-deleted entries back exactly as they were."""
        changed = 0
        for entry_id in ids:
            cursor = self.db.execute(
                "UPDATE entries SET deleted_at = NULL, deleted_reason = NULL, deleted_pass = NULL"
                " WHERE id = ? AND deleted_at IS NOT NULL",
                (entry_id,),
            )
            changed += cursor.rowcount
        if changed:
            self._stamp(ids)
        return changed

    def embedding_inputs(self, after_id: int, limit: int) -> list[tuple[int, str, str]]:
        """(id, context, text) of every entry, live or not, in id order: what a re-embed walks."""
        return list(
            self.db.execute(
                "SELECT id, context, text FROM entries WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit)
            )
        )

    def set_embeddings(self, ids: Sequence[int], vectors: Vectors, embedder: str) -> None:
        self.db.executemany(
            "UPDATE entries SET embedder = ?, dim = ?, embedding = ? WHERE id = ?",
            [
                (embedder, len(vector), to_blob(vector), entry_id)
                for entry_id, vector in zip(ids, vectors, strict=True)
            ],
        )
        self._stamp(ids)

    def vectors_changed_since(self, generation: int) -> tuple[list[int], list[tuple[int, str, bytes]]]:
        """Entries whose vector or liveness changed after `generation`: all their ids, and the
        (id, scope, embedding) of those that are live now."""
        rows = self.db.execute(
            "SELECT id, scope, embedding, deleted_at FROM entries WHERE vector_generation > ? ORDER BY id",
            (generation,),
        ).fetchall()
        return [row[0] for row in rows], [(row[0], row[1], row[2]) for row in rows if row[3] is None]

    def live_vectors(self, dim: int) -> tuple[npt.NDArray[np.int64], list[str], Vectors]:
        """Ids (ascending), scopes and embeddings of every entry recall may return.

        Rows are copied one by one into a preallocated matrix, so reading 100k vectors needs the
        matrix once, not the BLOBs, their join and the matrix (which tripled peak memory).
        """
        where = "FROM entries WHERE deleted_at IS NULL AND dim = ?"
        count = int(self.db.execute(f"SELECT count(*) {where}", (dim,)).fetchone()[0])
        ids = np.empty(count, dtype=np.int64)
        matrix = np.empty((count, dim), dtype=np.float32)
        scopes: list[str] = []
        cursor = self.db.execute(f"SELECT id, scope, embedding {where} ORDER BY id", (dim,))
        for row_number, (entry_id, scope, blob) in enumerate(cursor):
            if row_number >= count:  # written meanwhile by another process; the next load sees it
                break
            ids[row_number] = entry_id
            matrix[row_number] = np.frombuffer(blob, dtype="<f4")
            scopes.append(scope)
        kept = len(scopes)
        return ids[:kept], scopes, matrix[:kept]

    def term_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """How many indexed entries hold each term (absent terms are left out)."""
        if not terms:
            return {}
        marks = ",".join("?" * len(terms))
        rows = self.db.execute(f"SELECT term, docs FROM fts_terms WHERE term IN ({marks})", list(terms))
        return {term: docs for term, docs in rows if docs > 0}

    def text_search(self, match: str, limit: int) -> list[tuple[int, float]]:
        """(id, bm25) of the best full-text matches, best first (bm25 is lower-is-better in SQLite)."""
        try:
            rows = self.db.execute(
                "SELECT rowid, bm25(entries_fts) FROM entries_fts WHERE entries_fts MATCH ?"
                " ORDER BY rank LIMIT ?",
                (match, limit),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(int(row[0]), float(row[1])) for row in rows]

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
        """Record a recall and count an access for each entry it returned, in one transaction."""
        with self.transaction():
            cursor = self.db.execute(
                "INSERT INTO queries (text, scope, k, created_at, embedder, embedding) VALUES (?, ?, ?, ?, ?, ?)",
                (text, scope, k, now, embedder, None if embedding is None else to_blob(embedding)),
            )
            query_id = int(cursor.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO query_results (query_id, rank, entry_id, score) VALUES (?, ?, ?, ?)",
                [(query_id, rank, entry_id, score) for rank, (entry_id, score) in enumerate(results, 1)],
            )
            self._count_access([entry_id for entry_id, _ in results], now)
        return query_id

    def record_access(self, ids: Sequence[int], now: float | None = None) -> None:
        with self.transaction():
            self._count_access(ids, time.time() if now is None else now)

    def _count_access(self, ids: Sequence[int], now: float) -> None:
        self.db.executemany(
            "UPDATE entries SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ?",
            [(now, entry_id) for entry_id in ids],
        )

    def logged_queries(self, limit: int) -> list[tuple[int, str, str | None, float, list[int]]]:
        """The last `limit` queries, newest first: (id, text, scope, time, returned ids in rank order)."""
        queries = self.db.execute(
            "SELECT id, text, scope, created_at FROM queries ORDER BY id DESC LIMIT ?", (limit,)
        ).fetchall()
        logged = []
        for query_id, text, scope, created_at in queries:
            ranked = [
                entry_id
                for (entry_id,) in self.db.execute(
                    "SELECT entry_id FROM query_results WHERE query_id = ? ORDER BY rank", (query_id,)
                )
            ]
            logged.append((query_id, text, scope, created_at, ranked))
        return logged
