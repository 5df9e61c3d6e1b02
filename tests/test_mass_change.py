"""A run in which one note would rewrite an implausible share of MEMORY.md is refused, recorded, and can be
accepted: one 1.9 MB note of many similar lines once made 34,960 supersedes in a single run."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.cycle.guards import FEWEST_REWRITES, RewriteCount, check_rewrites
from memory_sleep.cycle.plan import Edit
from memory_sleep.errors import GuardError

from .conftest import snapshot_tree

DAY = "2026-11-24"
NOTE = f"memory/{DAY}.md"


def similar_lines_note(template: str, values: Iterable[object]) -> str:
    """A daily note of one line per value: the same sentence again and again, one value changing, as
    an agent logging a setting line by line writes it."""
    return f"# {DAY}\n\n" + "".join(f"- {template.format(value)}\n" for value in values)


def _workspace(tmp_path: Path, note: str) -> Path:
    (tmp_path / "memory").mkdir()
    (tmp_path / NOTE).write_text(note, encoding="utf-8")
    (tmp_path / "memory-sleep.toml").write_text("[sidecar]\nenabled = false\n", encoding="utf-8")
    return tmp_path


def _run(folder: Path, *flags: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["run", str(folder), "--engine", "offline", "--today", DAY, *flags])
    return result.exit_code, result.output


def test_a_note_of_many_similar_lines_is_refused_recorded_and_kept(tmp_path: Path) -> None:
    lines = 3 * FEWEST_REWRITES
    folder = _workspace(tmp_path, similar_lines_note("Decided: the retry limit is {} attempts", range(lines)))
    before = snapshot_tree(folder)
    code, output = _run(folder)
    assert code == 1, output
    assert f"{NOTE} would rewrite or archive MEMORY.md's entries {lines - 1} times in one run" in output
    assert f"({lines - 1} supersede)" in output
    assert "--accept-mass-change" in output and "max_rewrite_share" in output
    after = snapshot_tree(folder)
    log = json.loads(after.pop("memory/sleep-log.json"))
    assert after == before  # the note stays, nothing else was written
    assert log["status"] == "refused" and f"Refused: {NOTE} would rewrite" in log["error"]
    code, output = _run(folder, "--accept-mass-change")
    assert code == 0, output
    memory = (folder / "MEMORY.md").read_text(encoding="utf-8")
    assert f"retry limit is {lines - 1} attempts" in memory and memory.count("\n- ") == 1


def test_a_long_note_of_similar_lines_is_refused_as_soon_as_the_refusal_is_sure(tmp_path: Path) -> None:
    """REM stops once the note has changed more entries than the run could allow were every item left
    added: the offline engine places 200 items a batch, so 600 lines stop after the first 200 (a 1.5 MB
    note of 33,676 such lines took minutes and 6 GB to be refused when REM placed them all)."""
    folder = _workspace(tmp_path, similar_lines_note("Decided: the retry limit is {} attempts", range(600)))
    before = snapshot_tree(folder)
    code, output = _run(folder)
    assert code == 1, output
    assert (
        f"Refused: {NOTE} would rewrite or archive MEMORY.md's entries 199 times or more in one run (199 "
        "supersede by the first 200 of the run's 600 kept items; REM stopped there), for at most 401 entries"
    ) in " ".join(output.split())
    assert "--accept-mass-change" in output and "move such a note out of memory/" in output
    after = snapshot_tree(folder)
    assert json.loads(after.pop("memory/sleep-log.json"))["status"] == "refused"
    assert after == before
    code, output = _run(folder, "--accept-mass-change")
    assert code == 0, output
    assert "retry limit is 599 attempts" in (folder / "MEMORY.md").read_text(encoding="utf-8")


def test_a_dry_run_with_the_flag_shows_the_plan_and_writes_nothing(tmp_path: Path) -> None:
    folder = _workspace(tmp_path, similar_lines_note("Decided: the retry limit is {} attempts", range(60)))
    before = snapshot_tree(folder, skip_state=False)
    code, output = _run(folder, "--dry-run", "--accept-mass-change")
    assert code == 0, output
    assert output.count("\n  supersede ") == 59
    assert snapshot_tree(folder, skip_state=False) == before


def _edits(op: str, count: int, note: str = NOTE) -> list[Edit]:
    return [Edit(op=op, entry="E:x", item=f"i{n}", text="x", evidence=f"{note}:{n}") for n in range(count)]  # type: ignore[arg-type]


def test_a_share_of_what_memory_holds_is_allowed_and_at_least_the_floor() -> None:
    check_rewrites(_edits("supersede", FEWEST_REWRITES), 0, 0.25)
    check_rewrites([*_edits("update", 100), *_edits("archive", 100)], 800, 0.25)
    check_rewrites(_edits("add", 400) + _edits("supersede", 100), 0, 0.25)  # the run's own entries count
    with pytest.raises(
        GuardError, match=r"2026-11-24.md would .* 201 times in one run \(101 update, 100 archive\)"
    ):
        check_rewrites([*_edits("update", 101), *_edits("archive", 100)], 800, 0.25)


def test_a_first_run_over_many_notes_changing_a_few_each_is_not_held_back() -> None:
    """A first run over a year of notes (bench_run's 365 days: 2,550 changes of 6,829 entries, at most
    27 by one note) is what a long history does, not one note changing a fact again and again."""
    year = [edit for day in range(365) for edit in _edits("supersede", 7, f"memory/day-{day}.md")]
    check_rewrites(year, 100, 0.25)
    with pytest.raises(GuardError, match=r"memory/day-0.md would"):
        check_rewrites([*year, *_edits("archive", 200, "memory/day-0.md")], 100, 0.25)


def test_refused_early_exactly_when_every_way_the_run_could_end_is_refused() -> None:
    """RewriteCount.check(to_place) refuses when the plan is refused however the `to_place` items left
    end (each adds at most one entry, and the note's changes only grow), so even if each is added (the
    most the run could allow), and only then."""
    for before in (0, 100, 800):
        for changes in range(40, 300, 29):
            for to_place in (0, 10, 200, 600):
                count = RewriteCount(before, 0.25)
                count.add([*_edits("add", 30, "memory/other.md"), *_edits("supersede", changes)])
                most_lenient = [
                    *_edits("add", 30 + to_place, "memory/other.md"),
                    *_edits("supersede", changes),
                ]
                try:
                    count.check(to_place, 1)
                except GuardError:
                    with pytest.raises(GuardError):
                        check_rewrites(most_lenient, before, 0.25)
                else:
                    check_rewrites(most_lenient, before, 0.25)


def test_edits_no_note_item_caused_are_not_counted() -> None:
    trimmed = [Edit(op="archive", entry="E:x", text="x", reason="for room") for _ in range(500)]
    check_rewrites(trimmed, 10, 0.25)
