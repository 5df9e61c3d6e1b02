"""The Postgres store's vector plan: a small namespace is read exactly, a large one through the HNSW
index with enough candidates for the namespace's share of the table, and exactly again when the
index's filter leaves too few."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memory_sleep.sidecar.pg import store as pg_store
from memory_sleep.sidecar.pg.store import EF_SEARCH_MIN, PgStore, PgVectors, ef_search
from memory_sleep.sidecar.rows import NewEntry

from .sidecar_helpers import NOW

DIM = 16  # the test template's HNSW index is for 16 dimensions


def test_small_namespaces_are_read_exactly_and_large_ones_by_hnsw() -> None:
    assert ef_search(10, 1_000, 1_000_000) is None  # 1,000 scopes of 1,000
    assert ef_search(10, pg_store.EXACT_ROWS, 1_000_000) is None
    assert ef_search(10, 30_000, 1_000_000) is None  # 1,000 candidates would keep ~30 of it
    assert ef_search(10, 500_000, 1_000_000) == EF_SEARCH_MIN
    assert ef_search(40, 1_000_000, 1_000_000) == EF_SEARCH_MIN  # pool of 40, the whole table
    assert ef_search(60, 1_000_000, 1_000_000) == 240
    assert ef_search(10, 100_000, 1_000_000) == 400


def _fill(store: PgStore, rows: int, scope: str, seed: int) -> None:
    vectors = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    entries = [
        NewEntry(
            f"note:{seed}.md",
            f"memory/{seed}.md",
            "note",
            n + 1,
            n + 1,
            "",
            f"entry {n}",
            f"{n}",
            None,
            scope if n % 8 == 0 else "default",
            0.5,
            None,
            f"entry {n}",
        )
        for n in range(rows)
    ]
    with store.transaction():
        store.insert_entries(entries, vectors, "test/16", NOW)


def _exact(store: PgStore, query: Any, n: int, scope: str | None) -> list[int]:
    return [
        int(row[0])
        for row in store.db.execute(
            "SELECT id FROM entries WHERE namespace = ? AND (?::text IS NULL OR scope = ?)"
            " ORDER BY embedding <=> ?, id LIMIT ?",
            (store.namespace, scope, scope, query, n),
        )
    ]


def test_a_large_namespace_is_searched_by_hnsw_and_falls_back_when_its_filter_starves(
    pg_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pg_store, "EXACT_ROWS", 50)
    big, small = PgStore.open(pg_dsn, "big", DIM), PgStore.open(pg_dsn, "small", DIM)
    _fill(big, 320, "rare", 1)
    _fill(small, 40, "rare", 2)
    big.db.execute("ANALYZE entries")
    big.db.execute("SET enable_seqscan = off")  # at this size the planner would rather sort: exact
    big.db.execute("SET enable_sort = off")
    statements: list[str] = []
    for store in (big, small):
        real = store.db.execute
        monkeypatch.setattr(
            store.db, "execute", lambda sql, *a, real=real: statements.append(sql) or real(sql, *a)
        )
    query = np.random.default_rng(3).standard_normal(DIM).astype(np.float32)

    found = PgVectors(big).top(query, 10)
    assert [entry_id for entry_id, _ in found] == _exact(big, query, 10, None)
    assert any("SET LOCAL hnsw.ef_search" in sql for sql in statements)

    statements.clear()  # 40 'rare' rows: of the HNSW scan's candidates too few are rare
    rare = PgVectors(big).top(query, 30, "rare")
    assert any("SET LOCAL hnsw.ef_search" in sql for sql in statements)
    assert "ORDER BY embedding <=> ?, id" in statements[-1]  # then read exactly
    assert [entry_id for entry_id, _ in rare] == _exact(big, query, 30, "rare")

    statements.clear()
    assert [i for i, _ in PgVectors(small).top(query, 10)] == _exact(small, query, 10, None)
    assert not any("hnsw" in sql for sql in statements)
    big.close()
    small.close()
