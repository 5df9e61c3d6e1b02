"""LLM calls and tokens of a nightly run must not grow with the length of history.

Usage: python benchmarks/bench_llm_cost.py [--days 30 365] [--nights 3] [--seed 7]

One workspace of the longest history is generated; each history length keeps its last DAYS days
of notes, so every length is measured on the very same new notes. Each catches up on all but the
last NIGHTS days with a simulated model, then runs NIGHTS nightly runs, one new day of notes
each, and counts the calls
and input/output tokens the simulated model was sent (tokens estimated at 4 characters each, as
FunctionModel does). Exits 1 when the longest history costs more than 1.2 times the shortest.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from workspace_gen import generate_workspace

from memory_sleep.config import Config
from memory_sleep.cycle.runner import RunOptions, run_cycle
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.testing import FunctionModel
from memory_sleep.engines.value_answers import values_answer
from memory_sleep.workspace.layout import Workspace

END = date(2026, 11, 28)
LIMIT = 1.2


def _notes_of(folder: Path, day: date) -> list[Path]:
    return sorted((folder / "memory").glob(f"{day.isoformat()}*.md"))


def _night(folder: Path, today: date) -> dict[str, float]:
    config = Config()
    config.sidecar.enabled = False  # the sidecar's own cost is benchmarked in bench_sidecar.py
    model = FunctionModel(values_answer, model="claude-haiku-4-5")
    engine = llm_engine(model, config.engine, folder / "memory" / ".sleep" / "llm-cache")
    started = time.perf_counter()
    record = run_cycle(Workspace.open(folder), config, engine, RunOptions(today=today)).record
    return {
        "calls": record.llmCalls,
        "input": record.inputTokens,
        "output": record.outputTokens,
        "cost": record.estimatedCostUsd or 0.0,
        "seconds": time.perf_counter() - started,
        "memory_kb": record.memoryMdSizeAfter / 1024,
        **{f"{phase}_calls": usage.calls for phase, usage in record.llmUsage.items()},
    }


def measure(days: int, nights: int, source: Path, scratch: Path) -> dict[str, float]:
    """Average cost of the last `nights` nightly runs over the last `days` days of `source`'s notes."""
    folder = scratch / f"history-{days}"
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("*.md"))
    shutil.copy(source / "MEMORY.md", folder / "MEMORY.md")
    first_day = END - timedelta(days=days - 1)
    for note in (source / "memory").glob("*.md"):
        if date.fromisoformat(note.name[:10]) >= first_day:
            shutil.copy(note, folder / "memory" / note.name)
    held = scratch / f"held-{days}"
    held.mkdir()
    first_night = END - timedelta(days=nights - 1)
    for offset in range(nights):
        for note in _notes_of(folder, first_night + timedelta(days=offset)):
            shutil.move(note, held / note.name)
    started = time.perf_counter()
    _night(folder, first_night)  # catch up on the whole history before the measured nights
    catch_up = time.perf_counter() - started
    totals: dict[str, float] = {}
    for offset in range(nights):
        day = first_night + timedelta(days=offset)
        for note in sorted(held.glob(f"{day.isoformat()}*.md")):
            shutil.move(note, folder / "memory" / note.name)
        for key, value in _night(folder, day + timedelta(days=1)).items():
            totals[key] = totals.get(key, 0.0) + value
    result = {key: value / nights for key, value in totals.items()}
    result["catch_up_seconds"] = catch_up
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, nargs="+", default=[30, 365])
    parser.add_argument("--nights", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "generated"
        generate_workspace(source, max(args.days), seed=args.seed, end=END)
        results = {days: measure(days, args.nights, source, Path(scratch)) for days in args.days}
    print(f"Nightly run with a simulated model, mean of {args.nights} nights (tokens: 4 characters each)")
    header = f"{'history':>8} {'calls':>6} {'nrem':>5} {'rem':>4} {'clean':>5} {'input tok':>10} {'output tok':>10} {'est. $':>8} {'MEMORY.md':>9} {'run s':>6}"
    print(header)
    for days, row in results.items():
        print(
            f"{days:>7}d {row['calls']:>6.1f} {row.get('nrem_calls', 0):>5.1f} {row.get('rem_calls', 0):>4.1f} "
            f"{row.get('cleanup_calls', 0):>5.1f} {row['input']:>10,.0f} {row['output']:>10,.0f} "
            f"{row['cost']:>8.4f} {row['memory_kb']:>7.1f}KB {row['seconds']:>6.2f}"
        )
    shortest, longest = results[min(results)], results[max(results)]
    ratios = {key: longest[key] / shortest[key] for key in ("calls", "input", "output") if shortest[key]}
    print(f"ratio {max(results)}d/{min(results)}d: " + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    worst = max(ratios.values(), default=0.0)
    if worst > LIMIT:
        print(f"FAIL: nightly cost grows with history (ratio {worst:.2f} > {LIMIT})")
        return 1
    print(f"ok: ratio <= {LIMIT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
