"""The evidence of many endings looked up at once is what `ending_row` finds for each; the marks kept
of the files they name are in the files' order, whatever order a set of them took."""

from __future__ import annotations

from pathlib import Path

from memory_sleep.sidecar.evidence import evidence_ids, evidence_since
from memory_sleep.sidecar.rows import ENTRY_COLUMNS
from memory_sleep.sidecar.store import Store
from memory_sleep.sidecar.successors import ending_row
from memory_sleep.workspace.archive import ended_statements
from tests.validity_helpers import run_nights


def _one_by_one(store: Store, endings: list[str]) -> dict[str, int | None]:
    found = {}
    for ended_by in endings:
        row = ending_row(store, ended_by)
        found[ended_by] = row.id if row else None
    return found


def test_endings_looked_up_at_once_name_the_items_ending_row_names(tmp_path: Path) -> None:
    folder = run_nights(tmp_path)
    store = Store.open(folder / "memory" / ".sleep" / "sidecar.db")
    archive = (folder / "memory" / "archive.md").read_text(encoding="utf-8")
    endings = [ending.by for _, ending in ended_statements(archive) if ending.by]
    assert endings
    notes = sorted(path.name for path in (folder / "memory").glob("2026-*.md"))
    endings += [f"memory/{name}:{line}" for name in notes for line in range(0, 12)]
    endings += [
        "MEMORY.md:3",
        "MEMORY.md:400",
        "memory/2026-12-31.md:2",
        "no place",
        "entry 1 (gc:compaction)",
    ]
    # a line two soft-deleted rows of one start hold: the store's own query chooses, so it is asked
    first = store.db.execute(
        f"SELECT {ENTRY_COLUMNS} FROM entries WHERE kind = 'note' ORDER BY id"
    ).fetchone()
    columns = ENTRY_COLUMNS.replace("id, ", "", 1)
    for _ in range(2):
        store.db.execute(
            f"INSERT INTO entries ({columns}, embedding, embedder) SELECT {columns}, embedding, embedder"
            " FROM entries WHERE id = ?",
            (first[0],),
        )
    store.db.execute(
        "UPDATE entries SET deleted_at = 1.0, line_end = line_end + 5 WHERE id > ? AND source_key = ?",
        (store.db.execute("SELECT MAX(id) - 2 FROM entries").fetchone()[0], first[1]),
    )
    endings.append(f"{first[2]}:{first[5] + 3}")
    expected = _one_by_one(store, list(dict.fromkeys(endings)))
    assert evidence_ids(store, endings) == expected
    assert any(found is not None for found in expected.values())
    assert expected[f"{first[2]}:{first[5] + 3}"] is not None


def test_the_files_endings_name_are_kept_in_their_order(tmp_path: Path) -> None:
    folder = run_nights(tmp_path)
    store = Store.open(folder / "memory" / ".sleep" / "sidecar.db")
    notes = sorted(path.name for path in (folder / "memory").glob("2026-*.md"))
    endings = [f"memory/{name}:1" for name in reversed(notes)]
    kept = evidence_since(store, endings, None, None).files
    assert len(kept) > 1
    assert list(kept) == sorted(kept)
