"""The pass: candidates, load-bearing entries, near-duplicate clusters, soft delete only, min_entries."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pytest

from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.rows import gc_link
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.sleepgate import density
from memory_sleep.sleepgate.pairs import all_pairs
from memory_sleep.sleepgate.undo import undo_passes

from .sleepgate_helpers import (
    DAY,
    EMBEDDER,
    NOW,
    config,
    entry,
    entry_text,
    forget,
    log_query,
    open_store,
    store_with,
    unit,
    verdicts,
)

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres


def test_old_redundant_entries_are_forgotten_and_one_of_the_cluster_survives() -> None:
    base = unit(7)
    cluster = [unit(100 + i, base, 0.02) for i in range(4)]
    store, ids = store_with([*cluster, unit(1), unit(2)])
    report = forget(store)
    fate = verdicts(report)
    assert [fate[i] for i in ids[4:]] == ["kept", "kept"]  # unique: 0.35 >= 0.30
    cluster_fates = [fate[i] for i in ids[:4]]
    assert cluster_fates.count("load-bearing") == 1 and cluster_fates.count("forgotten") == 3
    live = {row[0] for row in store.db.execute("SELECT id FROM entries WHERE deleted_at IS NULL")}
    assert len(live & set(ids[:4])) == 1


def test_a_rarely_accessed_entry_that_alone_answers_a_logged_query_survives() -> None:
    base = unit(7)
    twins = [base, unit(8, base, 0.01)]
    store, ids = store_with(twins + [unit(i) for i in range(20, 30)])
    # a high threshold makes every old entry a candidate; the query needs the first unique one
    settings = config(retention_threshold=0.9)
    answer = ids[2]
    log_query(store, np.asarray(VectorIndex.from_store(store, 16).matrix[2]), [answer])
    report = forget(store, settings)
    fate = verdicts(report)
    assert fate[answer] == "load-bearing"
    assert all(fate[i] == "forgotten" for i in ids[3:])
    assert sorted(fate[i] for i in ids[:2]) == ["forgotten", "load-bearing"]


def test_two_near_duplicates_cannot_both_go_when_a_query_needs_one() -> None:
    base = unit(7)
    store, ids = store_with([base, unit(8, base, 0.01), unit(9, base, 0.01), unit(50)])
    log_query(store, base, [ids[0]], k=1)
    report = forget(store, config(retention_threshold=0.9))
    fate = verdicts(report)
    assert [fate[i] for i in ids[:3]].count("load-bearing") == 1
    assert report.recall_after == 1.0


def test_the_pass_never_hard_deletes() -> None:
    base = unit(7)
    store, _ = store_with([unit(100 + i, base, 0.02) for i in range(6)] + [unit(i) for i in range(6)])
    before = store.db.execute("SELECT id, text, embedding, access_count FROM entries ORDER BY id").fetchall()
    report = forget(store, config(retention_threshold=0.9))
    assert report.forgotten > 0
    after = store.db.execute("SELECT id, text, embedding, access_count FROM entries ORDER BY id").fetchall()
    assert after == before
    reasons = store.db.execute(
        "SELECT DISTINCT deleted_reason, deleted_pass FROM entries WHERE deleted_at IS NOT NULL"
    ).fetchall()
    assert reasons == [("forgotten", report.pass_id)]


def test_dry_run_changes_nothing() -> None:
    base = unit(7)
    store, _ = store_with([unit(100 + i, base, 0.02) for i in range(4)])
    report = forget(store, dry_run=True)
    assert report.forgotten == 3
    assert store.db.execute("SELECT count(*) FROM entries WHERE deleted_at IS NOT NULL").fetchone()[0] == 0
    assert store.db.execute("SELECT count(*) FROM forgetting_passes").fetchone()[0] == 0


def test_below_min_entries_the_pass_is_skipped_and_says_why() -> None:
    base = unit(7)
    store, _ = store_with([unit(100 + i, base, 0.02) for i in range(4)])
    report = forget(store, config(min_entries=1000))
    assert report.skipped and "fewer than min_entries = 1000" in report.skipped
    assert report.forgotten == 0
    assert store.db.execute("SELECT count(*) FROM entries WHERE deleted_at IS NOT NULL").fetchone()[0] == 0


def test_recent_entries_are_kept_even_when_redundant() -> None:
    base = unit(7)
    store, _ = store_with([unit(100 + i, base, 0.02) for i in range(3)], written=NOW - DAY)
    fate = verdicts(forget(store))
    assert set(fate.values()) == {"kept"}


def test_incremental_density_matches_a_full_rebuild() -> None:
    rng = np.random.default_rng(3)
    centres = [unit(int(s)) for s in rng.integers(0, 1000, 5)]
    vectors = [unit(200 + i, centres[i % 5], 0.25) for i in range(60)]
    store, ids = store_with(vectors)
    threshold = 0.9
    index = density.grouped(store, VectorIndex.from_store(store, 16))
    result = density.rebuild(store, index, threshold, "e", None)
    with store.transaction():
        density.save(store, result, threshold, "e")
    # new entries, a soft delete and an edit, then an incremental update
    with store.transaction():
        from .sleepgate_helpers import entry

        new = [unit(400 + i, centres[i % 5], 0.25) for i in range(10)]
        store.insert_entries(
            [entry(entry_text(100 + i)) for i in range(10)], np.stack(new), "test-embedder", NOW
        )
        store.soft_delete(ids[:5], "item-removed", NOW)
        edited = unit(999, centres[0], 0.25)
        store.set_embeddings([ids[10]], edited[None, :], "test-embedder")
    index = density.grouped(store, VectorIndex.from_store(store, 16))
    updated = density.update(store, index, threshold)
    with store.transaction():
        density.save(store, updated, threshold, "e")
    full = np.zeros(len(index.ids), dtype=np.int64)
    all_pairs(index.matrix, None, threshold, full)
    assert updated.counts is not None
    assert list(updated.counts) == list(full)
    stored = dict(store.db.execute("SELECT entry_id, neighbours FROM entry_density").fetchall())
    assert [stored[int(i)] for i in index.ids] == list(full)
    assert store.db.execute("SELECT count(*) FROM density_retired").fetchone()[0] == 0


def _note_lines(store: SidecarStore, vectors: list[npt.NDArray[np.float32]]) -> tuple[list[str], list[int]]:
    """One line a year old in each of the notes 2026-01-01.md, 2026-01-02.md, ...: their names and ids."""
    places = [f"2026-01-0{day}.md" for day in range(1, len(vectors) + 1)]
    with store.transaction():
        store.set_meta("embedder", EMBEDDER)
        ids = store.insert_entries(
            [
                replace(entry(entry_text(i)), source_key=f"note:{name}", source_path=f"memory/{name}")
                for i, name in enumerate(places)
            ],
            np.stack(vectors),
            EMBEDDER,
            NOW - 365 * DAY,
        )
    return places, ids


def test_the_latest_word_on_an_entry_that_ended_stays_while_that_entry_stays() -> None:
    """A note line that superseded an older one, and the entry GC merged lines into, are what recall
    ranks above what they ended: forgetting one while the entry it ended stays would leave recall the
    old value alone. A line superseded in turn is no latest word."""
    store = open_store()
    # 2 and 3 alike
    vectors = [unit(0), unit(1), unit(2), unit(3, unit(2), 0.01), unit(4), unit(5)]
    places, ids = _note_lines(store, vectors)
    with store.transaction():
        store.set_validity(
            {
                ids[0]: ("2026-01-03", "superseded", f"memory/{places[2]}:1"),
                ids[1]: ("2026-01-04", "superseded", gc_link(ids[3], "compaction")),
                ids[4]: ("2026-01-06", "superseded", f"memory/{places[5]}:1"),
                ids[5]: ("2026-01-07", "superseded", "memory/2026-01-07.md:1"),
            }
        )
    report = forget(store, config(retention_threshold=0.9))
    fate = verdicts(report)
    assert [fate[i] for i in ids] == [
        "forgotten",
        "forgotten",
        "load-bearing",
        "load-bearing",
        "forgotten",
        "forgotten",
    ]
    reasons = {v.id: v.reason for v in report.verdicts}
    assert reasons[ids[3]] == "the latest word on an entry that ended"
    assert reasons[ids[2]] == "last of its near-duplicate cluster"  # a latest word too: counted once
    assert report.load_bearing == 2


def test_the_latest_word_is_found_along_the_chain_through_a_line_gc_merged_away() -> None:
    """The line that superseded an entry was merged by GC into another entry (and soft-deleted): that
    entry is the latest word on the first, as recall follows the chain (sidecar/successors.py), and
    stays while the first does. Forgetting it left recall the old value first."""
    store = open_store()
    places, ids = _note_lines(store, [unit(i) for i in range(3)])
    with store.transaction():
        store.set_validity(
            {
                ids[0]: ("2026-01-02", "superseded", f"memory/{places[1]}:1"),
                ids[1]: ("2026-01-02", "superseded", gc_link(ids[2], "compaction")),
            }
        )
        store.soft_delete([ids[1]], "gc:compaction", NOW - 300 * DAY)
    report = forget(store, config(retention_threshold=0.9))
    assert verdicts(report)[ids[2]] == "load-bearing"
    assert {v.id: v.reason for v in report.verdicts}[ids[2]] == "the latest word on an entry that ended"


def test_a_latest_word_an_earlier_pass_forgot_comes_back_and_undoing_the_pass_forgets_it_again() -> None:
    """A pass before latest words were kept may have forgotten one: the next pass brings it back, in
    its own record, so that undoing that pass (as `memory-sleep undo` does a run's) forgets it again."""
    store = open_store()
    with store.transaction():
        store.set_meta("embedder", EMBEDDER)
        ids = store.insert_entries(
            [
                replace(
                    entry(entry_text(i)),
                    source_key=f"note:2026-01-0{i + 1}.md",
                    source_path=f"memory/2026-01-0{i + 1}.md",
                )
                for i in range(3)
            ],
            np.stack([unit(i) for i in range(3)]),
            EMBEDDER,
            NOW - 365 * DAY,
        )
        store.set_validity({ids[0]: ("2026-01-02", "superseded", "memory/2026-01-02.md:1")})
        store.soft_delete([ids[1]], "forgotten", NOW - 30 * DAY, "forget-earlier")
    report = forget(store, config(retention_threshold=0.9))
    assert report.restored == 1 and report.counts()["restored"] == 1
    assert store.fetch([ids[1]])[ids[1]].deleted_at is None
    assert verdicts(report)[ids[0]] == "forgotten"  # what it ended may go: recall finds it through its line
    undo_passes(store, [report.pass_id], NOW)
    assert store.fetch([ids[1]])[ids[1]].deleted_reason == "forgotten"
