"""Whole-process `memory-sleep run` on generated workspaces: the first run, and a nightly run with one new note.

    python benchmarks/bench_run.py            # 30 and 365 days of ~8 KB notes, 5 nightly repeats
    python benchmarks/bench_run.py --days 30 90 365 --repeats 7
    python benchmarks/bench_run.py --keep /tmp/bench-run   # keep the first runs' workspaces, reuse them next time

Prints a table of medians. "first night" is the night after the first run: the sidecar's first
garbage-collection pass soft-deletes the history's expired and unused entries then, once. "nightly"
is the night after that, what a cron job pays every day; it must stay flat with history length
(target: <= 2 s, and 365 days costing about what 30 days does).
"""

from __future__ import annotations

import argparse
import os
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
# as an installed package runs: with PYTHONDONTWRITEBYTECODE set (as on the dev machines) and a source
# tree without bytecode, every run compiled the package's ~140 modules again, inside the figure
_INSTALLED = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timed_run(workspace: Path, today: date) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one whole `memory-sleep run` process."""
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
    # the workspace was just copied: unsynced, its pages were written back by the run's first fsync of
    # sidecar.db (SQLite's checkpoint), ~0.2 s of a 365-day night's wall that was the copy's, not the run's
    os.sync()
    before = os.times()
    started = time.perf_counter()
    subprocess.run(command, check=True, env=_INSTALLED)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def measure(days: int, note_kb: float, repeats: int, scratch: Path, kept: Path | None) -> dict[str, float]:
    """The first run over `days` of history, the first nightly run after it (the sidecar's first
    garbage-collection pass, which soft-deletes the history's expired and unused entries once), then
    `repeats` copies of the night after that: the steady nightly run a cron job pays every day.

    With `kept`, the workspace right after the first run (and the held notes) are kept there and reused
    by the next invocation with the same arguments, which then reports no first run: the first night
    and the nightly runs are measured again with the code under test."""
    nights = [END - timedelta(days=1), END]
    prepared = kept / f"days-{days}-kb-{note_kb:g}" if kept else None
    if prepared is not None and (prepared / "ready").exists():
        first = (float("nan"), float("nan"))
        held = {night: sorted((prepared / "held").glob(f"{night.isoformat()}*.md")) for night in nights}
        base = scratch / f"days-{days}"
        shutil.copytree(prepared / "workspace", base, symlinks=True)
    else:
        base = scratch / f"days-{days}"
        generate_workspace(base, days=days + 2, seed=7, end=END, note_kb=note_kb)
        holding = scratch / f"held-{days}"
        holding.mkdir()
        held = {night: _hold(base, night, holding) for night in nights}
        first = timed_run(base, nights[0] - timedelta(days=1))
        if prepared is not None:
            shutil.rmtree(prepared, ignore_errors=True)
            shutil.copytree(base, prepared / "workspace", symlinks=True)
            shutil.copytree(holding, prepared / "held")
            (prepared / "ready").write_text("first run done\n", encoding="utf-8")
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
        "first": first[0],
        "first_night": first_night[0],
        "nightly": statistics.median(wall for wall, _ in nightly),
        "nightly_max": max(wall for wall, _ in nightly),
        "nightly_cpu": statistics.median(cpu for _, cpu in nightly),
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
    parser.add_argument(
        "--keep",
        type=Path,
        help="folder keeping each history's workspace after its first run, reused when present",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        rows = [measure(days, args.note_kb, args.repeats, Path(folder), args.keep) for days in args.days]
    print(
        f"{'history':>8} {'notes':>9} {'first run':>10} {'first night':>12} {'nightly p50':>12}"
        f" {'nightly max':>12} {'nightly cpu':>12}"
    )
    for row in rows:
        print(
            f"{row['days']:>6} d {row['notes_kb']:>7.0f} KB {row['first']:>9.2f}s {row['first_night']:>11.2f}s"
            f" {row['nightly']:>11.2f}s {row['nightly_max']:>11.2f}s {row['nightly_cpu']:>11.2f}s"
        )
    if len(rows) > 1:
        print(
            f"nightly ratio {rows[-1]['days']} d / {rows[0]['days']} d: {rows[-1]['nightly'] / rows[0]['nightly']:.2f}"
        )


if __name__ == "__main__":
    main()
