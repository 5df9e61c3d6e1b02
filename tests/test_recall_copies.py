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
