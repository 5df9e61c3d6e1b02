"""Readings recognised late: a line kept on its day turns out, once later notes say it again with other
values, to be the first reading of a series. The engine judges those items again (DISCARD routine), and
an entry such an item alone added to MEMORY.md moves to the archive."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from memory_sleep.cycle.nrem import record
from memory_sleep.cycle.plan import DocumentEditor, Edit
from memory_sleep.cycle.weekly import kept_items
from memory_sleep.engines.base import Curator
from memory_sleep.engines.recurrence import Recurrence, line_shape
from memory_sleep.models import Classification, KeptItem
from memory_sleep.workspace.state import ItemRecord, NoteState


@dataclass(frozen=True)
class Retired:
    """A kept item judged again as a reading: its note, id and new record, and the entry it added."""

    note: str
    item_id: str
    verdict: Classification
    record: ItemRecord
    entry: str  # the text of the entry it added, as it added it ("" if it added none)
    day: date
    why: str


def rejudge(curator: Curator, recurrence: Recurrence, states: Mapping[str, NoteState]) -> list[Retired]:
    """The kept items of `states` (note name: state) the engine now finds readings of a series."""
    kept: list[KeptItem] = []
    for name, state in sorted(states.items()):
        kept.extend(kept_items(name, date.fromisoformat(name[:10]), state)[0])
    by_id = {item.item.id: item for item in kept}
    retired = []
    for verdict in curator.readings(kept, recurrence):
        found = by_id.get(verdict.item_id)
        if found is None or verdict.verdict != "DISCARD":
            continue  # only a kept item shown can be judged again, and only to be let go
        name = found.item.file.removeprefix("memory/")
        before = states[name].items[verdict.item_id]
        retired.append(
            Retired(
                note=name,
                item_id=verdict.item_id,
                verdict=verdict,
                record=record(found.item, verdict),
                entry=before.wrote if _reading_alone(before) else "",
                day=found.item.day,
                why=f"a routine reading ({found.item.source}): {verdict.reason}",
            )
        )
    return retired


def _reading_alone(record: ItemRecord) -> bool:
    """The entry the item left came from readings alone: it added it, or changed one that held a reading
    of the same shape (the series' reading before it), not an entry that said something else."""
    if record.operation == "add":
        return True
    return record.operation in ("update", "supersede") and line_shape(record.replaced) == line_shape(
        record.wrote
    )


def archive_edits(editor: DocumentEditor, retired: Sequence[Retired]) -> list[Edit]:
    """An archive edit for each entry a retired item added that is still as it added it (an entry
    another note has changed since holds more than a reading)."""
    added: dict[tuple[str, date | None], Retired] = {
        (found.entry, found.day): found for found in retired if found.entry
    }
    edits = []
    for _, _, entry in list(editor.entries()):
        found = added.pop((entry.text, entry.day), None)
        if found is not None:
            edits.append(editor.archive(entry, found.why, ends="superseded"))
    return edits


def still_pending(pending: Mapping[str, list[str]], retired: Sequence[Retired]) -> dict[str, list[str]]:
    """The items waiting for REM (by note) that are still kept."""
    gone = {found.item_id for found in retired}
    return {name: left for name, ids in pending.items() if (left := [i for i in ids if i not in gone])}
