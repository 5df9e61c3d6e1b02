"""set_validity writes only the endings that changed, and leaves exactly what clearing every derived
ending and writing them all again leaves: GC's own supersedes kept unless an ending names them, and
the link of an entry GC merged into another kept even then."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.rows import Endings
from tests.sidecar_helpers import make_workspace, open_at

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

GC_ENDING = ("2026-11-12", "superseded", "entry 1 (gc:gc-20261112T120000000000Z)")
Stored = dict[int, tuple[object, object, object]]


class _CountingDb:
    """The store's database, counting the rows each UPDATE statement changes."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.updated = 0

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        cursor = self.db.execute(sql, parameters)
        self.updated += max(cursor.rowcount, 0) if sql.startswith("UPDATE") else 0
        return cursor

    def executemany(self, sql: str, parameters: Any, /) -> Any:
        updated = 0
        for row in parameters:
            updated += max(self.db.execute(sql, row).rowcount, 0)
        self.updated += updated if sql.startswith("UPDATE") else 0
        return None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def _stored(store: SidecarStore) -> Stored:
    return {
        int(entry_id): (valid_to, status, by)
        for entry_id, valid_to, status, by in store.db.execute(
            "SELECT id, valid_to, status, ended_by FROM entries ORDER BY id"
        )
    }


def _full(before: Stored, endings: Endings) -> Stored:
    """What clearing every derived ending, then writing all of `endings`, leaves."""
    after = {}
    for entry_id, (valid_to, status, by) in before.items():
        by_gc = isinstance(by, str) and "(gc:" in by
        after[entry_id] = (valid_to, status, by) if status is None or by_gc else (None, None, None)
    after.update({entry_id: ending for entry_id, ending in endings.items() if entry_id in after})
    return after


def _set(store: SidecarStore, endings: Endings) -> int:
    """Set `endings`; how many rows the UPDATEs changed."""
    real = store.db
    counting = _CountingDb(real)
    store.db = counting  # type: ignore[assignment]
    try:
        with store.transaction():
            store.set_validity(endings)
    finally:
        store.db = real
    return counting.updated


def test_only_changed_endings_are_written_and_the_rows_are_the_full_rewrite(tmp_path: Path) -> None:
    lines = "".join(f"- Orion item number {n} is tracked in the board\n" for n in range(8))
    folder = make_workspace(tmp_path, {"2026-11-10.md": f"# 2026-11-10\n\n{lines}"})
    with open_at(folder) as sidecar:
        sidecar.index()
        store = sidecar.store
        ids = sorted(_stored(store))[:6]
        first: Endings = {
            ids[0]: ("2026-11-14", "superseded", "memory/2026-11-14.md:3"),
            ids[1]: ("2026-11-15", "done", None),
            ids[2]: GC_ENDING,
        }
        before = _stored(store)
        assert _set(store, first) == 3
        assert _stored(store) == _full(before, first)

        assert _set(store, first) == 0  # the same endings again: nothing written

        # one ending moves, one goes, one comes; GC's own supersede (no longer named) stays
        second: Endings = {
            ids[0]: ("2026-11-16", "superseded", "memory/2026-11-16.md:2"),
            ids[3]: ("2026-11-17", "finished", None),
        }
        before = _stored(store)
        assert _set(store, second) == 3
        assert _stored(store) == _full(before, second)
        assert _stored(store)[ids[2]] == GC_ENDING

        # an ending naming GC's superseded entry replaces GC's; an unknown id changes nothing
        third: Endings = {**second, ids[2]: ("2026-11-18", "done", None), 10**9: ("2026-11-18", "done", None)}
        before = _stored(store)
        assert _set(store, third) == 1
        assert _stored(store) == _full(before, third)

        before = _stored(store)
        assert _set(store, {}) == 3  # an undone archive: every derived ending goes, GC's too once derived
        assert _stored(store) == _full(before, {})


def test_an_entry_gc_merged_into_another_keeps_its_link_whatever_the_files_say_of_it_since(
    tmp_path: Path,
) -> None:
    """The line a supersede names, compacted since into an entry of GC's, leads recall on to that
    entry: the project it belongs to finishing later does not cut the chain."""
    lines = "".join(f"- Orion item number {n} is tracked in the board\n" for n in range(3))
    folder = make_workspace(tmp_path, {"2026-11-10.md": f"# 2026-11-10\n\n{lines}"})
    with open_at(folder) as sidecar:
        sidecar.index()
        store = sidecar.store
        merged, other, into = sorted(_stored(store))
        moved = ("2026-11-12", "superseded", f"entry {into} (gc:compaction)")
        _set(store, {merged: moved, other: GC_ENDING})
        finished = ("2026-11-20", "finished", None)
        _set(store, {merged: finished, other: finished})
        stored = _stored(store)
    assert stored[merged] == moved
    assert stored[other] == finished  # GC's own supersede of an entry it kept apart: the files' ending
