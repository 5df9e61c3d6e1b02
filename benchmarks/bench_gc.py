"""Benchmark garbage collection: a full GC cycle over 100k entries in 100 scopes, then the nightly
GC cycle after 1,000 new entries, with the offline engine; prints one table.

Usage: python benchmarks/bench_gc.py [--entries 100000] [--scopes 100] [--queries 500]

Data: d=256 unit vectors (the shipped offline embedder's size) in a SQLite sidecar file; daily-note
items dated over two years, one in 25 with an inline `ttl:` marker and one in 50 with a front-matter
expiry, so TTL has work; a fifth recalled at some time. 500 logged queries are noisy copies of
random entries, each served its top-10, and count as the accesses recall records. The full cycle
runs every strategy this version builds (`memory-sleep gc all` with the default settings: TTL,
importance for every entry, decay (off until recall_threshold is set), usage, capacity at 500 per
scope), deciding and applying in the sidecar. The nightly cycle adds 1,000 entries a day later and
runs again (importance rates only the new ones). Replayed recall: the share of each query's top-10
before the cycle still in its top-10 after. Peak memory: the cycle's own allocations (tracemalloc,
in a second run on a copy of the same store, so the timing is not traced) against the raw vectors.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench_sleepgate import top10 as nearest_rows  # noqa: E402
from bench_sleepgate import unit_rows  # noqa: E402

from memory_sleep.config import GcConfig, SidecarConfig  # noqa: E402
from memory_sleep.engines.offline import offline_engine  # noqa: E402
from memory_sleep.gc.actions import STRATEGIES  # noqa: E402
from memory_sleep.gc.apply import GcPlan, apply_to_sidecar  # noqa: E402
from memory_sleep.gc.registry import REGISTRY  # noqa: E402
from memory_sleep.gc.run import GcDecision, decide  # noqa: E402
from memory_sleep.sidecar.embed import OfflineEmbedder  # noqa: E402
from memory_sleep.sidecar.recall import Sidecar  # noqa: E402
from memory_sleep.sidecar.store import Store, to_blob  # noqa: E402
from memory_sleep.sidecar.vectors import VectorIndex  # noqa: E402

DIM = 256
DAY = 86_400.0
NOW = 1_800_000_000.0
EMBEDDER = "bench"
NEW_PER_NIGHT = 1_000


def fill(store: Store, first: int, count: int, scopes: int, rng: np.random.Generator, new: bool) -> None:
    centres = unit_rows(rng.standard_normal((max(1, count // 20), DIM)).astype(np.float32))
    vectors = unit_rows(
        centres[rng.integers(0, len(centres), count)]
        + 0.08 * rng.standard_normal((count, DIM)).astype(np.float32)
    )
    ages = np.full(count, -0.5) if new else rng.uniform(0, 730, count)  # new: indexed half a day later
    with store.transaction():
        store.db.executemany(
            "INSERT INTO entries (id, source_key, source_path, kind, line_start, line_end, text, content_hash,"
            " day, scope, importance, created_at, updated_at, expires_at, embedder, dim, embedding)"
            " VALUES (?, ?, ?, 'note', ?, ?, ?, ?, ?, ?, 0.3, ?, ?, ?, ?, ?, ?)",
            (
                (
                    first + i,
                    f"note:{int(ages[i])}",
                    f"memory/{int(ages[i])}.md",
                    i + 1,
                    i + 1,
                    f"- item {first + i}: host db-{i % 97} load {i % 13} at 04:{i % 60:02d}"
                    + (" ttl: 7d" if i % 25 == 0 else ""),
                    str(first + i),
                    time.strftime("%Y-%m-%d", time.gmtime(NOW - ages[i] * DAY)),
                    f"agent-{i % scopes}",
                    NOW - ages[i] * DAY,
                    NOW - ages[i] * DAY,
                    # as the indexer sets it: a front-matter expiry, or the inline marker's
                    (NOW - (ages[i] - 30) * DAY)
                    if i % 50 == 1
                    else (NOW - (ages[i] - 7) * DAY)
                    if i % 25 == 0
                    else None,
                    EMBEDDER,
                    DIM,
                    to_blob(vectors[i]),
                )
                for i in range(count)
            ),
        )
        store.set_meta("embedder", EMBEDDER)
        store.bump_generation()


def top10(index: VectorIndex, queries: np.ndarray) -> np.ndarray:
    """Each query's 10 nearest live ids (exact, in blocks)."""
    return index.ids[nearest_rows(index, queries)]


def unexpired(store: Store, moment: float) -> VectorIndex:
    """The live index as recall sees it at `moment`: what had expired by then is never returned."""
    index = VectorIndex.from_store(store, DIM)
    gone = [int(i) for (i,) in store.db.execute("SELECT id FROM entries WHERE expires_at <= ?", (moment,))]
    keep = ~np.isin(index.ids, np.array(gone, dtype=np.int64))
    return VectorIndex(index.ids[keep], index.scope_codes[keep], index.scope_names, index.matrix[keep], 0)


def log_queries(store: Store, count: int, rng: np.random.Generator) -> np.ndarray:
    index = unexpired(store, NOW - DAY)
    picks = rng.integers(0, len(index.ids), count)
    queries = unit_rows(index.matrix[picks] + 0.04 * rng.standard_normal((count, DIM)).astype(np.float32))
    served = top10(index, queries)
    recalled = rng.random(len(index.ids)) < 0.2
    store.record_access([int(i) for i in index.ids[recalled]], NOW - 200 * DAY)
    for row in served:  # as recall logs them: each served entry counts an access
        store.log_query("q", None, 10, EMBEDDER, None, [(int(i), 1.0) for i in row], NOW - DAY)
    return queries


def replayed_recall(before: np.ndarray, store: Store, queries: np.ndarray) -> float:
    after = top10(VectorIndex.from_store(store, DIM), queries)
    return float(
        np.mean([len(set(b) & set(a)) / 10 for b, a in zip(before.tolist(), after.tolist(), strict=True)])
    )


def gc_cycle(path: Path, now: float, traced: bool) -> tuple[GcDecision, float, int]:
    """Decide and apply every strategy on the store at `path`: (decision, seconds, peak bytes)."""
    store = Store.open(path)
    sidecar = Sidecar(store, OfflineEmbedder(), SidecarConfig(), None, None)
    names = tuple(name for name in STRATEGIES if name in REGISTRY)
    if traced:
        tracemalloc.start()
    started = time.perf_counter()
    decision = decide(sidecar, GcConfig(), offline_engine(), names, now, 30)
    apply_to_sidecar(sidecar, GcPlan(decision), now)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] if traced else 0
    if traced:
        tracemalloc.stop()
    sidecar.close()
    return decision, seconds, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--scopes", type=int, default=100)
    parser.add_argument("--queries", type=int, default=500)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    folder = Path(tempfile.mkdtemp(prefix="bench-gc-"))
    try:
        path = folder / "sidecar.db"
        store = Store.open(path)
        started = time.perf_counter()
        fill(store, 1, args.entries, args.scopes, rng, new=False)
        queries = log_queries(store, args.queries, rng)
        before = top10(unexpired(store, NOW - DAY), queries)
        built = time.perf_counter() - started
        store.close()
        shutil.copy(path, folder / "traced.db")
        decision, seconds, _ = gc_cycle(path, NOW, traced=False)
        _, _, peak = gc_cycle(folder / "traced.db", NOW, traced=True)
        store = Store.open(path)
        recall = replayed_recall(before, store, queries)
        fill(store, args.entries + 1_000_000, NEW_PER_NIGHT, args.scopes, rng, new=True)
        store.close()
        nightly, nightly_seconds, _ = gc_cycle(path, NOW + DAY, traced=False)
        raw = args.entries * DIM * 4
        load = os.getloadavg()
        rows = [
            ("entries / scopes", f"{args.entries:,} / {args.scopes}", ""),
            ("store built in", f"{built:.1f} s", "(not part of GC)"),
            ("full GC cycle", f"{seconds:.1f} s", "target <= 60 s"),
            ("  actions", ", ".join(f"{k} {v:,}" for k, v in sorted(decision.counts().items())), ""),
            (
                "peak memory (tracemalloc)",
                f"{peak / 2**20:.0f} MiB = {peak / raw:.2f} x raw vectors",
                f"raw {raw / 2**20:.0f} MiB; target <= 2x",
            ),
            (
                "replayed recall@10 after / before",
                f"{recall:.4f}",
                f"{args.queries} logged queries; target >= 0.99",
            ),
            ("nightly GC after 1,000 new", f"{nightly_seconds:.2f} s", "target <= 5 s"),
            ("  actions", ", ".join(f"{k} {v:,}" for k, v in sorted(nightly.counts().items())), ""),
            (
                "machine load (1/5/15 min)",
                " / ".join(f"{value:.2f}" for value in load),
                f"{os.cpu_count()} cores",
            ),
        ]
        width = max(len(name) for name, _, _ in rows)
        print(f"{'measure':<{width}}  {'value':<48}  note")
        for name, value, note in rows:
            print(f"{name:<{width}}  {value:<48}  {note}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
