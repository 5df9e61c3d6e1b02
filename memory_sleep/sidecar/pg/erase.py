"""Hard deletion from this namespace of the Postgres sidecar (`forget-scope`, `purge`): the entries'
rows, embeddings, full-text vectors and term counts, density state and the queries that name them.
`reclaim` VACUUMs the tables (not VACUUM FULL, which would lock every agent out of the shared
database); dead rows are then free space that Postgres overwrites, not rows any query can read."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from memory_sleep.sidecar.pg.writes import PgWrites, _document

ScannedRow = tuple[int, str, str, str, float | None]  # id, scope, kind, text, deleted_at
_TABLES = ("entries", "queries", "query_results", "fts_terms", "entry_density", "density_retired")


class PgErasure(PgWrites):
    """The hard-deleting part of the Postgres store."""

    if TYPE_CHECKING:  # the store's own: one transaction holding this namespace's lock

        def transaction(self) -> AbstractContextManager[None]: ...

    def scan_entries(self, after_id: int, limit: int) -> list[ScannedRow]:
        return list(
            self.db.execute(
                "SELECT id, scope, kind, text, deleted_at FROM entries WHERE namespace = ? AND id > ?"
                " ORDER BY id LIMIT ?",
                (self._namespace, after_id, limit),
            )
        )

    def note_texts_outside(self, scope: str) -> list[tuple[str, str]]:
        return list(
            self.db.execute(
                "SELECT scope, text FROM entries WHERE namespace = ? AND kind = 'note' AND scope != ?",
                (self._namespace, scope),
            )
        )

    def soft_deleted_before(self, moment: float) -> list[int]:
        return [
            int(entry_id)
            for (entry_id,) in self.db.execute(
                "SELECT id FROM entries WHERE namespace = ? AND deleted_at IS NOT NULL AND deleted_at < ?"
                " ORDER BY id",
                (self._namespace, moment),
            )
        ]

    def queries_to_forget(self, scope: str | None, ids: Sequence[int]) -> list[int]:
        rows = self.db.execute(
            "SELECT id FROM queries WHERE namespace = ? AND (scope = ? OR id IN"
            " (SELECT query_id FROM query_results WHERE entry_id = ANY(?))) ORDER BY id",
            (self._namespace, scope, [int(i) for i in ids]),
        )
        return [int(query_id) for (query_id,) in rows]

    def hard_delete(self, ids: Sequence[int], queries: Sequence[int]) -> int:
        wanted = [int(i) for i in ids]
        with self.transaction():
            self.db.execute(
                "DELETE FROM queries WHERE namespace = ? AND id = ANY(?)",
                (self._namespace, [int(q) for q in queries]),
            )
            if not wanted:
                return 0
            old = self.db.execute(
                "SELECT context, text FROM entries WHERE namespace = ? AND id = ANY(?)",
                (self._namespace, wanted),
            ).fetchall()
            self._count_terms(
                Counter(t for context, text in old for t in set(_document(context, text).split())), -1
            )
            self.db.execute("DELETE FROM fts_terms WHERE namespace = ? AND docs <= 0", (self._namespace,))
            for table in ("density_retired", "entry_restores"):
                self.db.execute(f"DELETE FROM {table} WHERE entry_id = ANY(?)", (wanted,))
            deleted = self.db.execute(
                "DELETE FROM entries WHERE namespace = ? AND id = ANY(?)", (self._namespace, wanted)
            ).rowcount
            self.db.execute("DELETE FROM density_build WHERE namespace = ?", (self._namespace,))
            self._stamp([])
        return int(deleted)

    def reclaim(self) -> str | None:
        self.db.execute("DELETE FROM fts_terms WHERE namespace = ? AND docs <= 0", (self._namespace,))
        for table in _TABLES:
            self.db.execute(f"VACUUM {table}")
        return None
