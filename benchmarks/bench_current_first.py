"""Benchmark "current first": does recall answer with what is true now, and how fast is it?

Usage: python benchmarks/bench_current_first.py [--days 60] [--seed 0] [--half test all] [--timings-only]
       [--large 100000] [--runs 10]

The generator's facts and decisions whose value changed (reversals, value changes; it knows every
value and which is final) are replayed night by night with the offline engine, indexed with the
configured default embedder (what `memory-sleep recall` uses), and asked about in the words of their
first statement, values taken out. Scored per generator half (benchmarks/TEST-HALF.md): `test`, the
wordings no rule was tuned on, and `all`. A result states a value of the fact when it restates a note
item about that fact (score_quality.py's StatementIndex) and holds the value. Per question: the
first result stating any of its values states the current one
("current first"); no result in the top 5 states only an old value without its status ("old
unmarked"); the current value is in the top 5 (recall@5). Facts whose value never changed ("steady"),
asked the same way: how many have their value in the top 5, and of those how many show it only on
results marked "older" (a false mark: a newer line taken for a change of it). The same on the labelled real dev notes'
questions that have a `current` value (benchmarks/realnotes/labels). Recall@5 on benchmarks/data/recall_queries.json
is measured on fixtures/workspace after one run. Times: `memory-sleep recall` as a whole process
(medians of `--runs` of wall and CPU time, started as `python -m memory_sleep` and as the installed
`memory-sleep` command, taking turns) and in-process search (median of 50) on that workspace and on a
synthetic one of `--large` entries (100,000), with the machine's load average: it is shared, so compare
ratios. `--timings-only` measures the times alone, none of the scores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "benchmarks"))

from quality.retention import StatementIndex  # noqa: E402
from quality.simulate import simulate  # noqa: E402
from quality.textmatch import current_text  # noqa: E402
from quality.truthdata import TruthText  # noqa: E402
from workspace_gen.generate import generate_workspace  # noqa: E402
from workspace_gen.halves import Half  # noqa: E402
from workspace_gen.truth import GroundTruth, KeyedTruth  # noqa: E402

from memory_sleep.config import Config  # noqa: E402
from memory_sleep.cycle.runner import RunOptions, run_cycle  # noqa: E402
from memory_sleep.engines.offline import offline_engine  # noqa: E402
from memory_sleep.models import NoteItem  # noqa: E402
from memory_sleep.sidecar.embed import build_embedder  # noqa: E402
from memory_sleep.sidecar.recall import open_sidecar  # noqa: E402
from memory_sleep.sidecar.search import Hit  # noqa: E402
from memory_sleep.text import normalize  # noqa: E402
from memory_sleep.workspace.layout import Workspace  # noqa: E402

FIXTURE = REPO / "fixtures" / "workspace"
REALNOTES = REPO / "benchmarks" / "realnotes"
QUERIES = REPO / "benchmarks" / "data" / "recall_queries.json"


def _states(text: str, value: str) -> bool:
    return normalize(value) in normalize(text)


def question(truth: GroundTruth, fact: KeyedTruth) -> str:
    """The fact's first statement with every one of its values taken out: what it is about, in the
    words first used for it (which favours the old statement: a hard case for current first)."""
    said = next((item["text"] for item in truth["items"] if item["fact_key"] == fact["key"]), fact["key"])
    for value in sorted((v["value"] for v in fact["values"]), key=len, reverse=True):
        said = said.replace(value, " ")
    return " ".join(said.split())


def changed_facts(days: int, seed: int, half: Half, scratch: Path, show: bool = False) -> dict[str, float]:
    """Asked about each changed fact, and each steady one (a value that never changed, which no result
    should show only as "older": a false mark hides a true value), in the words of its first statement."""
    truth = generate_workspace(scratch / "generated", days, seed=seed, half=half)
    run_dir = scratch / "run"
    start, end = date.fromisoformat(truth["start"]), date.fromisoformat(truth["end"])
    simulate(scratch / "generated", run_dir, start, end, "offline")
    now = datetime.combine(end + timedelta(days=1), datetime.min.time(), UTC).timestamp() + 43_200
    questions = [fact for fact in truth["facts"] + truth["decisions"] if len(fact["values"]) > 1]
    steady = [fact for fact in truth["facts"] + truth["decisions"] if len(fact["values"]) == 1]
    index = StatementIndex(truth, TruthText(scratch / "generated", truth))
    first = unmarked = found = steady_found = steady_older = 0
    with open_sidecar(run_dir, Config(), build_embedder(Config().sidecar), clock=lambda: now) as sidecar:
        sidecar.index()
        for fact in questions:
            hits = sidecar.search(question(truth, fact), k=5)
            final = fact["final"].lower()
            said = [_value_said(index, fact, hit) for hit in hits]
            stating = [value for value in said if value is not None]
            first += int(bool(stating) and stating[0] == final)
            found += int(final in stating)
            old_unmarked = any(
                hit.status is None and value not in (None, final)
                for hit, value in zip(hits, said, strict=True)
            )
            unmarked += int(old_unmarked)
            if show and (old_unmarked or not stating or stating[0] != final):
                _show(f"{fact['key']} (final {final!r})", question(truth, fact), hits, said)
        for fact in steady:
            hits = sidecar.search(question(truth, fact), k=5)
            stating = [hit for hit in hits if _value_said(index, fact, hit) == fact["final"].lower()]
            steady_found += int(bool(stating))
            older = bool(stating) and all(hit.status == "older" for hit in stating)
            steady_older += int(older)
            if show and older:
                _show(
                    f"steady {fact['key']} shown only older", question(truth, fact), hits, [None] * len(hits)
                )
    total = max(1, len(questions))
    return {
        "questions": len(questions),
        "current first": first / total,
        "old value unmarked": unmarked / total,
        "current in top 5": found / total,
        "steady facts": len(steady),
        "steady: value in top 5": steady_found,
        "steady: value shown only marked older": steady_older,
    }


def _show(title: str, asked: str, hits: list[Hit], said: list[str | None]) -> None:
    """A missed question and its results, for --show-misses."""
    print(f"MISS {title}: {asked!r}", file=sys.stderr)
    for hit, value in zip(hits, said, strict=True):
        print(f"  [{hit.status}] says={value!r} {hit.source}:{hit.line} {hit.text[:110]!r}", file=sys.stderr)


def _value_said(index: StatementIndex, fact: KeyedTruth, hit: Hit) -> str | None:
    """The value of `fact` a result states (lower case), or None: the result restates a note item about
    this fact (score_quality.py's StatementIndex decides which), and holds one of its values. A value
    found anywhere in the text is no answer: "2" is in "2 replicas" and in "2026", "128" is in another
    service's `BATCH_SIZE=128`, "gets annoyed by @here pings" is said of other people too."""
    assigned = index.assign(current_text(hit.text))
    return assigned[1].lower() if assigned and assigned[0] == fact["key"] and assigned[1] else None


def real_notes(scratch: Path, show: bool = False) -> dict[str, float]:
    """The labelled real notes' questions whose answer changed (those with a `current` value): each
    workspace is run once as score_realnotes.py runs it, then asked. An answer is a hit on an answer
    line (or a MEMORY.md entry saying the same, as score_realnotes.py counts it) or stating the current
    value; an old one is a hit on the item a label says an answer supersedes."""
    from realscore.labels import NoteItems, load_labels
    from realscore.runs import first_morning, fresh_copy, run_cli

    asked = first = unmarked = found = 0
    for labels_file in sorted((REALNOTES / "labels").glob("*.json")):
        labels = load_labels(labels_file)
        items = NoteItems(REALNOTES / labels.workspace)
        folder = fresh_copy(REALNOTES / labels.workspace, scratch / labels.workspace)
        today = first_morning(folder)
        run_cli(folder, today)
        replaced = {(label.file, label.line): label.supersedes for label in labels.items if label.supersedes}
        now = datetime.combine(today, datetime.min.time(), UTC).timestamp() + 32_400
        with open_sidecar(folder, clock=lambda: now) as sidecar:  # noqa: B023 (used inside the loop)
            sidecar.index()
            for question in (q for q in labels.questions if q.current):
                places = [(file, int(line)) for file, line in (a.rsplit(":", 1) for a in question.answers)]
                answers = [items.at(file, line) for file, line in places]
                olds = [
                    items.find(old.file, old.line, old.prefix)
                    for place in places
                    if (old := replaced.get(place)) is not None
                ]

                hits = sidecar.search(question.question, k=5)
                right = [_answers(hit, question.current or "", answers) for hit in hits]
                old_hits = [h for h, ok in zip(hits, right, strict=True) if not ok and _holds_any(h, olds)]
                stating = [ok for h, ok in zip(hits, right, strict=True) if ok or h in old_hits]
                asked += 1
                first += int(bool(stating) and stating[0])
                unmarked += int(any(h.status is None for h in old_hits))
                found += int(any(right))
                if show and (not (stating and stating[0]) or any(h.status is None for h in old_hits)):
                    _show(
                        f"real {labels.workspace} (current {question.current!r})",
                        question.question,
                        hits,
                        [
                            "current" if ok else "old" if h in old_hits else None
                            for h, ok in zip(hits, right, strict=True)
                        ],
                    )
    total = max(1, asked)
    return {
        "questions (real notes)": asked,
        "current first (real notes)": first / total,
        "old value unmarked (real notes)": unmarked / total,
        "current in top 5 (real notes)": found / total,
    }


def _holds_any(hit: Hit, items: list[NoteItem]) -> bool:
    """The hit is one of these note items, or a MEMORY.md entry saying the same (score_realnotes.py)."""
    from realscore.memory import SAME, says_same

    return any(
        (hit.source == item.file and item.line_start <= hit.line <= item.line_end)
        or (hit.source == "MEMORY.md" and says_same(item.written, hit.text) >= SAME)
        for item in items
    )


def _answers(hit: Hit, current: str, answers: list[NoteItem]) -> bool:
    """The hit states the current value, or is an answer line, or a MEMORY.md entry restating one
    with no number the answer line does not have: "技能生态: 9个技能" restates "10 个技能" in its
    words but states the old count. What a hit states leaves its "(previously: ...)" out, as
    `_holds_any` does: "10 个技能 (previously: 9 个技能)" states 10, not 9."""
    said = current_text(hit.text)
    if _states(said, current):
        return True
    return _holds_any(hit, [item for item in answers if _numbers(said) <= _numbers(item.written)])


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(text))


def fixture_after_run(scratch: Path) -> Path:
    folder = scratch / "fixture"
    shutil.copytree(FIXTURE, folder)
    run_cycle(Workspace.open(folder), Config(), offline_engine(), RunOptions(today=date(2026, 11, 25)))  # type: ignore[arg-type]
    return folder


def answers(hit: Hit, answer: dict[str, str]) -> bool:
    """Whether `hit` shows the labelled answer line after the run: the hit's line or one of the copies
    folded into it (`Hit.also`: the MEMORY.md entry shown under the note line it was written from)
    holds the answer and is that file's; for a MEMORY.md answer, its archive.md record counts (the run
    moves a stale or trimmed entry out of MEMORY.md to memory/archive.md, its words unchanged). The
    labels name where each answer was on the fixture as checked in, before any run."""
    wanted = " ".join(answer["contains"].split())
    places = {answer["file"], *(["memory/archive.md"] if answer["file"] == "MEMORY.md" else [])}
    return any(
        row.source_path in places and wanted in " ".join(row.text.split()) for row in (hit.entry, *hit.also)
    )


def recall_at_5(folder: Path) -> float:
    data = json.loads(QUERIES.read_text(encoding="utf-8"))
    now = datetime.fromisoformat(data["today"] + "T12:00:00+00:00").timestamp()
    found = 0
    with open_sidecar(folder, Config(), build_embedder(Config().sidecar), clock=lambda: now) as sidecar:
        sidecar.index()
        for query in data["queries"]:
            hits = sidecar.search(query["query"], k=5)
            found += int(any(answers(hit, answer) for hit in hits for answer in query["answers"]))
    return found / len(data["queries"])


def timings(folder: Path, query: str, today: str, label: str, runs: int) -> dict[str, float]:
    """`memory-sleep recall` as a whole process, started as `python -m memory_sleep` and as the installed
    command, one after the other `runs` times: medians of the wall time and of the process's CPU time
    (user and system, less disturbed by the other processes of a shared machine); and in-process search
    (median of 50)."""
    arguments = ["recall", query, str(folder), "--today", today, "--dry-run"]
    commands = {"python -m memory_sleep": [sys.executable, "-m", "memory_sleep", *arguments]}
    installed = Path(sys.executable).with_name("memory-sleep")
    if installed.is_file():
        commands["memory-sleep"] = [str(installed), *arguments]
    # with PYTHONDONTWRITEBYTECODE set (as on the dev machines) every run compiled the package's
    # sources again (~0.1 s); an installed package has its bytecode, which the warm-up run writes
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    for command in commands.values():  # warm the file cache
        subprocess.run(command, check=True, capture_output=True, env=environment)
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=environment)
            wall[name].append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[name].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    inside = []
    with open_sidecar(folder, Config(), build_embedder(Config().sidecar)) as sidecar:
        sidecar.search("warm up", k=5)
        for n in range(50):
            started = time.perf_counter()
            sidecar.search(f"{query} {n}", k=5)
            inside.append(time.perf_counter() - started)
    rows = {}
    for name in commands:
        rows[f"whole-process p50 s, {name}, {label}"] = statistics.median(wall[name])
        rows[f"whole-process CPU p50 s, {name}, {label}"] = statistics.median(cpu[name])
    rows[f"in-process p50 ms, {label}"] = statistics.median(inside) * 1e3
    return rows


def large_workspace(scratch: Path, size: int) -> Path:
    """bench_sidecar.py's synthetic notes (100 bullets a note), indexed with the default embedder."""
    from bench_sidecar import _vocabulary, _write_notes

    rng = random.Random(size)
    folder = scratch / f"large-{size}"
    folder.mkdir()
    (folder / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
    _write_notes(folder, size, date(2020, 1, 1), rng, _vocabulary(rng, 20_000))
    with open_sidecar(folder, Config(), build_embedder(Config().sidecar)) as sidecar:
        sidecar.index()
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--large", type=int, default=100_000, help="entries of the synthetic workspace timed (0: none)"
    )
    parser.add_argument("--half", nargs="+", choices=("test", "tune", "all"), default=["test", "all"])
    parser.add_argument("--timings-only", action="store_true", help="measure the times alone, no scores")
    parser.add_argument("--runs", type=int, default=10, help="whole-process recalls timed per command")
    parser.add_argument("--keep", type=Path, help="run in this (new) folder and leave the workspaces there")
    parser.add_argument("--show-misses", action="store_true", help="print each missed question's results")
    args = parser.parse_args()
    rows: dict[str, float | int] = {}
    with tempfile.TemporaryDirectory() as temporary:
        scratch = Path(temporary) if args.keep is None else args.keep
        if not args.timings_only:
            for half in args.half:
                for name, value in changed_facts(
                    args.days, args.seed, half, scratch / half, args.show_misses
                ).items():
                    rows[f"{name} ({half} half)"] = value
            rows.update(real_notes(scratch / "real", args.show_misses))
        folder = fixture_after_run(scratch)
        if not args.timings_only:
            rows["recall@5, fixture queries"] = recall_at_5(folder)
        rows.update(
            timings(folder, "which database does the Atlas job queue use", "2026-11-25", "example", args.runs)
        )
        if args.large:
            large = large_workspace(scratch, args.large)
            rows.update(
                timings(
                    large,
                    "deploy the billing queue worker",
                    "2030-01-01",
                    f"{args.large:,} entries",
                    args.runs,
                )
            )
    rows["load average (1 min) at the end"] = os.getloadavg()[0]
    print(f"| measure ({args.days} days, seed {args.seed}) | value |\n|---|---|")
    for name, value in rows.items():
        print(f"| {name} | {value:.3f} |" if isinstance(value, float) else f"| {name} | {value} |")


if __name__ == "__main__":
    main()
