"""The stale sweep: absences that are over leave MEMORY.md; entries later notes still use stay."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

from memory_sleep.config import Config
from memory_sleep.cycle.plan import DocumentEditor
from memory_sleep.cycle.runner import RunOptions, run_cycle
from memory_sleep.cycle.stale import remove_stale, stale_horizon
from memory_sleep.engines.offline import offline_engine
from memory_sleep.engines.offline.curate import OfflineCurator
from memory_sleep.models import EntryView, NoteItem
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import MemoryDocument

from .conftest import run_offline
from .item_helpers import archived_by, judged, note_item

PEOPLE = """# MEMORY.md

## People
- heads-up: Raj on leave 2026-11-20, 4 days, ping Lena instead (2026-11-02)
- Lena on leave 2026-12-05 to 2026-12-08 (4 days) (2026-11-10)
- Nadia is in America/Sao_Paulo, keep that in mind for calls (2026-09-25)
- Raj GitHub: @raj_ (2026-10-04)
"""


def test_an_absence_that_is_over_is_archived_as_finished_business() -> None:
    document = MemoryDocument.parse(PEOPLE)
    today = date(2026, 11, 25)
    archived = archived_by(
        document,
        today,
        lambda e: (
            remove_stale(e, {}, set(), judged(e, today), today, today - timedelta(days=90), budget=5).edits
        ),
    )
    assert [(r.entry, r.reason) for r in archived] == [
        (
            "- heads-up: Raj on leave 2026-11-20, 4 days, ping Lena instead (2026-11-02)",
            "finished: the absence it announces ended 2026-11-23",
        )
    ]
    assert "Lena on leave 2026-12-05" in document.render()  # still to come


def test_a_finished_project_leaves_what_it_says_happens_after_today() -> None:
    """A project's end archives its entries as finished business, but not a follow-up dated after
    today ("delete the bucket on or after 2026-12-16"): that is still to do."""
    document = MemoryDocument.parse(
        "# MEMORY.md\n\n## Action items\n"
        "- [Cobalt] write the go/no-go memo by 2026-11-13 (2026-11-02)\n"
        "- [Cobalt] keep the raw bucket 30 days, then delete it (on or after 2026-12-16) (2026-11-13)\n"
    )
    today = date(2026, 11, 25)
    archived = archived_by(
        document,
        today,
        lambda e: remove_stale(e, {}, {"Cobalt"}, {}, today, today - timedelta(days=90), budget=5).edits,
    )
    assert [r.entry for r in archived] == ["- [Cobalt] write the go/no-go memo by 2026-11-13 (2026-11-02)"]
    assert "delete it (on or after 2026-12-16)" in document.render()


def test_a_repeat_or_a_mention_of_the_person_references_an_entry() -> None:
    day = date(2026, 11, 20)
    views = [view for _, view in DocumentEditor(MemoryDocument.parse(PEOPLE), day).views()]
    used = OfflineCurator().referenced(
        views,
        [note_item("For the record, Raj GitHub: @raj_", day)],
        [note_item("Nadia: send Yuki the Meridian load numbers by Friday", day)],
        ["Meridian"],
    )
    text = {view.ref: view.text for view in views}
    assert [(text[ref], used_on) for ref, used_on in used] == [
        ("Raj GitHub: @raj_", day),
        ("Nadia is in America/Sao_Paulo, keep that in mind for calls", day),
    ]


def _nadia_and_wei(tmp_path: Path) -> Path:
    """Two People entries from September, and a November note that names Nadia."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## People\n- Nadia is in America/Sao_Paulo, keep that in mind for calls (2026-09-25)\n"
        "- Wei prefers a written doc first over meetings (2026-09-25)\n"
    )
    (tmp_path / "memory" / "2026-11-19.md").write_text(
        "- Decided: Nadia owns the Meridian export work from now on\n"
    )
    return tmp_path


def test_a_person_named_in_later_notes_is_not_stale(tmp_path: Path) -> None:
    _nadia_and_wei(tmp_path)
    run_offline(tmp_path, today=date(2026, 11, 20))
    memory = (tmp_path / "MEMORY.md").read_text()
    assert "Nadia is in America/Sao_Paulo" in memory
    assert "Wei prefers" not in memory
    assert "Wei prefers" in (tmp_path / "memory" / "archive.md").read_text()


class _UsesWei(OfflineCurator):
    """A curator that says every note uses the People entry about Wei, and nothing else."""

    def referenced(
        self,
        entries: Sequence[EntryView],
        repeats: Sequence[NoteItem],
        kept: Sequence[NoteItem],
        projects: Sequence[str],
    ) -> list[tuple[str, date]]:
        return [(view.ref, item.day) for view in entries if view.text.startswith("Wei") for item in kept]


def test_which_entries_notes_still_use_is_the_engines_decision(tmp_path: Path) -> None:
    _nadia_and_wei(tmp_path)
    engine = replace(offline_engine(), curator=_UsesWei())
    run_cycle(Workspace.open(tmp_path), Config(), engine, RunOptions(today=date(2026, 11, 20)))
    memory = (tmp_path / "MEMORY.md").read_text()
    assert "Wei prefers" in memory
    assert "Nadia is in America/Sao_Paulo" not in memory


def _days(first: date, count: int) -> list[date]:
    return [first + timedelta(days=n) for n in range(count)]


def test_the_stale_horizon_counts_every_day_an_agent_writes_notes() -> None:
    today = date(2026, 11, 20)
    daily = _days(date(2026, 9, 1), 80)  # to 11-19, a note a day
    assert stale_horizon(daily, today, 30) == date(2026, 10, 21)
    weekdays = [day for day in daily if day.weekday() < 5]  # weekends are no pause
    assert stale_horizon(weekdays, today, 30) == date(2026, 10, 21)
    assert stale_horizon([], today, 30) == date(2026, 10, 21)  # before the first note, days count


def test_the_days_of_a_pause_do_not_age_memory() -> None:
    before = _days(date(2026, 8, 1), 31)  # August, then nothing for 40 days
    back = date(2026, 10, 11)
    assert stale_horizon([*before, back], back + timedelta(days=1), 30) == date(2026, 8, 3)
    # notes of May, run on today's date in December: the horizon is where the notes stopped
    may = _days(date(2026, 5, 1), 20)
    assert stale_horizon(may, date(2026, 12, 2), 30) == date(2026, 4, 21)


def test_a_first_run_on_months_old_notes_keeps_what_they_say(tmp_path: Path) -> None:
    """Notes of May, run in December: what they say is in MEMORY.md, not all in the archive."""
    (tmp_path / "memory").mkdir()
    for day in _days(date(2026, 5, 1), 20):
        (tmp_path / "memory" / f"{day}.md").write_text(
            f"# {day}\n\n- Decision: the billing export runs on worker-{day.day} from now on\n"
        )
    run_offline(tmp_path, today=date(2026, 12, 2))
    memory = (tmp_path / "MEMORY.md").read_text()
    archive = tmp_path / "memory" / "archive.md"
    assert "worker-20" in memory
    assert "worker-20" not in (archive.read_text() if archive.exists() else "")


def test_a_german_absence_is_filed_under_people_and_archived_once_over(tmp_path: Path) -> None:
    """ "vom ... bis ... im Urlaub": before, "bis" read as a deadline filed it as an action, due on the
    last day of the leave and OVERDUE after it."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(
        PEOPLE.replace("- heads-up: Raj on leave 2026-11-20, 4 days, ping Lena instead (2026-11-02)\n", "")
    )
    notice = "Ben ist vom 2026-12-01 bis 2026-12-05 im Urlaub"
    (tmp_path / "memory" / "2026-11-20.md").write_text(f"- {notice}.\n")
    run_offline(tmp_path, today=date(2026, 11, 21))
    people = MemoryDocument.parse((tmp_path / "MEMORY.md").read_text()).find_section("People")
    assert people is not None and notice in [entry.text for entry in people.entries()]
    run_offline(tmp_path, today=date(2026, 12, 7))
    assert notice not in (tmp_path / "MEMORY.md").read_text()
    assert (
        "finished: the absence it announces ended 2026-12-05"
        in (tmp_path / "memory" / "archive.md").read_text()
    )
