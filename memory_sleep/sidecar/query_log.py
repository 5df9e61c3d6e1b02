"""The query log: each recall, what it returned at which rank, and the access counts it adds."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.connection import Connection
from memory_sleep.sidecar.rows import to_blob


class QueryLog(Connection):
    """The query-logging half of the store."""

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
