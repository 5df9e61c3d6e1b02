"""Hard deletion from the SQLite sidecar, the one exception to "nothing is lost": only on a user's
request (`forget-scope`, `purge`). A deleted entry leaves nothing behind: its row, embedding, full-text
row and terms, density state, restore record and the query log that names it; `reclaim` then merges
the full-text index, checkpoints the WAL and VACUUMs, so that not even a free page keeps its bytes."""

from __future__ import annotations

from collections.abc import Sequence

from memory_sleep.sidecar.entry_writes import EntryWrites

ScannedRow = tuple[int, str, str, str, float | None]  # id, scope, kind, text, deleted_at
_CHUNK = 500


class Erasure(EntryWrites):
    """The hard-deleting part of the SQLite store."""

    def scan_entries(self, after_id: int, limit: int) -> list[ScannedRow]:
        """(id, scope, kind, text, deleted_at) of every entry, live or not, in id order."""
        return list(
            self.db.execute(
                "SELECT id, scope, kind, text, deleted_at FROM entries WHERE id > ? ORDER BY id LIMIT ?",
                (after_id, limit),
            )
        )

    def note_texts_outside(self, scope: str) -> list[tuple[str, str]]:
        """(scope, text) of every note item whose note names a scope other than `scope`."""
        return list(
            self.db.execute("SELECT scope, text FROM entries WHERE kind = 'note' AND scope != ?", (scope,))
        )

    def soft_deleted_before(self, moment: float) -> list[int]:
        """Ids of the entries soft-deleted before `moment` (Unix seconds)."""
        return [
            int(entry_id)
            for (entry_id,) in self.db.execute(
                "SELECT id FROM entries WHERE deleted_at IS NOT NULL AND deleted_at < ? ORDER BY id",
                (moment,),
            )
        ]

    def queries_to_forget(self, scope: str | None, ids: Sequence[int]) -> list[int]:
        """The logged queries asked in `scope`, or that returned any of `ids`."""
        found: set[int] = set()
        if scope is not None:
            found.update(q for (q,) in self.db.execute("SELECT id FROM queries WHERE scope = ?", (scope,)))
        for start in range(0, len(ids), _CHUNK):
            chunk = list(ids[start : start + _CHUNK])
            marks = ",".join("?" * len(chunk))
            found.update(
                q
                for (q,) in self.db.execute(
                    f"SELECT DISTINCT query_id FROM query_results WHERE entry_id IN ({marks})", chunk
                )
            )
        return sorted(int(q) for q in found)

    def hard_delete(self, ids: Sequence[int], queries: Sequence[int]) -> int:
        """Delete these entries and logged queries for good; returns how many entries went."""
        self.require_writable()
        deleted = 0
        with self.transaction():
            for start in range(0, len(queries), _CHUNK):
                chunk = list(queries[start : start + _CHUNK])
                self.db.execute(f"DELETE FROM queries WHERE id IN ({','.join('?' * len(chunk))})", chunk)
            for start in range(0, len(ids), _CHUNK):
                chunk = list(ids[start : start + _CHUNK])
                for entry_id in chunk:
                    self._unindex_text(entry_id)
                marks = ",".join("?" * len(chunk))
                for table in ("entry_density", "density_retired", "entry_restores"):
                    self.db.execute(f"DELETE FROM {table} WHERE entry_id IN ({marks})", chunk)
                deleted += self.db.execute(f"DELETE FROM entries WHERE id IN ({marks})", chunk).rowcount
            if ids:
                self.db.execute("DELETE FROM fts_terms WHERE docs <= 0")
                self.db.execute("DELETE FROM density_build")  # its ids and pairs name deleted entries
                self.bump_generation()  # every cached vector matrix is now stale
        return deleted

    def reclaim(self) -> str | None:
        """Leave no deleted byte in the file or its WAL: merge the full-text index, VACUUM, and
        checkpoint the WAL to zero bytes. Returns why the WAL could not be emptied (another process
        reading the database), or None."""
        self.require_writable()
        self.db.execute("DELETE FROM fts_terms WHERE docs <= 0")  # words no entry holds any more
        self.db.execute("INSERT INTO entries_fts (entries_fts) VALUES ('optimize')")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.execute("VACUUM")
        busy = self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        if busy:
            return (
                f"{self.path}-wal: another process has the sidecar open, so its WAL could not be emptied; "
                "stop it (an MCP server, a run) and rerun the command to finish"
            )
        return None
