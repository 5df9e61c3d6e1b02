"""The sidecar database: migrations, soft delete and restore, the generation counter."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory_sleep.errors import StoreError
from memory_sleep.sidecar.migrations import MIGRATIONS, Migrations
from memory_sleep.sidecar.store import MMAP_BYTES, NewEntry, Store


def _entry(text: str, scope: str = "default") -> NewEntry:
    return NewEntry("note:x.md", "memory/x.md", "note", 1, 1, "", text, text, None, scope, 0.3, None, text)


def test_migrations_apply_once_and_in_order(tmp_path: Path) -> None:
    path = tmp_path / "sidecar.db"
    Store.open(path).close()
    store = Store.open(path)
    applied = list(store.db.execute("SELECT number, name FROM schema_migrations ORDER BY rowid"))
    assert applied == [(m.number, m.name) for m in MIGRATIONS.steps]
    assert [number for number, _ in applied] == list(range(1, len(MIGRATIONS.steps) + 1))
    assert store.schema_version() == len(MIGRATIONS.steps)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.db.execute("PRAGMA mmap_size").fetchone()[0] == MMAP_BYTES


def test_a_new_migration_runs_after_the_old_ones_exactly_once() -> None:
    order: list[str] = []
    migrations = Migrations()

    @migrations.register
    def m001_first(db: sqlite3.Connection) -> None:
        order.append("first")
        db.execute("CREATE TABLE a (x)")

    db = sqlite3.connect(":memory:", isolation_level=None)
    assert migrations.apply(db, ":memory:") == ["m001_first"]

    @migrations.register
    def m002_second(db: sqlite3.Connection) -> None:
        order.append("second")
        db.execute("CREATE TABLE b (x)")

    assert migrations.apply(db, ":memory:") == ["m002_second"]
    assert migrations.apply(db, ":memory:") == []
    assert order == ["first", "second"]


def test_migrations_must_be_numbered_in_registration_order() -> None:
    migrations = Migrations()
    with pytest.raises(ValueError, match="name it m001_"):

        @migrations.register
        def m002_skipped(db: sqlite3.Connection) -> None:
            pass


def test_a_failed_migration_leaves_no_trace() -> None:
    migrations = Migrations()

    @migrations.register
    def m001_broken(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half (x)")
        raise RuntimeError("boom")

    db = sqlite3.connect(":memory:", isolation_level=None)
    with pytest.raises(RuntimeError):
        migrations.apply(db, ":memory:")
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "half" not in tables
    assert db.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == 0


def test_a_database_from_a_newer_version_is_refused_with_a_next_step(tmp_path: Path) -> None:
    path = tmp_path / "sidecar.db"
    store = Store.open(path)
    store.db.execute("INSERT INTO schema_migrations VALUES (99, 'm099_future', 0)")
    store.close()
    with pytest.raises(StoreError, match=r"newer memory-sleep.*Upgrade memory-sleep"):
        Store.open(path)


def test_soft_delete_and_restore_keep_the_text_and_bump_the_generation() -> None:
    store = Store.open(":memory:")
    with store.transaction():
        ids = store.insert_entries(
            [_entry("alpha"), _entry("beta")], np.eye(2, 4, dtype=np.float32), "e/4", 1.0
        )
    generation = store.generation()
    with store.transaction():
        assert store.soft_delete([ids[0]], "forgotten", 5.0, pass_id="pass-1") == 1
        assert store.soft_delete([ids[0]], "forgotten", 6.0) == 0
    row = store.fetch([ids[0]])[ids[0]]
    assert (row.text, row.deleted_at, row.deleted_reason, row.deleted_pass) == (
        "alpha",
        5.0,
        "forgotten",
        "pass-1",
    )
    assert store.generation() == generation + 1
    live_ids, _, _ = store.live_vectors(4)
    assert live_ids.tolist() == [ids[1]]
    with store.transaction():
        assert store.restore([ids[0]]) == 1
    assert store.fetch([ids[0]])[ids[0]].deleted_at is None
    assert store.live_vectors(4)[0].tolist() == ids


def test_note_texts_outside_a_scope_are_read_from_their_index_soft_deleted_ones_too() -> None:
    """A nightly index pass asks which note items lie outside the default scope: their own index
    answers, not a read of every row with its vector."""
    store = Store.open(":memory:")
    with store.transaction():
        ids = store.insert_entries(
            [_entry("alpha", "work"), _entry("beta"), _entry("gamma", "home"), _entry("delta", "work")],
            np.eye(4, 4, dtype=np.float32),
            "e/4",
            1.0,
        )
        store.soft_delete([ids[3]], "item-removed", 2.0)
    asked: list[str] = []
    store.db.set_trace_callback(asked.append)
    found = store.note_texts_outside("default")
    store.db.set_trace_callback(None)
    assert sorted(found) == [("home", "gamma"), ("work", "alpha"), ("work", "delta")]
    (query,) = asked
    plan = " ".join(str(row[-1]) for row in store.db.execute(f"EXPLAIN QUERY PLAN {query}"))
    assert "USING INDEX entries_notes_by_scope" in plan


def test_log_query_records_ranks_and_counts_each_access_once() -> None:
    store = Store.open(":memory:")
    with store.transaction():
        ids = store.insert_entries([_entry("a"), _entry("b")], np.eye(2, 4, dtype=np.float32), "e/4", 1.0)
    query_id = store.log_query("q", None, 2, "e/4", None, [(ids[1], 0.9), (ids[0], 0.5)], 10.0)
    assert list(
        store.db.execute("SELECT rank, entry_id FROM query_results WHERE query_id = ?", (query_id,))
    ) == [
        (1, ids[1]),
        (2, ids[0]),
    ]
    store.record_access([ids[0]], 20.0)
    counts = {row.id: (row.access_count, row.last_accessed_at) for row in store.fetch(ids).values()}
    assert counts == {ids[0]: (2, 20.0), ids[1]: (1, 10.0)}


def _open_when_all_are_ready(path: str, ready: Any, failures: Any) -> None:
    ready.wait()
    try:
        Store.open(path).close()
    except Exception as error:  # reported to the test, which names it
        failures.put(f"{type(error).__name__}: {error}")


def test_eight_processes_creating_one_new_sidecar_at_once_all_open_it(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    for attempt in range(3):
        path = str(tmp_path / f"sidecar-{attempt}.db")
        ready, failures = context.Barrier(8), context.Queue()
        workers = [
            context.Process(target=_open_when_all_are_ready, args=(path, ready, failures)) for _ in range(8)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(120)
        errors = [failures.get() for _ in range(failures.qsize())] if not failures.empty() else []
        assert errors == []
        assert [worker.exitcode for worker in workers] == [0] * 8
        store = Store.open(path)
        assert store.schema_version() == len(MIGRATIONS.steps)
        assert store.db.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] == len(
            MIGRATIONS.steps
        )
        store.close()
