"""Recall shows a statement once: a MEMORY.md entry, a weekly summary's line or an archive record that
copies a note line among the results folds into that line, so the k results are k different things."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.sidecar.successors import Ranked, fold_copies
from tests.sidecar_helpers import make_workspace, open_at

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

LINE = "Keep the orion-raw bucket for 30 days, then delete it"
MEMORY = f"# MEMORY.md\n\n## Facts\n- {LINE} (2026-11-13)\n"
WEEKLY = f"# Week 46\n\n## Facts\n- fact: {LINE} (2026-11-13)\n"
NOTES = {
    "2026-11-13.md": f"# 2026-11-13\n\n- {LINE}\n",
    "2026-11-16.md": "# 2026-11-16\n\n- the orion-raw bucket is private; ask Pim for access\n",
    "2026-11-17.md": "# 2026-11-17\n\n- delete the orion staging bucket after the demo\n",
}


def test_copies_of_a_note_line_fold_into_it_and_leave_room_for_other_lines(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, NOTES, MEMORY)
    (folder / "memory" / "weekly").mkdir()
    (folder / "memory" / "weekly" / "2026-W46.md").write_text(WEEKLY, encoding="utf-8")
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("how long do we keep the orion-raw bucket before we delete it", k=3)
    assert [hit.source for hit in hits if LINE in hit.text] == ["memory/2026-11-13.md"]
    assert hits[0].source == "memory/2026-11-13.md"
    assert {hit.source for hit in hits[1:]} == {"memory/2026-11-16.md", "memory/2026-11-17.md"}


def test_a_copy_of_no_note_line_among_the_results_is_kept_once(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {k: v for k, v in NOTES.items() if k != "2026-11-13.md"}, MEMORY)
    (folder / "memory" / "weekly").mkdir()
    (folder / "memory" / "weekly" / "2026-W46.md").write_text(WEEKLY, encoding="utf-8")
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("how long do we keep the orion-raw bucket before we delete it", k=3)
    assert len([hit for hit in hits if LINE in hit.text]) == 1


def _ranked(row_id: int, kind: str, path: str, score: float, status: str | None = None) -> Ranked:
    row = EntryRow(
        id=row_id, source_key=path, source_path=path, kind=kind, line_start=3, line_end=3, context="",
        text=f"- {LINE}", content_hash=str(row_id), day="2026-11-13", scope="default", importance=0.5,
        created_at=0.0, updated_at=0.0, last_accessed_at=None, access_count=0, expires_at=None,
        deleted_at=None, deleted_reason=None, deleted_pass=None,
        valid_to="2026-11-20" if status else None, status=status,
    )  # fmt: skip
    return Ranked(score=score, decay=1.0, row=row, relevance=score)


def test_a_copy_that_ended_otherwise_than_its_note_line_stays_a_result_with_its_status() -> None:
    note = _ranked(1, "note", "memory/2026-11-13.md", 0.5)
    same = _ranked(2, "memory", "MEMORY.md", 0.9)
    ended = _ranked(3, "archive", "memory/archive.md", 0.8, status="superseded")
    folded = fold_copies([note, same, ended])
    assert [(item.row.id, item.row.status) for item in folded] == [(1, None), (3, "superseded")]
    assert folded[0].score == 0.9  # the note line took its same-status copy's score


def _row(row_id: int, kind: str, path: str, text: str, score: float, day: str = "2026-03-27") -> Ranked:
    row = EntryRow(
        id=row_id, source_key=path, source_path=path, kind=kind, line_start=row_id, line_end=row_id,
        context="", text=text, content_hash=str(row_id), day=day, scope="default", importance=0.5,
        created_at=0.0, updated_at=0.0, last_accessed_at=None, access_count=0, expires_at=None,
        deleted_at=None, deleted_reason=None, deleted_pass=None,
    )  # fmt: skip
    return Ranked(score=score, decay=1.0, row=row, relevance=score)


ITEM = (
    "- Rollout order:\n  1. canary on the orion-edge pool\n  2. half the fleet after a day\n"
    "  3. the rest after the error budget holds"
)


def test_copies_that_join_an_items_lines_and_cut_it_short_fold_into_it_and_say_where_they_are() -> None:
    note = _row(1, "note", "memory/2026-03-27.md", ITEM, 0.5)
    weekly = _row(
        2, "weekly", "memory/weekly/2026-W13.md", "- fact: Rollout order:; canary on the orion-edge pool; "
        "half the fleet after a d… (2026-03-27)", 0.8,
    )  # fmt: skip
    archive = _row(
        3, "archive", "memory/archive.md", "Rollout order:; canary on the orion-edge pool; half", 0.7
    )
    other = _row(4, "note", "memory/2026-03-28.md", "- the orion-edge pool has 12 nodes", 0.6, "2026-03-28")
    folded = fold_copies([note, weekly, archive, other])
    assert [item.row.id for item in folded] == [1, 4]
    assert folded[0].score == 0.8 and [row.id for row in folded[0].also] == [2, 3]


def test_cut_copies_of_no_note_line_among_the_results_fold_into_the_best_ranked() -> None:
    weekly = _row(
        2,
        "weekly",
        "memory/weekly/2026-W13.md",
        "- fact: Rollout order:; canary on the orion-… (2026-03-27)",
        0.8,
    )
    archive = _row(
        3, "archive", "memory/archive.md", "Rollout order:; canary on the orion-edge pool; half the…", 0.7
    )
    folded = fold_copies([archive, weekly])
    assert [(item.row.id, [row.id for row in item.also]) for item in folded] == [(2, [3])]


def test_a_short_line_is_no_copy_of_a_longer_one_that_holds_its_words() -> None:
    note = _row(1, "note", "memory/2026-03-27.md", "- deploy the orion api today, not the web app", 0.5)
    short = _row(2, "memory", "MEMORY.md", "- deploy orion", 0.9)
    assert [item.row.id for item in fold_copies([note, short])] == [2, 1]


def test_a_copy_folded_into_a_newer_line_is_not_shown_again_as_a_result_of_its_own(tmp_path: Path) -> None:
    """The MEMORY.md entry of a change folded into the change's note line ("also in MEMORY.md:7"); the
    lookup of what restates the older line found that entry again and showed it a second time, last,
    at score 0 (a new user's trial)."""
    notes = {
        "2026-11-02.md": "# 2026-11-02\n\n- Decided: backend on Postgres 16 with Django, on port 8080.\n",
        "2026-11-03.md": "# 2026-11-03\n\n- Port is now 9090 (was 8080).\n",
    }
    memory = (
        "# MEMORY.md\n\n## Decisions\n- Decided: backend on Postgres 16 with Django, on port 8080 (2026-11-02)\n\n"
        "## Facts\n- Port is now 9090 (was 8080) (2026-11-03)\n"
    )
    folder = make_workspace(tmp_path, notes, memory)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("port", k=5)
    shown = [(hit.entry.source_path, hit.entry.line_start) for hit in hits]
    folded = [(row.source_path, row.line_start) for hit in hits for row in hit.also]
    assert shown[0] == ("memory/2026-11-03.md", 3) and ("MEMORY.md", 7) in folded
    assert ("MEMORY.md", 7) not in shown, shown
