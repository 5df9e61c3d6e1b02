"""Density counts stay exact: a full rebuild done in slices over an index that changes between
slices, the near pairs a rebuild logs, and removals after a pass."""

from __future__ import annotations

import numpy as np
import pytest

from memory_sleep.config import ForgettingConfig
from memory_sleep.sidecar.store import Store
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.sleepgate import build, clusters, density, forget, pairs, state

from .sleepgate_helpers import DIM, EMBEDDER, NOW, entry, entry_text, store_with, unit

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

THRESHOLD = 0.9


def clustered(count: int, seed: int) -> list[np.ndarray]:
    """Entries around a few centres, every third a near-copy (cosine ~0.99) of an earlier one."""
    rng = np.random.default_rng(seed)
    centres = [unit(int(s)) for s in rng.integers(0, 10_000, 6)]
    vectors: list[np.ndarray] = []
    for i in range(count):
        if i % 3 == 2:
            vectors.append(unit(seed * 1000 + i, vectors[int(rng.integers(0, i))], 0.03))
        else:
            vectors.append(unit(seed * 1000 + i, centres[i % 6], 0.3))
    return vectors


def exact_counts(store: Store) -> tuple[np.ndarray, np.ndarray, set[tuple[int, int]]]:
    """Live ids, their neighbour counts and the near pairs (as index rows), counted from scratch."""
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    full = np.zeros(len(index.ids), dtype=np.int64)
    found = pairs.PairLog(limit=10**6)
    pairs.all_pairs(index.matrix, None, THRESHOLD, full, log=found)
    logged = found.pairs()
    assert logged is not None
    return index.ids, full, as_set(logged)


def as_set(found: tuple[np.ndarray, np.ndarray]) -> set[tuple[int, int]]:
    return {(min(a, b), max(a, b)) for a, b in zip(found[0].tolist(), found[1].tolist(), strict=True)}


def stored_counts(store: Store) -> dict[int, int]:
    return dict(store.db.execute("SELECT entry_id, neighbours FROM entry_density").fetchall())


def step(store: Store) -> density.DensityResult:
    """One budgeted slice of the rebuild, saved as a nightly pass would."""
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    result = density.rebuild(store, index, THRESHOLD, EMBEDDER, budget_secs=1e-9)
    with store.transaction():
        density.save(store, result, THRESHOLD, EMBEDDER)
    return result


def test_a_rebuild_resumed_over_a_changing_index_equals_a_full_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pairs, "ROW_BLOCK", 8)  # 60 entries: several slices
    vectors = clustered(60, 1)
    store, ids = store_with(vectors)
    assert step(store).mode == "building"
    assert step(store).mode == "building"  # 16 rows done
    similar = np.stack(vectors) @ np.stack(vectors).T >= THRESHOLD
    # rows still to do that were counted with a done row, and done rows with neighbours
    pending = [i for i in range(16, 60) if similar[i, :16].any()]
    finished = [i for i in range(16) if similar[i].sum() > 1]
    assert len(pending) >= 2 and len(finished) >= 2
    extra = clustered(12, 2)
    extra[0] = unit(7, vectors[finished[0]], 0.03)
    extra[1] = unit(8, vectors[pending[0]], 0.03)
    with store.transaction():
        # new entries (near-copies of a done and of a pending row), removals and re-embeddings on
        # both sides of the done line
        store.insert_entries([entry(entry_text(100 + i)) for i in range(12)], np.stack(extra), EMBEDDER, NOW)
        store.soft_delete([ids[finished[1]], ids[pending[1]]], "item-removed", NOW)
        store.set_embeddings(
            [ids[finished[0]], ids[pending[0]]], np.stack([unit(11, extra[2], 0.03), unit(12)]), EMBEDDER
        )
    assert step(store).mode == "building"
    with store.transaction():
        store.restore([ids[finished[1]]])
        store.set_embeddings([ids[finished[0]]], unit(13)[None, :], EMBEDDER)  # changed twice
        store.soft_delete([ids[0]], "item-removed", NOW)
    result = step(store)
    while result.mode == "building":
        result = step(store)
    assert result.mode == "rebuilt"
    live_ids, full, near = exact_counts(store)
    assert full.sum() > 20  # the data has near pairs to get wrong
    assert result.counts is not None and list(result.counts) == list(full)
    assert result.pairs is not None and as_set(result.pairs) == near  # kept for the pass's removals
    assert [stored_counts(store)[int(i)] for i in live_ids] == list(full)
    assert store.db.execute("SELECT count(*) FROM density_build").fetchone()[0] == 0
    assert store.db.execute("SELECT count(*) FROM density_retired").fetchone()[0] == 0


def test_the_progress_of_an_unfinished_rebuild_survives_a_restart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pairs, "ROW_BLOCK", 8)
    store, _ = store_with(clustered(40, 3))
    first = step(store)
    second = step(store)
    assert first.mode == second.mode == "building"
    assert 0 < first.progress < second.progress < 1
    saved = store.db.execute("SELECT next_row FROM density_build").fetchone()[0]
    assert saved == 16


def test_a_dry_run_rebuild_saves_nothing_and_keeps_pending_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pairs, "ROW_BLOCK", 8)
    store, ids = store_with(clustered(30, 4))
    with store.transaction():
        store.set_embeddings([ids[0]], unit(5)[None, :], EMBEDDER)
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    result = density.rebuild(store, index, THRESHOLD, EMBEDDER, budget_secs=1e-9, persist=False)
    assert result.mode == "building"
    assert store.db.execute("SELECT count(*) FROM density_build").fetchone()[0] == 0
    assert store.db.execute("SELECT count(*) FROM density_retired").fetchone()[0] == 1


def test_removals_after_a_rebuild_use_its_pairs_and_match_a_recount() -> None:
    store, ids = store_with(clustered(45, 5))
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    result = density.rebuild(store, index, THRESHOLD, EMBEDDER, None)
    assert result.pairs is not None and len(result.pairs[0]) > 0
    with store.transaction():
        density.save(store, result, THRESHOLD, EMBEDDER)
    gone = np.array([1, 2, 5, 8, 11, 14], dtype=np.intp)
    for known_pairs in (result.pairs, None):  # the logged pairs, then the matmul fallback
        assert result.counts is not None
        counts = result.counts.copy()
        with store.transaction():
            density.forget_rows(store, index, gone, counts, THRESHOLD, known_pairs)
        remaining = np.setdiff1d(np.arange(len(ids)), gone)
        expected = np.zeros(len(remaining), dtype=np.int64)
        pairs.all_pairs(index.matrix[remaining], None, THRESHOLD, expected)
        assert list(counts[remaining]) == list(expected)
        stored = stored_counts(store)
        assert [stored[int(index.ids[r])] for r in remaining] == list(expected)
        assert not any(int(index.ids[g]) in stored for g in gone)
        with store.transaction():
            density.save(store, result, THRESHOLD, EMBEDDER)  # back to the rebuilt table


def test_counts_respect_scopes() -> None:
    base = unit(1)
    vectors = [unit(2, base, 0.01), unit(3, base, 0.01), unit(4, base, 0.01)]
    store = Store.open(":memory:")
    with store.transaction():
        store.set_meta("embedder", EMBEDDER)
        store.insert_entries(
            [entry("a", scope="work"), entry("b", scope="work"), entry("c", scope="home")],
            np.stack(vectors),
            EMBEDDER,
            NOW,
        )
        store.bump_generation()
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    result = density.rebuild(store, index, THRESHOLD, EMBEDDER, None)
    assert result.counts is not None and list(result.counts) == [1, 1, 0]


def test_a_build_with_too_many_pairs_stops_keeping_them_and_still_counts_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(build, "pair_limit", lambda entries: 3)
    monkeypatch.setattr(density, "pair_limit", lambda entries: 3)
    store, _ = store_with(clustered(45, 6))
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    result = density.rebuild(store, index, THRESHOLD, EMBEDDER, None)
    _, full, near = exact_counts(store)
    assert len(near) > 3
    assert result.pairs is None
    assert result.counts is not None and list(result.counts) == list(full)


def test_clusters_from_a_rebuilds_pairs_match_clusters_counted_afresh() -> None:
    store, _ = store_with(clustered(60, 7))
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    result = density.rebuild(store, index, THRESHOLD, EMBEDDER, None)
    assert result.counts is not None and result.pairs is not None
    retention = np.random.default_rng(0).random(len(index.ids))
    candidates = [row for row in range(len(index.ids)) if row % 4 != 0]
    afresh = clusters.last_of_clusters(index, candidates, result.counts, retention, THRESHOLD)
    looked_up = clusters.last_of_clusters(
        index, candidates, result.counts, retention, THRESHOLD, result.pairs
    )
    assert afresh and afresh == looked_up


def test_a_pass_without_a_budget_finishes_the_build_in_saved_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pairs, "ROW_BLOCK", 8)
    monkeypatch.setattr(forget, "CHECKPOINT_SECS", 0.0)  # one row block per slice
    saves: list[int] = []
    save_build = state.save_build
    monkeypatch.setattr(
        state, "save_build", lambda store, b, *rest: (saves.append(b.next_row), save_build(store, b, *rest))
    )
    store, _ = store_with(clustered(40, 8))
    index = VectorIndex.from_store(store, DIM)
    settings = ForgettingConfig(min_entries=0)
    scheduled = forget.run_pass(store, index, settings, EMBEDDER, NOW, rebuild_budget_secs=1e-9)
    assert scheduled.skipped is not None and "being built" in scheduled.skipped
    building = state.status(store)["density"]
    assert building == {"state": "building", "progress": pytest.approx(1 - (1 - 8 / 40) ** 2)}
    report = forget.run_pass(store, index, settings, EMBEDDER, NOW + 1)
    assert report.skipped is None and report.density_mode == "rebuilt"
    assert saves == [8, 16, 24, 32]  # progress saved after every slice but the last
    live_ids, full, _ = exact_counts(store)  # after the pass's removals
    assert report.forgotten > 0
    assert [stored_counts(store)[int(i)] for i in live_ids] == list(full)
