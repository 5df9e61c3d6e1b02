"""The items endings name as their evidence, looked up for many endings at once.

The validity pass asks, for each ending archive.md records, which item it names (`ending_row`): a year
of history is over a thousand endings, and a query each was a tenth of the nightly index pass. The
rows holding the note and MEMORY.md lines they name are read here with one query per few hundred
lines; an ending whose line two rows of one start hold (which one the store's own query returns is
its choice), and every `entry N` link, is asked of `ending_row` itself, so the ids are the ones it
gives.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import NamedTuple

from memory_sleep.sidecar.boundary import SidecarStore, in_namespace
from memory_sleep.sidecar.successors import ending_place, ending_row, names_entry

_PLACES_AT_ONCE = 400  # two parameters each


def evidence_ids(store: SidecarStore, endings: Iterable[str]) -> dict[str, int | None]:
    """Per ending (`ended_by`), the id of the item `ending_row` finds for it, or None."""
    found: dict[str, int | None] = {}
    places: dict[str, tuple[str, int]] = {}
    asked: list[str] = []  # looked up one by one, as `ending_row` does
    for ended_by in dict.fromkeys(endings):
        place = None if names_entry(ended_by) else ending_place(ended_by)
        if place is None:
            asked.append(ended_by)
        else:
            places[ended_by] = place
    holding = _holding(store, set(places.values()))
    for ended_by, place in places.items():
        rows = holding.get(place, [])
        chosen = _starting_last(rows, live=True) or _starting_last(rows, live=False)
        if len(chosen) == 1:
            found[ended_by] = chosen[0]
        elif chosen:
            asked.append(ended_by)
        else:
            found[ended_by] = None
    for ended_by in asked:
        row = ending_row(store, ended_by)
        found[ended_by] = row.id if row else None
    return found


class Evidence(NamedTuple):
    """Per ending, the id of the item it names; and per file holding a named line, its mark (content
    hash and count of rows) when they were looked up."""

    ids: dict[str, int | None]
    files: dict[str, str]


def evidence_since(
    store: SidecarStore, endings: Iterable[str], last: Evidence | None, generation: int | None
) -> Evidence:
    """`evidence_ids` of `endings`, taking the last pass's (`last`, at store `generation`) for an
    ending naming a line of a file whose rows are as they were: the same bytes indexed (a row moves
    only when they change), as many rows (none erased for good), and none stamped since (added,
    rewritten, deleted or restored). The rows holding a line are all `ending_row` reads."""
    places = {ended_by: None if names_entry(ended_by) else ending_place(ended_by) for ended_by in endings}
    files = _file_marks(store)
    stamped = _stamped_files(store, generation) if last is not None and generation is not None else None
    kept: dict[str, int | None] = {}
    for ended_by, place in places.items():
        if (
            stamped is None
            or last is None
            or place is None
            or ended_by not in last.ids
            or place[0] in stamped
            or place[0] not in files
            or last.files.get(place[0]) != files[place[0]]
        ):
            continue
        kept[ended_by] = last.ids[ended_by]
    found = evidence_ids(store, (ended_by for ended_by in places if ended_by not in kept))
    found.update(kept)
    named = {place[0] for place in places.values() if place is not None}
    return Evidence(
        {ended_by: found[ended_by] for ended_by in places},
        {key: files[key] for key in sorted(named) if key in files},
    )


def _file_marks(store: SidecarStore) -> dict[str, str]:
    """Per indexed file, its content hash and how many rows (live or deleted) it has."""
    where, params = in_namespace(store, keyword="WHERE")
    counts = dict(
        store.db.execute(f"SELECT source_key, count(*) FROM entries{where} GROUP BY source_key", params)
    )
    return {
        str(key): f"{content_hash} {counts.get(key, 0)}"
        for key, content_hash in store.db.execute(f"SELECT key, content_hash FROM sources{where}", params)
    }


def _stamped_files(store: SidecarStore, generation: int) -> set[str]:
    """The files with a row stamped after `generation` (added, rewritten, deleted or restored)."""
    where, params = in_namespace(store, keyword="WHERE")
    where = where.replace("WHERE", "AND")
    # the stamp alone in the condition: the store reads only the rows stamped since
    rows = store.db.execute(
        f"SELECT source_key FROM entries WHERE vector_generation > ?{where}", (generation, *params)
    )
    return {str(key) for (key,) in rows}


def _starting_last(rows: list[tuple[int, int, bool]], live: bool) -> list[int]:
    """The ids of the rows (live, or soft-deleted) that start last of those holding a line."""
    start = max((line_start for _, line_start, alive in rows if alive == live), default=None)
    return [entry_id for entry_id, line_start, alive in rows if alive == live and line_start == start]


def _holding(
    store: SidecarStore, places: set[tuple[str, int]]
) -> dict[tuple[str, int], list[tuple[int, int, bool]]]:
    """Per (source key, line), the rows whose lines hold it: (id, line_start, live)."""
    where, params = in_namespace(store, "e.namespace")
    ordered = sorted(places)
    found: dict[tuple[str, int], list[tuple[int, int, bool]]] = defaultdict(list)
    for start in range(0, len(ordered), _PLACES_AT_ONCE):
        chunk = ordered[start : start + _PLACES_AT_ONCE]
        rows = store.db.execute(
            f"WITH wanted (source_key, line) AS (VALUES {','.join(['(?, ?)'] * len(chunk))})"
            " SELECT w.source_key, w.line, e.id, e.line_start, e.deleted_at IS NULL FROM wanted w"
            " JOIN entries e ON e.source_key = w.source_key AND e.line_start <= w.line AND e.line_end >= w.line"
            f"{where}",
            (*(value for place in chunk for value in place), *params),
        )
        for source_key, line, entry_id, line_start, live in rows:
            found[(str(source_key), int(line))].append((int(entry_id), int(line_start), bool(live)))
    return found
