"""GC judgements left for review: listed numbered, dismissed by a person, never raised again, undoable."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.gc.actions import GcAction
from memory_sleep.gc.review import REVIEW_FILE, open_reviews, with_reviews

PAIRS = [(12, 40, "Deploy window: Friday"), (13, 41, "Owner: Mei"), (14, 42, "Region: eu-west-1")]


def _review(older: int, newer: int, text: str) -> GcAction:
    return GcAction(strategy="contradiction", op="review", ids=[older], into=newer, reason=f"unsure: {text}")


def _listed(folder: Path) -> Path:
    reviews = with_reviews([], [_review(*pair) for pair in PAIRS], {}, date(2026, 11, 30))
    path = folder / "memory" / ".sleep" / REVIEW_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(reviews), encoding="utf-8")
    return path


def test_a_person_dismisses_a_judgement_and_undo_takes_it_back(fixture_workspace: Path) -> None:
    path = _listed(fixture_workspace)
    runner = CliRunner()
    listed = runner.invoke(main, ["review", str(fixture_workspace)])
    assert listed.exit_code == 0, listed.output
    assert [line[:3] for line in listed.output.splitlines()[:3]] == ["1. ", "2. ", "3. "]
    assert "unsure: Owner: Mei" in listed.output.splitlines()[1]

    done = runner.invoke(main, ["review", str(fixture_workspace), "--dismiss", "2", "--today", "2026-12-01"])
    assert done.exit_code == 0, done.output
    assert "Dismissed 1 of 3; 2 left for review." in done.output
    kept = json.loads(path.read_text(encoding="utf-8"))
    assert len(kept) == 3  # nothing is lost: the dismissed judgement stays, marked
    assert [r.get("dismissed") for r in kept] == [None, "2026-12-01", None]
    status = json.loads(runner.invoke(main, ["status", str(fixture_workspace), "--json"]).output)
    assert len(status["gc_reviews"]) == 2 and not any("Owner: Mei" in line for line in status["gc_reviews"])

    wrong = runner.invoke(main, ["review", str(fixture_workspace), "--dismiss", "7"])
    assert wrong.exit_code == 2 and "no judgement 7: 2 wait for review" in wrong.output, wrong.output

    undone = runner.invoke(main, ["undo", str(fixture_workspace)])
    assert undone.exit_code == 0, undone.output
    assert "Undid `memory-sleep review`" in undone.output
    assert len(open_reviews(json.loads(path.read_text(encoding="utf-8")))) == 3

    every = runner.invoke(main, ["review", str(fixture_workspace), "--dismiss", "all"])
    assert "Dismissed 3 of 3; 0 left for review." in every.output
    assert (
        runner.invoke(main, ["review", str(fixture_workspace)]).output == "No judgement waits for review.\n"
    )


def test_a_dismissed_pair_is_not_raised_again_and_stays_remembered() -> None:
    known = with_reviews([], [_review(*PAIRS[0])], {}, date(2026, 11, 30))
    known[0]["dismissed"] = "2026-12-01"
    again = with_reviews(known, [_review(*PAIRS[0]), _review(*PAIRS[1])], {}, date(2026, 12, 2))
    assert [r["reason"] for r in open_reviews(again)] == ["unsure: Owner: Mei"]
    assert [r["reason"] for r in again if r.get("dismissed")] == ["unsure: Deploy window: Friday"]
