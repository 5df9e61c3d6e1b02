"""The sidecar database: SQLite in WAL mode holding entries, their embeddings, the FTS index and the query log.

Only the store writes SQL (opening and reading here, entry writes in entry_writes.py, the query log in
query_log.py); the indexer, search and the forgetting pass call its methods.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from memory_sleep.errors import StoreError
from memory_sleep.sidecar.erase import Erasure
from memory_sleep.sidecar.migrations import MIGRATIONS, Migrations
from memory_sleep.sidecar.query_log import QueryLog
from memory_sleep.sidecar.rows import (
    ENTRY_COLUMNS,
    DatedMatch,
    EntryRow,
    NewEntry,
    SourceRow,
    Vectors,
    from_blobs,
    to_blob,
)
from memory_sleep.sidecar.tokenize import fts_match

DB_NAME = "sidecar.db"
MMAP_BYTES = 1 << 30  # address space, not memory: the OS keeps only the pages read
__all__ = [
    "DB_NAME",
    "EntryRow",
    "NewEntry",
    "SourceRow",
    "Store",
    "Vectors",
    "from_blobs",
    "to_blob",
    "upgrade_sqlite",
]


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


def upgrade_sqlite(path: Path) -> list[str]:
    """Create or upgrade the sidecar file at `path`; the names of the migrations applied."""
    if path.exists():
        db = sqlite3.connect(path)
        try:
            lacking = MIGRATIONS.missing(db, str(path))
        finally:
            db.close()
    else:
        lacking = [step.name for step in MIGRATIONS.steps]
    Store.open(path).close()
    return lacking


class Store(Erasure, QueryLog):
    """An open sidecar database. Use `Store.open(path)`; ":memory:" works for tests."""

    namespace: str | None = None  # one file per workspace: all of it is the workspace's
    day_noon_sql = "CAST(strftime('%s', day) AS REAL) + 43200.0"

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
            _write_ahead_log(db)
            db.execute("PRAGMA synchronous = NORMAL")
            # pages read from the file mapped, not copied in: a nightly run reads every live row (GC),
            # and at 365 days the rows with their vectors fill 110 MB
            db.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
            migrations.apply(db, name)  # foreign keys off: a migration may copy a table, ids kept
            db.execute("PRAGMA foreign_keys = ON")
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
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE source_key = ? ORDER BY id", (key,)
        )
        return [EntryRow.read(row) for row in rows]

    def fetch(self, ids: Iterable[int]) -> dict[int, EntryRow]:
        wanted = list(ids)
        found: dict[int, EntryRow] = {}
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.db.execute(f"SELECT {ENTRY_COLUMNS} FROM entries WHERE id IN ({marks})", chunk):
                found[row[0]] = EntryRow.read(row)
        return found

    def entry_at(self, source_key: str, line: int, live: bool = True) -> EntryRow | None:
        """The live entry of a source whose lines hold `line` (with `live` False, a soft-deleted one)."""
        row = self.db.execute(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE source_key = ? AND line_start <= ? AND line_end >= ?"
            f" AND deleted_at IS {'' if live else 'NOT '}NULL ORDER BY line_start DESC LIMIT 1",
            (source_key, line, line),
        ).fetchone()
        return EntryRow.read(row) if row else None

    def ended_by(self, link: str) -> list[EntryRow]:
        rows = self.db.execute(
            f"SELECT {ENTRY_COLUMNS} FROM entries WHERE status = 'superseded' AND ended_by = ?"
            " ORDER BY day, source_path, line_start",
            (link,),
        )
        return [EntryRow.read(row) for row in rows]

    def embedding_inputs(self, after_id: int, limit: int) -> list[tuple[int, str, str]]:
        """(id, context, text) of every entry, live or not, in id order: what a re-embed walks."""
        return list(
            self.db.execute(
                "SELECT id, context, text FROM entries WHERE id > ? ORDER BY id LIMIT ?", (after_id, limit)
            )
        )

    def vectors_changed_since(self, generation: int) -> tuple[list[int], list[tuple[int, str, bytes]]]:
        """Entries whose vector or liveness changed after `generation`: all their ids, and the
        (id, scope, embedding) of those that are live now (a deleted entry's vector is not read: a
        garbage-collection pass deletes tens of thousands at once)."""
        # sorted here: with ORDER BY id, SQLite walked the whole table in id order, not the index
        rows = sorted(
            self.db.execute(
                "SELECT id, scope, CASE WHEN deleted_at IS NULL THEN embedding END, deleted_at"
                " FROM entries WHERE vector_generation > ?",
                (generation,),
            ).fetchall(),
            key=lambda row: int(row[0]),
        )
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

    def entry_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM entries").fetchone()[0])

    def vector_search(self) -> None:
        """None: recall searches the in-process matrix (sidecar/vectors.py), not SQLite."""
        return None

    def term_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """How many indexed entries hold each term (absent terms are left out)."""
        if not terms:
            return {}
        marks = ",".join("?" * len(terms))
        rows = self.db.execute(f"SELECT term, docs FROM fts_terms WHERE term IN ({marks})", list(terms))
        return {term: docs for term, docs in rows if docs > 0}

    def dated_matches(
        self, terms: Sequence[str], kinds: Sequence[str], start: str, end: str, limit: int, after_id: int = 0
    ) -> list[DatedMatch]:
        """The best full-text matches of any of `terms` of these kinds dated from `start` to before
        `end`, soft-deleted or not, best first; only ids above `after_id`."""
        marks = ",".join("?" * len(kinds))
        try:
            rows = self.db.execute(
                "SELECT e.id, e.day, e.text, e.kind, e.context, e.source_path"
                " FROM entries_fts f JOIN entries e ON e.id = f.rowid"
                f" WHERE entries_fts MATCH ? AND f.rowid > ? AND e.kind IN ({marks}) AND e.day >= ?"
                " AND e.day < ? ORDER BY f.rank LIMIT ?",
                (fts_match(list(terms)), after_id, *kinds, start, end, limit),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [DatedMatch(*row) for row in rows]

    def dated_terms(
        self, after_id: int, days: Sequence[str], kinds: Sequence[str], limit: int
    ) -> list[tuple[str, str]] | None:
        """(day, term) of every term the full-text index reads in the dated items of these kinds with
        ids above `after_id` or dated one of `days`, soft-deleted or not: the index's own tokenizer
        reads their stored tokens, so a one-word MATCH finds such an item exactly when it has the term.
        None when there are more than `limit` such items."""
        marks, day_marks = ",".join("?" * len(kinds)), ",".join("?" * len(days))
        rows = self.db.execute(
            "SELECT f.rowid, e.day, f.tokens FROM entries_fts f JOIN entries e ON e.id = f.rowid"
            f" WHERE f.rowid > ? AND e.kind IN ({marks}) AND e.day IS NOT NULL LIMIT ?",
            (after_id, *kinds, limit + 1),
        ).fetchall()
        if days and len(rows) <= limit:
            rows += self.db.execute(
                "SELECT e.id, e.day, f.tokens FROM entries e JOIN entries_fts f ON f.rowid = e.id"
                f" WHERE e.day IN ({day_marks}) AND e.kind IN ({marks}) AND e.id <= ? LIMIT ?",
                (*days, *kinds, after_id, limit + 1),
            ).fetchall()
        if len(rows) > limit:
            return None
        probe = self._probe()
        try:
            probe.execute("CREATE VIRTUAL TABLE probe_terms USING fts5vocab(probe, instance)")
            probe.executemany("INSERT INTO probe (rowid, tokens) VALUES (?, ?)", [(i, t) for i, _, t in rows])
            day_of = {int(entry_id): str(day) for entry_id, day, _ in rows}
            return [
                (day_of[int(doc)], str(term))
                for term, doc in probe.execute("SELECT DISTINCT term, doc FROM probe_terms")
            ]
        finally:
            probe.close()

    def term_tokens(self, terms: Sequence[str]) -> dict[str, list[str]]:
        """The tokens the full-text index reads in each of `terms`, in order (its tokenizer folds case
        and accents and may split a term): a MATCH of a term finds only items holding all of them."""
        probe = self._probe()
        try:
            probe.execute("CREATE VIRTUAL TABLE probe_terms USING fts5vocab(probe, instance)")
            probe.executemany("INSERT INTO probe (rowid, tokens) VALUES (?, ?)", enumerate(terms, start=1))
            found: dict[str, list[str]] = {term: [] for term in terms}
            for token, doc in probe.execute("SELECT term, doc FROM probe_terms ORDER BY doc, offset"):
                found[terms[int(doc) - 1]].append(str(token))
            return found
        finally:
            probe.close()

    def _probe(self) -> sqlite3.Connection:
        """An empty in-memory copy of the full-text table (`probe`), reading text as the index does."""
        (table,) = self.db.execute("SELECT sql FROM sqlite_master WHERE name = 'entries_fts'").fetchone()
        probe = sqlite3.connect(":memory:")
        probe.execute(str(table).replace("entries_fts", "probe", 1))
        return probe

    def text_search(self, terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        """(id, BM25 score) of the best full-text matches of any of `terms`, best first (the
        score is the negated bm25() of FTS5, so that higher is better, as in the Postgres store)."""
        try:
            rows = self.db.execute(
                "SELECT rowid, bm25(entries_fts) FROM entries_fts WHERE entries_fts MATCH ?"
                " ORDER BY rank LIMIT ?",
                (fts_match(list(terms)), limit),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(int(row[0]), -float(row[1])) for row in rows]


def _write_ahead_log(db: sqlite3.Connection, patience_secs: float = 10.0) -> None:
    """Switch a new file to WAL. The switch takes the file for itself and SQLite does not wait for a busy
    file here (busy_timeout does not apply), so processes opening one new file at once wait in turn."""
    deadline = time.monotonic() + patience_secs
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)
