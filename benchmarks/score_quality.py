"""Consolidation quality, night by night, against a generated workspace's ground truth.

    python benchmarks/score_quality.py --days 90 [--seed 0] [--engine offline] [--nights-every 1]
                                       [--half tune|test|all]
    python benchmarks/score_quality.py --workspace DIR      # DIR holds memory/ and ground-truth.json

Simulates cron: starts from the generator's MEMORY.md and an empty memory/, copies in each day's
notes (memory/DAY.md, memory/DAY-*.md) and runs the cycle in-process with --today the next day
(default Config(), a fresh engine each night). Then it scores the workspace against the truth,
prints a table and writes benchmarks/RESULTS.md.

--half test writes only the test half of the generator's template families and templates (see
workspace_gen/halves.py): the wordings no engine rule may be tuned on. Report that half.

Definitions (the code in quality/ is the reference):
- Item matching: a truth item (file, line) takes the verdict of the state record with that line,
  else of the parser item whose span holds the line; none = "unmatched" (a missed KEEP).
- Effective verdict: NREM KEEP counts as KEEP unless REM's operation was `noop` (it only repeated
  memory); a DISCARD that closed an open action (`closes_action`) counts as KEEP. KEEP recall =
  truth-KEEP items the tool kept / truth-KEEP items; DISCARD precision = truth-DISCARD items among
  those it discarded. The raw NREM figures are shown too.
- Fact retention: each fact's final value (whole-token match, case aside) in MEMORY.md's current
  text (entries without "(previously: ...)", project summaries) or a weekly summary; each KEEP
  decision, lesson and relationship item with >= 60% of its words (memory_sleep.text.tokens, clock
  times left out) on one line of MEMORY.md or a weekly summary.
- Contradictions: every fact or decision with more than one value. A line of memory restates the
  note item whose words it holds best (>= 60%; an item about people only if the line names them;
  list numbers are no words), and states that item's value when the item states a keyed fact.
  Resolved: the final value is stated as current, no older value is, and every older value that
  was ever current in MEMORY.md is stated by a line of archive.md. Where one of DESIGN.md's rules
  takes the final value out of MEMORY.md (finished work: its project finished, or a leave whose
  last day is past on the last run; or, by the truth, no note has mentioned the fact for more than
  stale_after_days before the last run), the final value stated in archive.md counts as current.
  The strict share (final value in MEMORY.md itself) is shown beside it.
- Near-duplicates: entries in the same section that restate the same thing by the truth (the same
  action, keyed fact, or note item). Where the truth cannot tell what an entry restates, wording
  decides: token Jaccard >= 0.6, or containment >= 0.8 when the smaller has at least 3 tokens, and
  not when the two name different people. The wording-only rate is shown beside it.
- Stale: entries about a finished project (its topic, outside Lessons and People) that were still in
  MEMORY.md after it finished must be gone at the end and in archive.md; closed actions that were
  ever in "## Action items" must be out of it and in archive.md.
- Briefing: actions still open at the end whose deadline is within 7 days (either side) of the last
  night, found (>= 60% of their words) in briefing.md.
- Secrets: every planted value searched, as bytes, in every file but the original daily notes,
  .sleep/ state, snapshots and the SQLite sidecar included.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from quality.report import render_results, render_table
from quality.score import Scorecard, score
from quality.simulate import ENGINES, simulate
from quality.truthdata import GroundTruth, load_truth
from workspace_gen import DEFAULT_END, generate_workspace
from workspace_gen.halves import HALVES

from memory_sleep.config import Config, load_config

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
REPOSITORY = Path(__file__).resolve().parent.parent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Run memory-sleep night by night on a generated workspace and score it against the truth."
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--days", type=int, default=90, help="days of notes to generate (default 90)")
    source.add_argument(
        "--workspace", type=Path, help="an existing generated workspace (with ground-truth.json)"
    )
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--end", type=date.fromisoformat, default=DEFAULT_END, help="last day of notes")
    parser.add_argument("--note-kb", type=float, default=3.0, help="mean note size in KB (default 3)")
    parser.add_argument("--projects", type=int, default=3, help="number of projects (default 3)")
    parser.add_argument(
        "--half",
        choices=HALVES,
        default="all",
        help="generate only the tuning or the test half of the template families (default all)",
    )
    parser.add_argument(
        "--engine", choices=ENGINES, default="offline", help="engine to score (default offline)"
    )
    parser.add_argument("--nights-every", type=int, default=1, help="run the cycle every N days (default 1)")
    parser.add_argument("--keep-run", type=Path, help="leave the simulated workspace in this folder")
    parser.add_argument("--config", type=Path, help="a memory-sleep.toml to run with (default: all defaults)")
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help=f"results file (default {RESULTS.name})"
    )
    args = parser.parse_args(argv)
    if args.nights_every < 1:
        parser.error("--nights-every must be at least 1")
    if args.days < 1:
        parser.error("--days must be at least 1")
    return args


def run(args: argparse.Namespace, scratch: Path) -> tuple[Scorecard, str]:
    """Generate or load, simulate, score; returns the scorecard and a description of the workspace."""
    if args.workspace:
        source = args.workspace
        truth: GroundTruth = load_truth(source / "ground-truth.json")
    else:
        source = scratch / "generated"
        truth = generate_workspace(
            source,
            args.days,
            seed=args.seed,
            end=args.end,
            note_kb=args.note_kb,
            projects=args.projects,
            half=args.half,
        )
    run_dir = args.keep_run or scratch / "run"
    say = (lambda message: print(message, file=sys.stderr)) if sys.stderr.isatty() else None
    config = load_config(args.config, required=True) if args.config else Config()
    nights, history = simulate(
        source,
        run_dir,
        date.fromisoformat(truth["start"]),
        date.fromisoformat(truth["end"]),
        args.engine,
        args.nights_every,
        config=config,
        progress=say,
    )
    card = score(source, run_dir, truth, nights, history, config.stale_after_days)
    described = (
        f"{truth['days']} days {truth['start']} .. {truth['end']}, seed {truth['seed']}, "
        + ("" if args.workspace or args.half == "all" else f"{args.half} half, ")
        + f"{len(truth['files'])} notes, {len(truth['items'])} items, {len(nights)} nights, engine {args.engine}"
    )
    return card, described


def revision() -> str:
    """The commit scored, marked "+ local changes" when memory_sleep/ differs from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "memory_sleep", "prompts"],
            cwd=REPOSITORY,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" + local changes in memory_sleep/" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="score-quality-") as folder:
        card, described = run(args, Path(folder))
    elapsed = time.perf_counter() - started
    print(described)
    print(render_table(card.rows))
    print(f"({elapsed:.0f} s)")
    command = "python benchmarks/score_quality.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    if os.environ.get("PYTHONHASHSEED"):
        # the offline engine's REM currently breaks ties in set order, so the hash seed changes results
        command = f"PYTHONHASHSEED={os.environ['PYTHONHASHSEED']} {command}"
    args.results.write_text(
        render_results(card, command.strip(), date.today().isoformat(), described, revision()),
        encoding="utf-8",
    )
    print(f"wrote {args.results}")
    return 0 if card.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
