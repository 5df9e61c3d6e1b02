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

from memory_sleep.sidecar.boundary import SidecarStore
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


def _starting_last(rows: list[tuple[int, int, bool]], live: bool) -> list[int]:
    """The ids of the rows (live, or soft-deleted) that start last of those holding a line."""
    start = max((line_start for _, line_start, alive in rows if alive == live), default=None)
    return [entry_id for entry_id, line_start, alive in rows if alive == live and line_start == start]


def _holding(
    store: SidecarStore, places: set[tuple[str, int]]
) -> dict[tuple[str, int], list[tuple[int, int, bool]]]:
    """Per (source key, line), the rows whose lines hold it: (id, line_start, live)."""
    where, params = ("", ()) if store.namespace is None else (" AND e.namespace = ?", (store.namespace,))
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
