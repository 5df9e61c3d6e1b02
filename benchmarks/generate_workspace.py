"""Write a synthetic memory-sleep workspace with ground truth.

Usage: python benchmarks/generate_workspace.py OUT_DIR --days N [--seed S]
       [--end YYYY-MM-DD] [--note-kb KB] [--projects P]
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workspace_gen import DEFAULT_END, generate_workspace
from workspace_gen.halves import HALVES


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Generate seeded, realistic agent daily notes plus ground-truth.json."
    )
    parser.add_argument("out_dir", type=Path, help="workspace folder to write")
    parser.add_argument("--days", type=int, required=True, help="number of consecutive days")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--end",
        type=date.fromisoformat,
        default=DEFAULT_END,
        help=f"last day, YYYY-MM-DD (default {DEFAULT_END.isoformat()})",
    )
    parser.add_argument(
        "--note-kb", type=float, default=3.0, help="approximate mean size of a note in KB (default 3)"
    )
    parser.add_argument("--projects", type=int, default=3, help="number of projects (default 3)")
    parser.add_argument(
        "--half",
        choices=HALVES,
        default="all",
        help="template families and templates to write: the tuning half, the test half or all (default all)",
    )
    args = parser.parse_args(argv)
    if args.days < 1:
        parser.error("--days must be at least 1")
    if args.note_kb <= 0:
        parser.error("--note-kb must be positive")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    truth = generate_workspace(
        args.out_dir,
        args.days,
        seed=args.seed,
        end=args.end,
        note_kb=args.note_kb,
        projects=args.projects,
        half=args.half,
    )
    elapsed = time.perf_counter() - started
    keep = sum(1 for item in truth["items"] if item["verdict"] == "KEEP")
    print(
        f"wrote {len(truth['files'])} notes ({truth['start']} .. {truth['end']}), "
        f"{len(truth['items'])} items ({keep} KEEP) to {args.out_dir} in {elapsed:.2f}s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
