"""The offline engine on real agents' notes, against the hand labels (issue 15, item 4).

    python benchmarks/score_realnotes.py [--workspace NAME ...] [--keep-runs DIR] [--results FILE]

For each labelled workspace of benchmarks/realnotes/: a fresh copy in a temporary folder (its
SOURCE.txt left out), `memory-sleep run --engine offline --today DAY --json` in a child process as a
user runs it (DAY: the day after the workspace's last note), then the same command again. Prints a
table per workspace and in total, and writes benchmarks/REALNOTES.md. How each figure is counted:
realscore/figures.py; the labels' format: realnotes/labels/README.md.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from realscore.figures import Figures, score_workspace
from realscore.labels import NoteItems, load_labels, resolve
from realscore.report import TARGETS, details, table
from realscore.runs import first_morning, fresh_copy, run_cli
from score_quality import revision

HERE = Path(__file__).resolve().parent
NOTES = HERE / "realnotes"
RESULTS = HERE / "REALNOTES.md"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Score the offline engine on the hand-labelled real notes.")
    parser.add_argument("--notes", type=Path, default=NOTES, help="folder of workspaces and labels/")
    parser.add_argument("--workspace", action="append", help="only this workspace (repeatable)")
    parser.add_argument("--keep-runs", type=Path, help="leave the run copies in this folder")
    parser.add_argument(
        "--results", type=Path, default=RESULTS, help=f"results file (default {RESULTS.name})"
    )
    return parser.parse_args(argv)


def score_one(labels_file: Path, notes: Path, scratch: Path) -> Figures:
    labels = load_labels(labels_file)
    source = notes / labels.workspace
    labelled = resolve(labels, NoteItems(source))
    folder = fresh_copy(source, scratch / labels.workspace)
    today = first_morning(folder)
    first = run_cli(folder, today)
    second = run_cli(folder, today)
    return score_workspace(labels, labelled, source, folder, (first, second), today)


def score_all(args: argparse.Namespace, scratch: Path) -> list[Figures]:
    files = sorted((args.notes / "labels").glob("*.json"))
    if args.workspace:
        files = [f for f in files if f.stem in args.workspace]
    if not files:
        raise SystemExit(f"no labels to score in {args.notes / 'labels'}")
    return [score_one(f, args.notes, scratch) for f in files]


def render(figures: list[Figures], command: str) -> str:
    targets = "\n".join(f"- {target}" for target in TARGETS)
    return (
        "# The offline engine on real agents' notes\n\n"
        f"Written by `{command}` on {date.today().isoformat()} at {revision()}. Hand labels: "
        "`benchmarks/realnotes/labels/` (a sample of notes per workspace, every item of each); "
        "definitions: `benchmarks/realscore/figures.py`.\n\n"
        f"Issue 15's targets:\n{targets}\n\n{table(figures)}\n\n{details(figures)}\n"
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.keep_runs:
        args.keep_runs.mkdir(parents=True, exist_ok=True)
        figures = score_all(args, args.keep_runs)
    else:
        with tempfile.TemporaryDirectory(prefix="score-realnotes-") as folder:
            figures = score_all(args, Path(folder))
    print(table(figures))
    print(details(figures))
    command = "python benchmarks/score_realnotes.py " + " ".join(argv if argv is not None else sys.argv[1:])
    args.results.write_text(render(figures, command.strip()), encoding="utf-8")
    print(f"wrote {args.results}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
