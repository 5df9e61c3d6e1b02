"""Benchmark a noisy daily note: how big the sidecar grows, how long a run takes, how much memory it needs.

Usage: python benchmarks/bench_noise_note.py [--mb 20] [--before CHECKOUT]

Generates one daily note of about --mb megabytes: heartbeats, routine readings (builds, backups,
disk, uptime, cron), log lines, and every 200th line a real item (a decision, a fact, a lesson).
Then runs `memory-sleep run --engine offline` on it in a fresh process (max_note_bytes raised), and
`memory-sleep index` on a deleted sidecar (the sidecar's own cost), and prints a row for each: note
size, sidecar.db size (with its WAL), ratio, wall time, peak RSS.
With --before, the same note is also run with the code of another checkout (e.g. a `git archive`
of an earlier commit), for a before/after table.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DAY = "2026-11-24"
HOSTS = ["db-01", "db-02", "web-1", "web-2", "queue-1"]
REAL = [
    "- Decided: the {p} billing export moves to Postgres 16 in week {n}; Raj signs off the cutover.",
    "- Lesson: the {p} nightly import fails silently when the S3 token expires; check token age first ({n}).",
    "- Maria Chen (maria@{p}.example) is the new contact for the {p} contract renewal #{n}.",
    "- Heartbeat failed at {h:02d}:{m:02d}: gateway on web-{n} timed out, restarted by hand.",
    "- [ ] Send the {p} invoice #{n} to finance by Friday.",
]
PROJECTS = ["atlas", "beacon", "meridian", "orion"]


def noise_line(rng: random.Random, hour: int, minute: int, second: int) -> str:
    stamp = f"{hour:02d}:{minute:02d}:{second:02d}"
    choice = rng.randrange(10)
    if choice < 5:
        return f"{stamp} HEARTBEAT_OK"
    if choice == 5:
        return (
            f"- Build: #{rng.randrange(1000, 9999):,} green ({rng.randrange(3, 12)}m{rng.randrange(60):02d}s)"
        )
    if choice == 6:
        return f"- disk on {rng.choice(HOSTS)}: {rng.randrange(40, 90)}% used"
    if choice == 7:
        return f"- Backup: ok, {rng.randrange(10, 40)}.{rng.randrange(10)} GB"
    if choice == 8:
        return f"- Uptime: {rng.randrange(1, 60)}d {rng.randrange(24)}h"
    return f"{DAY}T{stamp}Z DEBUG poll worker={rng.randrange(16)} queue=0 latency={rng.randrange(1, 90)}ms"


def generate(path: Path, megabytes: float, seed: int = 0) -> int:
    """Write the note; returns how many real items it holds."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    lines = [f"# {DAY}", "", "## Log", ""]
    size = sum(len(line) + 1 for line in lines)
    real = 0
    number = 0
    while size < target:
        number += 1
        seconds = (number * 7) % 86_400
        hour, minute, second = seconds // 3600, seconds // 60 % 60, seconds % 60
        if number % 200 == 0:
            template = REAL[real % len(REAL)]
            line = template.format(p=PROJECTS[real % len(PROJECTS)], n=real, h=hour, m=minute)
            real += 1
        else:
            line = noise_line(rng, hour, minute, second)
        lines.append(line)
        size += len(line.encode()) + 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return real


def measure(code: Path, note: Path) -> list[tuple[str, float, float, float]]:
    """On a fresh workspace holding `note`, with the package found under `code`: the whole run, then the
    sidecar alone rebuilt from scratch (`memory-sleep index`); (step, sidecar bytes, seconds, peak MB)."""
    with tempfile.TemporaryDirectory(prefix="noise-note-") as folder:
        workspace = Path(folder)
        (workspace / "memory").mkdir()
        (workspace / "memory" / note.name).write_bytes(note.read_bytes())
        (workspace / "memory-sleep.toml").write_text("max_note_bytes = 100_000_000\n", encoding="utf-8")
        state = workspace / "memory" / ".sleep"
        steps = [("run", ["run", "--today", DAY, "--engine", "offline"]), ("index", ["index"])]
        rows = []
        for step, arguments in steps:
            for stale in state.glob("sidecar*"):
                stale.unlink()
            command = [sys.executable, "-m", "memory_sleep", arguments[0], str(workspace), *arguments[1:]]
            started = time.perf_counter()
            process = subprocess.Popen(
                command, env={**os.environ, "PYTHONPATH": str(code)}, cwd=code, stdout=subprocess.DEVNULL
            )
            _, status, usage = os.wait4(process.pid, 0)
            seconds = time.perf_counter() - started
            if status != 0:
                raise SystemExit(f"`memory-sleep {step}` with {code} failed (status {status})")
            sidecar = sum(path.stat().st_size for path in state.glob("sidecar.db*"))
            rows.append((step, sidecar, seconds, usage.ru_maxrss / 1024))
        return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0, help="note size in MB (default 20)")
    parser.add_argument("--before", type=Path, help="a checkout of earlier code to compare with")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="noise-note-src-") as folder:
        note = Path(folder) / f"{DAY}.md"
        real = generate(note, args.mb)
        size = note.stat().st_size
        print(f"note: {size / 1e6:.1f} MB, {real} real items among the noise")
        print("| code | step | note MB | sidecar MB | ratio | wall s | peak RSS MB |")
        print("|---|---|---|---|---|---|---|")
        runs = [("before", args.before)] if args.before else []
        for label, code in [*runs, ("after", REPO)]:
            for step, sidecar, seconds, peak in measure(code.resolve(), note):
                print(
                    f"| {label} | {step} | {size / 1e6:.1f} | {sidecar / 1e6:.1f} | {sidecar / size:.1f}x"
                    f" | {seconds:.0f} | {peak:.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
