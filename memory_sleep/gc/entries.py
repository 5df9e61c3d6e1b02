"""GC's reads and writes of the sidecar database: the live entries by scope, what each is (its
category) and when a note last used it, importance ratings and the run's own marks. The entries'
liveness changes only through the store (soft delete, restore, validity)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath

from memory_sleep.gc.note_categories import NoteCategories
from memory_sleep.sidecar.boundary import SidecarStore, in_namespace
from memory_sleep.sidecar.rows import CONTEXT_JOIN, ENTRY_COLUMNS, EntryRow
from memory_sleep.sidecar.successors import ending_place
from memory_sleep.workspace.archive import archive_text, ended_statements
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_blocks import PROJECTS, SECTION_FOR

SECTION_CATEGORY = {
    "Decisions": "decision",
    "Facts": "fact",
    "Lessons": "lesson",
    "People": "relationship",
    "Action items": "action",
}
TOOL_SECTIONS = frozenset({*SECTION_FOR.values(), PROJECTS})
RATED_AT = "gc_importance_rated_at"
LAST_RUN_AT = "gc_last_run_at"


def live_by_scope(store: SidecarStore) -> dict[str, list[EntryRow]]:
    """Every live entry (project summaries aside: they are rewritten whole each run; and what a person
    wrote in MEMORY.md outside the tool's sections, which the tool never removes), by scope, in id order."""
    where, params = in_namespace(store)
    scopes: dict[str, list[EntryRow]] = defaultdict(list)
    cursor = store.db.execute(
        f"SELECT {ENTRY_COLUMNS} FROM entries WHERE deleted_at IS NULL AND kind != 'project'{where} ORDER BY id",
        params,
    )
    while rows := cursor.fetchmany(10_000):
        for row in rows:
            entry = EntryRow.read(row)
            if entry.kind == "memory" and entry.source_path == "MEMORY.md" and not memory_section(entry):
                continue
            scopes[entry.scope].append(entry)
    return dict(scopes)


def restored_at(store: SidecarStore) -> dict[int, float]:
    """When each restored entry was last brought back: a restore counts as a use."""
    return {
        int(entry_id): float(at)
        for entry_id, at in store.db.execute("SELECT entry_id, restored_at FROM entry_restores")
    }


def set_importance(store: SidecarStore, ratings: Mapping[int, float]) -> None:
    store.db.executemany(
        "UPDATE entries SET importance = ? WHERE id = ?",
        [(float(value), int(entry_id)) for entry_id, value in ratings.items()],
    )


def memory_section(entry: EntryRow) -> str | None:
    """The section of MEMORY.md the tool keeps that an entry sits in (its context starts with it); None
    for any other entry, what a person wrote outside those sections included."""
    if entry.kind != "memory" or entry.source_path != "MEMORY.md":
        return None
    section = entry.context.split(CONTEXT_JOIN)[0]
    return section if section in TOOL_SECTIONS else None


def replacing(workspace: Workspace | None, entries: Iterable[EntryRow]) -> frozenset[int]:
    """The entries that superseded one archive.md records and are still valid: the current value of
    a changed fact. Forgetting it would leave only the old value (or nothing) to answer with."""
    if workspace is None:
        return frozenset()
    places = {
        place
        for _, ending in ended_statements(archive_text(workspace.archive))
        if ending.status == "superseded" and ending.by and (place := ending_place(ending.by))
    }
    return frozenset(
        entry.id
        for entry in entries
        if (entry.source_key, entry.line_start) in places and entry.valid_to is None
    )


def categories(entries: Iterable[EntryRow], notes: NoteCategories | None) -> dict[int, str]:
    """What each entry is: its MEMORY.md section's category, or what NREM decided for the note item
    on its line (a category, or the reason it discarded the item: debug, routine, heartbeat...)."""
    found: dict[int, str] = {}
    for entry in entries:
        section = memory_section(entry)
        if section is not None:
            if section in SECTION_CATEGORY:
                found[entry.id] = SECTION_CATEGORY[section]
            continue
        if entry.kind != "note" or notes is None:
            continue
        category = notes.of(_file_name(entry.source_path)).get(entry.line_start)
        if category:
            found[entry.id] = category
    return found


@lru_cache(maxsize=4096)
def _file_name(path: str) -> str:
    return PurePosixPath(path).name  # once per note, not once per entry


def days_written(entries: Sequence[EntryRow]) -> dict[int, int]:
    """On how many days each entry's statement (its content) was written in the scope."""
    days: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        days[entry.content_hash].add(entry.day or "")
    return {entry.id: len(days[entry.content_hash]) for entry in entries}


def neighbour_counts(store: SidecarStore, scope: str) -> dict[int, int]:
    """SleepGate's near-duplicate counts of the scope's entries (none until a pass counted them)."""
    where, params = in_namespace(store)
    rows = store.db.execute(
        "SELECT d.entry_id, d.neighbours FROM entry_density d JOIN entries e ON e.id = d.entry_id"
        f" WHERE e.scope = ?{where.replace('namespace', 'e.namespace')}",
        (scope, *params),
    )
    return {int(entry_id): int(count) for entry_id, count in rows}


def mark_ended(store: SidecarStore, ids: Sequence[int], valid_to: str, status: str, ended_by: str) -> None:
    """Entries that stopped being true on `valid_to`, replaced by `ended_by` (kept through indexing)."""
    store.db.executemany(
        "UPDATE entries SET valid_to = ?, status = ?, ended_by = ? WHERE id = ?",
        [(valid_to, status, ended_by, int(entry_id)) for entry_id in ids],
    )
