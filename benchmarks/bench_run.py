"""Whole-process `memory-sleep run` on generated workspaces: the first run, and a nightly run with one new note.

    python benchmarks/bench_run.py            # 30 and 365 days of ~8 KB notes, 5 nightly repeats
    python benchmarks/bench_run.py --days 30 90 365 --repeats 7

Prints a table of medians. "first night" is the night after the first run: the sidecar's first
garbage-collection pass soft-deletes the history's expired and unused entries then, once. "nightly"
is the night after that, what a cron job pays every day; it must stay flat with history length
(target: <= 2 s, and 365 days costing about what 30 days does).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workspace_gen import generate_workspace

END = date(2026, 11, 28)


def timed_run(workspace: Path, today: date) -> float:
    command = [
        sys.executable,
        "-m",
        "memory_sleep",
        "run",
        str(workspace),
        "--engine",
        "offline",
        "--today",
        today.isoformat(),
        "-q",
    ]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - started


def measure(days: int, note_kb: float, repeats: int, scratch: Path) -> dict[str, float]:
    """The first run over `days` of history, the first nightly run after it (the sidecar's first
    garbage-collection pass, which soft-deletes the history's expired and unused entries once), then
    `repeats` copies of the night after that: the steady nightly run a cron job pays every day."""
    base = scratch / f"days-{days}"
    generate_workspace(base, days=days + 2, seed=7, end=END, note_kb=note_kb)
    holding = scratch / f"held-{days}"
    holding.mkdir()
    nights = [END - timedelta(days=1), END]
    held = {night: _hold(base, night, holding) for night in nights}
    first = timed_run(base, nights[0] - timedelta(days=1))
    _restore(held[nights[0]], base)
    first_night = timed_run(base, nights[0] + timedelta(days=1))
    nightly = []
    for attempt in range(repeats):
        copy = scratch / f"night-{days}-{attempt}"
        shutil.copytree(base, copy, symlinks=True)
        _restore(held[nights[1]], copy)
        nightly.append(timed_run(copy, nights[1] + timedelta(days=1)))
        shutil.rmtree(copy)
    notes = sorted((base / "memory").glob("*.md"))
    size = sum(n.stat().st_size for n in notes if n.name[:4].isdigit())
    return {
        "days": days,
        "notes_kb": size / 1024,
        "first": first,
        "first_night": first_night,
        "nightly": statistics.median(nightly),
        "nightly_max": max(nightly),
    }


def _hold(workspace: Path, night: date, holding: Path) -> list[Path]:
    """Move the notes of `night` out of the workspace, to be dropped in on that night."""
    kept = []
    for note in sorted((workspace / "memory").glob(f"{night.isoformat()}*.md")):
        kept.append(note.rename(holding / note.name))
    return kept


def _restore(notes: list[Path], workspace: Path) -> None:
    for note in notes:
        shutil.copy2(note, workspace / "memory" / note.name)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--days", type=int, nargs="+", default=[30, 365])
    parser.add_argument("--note-kb", type=float, default=8.0)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        rows = [measure(days, args.note_kb, args.repeats, Path(folder)) for days in args.days]
    print(
        f"{'history':>8} {'notes':>9} {'first run':>10} {'first night':>12} {'nightly p50':>12} {'nightly max':>12}"
    )
    for row in rows:
        print(
            f"{row['days']:>6} d {row['notes_kb']:>7.0f} KB {row['first']:>9.2f}s {row['first_night']:>11.2f}s"
            f" {row['nightly']:>11.2f}s {row['nightly_max']:>11.2f}s"
        )
    if len(rows) > 1:
        print(
            f"nightly ratio {rows[-1]['days']} d / {rows[0]['days']} d: {rows[-1]['nightly'] / rows[0]['nightly']:.2f}"
        )


if __name__ == "__main__":
    main()
