"""SleepGate counts two entries as copies of one statement only when they state the same values: one
release's, day's or address's statement is no near-duplicate of another's, however near their
embeddings (sidecar/statement.py `values_key`)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from memory_sleep.sidecar.migrations import MIGRATIONS, Migrations
from memory_sleep.sidecar.rows import to_blob
from memory_sleep.sidecar.statement import values_key
from memory_sleep.sidecar.store import Store
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.sleepgate import density

from .sleepgate_helpers import DIM, EMBEDDER, NOW, entry, forget, store_with, unit, verdicts

THRESHOLD = 0.9


def test_copies_of_one_statement_share_a_key_and_other_values_do_not() -> None:
    port = values_key("Port: 8000", "memory")
    assert port != 0
    assert values_key("[13:03] Port: 8000", "note") == port  # the note's clock stamp is no value
    assert values_key("- Fact: Port: 8000 (2026-10-20)", "weekly") == port  # a weekly copy's label and day
    assert values_key("Port: 8000 (previously: Port: 5432)", "memory") == port  # what it says is gone
    assert values_key("Port is now 8000 (was 5432)", "note") == port
    assert values_key("Port: 5432", "memory") != port
    assert values_key("Ember v1.11.7 will ship audit log v2", "note") != values_key(
        "Ember v1.12.5 will ship audit log v2", "note"
    )
    assert values_key("Standup moved to the big room", "note") == 0


@pytest.mark.usefixtures("sidecar_store")
def test_near_entries_stating_other_releases_are_no_copies_of_each_other() -> None:
    base = unit(7)
    texts = [
        "Ember v1.11.7 will ship audit log v2",
        "Ember v1.12.5 will ship audit log v2",
        "Ember v1.12.5 will ship audit log v2 (repeated in standup)",
        "Ember v1.13.0 will ship audit log v2",
    ]
    store, ids = store_with([unit(100 + i, base, 0.02) for i in range(4)], texts=texts)
    fate = verdicts(forget(store))
    assert [fate[ids[0]], fate[ids[3]]] == ["kept", "kept"]  # each alone in stating its release
    assert sorted([fate[ids[1]], fate[ids[2]]]) == ["forgotten", "load-bearing"]  # one of the two copies


def test_an_older_sidecar_counts_density_again_with_values_keys(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "sidecar.db"
    older = Migrations()
    older.steps = [step for step in MIGRATIONS.steps if step.number < 12]
    db = sqlite3.connect(path, isolation_level=None)
    older.apply(db, str(path))
    db.execute(
        "INSERT INTO meta (key, value) VALUES ('density_threshold', '0.92'), ('density_embedder', 'e')"
    )
    db.execute(
        "INSERT INTO entries (id, source_key, source_path, kind, line_start, line_end, text, content_hash,"
        " created_at, updated_at, embedder, dim, embedding) VALUES (1, 'note:x.md', 'memory/x.md', 'note',"
        " 1, 1, 'Ember v1.12.5 will ship audit log v2', 'h', 0, 0, ?, ?, ?)",
        (EMBEDDER, DIM, to_blob(unit(1))),
    )
    db.execute("INSERT INTO entry_density (entry_id, neighbours) VALUES (1, 3)")
    db.close()
    store = Store.open(path)
    assert "density counts (1 entry) start again" in caplog.text  # said once, at the upgrade
    assert store.db.execute("SELECT count(*) FROM entry_density").fetchone()[0] == 0
    assert store.meta("density_threshold") is None  # the next pass counts again, by values too
    density.grouped(store, VectorIndex.from_store(store, DIM))  # the pass's first read
    stored = store.db.execute("SELECT values_key FROM entries WHERE id = 1").fetchone()[0]
    assert stored == values_key("Ember v1.12.5 will ship audit log v2", "note") != 0
    store.close()


@pytest.mark.usefixtures("sidecar_store")
def test_an_entry_rewritten_to_state_another_value_leaves_its_old_copys_count() -> None:
    """Rewritten, an entry leaves the group it was counted in: the trigger keeps the key it was counted
    by with its old embedding, so the nightly update takes it out of its old neighbour's count."""
    base = unit(7)
    texts = ["Quokka v1.12.5 will ship audit log v2", "Quokka v1.12.5 will ship audit log v2, again"]
    store, ids = store_with([unit(100, base, 0.02), unit(101, base, 0.02)], texts=texts)
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    built = density.rebuild(store, index, THRESHOLD, EMBEDDER, None)
    assert built.counts is not None and list(built.counts) == [1, 1]
    with store.transaction():
        density.save(store, built, THRESHOLD, EMBEDDER)
        rewritten = replace(entry(texts[0]), text="Quokka v1.13.0 will ship audit log v2")
        store.rewrite_entries([(ids[0], rewritten)], unit(102, base, 0.02)[None, :], EMBEDDER, NOW)
    index = density.grouped(store, VectorIndex.from_store(store, DIM))
    updated = density.update(store, index, THRESHOLD)
    assert updated.counts is not None and list(updated.counts) == [0, 0]
