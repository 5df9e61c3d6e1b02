"""Recall answers with what is true now: validity through supersede, close, finish, expire, restore, undo."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from memory_sleep.cycle import weekly
from memory_sleep.cycle.plan import DocumentEditor
from memory_sleep.sidecar.display import hit_lines
from memory_sleep.sidecar.search import ENDED_WEIGHT, Hit
from memory_sleep.sidecar.successors import Lookup, Ranked, with_successors
from memory_sleep.sidecar.validity import CANDIDATES
from memory_sleep.workspace.archive import ArchiveRecord, Ending, append_records, records_since
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import Entry, MemoryDocument
from memory_sleep.workspace.writer import SafeWriter
from tests.conftest import run_offline
from tests.sidecar_helpers import make_workspace, open_at
from tests.sleepgate_helpers import EMBEDDER, NOW, entry, open_store, unit

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

FIRST = {
    "2026-11-10.md": "# 2026-11-10\n\n## Decisions\n"
    "- Decided: Orion uses MySQL for the main database, since the team knows it\n\n"
    "## Todo\n- TODO: renew the Orion TLS cert by 2026-11-20\n",
    "2026-11-12.md": "---\nexpires: 2026-11-20\n---\n# 2026-11-12\n\n- Orion staging server IP is 10.0.0.5\n"
    "- Orion demo booth code is 4411 for the conference\n",
}
LATER = (
    "# 2026-11-14\n\n"
    "- Reversed: Orion switches from MySQL to Postgres for the main database, because of JSON support\n"
    "- done: renewed the Orion TLS cert\n"
    "- Orion staging server IP changed to 10.0.0.9 (was 10.0.0.5)\n"
)


def _two_nights(tmp_path: Path) -> Path:
    folder = make_workspace(tmp_path, FIRST)
    run_offline(folder, today=date(2026, 11, 13))
    (folder / "memory" / "2026-11-14.md").write_text(LATER, encoding="utf-8")
    run_offline(folder, today=date(2026, 11, 15))
    return folder


def _hit(hits: list[Hit], source: str, words: str) -> Hit:
    return next(hit for hit in hits if hit.source == source and words in hit.text)


def _archived(tmp_path: Path, notes: dict[str, str], entry: str, reason: str, ending: Ending) -> Path:
    """A workspace of `notes` whose archive.md records that `entry` ended."""
    folder = make_workspace(tmp_path, notes)
    record = ArchiveRecord(ending.day, "Facts", entry, reason, ending)
    (folder / "memory" / "archive.md").write_text(append_records(None, [record]), encoding="utf-8")
    return folder


def test_a_superseded_decision_and_a_closed_action_are_marked_on_their_note_lines(tmp_path: Path) -> None:
    folder = _two_nights(tmp_path)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("which database does Orion use, MySQL or Postgres?", k=20)
        todo = sidecar.search("renew the Orion TLS cert", k=20)
        archived = [row for row in sidecar.store.entries_of_source("archive.md") if "MySQL" in row.text]
    old = _hit(hits, "memory/2026-11-10.md", "MySQL for the main database")
    assert (old.status, old.entry.valid_to, old.entry.ended_by) == (
        "superseded",
        "2026-11-14",
        "memory/2026-11-14.md:3",
    )
    assert old.as_dict()["status"] == "superseded" and old.as_dict()["valid_from"] == "2026-11-10"
    assert "(superseded 2026-11-14 by memory/2026-11-14.md:3)" in "\n".join(hit_lines([old]))
    assert archived and all(row.status == "superseded" for row in archived)
    assert not [hit for hit in hits if hit.source == "memory/archive.md" and "MySQL" in hit.text]  # folded
    new = _hit(hits, "memory/2026-11-14.md", "Postgres")
    assert new.status is None and new.as_dict()["status"] == "valid"
    first_about_it = next(hit for hit in hits if "MySQL" in hit.text)
    assert "Postgres" in first_about_it.text  # the current value ranks above the old one
    shown_old = [hit for hit in hits if "MySQL" in hit.text and "Postgres" not in hit.text]
    assert shown_old and all(hit.status == "superseded" for hit in shown_old)
    action = _hit(todo, "memory/2026-11-10.md", "TODO: renew")
    assert action.status_line() == "done 2026-11-14 by memory/2026-11-14.md:4"


def test_as_of_answers_as_memory_stood_then_and_an_expired_note_returns_only_before_it_expired(
    tmp_path: Path,
) -> None:
    folder = _two_nights(tmp_path)
    with open_at(folder) as sidecar:
        sidecar.index()
        then = sidecar.search("which database does Orion use?", k=20, as_of=date(2026, 11, 12))
        booth_then = sidecar.search("Orion demo booth code", k=20, as_of=date(2026, 11, 18))
        booth_now = sidecar.search("Orion demo booth code", k=20)
    assert not [hit for hit in then if "Postgres" in hit.text]  # not written yet
    assert _hit(then, "memory/2026-11-10.md", "MySQL").status is None  # still true on 11-12
    assert _hit(booth_then, "memory/2026-11-12.md", "4411").status is None
    assert not [hit for hit in booth_now if hit.source == "memory/2026-11-12.md"]  # expired 11-20


def test_undo_restores_validity_and_a_forgetting_restore_keeps_it(tmp_path: Path) -> None:
    folder = _two_nights(tmp_path)
    with open_at(folder) as sidecar:
        sidecar.index()
        old = _hit(sidecar.search("Orion MySQL main database", k=20), "memory/2026-11-10.md", "MySQL")
        with sidecar.store.transaction():
            sidecar.store.soft_delete([old.id], "forgotten", 0.0, pass_id="p1")
            sidecar.store.restore([old.id])
        assert sidecar.store.fetch([old.id])[old.id].status == "superseded"
    space = Workspace.open(folder)
    SafeWriter(space.root, space.state_dir / "snapshots").undo()
    with open_at(folder) as sidecar:
        sidecar.index()
        row = sidecar.store.fetch([old.id])[old.id]
    assert (row.status, row.valid_to, row.ended_by) == (None, None, None)


def test_finished_business_and_done_actions_are_recorded_as_endings_that_read_back() -> None:
    document = MemoryDocument.parse(
        "# MEMORY.md\n\n## Facts\n- [Cobalt] cluster is 3 nodes (2026-11-02)\n\n"
        "## Action items\n- send Dana the xlsx (2026-11-03)\n"
    )
    editor = DocumentEditor(document, date(2026, 11, 20))
    (_, _, fact), (_, _, action) = editor.entries()
    applied = editor.apply(
        [
            editor.archive(fact, "project Cobalt finished", ends="finished"),
            editor.archive(action, "done (memory/2026-11-12.md:7)", "memory/2026-11-12.md:7", ends="done"),
        ]
    )
    assert [record.ended for record in applied.archived] == [
        Ending("finished", date(2026, 11, 20)),
        Ending("done", date(2026, 11, 20), "memory/2026-11-12.md:7"),
    ]
    text = append_records(None, applied.archived)
    assert "; done (memory/2026-11-12.md:7) [done 2026-11-20 by memory/2026-11-12.md:7]\n" in text
    read = list(records_since(text, date(2026, 1, 1)))
    assert [(r.reason, r.ended) for r in read] == [(r.reason, r.ended) for r in applied.archived]
    room = ArchiveRecord(date(2026, 11, 20), "Facts", "a fact (2026-11-01)", "stale: no reference since x")
    assert next(records_since(append_records(None, [room]), date(2026, 1, 1))).ended is None


def test_items_the_run_discarded_as_noise_are_left_out_unless_asked_for(tmp_path: Path) -> None:
    note = "# 2026-11-20\n\n" + "".join(f"- [heartbeat] orion poll {n} ok\n" for n in range(6))
    folder = make_workspace(tmp_path, {"2026-11-20.md": note + "- Orion poll interval is 30 s\n"})
    run_offline(folder, today=date(2026, 11, 21))
    with open_at(folder) as sidecar:
        sidecar.index()
        default = sidecar.search("orion poll", k=10)
        everything = sidecar.search("orion poll", k=10, include_discarded=True)
    assert not [hit for hit in default if "heartbeat" in hit.text]
    assert [hit for hit in everything if "heartbeat" in hit.text]


def test_a_weekly_line_carries_its_own_date_and_ending(tmp_path: Path) -> None:
    weekly = tmp_path / "memory" / "weekly"
    weekly.mkdir(parents=True)
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
    (weekly / "2026-W46.md").write_text(
        "# Week 2026-W46 (2026-11-09 to 2026-11-15)\n\n## Orion\n"
        "- decision: Orion uses MySQL (2026-11-10) [superseded 2026-11-14 by memory/2026-11-14.md:3]\n"
        "- fact: Orion demo booth code is 4411 (2026-11-12)\n",
        encoding="utf-8",
    )
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        hits = sidecar.search("Orion", k=5)
    assert sorted(hit.day or "" for hit in hits) == ["2026-11-10", "2026-11-12"]  # not the week's Monday


def test_asked_in_the_old_words_the_line_that_superseded_it_ranks_first(tmp_path: Path) -> None:
    folder = _two_nights(tmp_path)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Decided: Orion uses MySQL for the main database, since the team knows it", k=5)
    about_it = [hit for hit in hits if "MySQL" in hit.text]
    assert about_it[0].source == "memory/2026-11-14.md" and "Postgres" in about_it[0].text
    assert all(hit.status == "superseded" for hit in about_it if "Postgres" not in hit.text)


@pytest.mark.parametrize("status", ["finished", "expired"])
def test_an_entry_finished_or_expired_in_the_archive_ends_its_note_line(tmp_path: Path, status: str) -> None:
    note = "# 2026-11-10\n\n- Orion pilot runs on the shared staging cluster until the launch\n"
    folder = make_workspace(tmp_path, {"2026-11-10.md": note})
    record = ArchiveRecord(
        date(2026, 11, 20),
        "Facts",
        "- [Orion] Orion pilot runs on the shared staging cluster until the launch (2026-11-10)",
        f"project Orion {status}",
        Ending(status, date(2026, 11, 20)),  # type: ignore[arg-type]
    )
    (folder / "memory" / "archive.md").write_text(append_records(None, [record]), encoding="utf-8")
    with open_at(folder) as sidecar:
        sidecar.index()
        line = _hit(sidecar.search("Orion pilot staging cluster", k=5), "memory/2026-11-10.md", "pilot")
        before = _hit(
            sidecar.search("Orion pilot staging cluster", k=5, as_of=date(2026, 11, 19)),
            "memory/2026-11-10.md",
            "pilot",
        )
    assert (line.status, line.status_line()) == (status, f"{status} 2026-11-20")
    assert before.status is None


def test_a_newer_line_that_restates_an_old_one_with_another_value_ranks_first_and_marks_it_older(
    tmp_path: Path,
) -> None:
    notes = {
        "2026-11-10.md": "# 2026-11-10\n\n- [13:03] Orion api instance type: t3.medium\n",
        "2026-11-14.md": "# 2026-11-14\n\n- Orion api instance type: c7g.xlarge\n",
        "2026-11-16.md": "# 2026-11-16\n\n- Vega billing instance type: t3.large\n",
    }
    folder = make_workspace(tmp_path, notes)  # indexed only: no run, so nothing is superseded
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("[13:03] Orion api instance type", k=5)
        then = sidecar.search("[13:03] Orion api instance type", k=5, as_of=date(2026, 11, 12))
    old = _hit(hits, "memory/2026-11-10.md", "t3.medium")
    assert hits[0].source == "memory/2026-11-14.md"
    assert (old.status, old.status_line()) == ("older", "older, see memory/2026-11-14.md:3 (2026-11-14)")
    assert old.as_dict()["status"] == "older" and old.as_dict()["newer"] == "memory/2026-11-14.md:3"
    assert "(older, see memory/2026-11-14.md:3 (2026-11-14))" in "\n".join(hit_lines([old]))
    assert _hit(hits, "memory/2026-11-16.md", "Vega").status is None  # another thing: no link
    assert _hit(then, "memory/2026-11-10.md", "t3.medium").status is None  # the newer was not written yet


def test_the_line_that_superseded_an_entry_ranks_first_with_its_own_status_once_its_project_finished(
    tmp_path: Path,
) -> None:
    folder = _two_nights(tmp_path)
    memory = (folder / "MEMORY.md").read_text(encoding="utf-8")
    entry = next(line for line in memory.splitlines() if "Postgres" in line)
    record = ArchiveRecord(
        date(2026, 11, 20),
        "Decisions",
        entry,
        "project Orion finished",
        Ending("finished", date(2026, 11, 20)),
    )
    archive = folder / "memory" / "archive.md"
    archive.write_text(append_records(archive.read_text(encoding="utf-8"), [record]), encoding="utf-8")
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Decided: Orion uses MySQL for the main database, since the team knows it", k=5)
    first = next(hit for hit in hits if "MySQL" in hit.text)
    assert (first.source, first.status) == ("memory/2026-11-14.md", "finished")


def test_an_older_key_value_line_whose_old_value_a_newer_line_names_is_marked_older(tmp_path: Path) -> None:
    notes = {
        "2026-11-10.md": "# 2026-11-10\n\n- Reminder of today's call: Orion sync: Wednesdays at 10:50, Signal\n",
        "2026-11-16.md": "# 2026-11-16\n\n- Orion sync moved to Wednesdays at 18:30 (was Wednesdays at 10:50)\n",
        "2026-11-17.md": "# 2026-11-17\n\n- Vega sync: Wednesdays at 10:50\n",
    }
    folder = make_workspace(tmp_path, notes)  # indexed only: an `add` beside the old line, no supersede
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Reminder of today's call: Orion sync", k=5)
    old = _hit(hits, "memory/2026-11-10.md", "10:50")
    assert old.status_line() == "older, see memory/2026-11-16.md:3 (2026-11-16)"
    about_it = [hit for hit in hits if "Orion" in hit.text]
    assert about_it[0].source == "memory/2026-11-16.md"
    assert _hit(hits, "memory/2026-11-17.md", "Vega").status is None  # another key: no link


def test_a_newer_value_whose_project_finished_still_marks_the_older_and_ranks_above_it(
    tmp_path: Path,
) -> None:
    notes = {
        "2026-11-10.md": "# 2026-11-10\n\n- Umbrella quote (Orion, Jul): $7,950\n",
        "2026-11-13.md": "# 2026-11-13\n\n- Revised Umbrella quote for Orion (Jul): €3,800, was $7,950\n",
    }
    entry = "- [Orion] Revised Umbrella quote for Orion (Jul): €3,800, was $7,950 (2026-11-13)"
    folder = _archived(
        tmp_path, notes, entry, "project Orion finished", Ending("finished", date(2026, 11, 20))
    )
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Umbrella quote (Orion, Jul)", k=5)
    newer = _hit(hits, "memory/2026-11-13.md", "€3,800")
    old = _hit(hits, "memory/2026-11-10.md", "$7,950")
    assert newer.status == "finished" and old.status == "older"
    assert hits.index(newer) < hits.index(old)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("- Orion weekly sync: Mondays at 21:10 on Zoom", "- Orion weekly sync: Thursdays at 14:20 on Meet"),
        (
            "1. **Primary model**: `kimi-k2.5` (direct API, 256K context)",
            "1. **Primary Model Switched**\n   - FROM: `kimi-k2.5`\n   - TO: `deepseek-v3.1`",
        ),
    ],
)
def test_a_newer_line_with_the_same_key_or_naming_the_old_value_marks_the_older(
    tmp_path: Path, old: str, new: str
) -> None:
    notes = {"2026-11-10.md": f"# 2026-11-10\n\n{old}\n", "2026-11-14.md": f"# 2026-11-14\n\n{new}\n"}
    folder = make_workspace(tmp_path, notes)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(old, k=5)
    older = _hit(hits, "memory/2026-11-10.md", "")
    assert older.status_line() == "older, see memory/2026-11-14.md:3 (2026-11-14)"
    assert hits.index(_hit(hits, "memory/2026-11-14.md", "")) < hits.index(older)


@pytest.mark.parametrize(
    ("old", "new", "linked"),
    [
        # four characters in common are three overlapping pairs but about two words: the subject the
        # older names and the newer does not makes the newer about another thing
        ("- 继续完善 agent-role-orchestrator", "- 继续完善Prompt Weaver循环节点开发", False),
        # one word changed inside a run leaves out three pairs, about two words: the same statement
        ("- 网关服务部署在香港节点上", "- 网关服务部署在东京节点上", True),
    ],
)
def test_pairs_of_chinese_characters_count_as_words_by_the_characters_they_cover(
    tmp_path: Path, old: str, new: str, linked: bool
) -> None:
    notes = {"2026-11-10.md": f"# 2026-11-10\n\n{old}\n", "2026-11-14.md": f"# 2026-11-14\n\n{new}\n"}
    folder = make_workspace(tmp_path, notes)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(old[2:], k=5)
    older = _hit(hits, "memory/2026-11-10.md", "")
    assert older.status == ("older" if linked else None)


def test_a_key_is_read_on_one_line_so_two_items_ending_in_the_same_fields_are_not_linked(
    tmp_path: Path,
) -> None:
    old = "- Nimbus is at risk for the 2026-12-04 date\n  next: the pricing page\n  owner: Felix"
    new = "- Meridian v0.12.9 is live in prod\n  next: the pricing page\n  owner: Raj"
    notes = {"2026-11-10.md": f"# 2026-11-10\n\n{old}\n", "2026-11-14.md": f"# 2026-11-14\n\n{new}\n"}
    folder = make_workspace(tmp_path, notes)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Nimbus is at risk for the date", k=5)
    assert _hit(hits, "memory/2026-11-10.md", "Nimbus").status is None
    assert hits[0].source == "memory/2026-11-10.md"


def test_a_line_after_the_supersede_that_says_the_old_value_is_gone_ranks_above_the_successor(
    tmp_path: Path,
) -> None:
    notes = {
        "2026-11-10.md": "# 2026-11-10\n\n- Orion's primary store is Postgres 15\n",
        "2026-11-12.md": "# 2026-11-12\n\n- Orion runs Postgres 16\n",
        "2026-11-14.md": "# 2026-11-14\n\n- [19:33] Orion finished the move from Postgres 15 to SQLite\n",
    }
    ending = Ending("superseded", date(2026, 11, 12), "memory/2026-11-12.md:3")
    entry = "- Orion's primary store is Postgres 15 (2026-11-10)"
    folder = _archived(tmp_path, notes, entry, "superseded by memory/2026-11-12.md:3", ending)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Orion's primary store is", k=5)
    old = _hit(hits, "memory/2026-11-10.md", "Postgres 15")
    assert hits[0].source == "memory/2026-11-14.md"
    assert hits.index(_hit(hits, "memory/2026-11-12.md", "")) < hits.index(old)
    assert old.status_line() == "superseded 2026-11-12 by memory/2026-11-12.md:3"


def test_the_line_that_superseded_an_entry_is_never_ended_by_its_own_supersede(tmp_path: Path) -> None:
    """A change line may repeat every word of what it replaced ("`checkout_v2` (Orion): off", then
    "... `checkout_v2` changed from off to on"), and the supersede is recorded on the next night's run:
    the change line is the new word, not another statement of the old one."""
    notes = {
        "2026-11-10.md": "# 2026-11-10\n\n- `checkout_v2` (Orion): off\n",
        "2026-11-14.md": "# 2026-11-14\n\n- Orion flag `checkout_v2` changed from off to on for 10%\n",
    }
    ending = Ending("superseded", date(2026, 11, 15), "memory/2026-11-14.md:3")
    entry = "- [Orion] `checkout_v2` (Orion): off (2026-11-10)"
    folder = _archived(tmp_path, notes, entry, "superseded by memory/2026-11-14.md:3", ending)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("`checkout_v2` (Orion):", k=5)
    new = _hit(hits, "memory/2026-11-14.md", "changed")
    old = _hit(hits, "memory/2026-11-10.md", "off")
    assert new.status is None and hits.index(new) < hits.index(old)
    assert old.status_line() == "superseded 2026-11-15 by memory/2026-11-14.md:3"


def test_a_line_changing_back_is_no_copy_of_the_change_it_undoes(tmp_path: Path) -> None:
    """ "Orion moved from Python 3.11 to 3.12" holds every word of "Orion moved from Python 3.12 to
    3.11": when GC superseded the first change by the second (an entry not indexed any more), the
    second's note line and its weekly copy are the new word, not copies of the old one."""
    notes = {
        "2026-11-10.md": "# 2026-11-10\n\n- Orion moved from Python 3.12 to 3.11\n",
        "2026-11-14.md": "# 2026-11-14\n\n- Orion moved from Python 3.11 to 3.12\n",
    }
    ending = Ending("superseded", date(2026, 11, 16), "entry 2055: Orion moved from Python 3.11 to 3.12")
    entry = "- [Orion] Orion moved from Python 3.12 to 3.11 (2026-11-10)"
    folder = _archived(tmp_path, notes, entry, "gc:contradiction", ending)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Python for Orion", k=5)
    assert _hit(hits, "memory/2026-11-14.md", "3.11 to 3.12").status is None
    assert _hit(hits, "memory/2026-11-10.md", "3.12 to 3.11").status == "superseded"


def test_a_weekly_line_changing_back_is_not_marked_with_the_ending_of_the_change_it_undoes() -> None:
    old = Entry("Orion moved from Python 3.12 to 3.11", None, date(2026, 11, 10))
    ending = Ending("superseded", date(2026, 11, 16), "entry 2055: Orion moved from Python 3.11 to 3.12")
    endings = weekly._Endings([(old, ending)])
    week = (date(2026, 11, 9), date(2026, 11, 15))
    back = "Orion moved from Python 3.11 to 3.12 (2026-11-14)"
    assert weekly._marked(back, week, endings) == back
    said = "Orion moved from Python 3.12 to 3.11 (2026-11-10)"
    assert weekly._marked(said, week, endings) == f"{said} {ending.render()}"


def test_a_statement_of_words_said_on_hundreds_of_lines_still_ends_the_line_that_states_it(
    tmp_path: Path,
) -> None:
    """Each word of "Pim on leave ... (4 days)" is held by more items than a statement may be matched
    by at once (its days are no terms): it is matched by its rarest word alone, not by none."""
    busy = "".join(f"- Pim on leave standup note {n}, days counted\n" for n in range(2 * CANDIDATES + 1))
    notes = {
        "2026-10-01.md": f"# 2026-10-01\n\n{busy}",
        "2026-10-13.md": "# 2026-10-13\n\n- [15:47] heads-up: Pim on leave 2026-11-11, 4 days, ping Teo instead\n",
    }
    entry = "- Pim on leave 2026-11-11 to 2026-11-14 (4 days) (2026-10-13)"
    ending = Ending("superseded", date(2026, 10, 18), "memory/2026-10-18.md:3")
    folder = _archived(tmp_path, notes, entry, "superseded by memory/2026-10-18.md:3", ending)
    with open_at(folder) as sidecar:
        sidecar.index()
        [line] = sidecar.store.entries_of_source("note:2026-10-13.md")
    assert (line.status, line.valid_to) == ("superseded", "2026-10-18")


def test_a_weekly_line_of_a_short_statement_is_marked_by_what_it_states_not_its_label_or_day() -> None:
    """Two words state "Pim is @pim on GitHub": its weekly line's label and day are no words of it."""
    old = Entry("Pim is @pim on GitHub", None, date(2026, 9, 19))
    ending = Ending("superseded", date(2026, 9, 28), "memory/2026-09-28.md:80")
    endings = weekly._Endings([(old, ending)])
    week = (date(2026, 9, 14), date(2026, 9, 20))
    said = "fact: Pim is @pim on GitHub (2026-09-19)"
    assert weekly._marked(said, week, endings) == f"{said} {ending.render()}"
    other = "fact: Pim reviews on GitHub (2026-09-19)"
    assert weekly._marked(other, week, endings) == other


def test_a_weekly_line_written_before_a_short_entry_was_superseded_is_ended_with_it(tmp_path: Path) -> None:
    notes = {"2026-09-19.md": "# 2026-09-19\n\n- Pim is @pim on GitHub\n"}
    ending = Ending("superseded", date(2026, 9, 28), "memory/2026-09-28.md:80")
    entry = "- Pim is @pim on GitHub (2026-09-19)"
    folder = _archived(tmp_path, notes, entry, "superseded by memory/2026-09-28.md:80", ending)
    summary = folder / "memory" / "weekly" / "2026-W38.md"
    summary.parent.mkdir()
    summary.write_text(
        "# Week 2026-W38 (2026-09-14 to 2026-09-20)\n\n## Notes\n- fact: Pim is @pim on GitHub (2026-09-19)\n",
        encoding="utf-8",
    )
    with open_at(folder) as sidecar:
        sidecar.index()
        [line] = sidecar.store.entries_of_source("weekly:2026-W38.md")
        [note] = sidecar.store.entries_of_source("note:2026-09-19.md")
    assert (line.status, line.valid_to) == (note.status, note.valid_to) == ("superseded", "2026-09-28")


@pytest.mark.parametrize("status", ["done", "superseded"])
def test_what_closed_an_action_ranks_just_above_it_and_only_what_superseded_it_takes_its_relevance(
    status: str,
) -> None:
    """The line that superseded a result says what is true in its place: it ranks where the result's
    relevance would have put it. The line that closed an action ("[x] Ola wrote them") is no better an
    answer than the action, shown done: it ranks just above the action's own score, not above a
    valid line the question matches better."""
    store = open_store()
    texts = [
        "- TODO: write the Orion release notes",
        "- Orion release date: 2026-12-03",
        "- [x] Ola wrote them",
    ]
    names = ["2026-11-10.md", "2026-11-11.md", "2026-11-20.md"]
    with store.transaction():
        ids = store.insert_entries(
            [
                replace(
                    entry(text, name.removesuffix(".md")),
                    source_key=f"note:{name}",
                    source_path=f"memory/{name}",
                )
                for text, name in zip(texts, names, strict=True)
            ],
            np.stack([unit(i) for i in range(3)]),
            EMBEDDER,
            NOW,
        )
        store.set_validity({ids[0]: ("2026-11-20", status, "memory/2026-11-20.md:1")})
    rows = store.fetch(ids)
    action = Ranked(0.9 * ENDED_WEIGHT, 1.0, rows[ids[0]], 0.9)  # asked in the action's words
    answer = Ranked(0.8, 1.0, rows[ids[1]], 0.8)
    lookup = Lookup(
        store, "2026-11-25", lambda row: True, 5, lambda texts: [[] for _ in texts], lambda row: 1.0
    )
    ranked = with_successors(lookup, [action, answer])
    order = [item.row.id for item in ranked]
    expected = [ids[2], ids[1], ids[0]] if status == "superseded" else [ids[1], ids[2], ids[0]]
    assert order == expected
