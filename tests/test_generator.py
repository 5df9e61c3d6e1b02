"""The benchmark workspace generator: deterministic, self-consistent ground truth, fast enough."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from workspace_gen import GroundTruth, generate_workspace, split_items  # noqa: E402

KEEP_CATEGORIES = ("decision", "fact", "lesson", "action", "relationship", "status")
DISCARD_CATEGORIES = ("routine", "heartbeat", "narration", "debug", "resolved", "duplicate")
SECRET_KINDS = {
    "anthropic_key",
    "openai_key",
    "aws_access_key_id",
    "aws_secret_access_key",
    "github_token",
    "postgres_url",
    "ssh_private_key",
    "password",
}


def digests(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def file_lines(root: Path, relative: str) -> list[str]:
    return (root / relative).read_text(encoding="utf-8").split("\n")


YEAR = pytest.param("year", marks=pytest.mark.slow)  # a year of notes takes seconds to generate


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GroundTruth]:
    out = tmp_path_factory.mktemp("small")
    return out, generate_workspace(out, 60, seed=1)


@pytest.fixture(scope="module")
def year(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, GroundTruth, float]:
    out = tmp_path_factory.mktemp("year")
    started = time.perf_counter()
    truth = generate_workspace(out, 365, seed=3, note_kb=8)
    return out, truth, time.perf_counter() - started


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    generate_workspace(tmp_path / "a", 40, seed=9, note_kb=2)
    generate_workspace(tmp_path / "b", 40, seed=9, note_kb=2)
    assert digests(tmp_path / "a") == digests(tmp_path / "b")


def test_different_seed_gives_different_notes(tmp_path: Path) -> None:
    generate_workspace(tmp_path / "a", 20, seed=1)
    generate_workspace(tmp_path / "b", 20, seed=2)
    a, b = digests(tmp_path / "a"), digests(tmp_path / "b")
    shared = set(a) & set(b) - {"MEMORY.md"}
    assert shared and all(a[name] != b[name] for name in shared)


def test_cli_writes_what_the_function_writes(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "generate_workspace.py"), str(tmp_path / "cli"), "--days", "12",
         "--seed", "5", "--end", "2026-03-01", "--note-kb", "2", "--projects", "4"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "wrote" in result.stdout
    truth = generate_workspace(tmp_path / "api", 12, seed=5, end=date(2026, 3, 1), note_kb=2, projects=4)
    assert digests(tmp_path / "cli") == digests(tmp_path / "api")
    assert truth["end"] == "2026-03-01" and len(truth["projects"]) == 4


def test_cli_rejects_bad_arguments(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "generate_workspace.py"), str(tmp_path), "--days", "0"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 2 and "--days must be at least 1" in result.stderr


def test_layout_of_the_workspace(small: tuple[Path, GroundTruth]) -> None:
    out, truth = small
    assert (out / "MEMORY.md").read_text(encoding="utf-8").startswith("# MEMORY.md\n")
    notes = sorted(p.name for p in (out / "memory").glob("*.md"))
    assert sorted(Path(f).name for f in truth["files"]) == notes
    daily = [n for n in notes if re.fullmatch(r"\d{4}-\d\d-\d\d\.md", n)]
    assert len(daily) + len(truth["skipped_days"]) == truth["days"] == 60
    assert any(not re.fullmatch(r"\d{4}-\d\d-\d\d\.md", n) for n in notes), "no topic note"
    assert truth["end"] == "2026-11-28" and truth["start"] == "2026-09-30"


@pytest.mark.parametrize("fixture", ["small", YEAR])
def test_every_item_is_at_its_line(fixture: str, request: pytest.FixtureRequest) -> None:
    out, truth = request.getfixturevalue(fixture)[:2]
    allowed = {("KEEP", c) for c in KEEP_CATEGORIES} | {("DISCARD", c) for c in DISCARD_CATEGORIES}
    notes = {relative: file_lines(out, relative) for relative in truth["files"]}
    for item in truth["items"]:
        lines = notes[item["file"]]
        assert lines[item["line"] - 1] == item["text"], item
        assert item["line"] <= item["end_line"] <= len(lines)
        assert (item["verdict"], item["category"]) in allowed, item


@pytest.mark.parametrize("fixture", ["small", YEAR])
def test_items_are_exactly_the_units_of_the_split_rules(fixture: str, request: pytest.FixtureRequest) -> None:
    out, truth = request.getfixturevalue(fixture)[:2]
    expected: dict[str, dict[int, str]] = {}
    for item in truth["items"]:
        expected.setdefault(item["file"], {})[item["line"]] = item["text"]
    for relative in truth["files"]:
        found = {unit.line: unit.text for unit in split_items((out / relative).read_text(encoding="utf-8"))}
        assert found == expected.get(relative, {}), relative


@pytest.mark.parametrize("fixture", ["small", YEAR])
def test_every_secret_is_at_its_line(fixture: str, request: pytest.FixtureRequest) -> None:
    out, truth = request.getfixturevalue(fixture)[:2]
    assert {secret["kind"] for secret in truth["secrets"]} == SECRET_KINDS
    for secret in truth["secrets"]:
        lines = file_lines(out, secret["file"])
        value_lines = secret["value"].split("\n")
        start = secret["line"] - 1
        if len(value_lines) == 1:
            assert secret["value"] in lines[start], secret
        else:
            assert lines[start : start + len(value_lines)] == value_lines, secret


@pytest.mark.slow
def test_year_of_8_kb_notes_averages_8_kb(year: tuple[Path, GroundTruth, float]) -> None:
    # how long generating takes is a benchmark's business (shared machines are noisy), not a test's
    out, truth, _ = year
    sizes = [(out / relative).stat().st_size for relative in truth["files"]]
    assert 7 * 1024 <= sum(sizes) / len(sizes) <= 9 * 1024
    bodies = [(out / relative).read_text(encoding="utf-8") for relative in truth["files"]]
    assert len(set(bodies)) == len(bodies)


@pytest.mark.parametrize("fixture", ["small", YEAR])
def test_keep_share_per_note(fixture: str, request: pytest.FixtureRequest) -> None:
    truth = request.getfixturevalue(fixture)[1]
    keep: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for item in truth["items"]:
        total[item["file"]] += 1
        keep[item["file"]] += item["verdict"] == "KEEP"
    shares = [keep[f] / total[f] for f in total]
    assert 0.15 <= sum(keep.values()) / sum(total.values()) <= 0.40
    assert sum(0.15 <= share <= 0.40 for share in shares) >= 0.9 * len(shares)


@pytest.mark.parametrize("fixture", ["small", YEAR])
def test_facts_decisions_actions_point_at_their_statements(
    fixture: str, request: pytest.FixtureRequest
) -> None:
    out, truth = request.getfixturevalue(fixture)[:2]
    items = {(item["file"], item["line"]): item for item in truth["items"]}
    notes = {relative: file_lines(out, relative) for relative in truth["files"]}

    def item_text(file: str, line: int) -> str:
        # hard-wrapped paragraphs may break a value across lines
        return " ".join(notes[file][line - 1 : items[(file, line)]["end_line"]])

    for keyed in truth["facts"] + truth["decisions"]:
        assert keyed["final"] == keyed["values"][-1]["value"]
        assert [v["date"] for v in keyed["values"]] == sorted(v["date"] for v in keyed["values"])
        for value in keyed["values"]:
            # a value may open a sentence and be capitalized there
            assert value["value"].lower() in item_text(value["file"], value["line"]).lower(), keyed
            assert items[(value["file"], value["line"])]["fact_key"] == keyed["key"]
            assert items[(value["file"], value["line"])]["verdict"] == "KEEP"
    assert any(len(f["values"]) > 1 for f in truth["facts"]), "no fact is ever updated"
    assert any(len(d["values"]) > 1 for d in truth["decisions"]), "no decision is ever reversed"
    for action in truth["actions"]:
        opened = action["opened"]
        assert action["text"].lower() in item_text(opened["file"], opened["line"]).lower()
        assert action["deadline"] >= opened["date"]
        if action["closed"] is not None:
            closed = action["closed"]
            assert closed["date"] > opened["date"]
            assert action["text"].lower() in item_text(closed["file"], closed["line"]).lower()
    assert any(a["closed"] for a in truth["actions"]) and any(not a["closed"] for a in truth["actions"])


@pytest.mark.parametrize("fixture", ["small", YEAR])
def test_repeats_and_finished_projects(fixture: str, request: pytest.FixtureRequest) -> None:
    truth = request.getfixturevalue(fixture)[1]
    items = {(item["file"], item["line"]): item for item in truth["items"]}
    assert truth["repeated"]
    for group in truth["repeated"]:
        members = [items[(o["file"], o["line"])] for o in group["occurrences"]]
        assert len(members) >= 2 and all(m["fact_key"] == group["key"] for m in members)
        assert members[0]["verdict"] == "KEEP"
        assert any(m["category"] == "duplicate" for m in members)
    kinds = {p["finish_kind"] for p in truth["projects"]}
    assert {"completed", "cancelled"} <= kinds
    for project in truth["projects"]:
        if project["finished_on"] is None:
            continue
        after = [i for i in truth["items"] if i["file"][7:17] > project["finished_on"]]
        assert not [i for i in after if i["topic"] == project["name"]]


def test_pasted_briefing_is_recorded_and_unique(small: tuple[Path, GroundTruth]) -> None:
    out, truth = small
    briefing = truth["pasted_briefing"]
    assert briefing is not None
    lines = file_lines(out, briefing["file"])
    first, last = briefing["lines"]
    assert lines[first - 1].startswith("# Morning briefing ")
    pasted = "\n".join(lines[first - 1 : last])
    everything_else = "\n".join(
        "\n".join(file_lines(out, relative)[: first - 1] + file_lines(out, relative)[last:])
        if relative == briefing["file"]
        else (out / relative).read_text(encoding="utf-8")
        for relative in truth["files"]
    )
    for phrase in briefing["phrases"]:
        assert phrase in pasted and phrase not in everything_else, phrase
    inside = [i for i in truth["items"] if i["file"] == briefing["file"] and first <= i["line"] <= last]
    assert inside and all(i["verdict"] == "DISCARD" for i in inside)


@pytest.mark.slow
def test_notes_are_messy_like_real_agent_notes(year: tuple[Path, GroundTruth, float]) -> None:
    out, truth = year[:2]
    text = "\n".join((out / relative).read_text(encoding="utf-8") for relative in truth["files"])
    markers = {
        "heartbeat": "HEARTBEAT_OK",
        "open checklist": "\n- [ ] ",
        "done checklist": "\n- [x] ",
        "bold key": "\n**",
        "table": "\n|---",
        "fence": "\n```",
        "nested heading": "\n### ",
        "literal backslash-n": "\\n",
        "front matter": "\n---\nproject: ",
        "bracket timestamp": "\n[1",
        "narration": "Let me ",
        "traceback": "\nTraceback (most recent call last):",
        "German": "Entscheidung",
        "Spanish": "revisé",
    }
    missing = [name for name, marker in markers.items() if marker not in "\n" + text]
    assert not missing
    assert re.search(r"[\u4e00-\u9fff]", text) and re.search(r"[\u3040-\u30ff]", text), "no CJK"
    assert re.search(r"(?m)^\d\d:\d\d ", text), "no plain timestamped lines"
    categories = Counter(item["category"] for item in truth["items"])
    assert all(categories[c] > 20 for c in KEEP_CATEGORIES + DISCARD_CATEGORIES), categories


def test_tiny_runs_work(tmp_path: Path) -> None:
    for days in (1, 2, 3):
        truth = generate_workspace(tmp_path / str(days), days, seed=days, projects=1)
        assert truth["days"] == days and truth["items"]
        assert {secret["kind"] for secret in truth["secrets"]} == SECRET_KINDS


def test_ground_truth_file_matches_return_value(small: tuple[Path, GroundTruth]) -> None:
    out, truth = small
    assert json.loads((out / "ground-truth.json").read_text(encoding="utf-8")) == truth


def test_halves_split_families_and_templates_without_overlap(tmp_path: Path) -> None:
    """--half test writes only the test half's families: the wordings no engine rule is tuned on."""
    from workspace_gen.facts import FAMILIES, families
    from workspace_gen.halves import half_of, templates
    from workspace_gen.keep_items import LESSONS

    tune, test = families(half="tune"), families(half="test")
    assert tune and test and not set(tune) & set(test) and set(tune) | set(test) == set(FAMILIES)
    assert set(templates(LESSONS, "tune")).isdisjoint(templates(LESSONS, "test"))
    assert templates(LESSONS, "all") == LESSONS

    def key_pattern(key: str) -> re.Pattern[str]:
        return re.compile(re.sub(r"\\\{[a-zA-Z]+\\\}", "[^.]+", re.escape(key)) + "$")

    patterns = {family.name: key_pattern(family.key) for family in FAMILIES}
    truth = generate_workspace(tmp_path / "test", 40, seed=2, half="test")
    keys = [fact["key"] for fact in truth["facts"]] + [decision["key"] for decision in truth["decisions"]]
    assert keys
    for key in keys:
        fitting = [name for name, pattern in patterns.items() if pattern.match(key)]
        assert fitting and any(half_of(name) == "test" for name in fitting), key
    generate_workspace(tmp_path / "all", 40, seed=2)
    assert digests(tmp_path / "test") != digests(tmp_path / "all")
