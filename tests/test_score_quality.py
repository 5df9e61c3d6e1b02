"""The quality scorer: a short end-to-end run, and its metrics on tiny hand-made workspaces."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path
from typing import Any, cast

import pytest

from memory_sleep.workspace.layout import Workspace, discover
from memory_sleep.workspace.notes import read_note
from memory_sleep.workspace.state import ItemRecord, NoteState, dump

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import score_quality  # noqa: E402
from quality import hygiene, retention, verdicts  # noqa: E402
from quality.outputs import Outputs  # noqa: E402
from quality.score import Scorecard  # noqa: E402
from quality.simulate import History  # noqa: E402
from quality.textmatch import current_text  # noqa: E402
from quality.truthdata import GroundTruth, TruthText  # noqa: E402

OLD_NOTE = "# 2026-01-01\n\n- Port for Atlas API is 8080\n"
NEW_NOTE = "# 2026-01-05\n\n- Atlas API moved to port 9090 (was 8080)\n"
OLD_ENTRY = "- [Atlas] Port for Atlas API is 8080 (2026-01-01)\n"
NEW_ENTRY = "- [Atlas] Atlas API moved to port 9090 (was 8080) (2026-01-05)\n"
ARCHIVED = (
    "- - [Atlas] Port for Atlas API is 8080 (2026-01-01) — from Facts; superseded by memory/2026-01-05.md:3\n"
)


def item(file: str, line: int, verdict: str, category: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "file": file,
        "line": line,
        "end_line": extra.pop("end_line", line),
        "verdict": verdict,
        "category": category,
        "topic": "Atlas",
        "text": text,
        "fact_key": extra.pop("fact_key", None),
    }


def tiny_truth(folder: Path) -> GroundTruth:
    """Two notes: a port stated, then changed; the truth that goes with them."""
    (folder / "memory").mkdir(parents=True)
    (folder / "memory" / "2026-01-01.md").write_text(OLD_NOTE, encoding="utf-8")
    (folder / "memory" / "2026-01-05.md").write_text(NEW_NOTE, encoding="utf-8")
    first = {"value": "8080", "date": "2026-01-01", "file": "memory/2026-01-01.md", "line": 3}
    second = {"value": "9090", "date": "2026-01-05", "file": "memory/2026-01-05.md", "line": 3}
    truth = {
        "seed": 0,
        "days": 5,
        "start": "2026-01-01",
        "end": "2026-01-05",
        "note_kb": 1.0,
        "skipped_days": [],
        "files": ["memory/2026-01-01.md", "memory/2026-01-05.md"],
        "memory_md_handwritten": False,
        "projects": [{"name": "Atlas", "finished_on": None, "finish_kind": None}],
        "people": [],
        "items": [
            item(
                "memory/2026-01-01.md", 3, "KEEP", "fact", OLD_NOTE.splitlines()[2], fact_key="atlas.api.port"
            ),
            item(
                "memory/2026-01-05.md", 3, "KEEP", "fact", NEW_NOTE.splitlines()[2], fact_key="atlas.api.port"
            ),
        ],
        "facts": [
            {
                "key": "atlas.api.port",
                "category": "fact",
                "topic": "Atlas",
                "values": [first, second],
                "final": "9090",
            }
        ],
        "decisions": [],
        "actions": [],
        "secrets": [],
        "pasted_briefing": None,
        "repeated": [],
    }
    return cast(GroundTruth, truth)


def outcome(folder: Path, memory: str, archive: str = "", seen: tuple[str, ...] = ()) -> retention.KeyOutcome:
    truth = tiny_truth(folder)
    history = History()
    for night, text in enumerate(seen, start=1):
        history.observe(text, date(2026, 1, night))
    history.observe(memory, date(2026, 1, 6))
    (result,) = retention.contradictions(
        Outputs.from_texts(memory, archive), truth, TruthText(folder, truth), history
    )
    return result


def test_contradiction_resolved(tmp_path: Path) -> None:
    result = outcome(
        tmp_path, "# MEMORY.md\n\n## Facts\n" + NEW_ENTRY, ARCHIVED, seen=("## Facts\n" + OLD_ENTRY,)
    )
    assert result.resolved
    assert result.final_current and not result.stale_current and not result.unarchived


def test_contradiction_with_both_values_current_is_not_resolved(tmp_path: Path) -> None:
    result = outcome(tmp_path, "# MEMORY.md\n\n## Facts\n" + OLD_ENTRY + NEW_ENTRY, ARCHIVED)
    assert not result.resolved
    assert result.stale_current == ["8080"]


def test_older_value_in_previously_is_history_not_current(tmp_path: Path) -> None:
    entry = "- [Atlas] Atlas API moved to port 9090 (was 8080) (previously: Port for Atlas API is 8080) (2026-01-05)\n"
    result = outcome(tmp_path, "## Facts\n" + entry, ARCHIVED, seen=("## Facts\n" + OLD_ENTRY,))
    assert result.resolved


def test_older_value_that_left_memory_unarchived_is_not_resolved(tmp_path: Path) -> None:
    result = outcome(tmp_path, "## Facts\n" + NEW_ENTRY, "", seen=("## Facts\n" + OLD_ENTRY,))
    assert result.final_current and not result.stale_current
    assert result.unarchived == ["8080"]
    assert not result.resolved


def test_only_the_old_value_current_is_not_resolved(tmp_path: Path) -> None:
    result = outcome(tmp_path, "## Facts\n" + OLD_ENTRY)
    assert not result.final_current
    assert result.stale_current == ["8080"]


def test_current_text_drops_nested_previously() -> None:
    text = "Backup: 44 GB (previously: Backup: 91 GB (previously: Backup: 8 GB (x)…)"
    assert current_text(text) == "Backup: 44 GB"
    assert current_text("Port 9090 (previously: 8080) for the API") == "Port 9090 for the API"


def test_fact_retention_finds_final_values_and_kept_items(tmp_path: Path) -> None:
    truth = tiny_truth(tmp_path)
    text = TruthText(tmp_path, truth)
    kept = retention.fact_retention(Outputs.from_texts("## Facts\n" + NEW_ENTRY), truth, text)
    assert (kept.values_found, kept.values_total) == (1, 1)
    lost = retention.fact_retention(Outputs.from_texts("## Facts\n" + OLD_ENTRY), truth, text)
    assert lost.missing_values == [("atlas.api.port", "9090")]
    weekly = retention.fact_retention(
        Outputs.from_texts("# MEMORY.md\n", weekly={"2026-W01.md": "- fact: Atlas API moved to port 9090"}),
        truth,
        text,
    )
    assert weekly.values_found == 1


def test_near_duplicates_counted_per_section() -> None:
    memory = (
        "## Facts\n"
        "- [Atlas] Atlas API listens on port 9090 behind nginx (2026-01-05)\n"
        "- [Atlas] As noted above, Atlas API listens on port 9090 behind nginx (2026-01-06)\n"
        "- [Atlas] Atlas staging database is db-atlas-2.internal (2026-01-05)\n"
        "## Decisions\n"
        "- [Atlas] Atlas uses Kafka for the job queue (2026-01-05)\n"
    )
    result = hygiene.near_duplicate_rate(Outputs.from_texts(memory).entries)
    assert (result.duplicated, result.entries) == (2, 4)
    assert result.rate == 0.5


def test_secrets_searched_everywhere_but_the_original_notes(tmp_path: Path) -> None:
    truth = tiny_truth(tmp_path / "source")
    truth["secrets"] = [
        {"kind": "github_token", "value": "ghp_" + "a1" * 18, "file": "memory/x.md", "line": 1}
    ]
    run = tmp_path / "run"
    (run / "memory" / ".sleep").mkdir(parents=True)
    (run / "memory" / "2026-01-01.md").write_text("token ghp_" + "a1" * 18 + "\n", encoding="utf-8")
    (run / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
    (run / "memory" / ".sleep" / "sidecar.db").write_bytes(b"SQLite\x00ghp_" + b"a1" * 18 + b"\x00")
    assert hygiene.secret_leaks(run, truth) == [("github_token", "memory/.sleep/sidecar.db")]


def _closing_run(tmp_path: Path, archive: str) -> tuple[verdicts.Judged, verdicts.Judged]:
    note = "# 2026-01-01\n\n- Port for Atlas API is 8080\n  - set in nginx.conf\n\n- [x] renew the cert\n"
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-01-01.md").write_text(note, encoding="utf-8")
    (tmp_path / "memory" / "archive.md").write_text(archive, encoding="utf-8")
    workspace = Workspace.open(tmp_path)
    (note_file,) = discover(workspace).notes
    parsed = {i.line_start: i.id for i in read_note(note_file, 1_000_000).items}
    state = NoteState(
        sha256="0",
        size=len(note),
        mtime_ns=0,
        items={
            parsed[3]: ItemRecord(line=3, verdict="KEEP", category="fact", operation="noop"),
            parsed[6]: ItemRecord(line=6, verdict="DISCARD", discard_reason="resolved", closes_action=True),
        },
    )
    (workspace.state_dir / "notes").mkdir(parents=True)
    (workspace.state_dir / "notes" / "2026-01-01.md.json").write_bytes(dump(state))
    truth = tiny_truth(tmp_path / "source")
    truth["items"] = [
        cast(Any, item("memory/2026-01-01.md", 4, "KEEP", "fact", "  - set in nginx.conf")),
        cast(Any, item("memory/2026-01-01.md", 6, "KEEP", "action", "- [x] renew the cert")),
    ]
    child, closing = verdicts.judge_items(tmp_path, truth)
    return child, closing


def test_items_match_by_record_line_or_parser_span(tmp_path: Path) -> None:
    """A truth item on a child line of a bullet takes the bullet's verdict; noop KEEPs count as DISCARD,
    DISCARDs that closed an action (archive.md says so) as KEEP."""
    done = "## 2026-01-02\n- renew the cert (2025-12-30) — from Action items; done (memory/2026-01-01.md:6) [done 2026-01-02 by memory/2026-01-01.md:6]\n"
    child, closing = _closing_run(tmp_path, "# Archive\n\n" + done)
    assert child.record is not None and child.record.line == 3
    assert child.nrem_keep and not child.effective_keep
    assert child.label == "KEEP fact → noop"
    assert closing.effective_keep and not closing.nrem_keep
    scores = verdicts.verdict_scores([child, closing])
    assert scores.keep_recall == 0.5 and scores.raw_keep_recall == 0.5 and scores.unmatched == 0


def test_a_discard_that_reports_done_but_closed_no_action_stays_discarded(tmp_path: Path) -> None:
    """NREM read "[x] renew the cert" as reporting something done; no action was closed by it (archive.md
    records none), so memory did not change: the run discarded it."""
    _, closing = _closing_run(tmp_path, "# Archive\n")
    assert closing.record is not None and closing.record.closes_action
    assert not closing.effective_keep and closing.label == "DISCARD resolved"


def test_noise_leaked_counts_the_truths_discards_the_run_did_not_discard() -> None:
    """Kept, a repeat placed as a noop and an item no parser item covers: only the first leaked noise."""
    noise = cast(Any, item("memory/2026-01-01.md", 3, "DISCARD", "routine", "- inbox zero"))
    kept = verdicts.Judged(noise, ItemRecord(line=3, verdict="KEEP", category="fact", operation="add"))
    noop = verdicts.Judged(noise, ItemRecord(line=3, verdict="KEEP", category="fact", operation="noop"))
    dropped = verdicts.Judged(noise, ItemRecord(line=3, verdict="DISCARD", discard_reason="routine"))
    scores = verdicts.verdict_scores([kept, noop, dropped])
    assert (scores.leaked, scores.truth_discard) == (1, 3)


@pytest.fixture(scope="module")
def five_days(tmp_path_factory: pytest.TempPathFactory) -> tuple[Scorecard, Path]:
    scratch = tmp_path_factory.mktemp("score")
    args = score_quality.parse_args(["--days", "5", "--seed", "2", "--results", str(scratch / "RESULTS.md")])
    card, _ = score_quality.run(args, scratch)
    return card, scratch


def test_five_day_run_scores_every_metric(five_days: tuple[Scorecard, Path]) -> None:
    card, _ = five_days
    names = {row.metric for row in card.rows}
    assert {
        "KEEP recall",
        "DISCARD precision",
        "noise leaked",
        "fact retention: final values",
        "contradictions resolved",
        "near-duplicate rate in MEMORY.md",
        "briefing bytes, end / max",
        "planted secrets found outside the notes",
        "pasted briefing phrases re-learned",
    } <= names
    briefing = next(row for row in card.rows if row.metric.startswith("briefing bytes"))
    assert briefing.passed
    recall = next(row for row in card.rows if row.metric == "KEEP recall")
    assert 0.0 <= float(recall.value.split()[0]) <= 1.0
    assert [name for name, *_ in card.nightly][:2] == ["seconds per night", "files changed"]
    assert sum(row.items for row in card.confusion) > 0


def test_main_writes_results(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = tmp_path / "RESULTS.md"
    score_quality.main(["--days", "2", "--seed", "3", "--results", str(results)])
    printed = capsys.readouterr().out
    assert "KEEP recall" in printed and "target" in printed
    written = results.read_text(encoding="utf-8")
    assert "--days 2 --seed 3" in written
    assert "| KEEP recall |" in written and "## Worst missed KEEPs" in written


def test_a_line_is_read_as_the_note_item_it_restates(tmp_path: Path) -> None:
    """A list number is no word of a statement, and a line restating an item about no keyed fact (a
    decision naming the port) states no value of that fact."""
    truth = tiny_truth(tmp_path)
    numbered = "# 2026-01-05\n\n2. Atlas API moved to port 9090 (was 8080)\n"
    (tmp_path / "memory" / "2026-01-05.md").write_text(numbered, encoding="utf-8")
    decision = "- Decided: keep the Atlas API port 8080 closed, behind the VPN"
    (tmp_path / "memory" / "2026-01-03.md").write_text(f"# 2026-01-03\n\n{decision}\n", encoding="utf-8")
    truth["items"][1]["text"] = numbered.splitlines()[2]
    truth["items"].append(item("memory/2026-01-03.md", 3, "KEEP", "decision", decision))
    truth["files"].append("memory/2026-01-03.md")
    index = retention.StatementIndex(truth, TruthText(tmp_path, truth))
    assert index.assign("Atlas API moved to port 9090 (was 8080)") == ("atlas.api.port", "9090")
    assert index.assign("Decided: keep the Atlas API port 8080 closed, behind the VPN") is None
    assert index.assign("Port for Atlas API is 8080") == ("atlas.api.port", "8080")


def test_a_value_changed_back_is_the_value_stated_outside_was(tmp_path: Path) -> None:
    """ "moved to 9090 (was 19090)" after "moved to 19090 (was 9090)": the same words, and the note line
    it restates carries a clock stamp the entry lost, so wording picks the other item; the value a line
    states is the one outside "(was ...)"."""
    truth = tiny_truth(tmp_path)
    for day, text in (
        ("07", "- Atlas API moved to port 19090 (was 9090)"),
        ("09", "[10:31] Atlas API moved to port 9090 (was 19090)"),
    ):
        file = f"memory/2026-01-{day}.md"
        (tmp_path / file).write_text(f"# 2026-01-{day}\n\n{text}\n", encoding="utf-8")
        truth["items"].append(item(file, 3, "KEEP", "fact", text, fact_key="atlas.api.port"))
        truth["files"].append(file)
        value = text.split("port ")[1].split(" ")[0]
        truth["facts"][0]["values"].append(
            {"value": value, "date": f"2026-01-{day}", "file": file, "line": 3}
        )
    index = retention.StatementIndex(truth, TruthText(tmp_path, truth))
    assert index.assign("Atlas API moved to port 9090 (was 19090)") == ("atlas.api.port", "9090")
    assert index.assign("Atlas API moved to port 19090 (was 9090)") == ("atlas.api.port", "19090")


def test_a_line_cut_inside_what_names_the_old_value_states_the_new_one(tmp_path: Path) -> None:
    """A weekly line cut inside "(old one 8080 is gone)" holds every word of the old statement and not
    all of the new one, so the old one is what it restates best; what it states is still outside what
    names the value it replaced, closed or cut ("(was ...", "(old one ...", "(from ...")."""
    truth = tiny_truth(tmp_path)
    new = "- Atlas API moved to port 9090 (old one 8080 is gone)"
    (tmp_path / "memory" / "2026-01-05.md").write_text(f"# 2026-01-05\n\n{new}\n", encoding="utf-8")
    truth["items"][1]["text"] = new
    index = retention.StatementIndex(truth, TruthText(tmp_path, truth))
    for cut in ("old one 8080 is…", "was 8080…", "from 8080"):
        assert index.assign(f"fact: Atlas API moved to port 9090 ({cut} (2026-01-05)") == (
            "atlas.api.port",
            "9090",
        )
        assert index.assign(f"fact: Atlas API moved to port 9090 ({cut}") == ("atlas.api.port", "9090")
    assert index.assign("Port for Atlas API is 8080 (2026-01-01)") == ("atlas.api.port", "8080")


def test_a_value_wrapped_over_two_lines_is_the_value_it_states(tmp_path: Path) -> None:
    """A note item wrapped mid-value ("weekly on\\nSunday") states that value, as it does on one line:
    its repeat and a result quoting it state the new value, not the old one they name as before."""
    truth = tiny_truth(tmp_path)
    key, old, new = "atlas.sync", "nightly after backups", "weekly on Sunday"
    lines = [f"- Atlas sync runs {old}", f"- Atlas sync now runs {new}; before: {old}"]
    wrapped = f"Recap: Atlas sync now runs weekly on\nSunday; before: {old}"
    (tmp_path / "memory" / "2026-01-02.md").write_text(f"# 2026-01-02\n\n{lines[0]}\n", encoding="utf-8")
    (tmp_path / "memory" / "2026-01-06.md").write_text(
        f"# 2026-01-06\n\n{lines[1]}\n\n{wrapped}\n", encoding="utf-8"
    )
    files = ["memory/2026-01-02.md", "memory/2026-01-06.md"]
    truth["items"] += [
        item(files[0], 3, "KEEP", "fact", lines[0], fact_key=key),
        item(files[1], 3, "KEEP", "fact", lines[1], fact_key=key),
        item(files[1], 5, "DISCARD", "duplicate", wrapped.split("\n")[0], end_line=6, fact_key=key),
    ]
    values = [
        {"value": old, "date": "2026-01-02", "file": files[0], "line": 3},
        {"value": new, "date": "2026-01-06", "file": files[1], "line": 3},
    ]
    truth["facts"].append({"key": key, "category": "fact", "topic": "Atlas", "values": values, "final": new})
    index = retention.StatementIndex(truth, TruthText(tmp_path, truth))
    assert index.assign(wrapped) == (key, new)
    assert index.assign(wrapped.replace("\n", " ")) == (key, new)  # its repeat's value was the old one
    assert index.assign(f"Atlas sync runs {old}") == (key, old)


def leave_truth(folder: Path) -> GroundTruth:
    """Wei's leave announced for 14 days then shortened to 4; Fatima's leave on other words."""
    notes = {
        "2026-01-01": "- Wei is out from 2026-01-10 for 14 days; Arjun covers",
        "2026-01-05": "- Wei's leave from 2026-01-10 is now 4 days (was 14 days)",
        "2026-01-06": "- Fatima on leave 2026-01-10 to 2026-01-13 (4 days)",
    }
    truth = tiny_truth(folder)
    for day, line in notes.items():
        (folder / "memory" / f"{day}.md").write_text(f"# {day}\n\n{line}\n", encoding="utf-8")
    file = {day: f"memory/{day}.md" for day in notes}
    truth["files"] = list(file.values())
    truth["people"] = [
        {"name": name, "role": "engineer", "org": None, "projects": []} for name in ("Wei", "Fatima")
    ]
    key = "person.wei.ooo.2026-01-10"
    truth["items"] = [
        item(file["2026-01-01"], 3, "KEEP", "relationship", notes["2026-01-01"], fact_key=key),
        item(file["2026-01-05"], 3, "KEEP", "relationship", notes["2026-01-05"], fact_key=key),
        item(file["2026-01-06"], 3, "KEEP", "relationship", notes["2026-01-06"]),
    ]
    values = [
        {"value": "14 days", "date": "2026-01-01", "file": file["2026-01-01"], "line": 3},
        {"value": "4 days", "date": "2026-01-05", "file": file["2026-01-05"], "line": 3},
    ]
    truth["facts"] = [
        {"key": key, "category": "relationship", "topic": None, "values": values, "final": "4 days"}
    ]
    truth["end"] = "2026-01-20"
    return truth


def test_a_line_about_one_person_never_restates_another_persons_item(tmp_path: Path) -> None:
    truth = leave_truth(tmp_path)
    index = retention.StatementIndex(truth, TruthText(tmp_path, truth))
    line = "Wei on leave 2026-01-10 to 2026-01-13 (4 days) (previously: 14 days)"
    assert index.assign(current_text(line)) == ("person.wei.ooo.2026-01-10", "4 days")


def test_a_leave_that_ended_is_finished_business_its_final_value_archived_counts(tmp_path: Path) -> None:
    truth = leave_truth(tmp_path)
    archive = (
        "- Wei on leave 2026-01-10 to 2026-01-13 (4 days) (previously: 14 days) (2026-01-05) — from People; "
        "finished: the absence it announces ended 2026-01-13\n"
        "- Wei on leave 2026-01-10 to 2026-01-23 (14 days) (2026-01-01) — from People; superseded by memory/2026-01-05.md:3\n"
    )
    outputs = Outputs.from_texts("# MEMORY.md\n\n## People\n", archive)
    (ended,) = retention.contradictions(
        outputs, truth, TruthText(tmp_path, truth), last_run=date(2026, 1, 20)
    )
    assert ended.resolved and ended.left_by_rule == "finished: the absence ended 2026-01-13"
    (running,) = retention.contradictions(
        outputs, truth, TruthText(tmp_path, truth), last_run=date(2026, 1, 12)
    )
    assert not running.resolved  # on the 12th the leave is still on: it belongs in MEMORY.md


def test_near_duplicates_are_told_apart_by_the_people_and_facts_they_are_about(tmp_path: Path) -> None:
    truth = leave_truth(tmp_path)
    index = retention.StatementIndex(truth, TruthText(tmp_path, truth))
    memory = (
        "## People\n"
        "- Wei on leave 2026-01-10 to 2026-01-13 (4 days) (2026-01-05)\n"
        "- Fatima on leave 2026-01-10 to 2026-01-13 (4 days) (2026-01-06)\n"
        "- Wei is out from 2026-01-10 for 4 days, Arjun covers (2026-01-05)\n"
    )
    entries = Outputs.from_texts(memory).entries
    worded = hygiene.near_duplicate_rate(entries)
    told = hygiene.near_duplicate_rate(
        entries,
        lambda entry: f"fact {stated[0]}" if (stated := index.assign(entry.current)) else None,
        lambda entry: index.people_in(entry.current),
    )
    assert [pair[1:] for pair in worded.pairs] == [(entries[0].current, entries[1].current)]
    assert [pair[1:] for pair in told.pairs] == [(entries[0].current, entries[2].current)]  # Wei's, twice


def test_two_kept_items_alike_in_wording_are_two_things(tmp_path: Path) -> None:
    """Fact retention demands both decisions be kept; the duplicate count must not fault keeping both."""
    truth = tiny_truth(tmp_path)
    lines = [
        "- Decided to postpone Atlas v0.9.2 by a week: the vendor quote came in too high",
        "- Decided to postpone Atlas v0.8.7 by a week: the vendor quote came in too high",
    ]
    (tmp_path / "memory" / "2026-01-03.md").write_text(
        "# 2026-01-03\n\n" + "\n".join(lines) + "\n", encoding="utf-8"
    )
    truth["items"] += [
        item("memory/2026-01-03.md", 3 + n, "KEEP", "decision", line) for n, line in enumerate(lines)
    ]
    index = retention.StatementIndex(truth, TruthText(tmp_path, truth))
    memory = (
        "## Decisions\n"
        + "".join(f"{line} (2026-01-03)\n" for line in lines)
        + "## Facts\n"
        + OLD_ENTRY
        + NEW_ENTRY
    )
    entries = Outputs.from_texts(memory).entries
    assert hygiene.near_duplicate_rate(entries).duplicated == 4  # by wording: both pairs
    told = hygiene.near_duplicate_rate(entries, lambda entry: index.restated_item(entry.current))
    assert told.pairs == [("Facts", entries[2].current, entries[3].current)]  # one fact, said twice
