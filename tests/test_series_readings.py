"""Readings recognised late: the first sightings of a series, kept on their day, are judged again once
later notes say the same line with other values; the entry they added leaves MEMORY.md for the archive."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from memory_sleep.config import Config
from memory_sleep.cycle.undo import undo_last_run
from memory_sleep.engines.offline.curate import OfflineCurator
from memory_sleep.engines.recurrence import Recurrence, note_shapes
from memory_sleep.models import KeptItem
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import MemoryDocument
from memory_sleep.workspace.state import ItemRecord, StateStore

from .conftest import run_offline
from .item_helpers import note_item

FIRST = date(2026, 3, 2)
QUEUE = "**Queue depth:** {} jobs waiting"
TASK = "- [ ] renew the TLS cert on gw-2 before the audit"
FACT = "- Staging Postgres listens on port 6543"


def _day(offset: int) -> date:
    return FIRST + timedelta(days=offset)


def _note(folder: Path, offset: int, depth: int) -> None:
    """The note of a day: a queue reading (another value each day), the same open task and the same fact."""
    (folder / "memory").mkdir(parents=True, exist_ok=True)
    lines = [f"# {_day(offset).isoformat()}", "", QUEUE.format(depth), "", TASK, FACT]
    (folder / "memory" / f"{_day(offset).isoformat()}.md").write_text("\n".join(lines) + "\n")


def _records(folder: Path) -> dict[str, dict[int, ItemRecord]]:
    store = StateStore(Workspace.open(folder).state_dir)
    found = {}
    for note in sorted((folder / "memory").glob("????-??-??.md")):
        state = store.load_note(note.name)
        assert state is not None
        found[note.name] = {record.line: record for record in state.items.values()}
    return found


def _sections(folder: Path) -> dict[str, list[str]]:
    """MEMORY.md's entries by section (a section the tool made for an entry archived since keeps its place)."""
    document = MemoryDocument.parse((folder / "MEMORY.md").read_text())
    found: dict[str, list[str]] = {}
    for section, entry in document.entries():
        found.setdefault(section.title, []).append(entry.render("\n"))
    return found


def _nightly(folder: Path, depths: list[int]) -> None:
    """Each day's note written on its day, and a run the morning after."""
    for offset, depth in enumerate(depths):
        _note(folder, offset, depth)
        run_offline(folder, today=_day(offset + 1))


def test_a_series_is_recognised_from_later_days_with_other_values() -> None:
    lines = [(_day(offset), QUEUE.format(depth)) for offset, depth in enumerate([41, 17, 63])]
    recurrence = Recurrence().with_notes((day, note_shapes([line])) for day, line in lines)
    assert recurrence.series_day(lines[0][1], _day(0)) == _day(2)
    assert (
        Recurrence()
        .with_notes((day, note_shapes([line])) for day, line in lines[:2])
        .series_day(lines[0][1], _day(0))
        is None
    )  # two readings are no series yet


@pytest.mark.parametrize(
    "said",
    [
        [
            "**Deploy:** Beacon v0.5.1 → staging",
            "**Deploy:** Meridian v0.10.7 → staging",
            "**Deploy:** Beacon v0.5.2 → prod",
        ],
        [
            "- dependabot: merged 33 PRs for Nimbus",
            "dependabot: merged 5 PRs for Sable",
            "dependabot: merged 12 PRs for Cobalt",
        ],
    ],
)
def test_a_reading_whose_key_comes_again_with_other_values_is_a_series(said: list[str]) -> None:
    """The readings of one key name another project or release each time, so no two lines share a shape;
    the key coming on three days is what makes the third one routine on its day, and the first ones
    readings once it has come."""
    days = [_day(0), _day(3), _day(5)]
    recurrence = Recurrence().with_notes(
        (day, note_shapes([line])) for day, line in zip(days, said, strict=True)
    )
    assert recurrence.series_day(said[0], days[0]) == days[2]
    assert recurrence.is_routine(said[2], days[2])
    two = Recurrence().with_notes(
        (day, note_shapes([line])) for day, line in zip(days[:2], said, strict=False)
    )
    assert two.series_day(said[0], days[0]) is None  # two days are no routine yet


def test_a_line_said_again_with_the_same_values_is_no_series() -> None:
    for line in (TASK, FACT, "- Nightly export: 120 rows to bucket exports-eu", "**Port:** 8343"):
        said = Recurrence().with_notes((_day(offset), note_shapes([line])) for offset in range(6))
        assert said.series_day(line, _day(0)) is None, line


def test_the_engine_judges_readings_again_but_never_a_task_or_a_decision() -> None:
    lines = {
        "fact": "- disk on db-{}: 77% used",
        "action": "- [ ] move the exporter off db-{} by Friday",
        "decision": "- Decided: db-{} stays the primary",
    }
    curator = OfflineCurator()
    for category, line in lines.items():
        said = [(_day(offset), line.format(offset + 1)) for offset in range(3)]
        recurrence = Recurrence().with_notes((day, note_shapes([text])) for day, text in said)
        kept = KeptItem(item=note_item(said[0][1], _day(0)), category=category, topic=None)  # type: ignore[arg-type]
        verdicts = curator.readings([kept], recurrence)
        if category == "fact":
            assert [(v.verdict, v.discard_reason) for v in verdicts] == [("DISCARD", "routine")]
            assert verdicts[0].reason == f"recognised as a series of readings on {_day(2).isoformat()}"
        else:
            assert verdicts == [], category


def test_a_reading_that_is_an_action_only_by_its_section_is_judged_again() -> None:
    """ "**Backup:** ok, 21.9 GB" under "Follow-ups" was kept as an action by its section alone (its
    record keeps no heading, and it sets no task itself): later readings show it a reading as they
    would anywhere; a task its own words set is never one."""
    curator = OfflineCurator()
    for line, retired in (("**Backup:** ok, {}.9 GB", True), ("- [ ] free {}0 GB on the backup disk", False)):
        said = [(_day(offset), line.format(offset + 1)) for offset in range(3)]
        recurrence = Recurrence().with_notes((day, note_shapes([text])) for day, text in said)
        kept = KeptItem(item=note_item(said[0][1], _day(0)), category="action", topic=None)
        verdicts = curator.readings([kept], recurrence)
        assert [v.discard_reason for v in verdicts] == (["routine"] if retired else []), line


def test_the_first_reading_is_judged_again_and_its_entry_archived(tmp_path: Path) -> None:
    _nightly(tmp_path, [41, 17])
    assert "Queue depth: 17 jobs waiting" in (tmp_path / "MEMORY.md").read_text()  # no series yet
    _nightly(tmp_path, [41, 17, 63, 8])
    memory = (tmp_path / "MEMORY.md").read_text()
    assert "Queue depth" not in memory
    archive = (tmp_path / "memory" / "archive.md").read_text()
    assert "Queue depth: 17 jobs waiting" in archive
    assert f"recognised as a series of readings on {_day(2).isoformat()}" in archive
    first = _records(tmp_path)[f"{_day(0).isoformat()}.md"][3]
    assert (first.verdict, first.discard_reason, first.operation) == ("DISCARD", "routine", None)
    undo_last_run(Workspace.open(tmp_path), Config())
    assert "Queue depth" not in (tmp_path / "MEMORY.md").read_text()  # archived the night before
    undo_last_run(Workspace.open(tmp_path), Config())
    undo_last_run(Workspace.open(tmp_path), Config())
    assert "Queue depth: 17 jobs waiting" in (tmp_path / "MEMORY.md").read_text()


def test_a_task_and_a_fact_said_again_every_day_are_never_retired(tmp_path: Path) -> None:
    _nightly(tmp_path, [41, 17, 63, 8, 25, 30])
    memory = (tmp_path / "MEMORY.md").read_text()
    assert "renew the TLS cert on gw-2 before the audit" in memory
    assert "Staging Postgres listens on port 6543" in memory
    first = _records(tmp_path)[f"{_day(0).isoformat()}.md"]
    assert first[5].verdict == first[6].verdict == "KEEP"


def test_a_first_run_ends_as_the_nightly_runs_do(tmp_path: Path) -> None:
    nightly, first = tmp_path / "nightly", tmp_path / "first"
    depths = [41, 17, 63, 8, 25]
    _nightly(nightly, depths)
    for offset, depth in enumerate(depths):
        _note(first, offset, depth)
    run_offline(first, today=_day(len(depths)))
    assert _sections(first) == _sections(nightly)
    assert "Queue depth" not in (first / "MEMORY.md").read_text()
    readings = [
        {name: records[3] for name, records in _records(folder).items()} for folder in (first, nightly)
    ]
    assert readings[0] == readings[1]
    assert {record.verdict for record in readings[0].values()} == {"DISCARD"}
    again = run_offline(first, today=_day(5))
    assert not [change.path for change in again.changes]
