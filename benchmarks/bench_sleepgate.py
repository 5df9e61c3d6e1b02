"""Benchmark SleepGate: a first full forgetting pass and a nightly pass on synthetic clustered data.

Usage: python benchmarks/bench_sleepgate.py [--sizes 10000 100000] [--queries 500] [--with-1m]

Each size runs in its own process. Data: d=384 unit vectors around N/20 cluster centres; a quarter
of the entries are near-copies (cosine ~0.95) of another entry and share its fact; ages spread
over two years, a fifth of the entries recalled at some time. Queries are noisy copies of random
entries, logged with their top-10 (as recall logs them). The first pass counts density over all
pairs (blocked matmul); the nightly pass adds 1,000 new entries a day later and updates density
incrementally. Recall@10 counts facts: the share of the facts in a query's top-10 before the pass
still present in its top-10 after. Peak memory is the pass's own allocations (tracemalloc, which
numpy reports to) plus the vector matrix, against the raw vectors. The entries state no values
(their values keys are 0, sidecar/statement.py), so density groups them by scope alone, as it does
most note lines; the passes still read every live entry's key.

At 1M the all-pairs rebuild takes 40 minutes or more: the first pass there is a resumable
background job (`memory-sleep forget --rebuild-density`), so --with-1m times its first minute and
extrapolates, times resuming it over an index that changed meanwhile (1,000 entries gone, 1,000
new), then stands a finished build made from the synthetic ground truth in for the rest and times
the pass and the nightly pass for real.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memory_sleep.config import ForgettingConfig  # noqa: E402
from memory_sleep.sidecar.store import Store, to_blob  # noqa: E402
from memory_sleep.sidecar.vectors import VectorIndex  # noqa: E402
from memory_sleep.sleepgate import density, state  # noqa: E402
from memory_sleep.sleepgate.build import Build  # noqa: E402
from memory_sleep.sleepgate.forget import PassReport, run_pass  # noqa: E402

DIM = 384
DAY = 86_400.0
NOW = 1_800_000_000.0
EMBEDDER = "bench"
NEW_PER_NIGHT = 1_000


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def synthetic(count: int, rng: np.random.Generator, first_fact: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(vectors, fact ids): clustered entries, a quarter of them near-copies of another entry."""
    centres = unit_rows(rng.standard_normal((max(1, count // 20), DIM)).astype(np.float32))
    vectors = np.empty((count, DIM), dtype=np.float32)
    facts = np.arange(first_fact, first_fact + count, dtype=np.int64)
    for start in range(0, count, 50_000):
        stop = min(start + 50_000, count)
        picks = rng.integers(0, len(centres), stop - start)
        block = centres[picks] + 0.08 * rng.standard_normal((stop - start, DIM)).astype(np.float32)
        vectors[start:stop] = unit_rows(block)
    copies = rng.choice(count, count // 4, replace=False)
    originals = rng.integers(0, count, len(copies))
    for start in range(0, len(copies), 50_000):
        c, o = copies[start : start + 50_000], originals[start : start + 50_000]
        noise = 0.016 * rng.standard_normal((len(c), DIM)).astype(np.float32)
        vectors[c] = unit_rows(vectors[o] + noise)
        facts[c] = facts[o]
    return vectors, facts


def fill_store(
    store: Store, vectors: np.ndarray, first_id: int, rng: np.random.Generator, written: float
) -> None:
    count = len(vectors)
    ages = rng.uniform(0, 730, count) if written == 0 else np.zeros(count)
    accessed = rng.random(count) < 0.2
    with store.transaction():
        store.db.executemany(
            "INSERT INTO entries (id, source_key, source_path, kind, line_start, line_end, text, content_hash,"
            " created_at, updated_at, last_accessed_at, access_count, embedder, dim, embedding, values_key)"
            " VALUES (?, 'memory/x.md', 'memory/x.md', 'note', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
            (
                (
                    first_id + i,
                    i + 1,
                    i + 1,
                    f"entry {first_id + i}",
                    str(first_id + i),
                    (NOW - ages[i] * DAY) if written == 0 else written,
                    (NOW - ages[i] * DAY) if written == 0 else written,
                    (NOW - rng.uniform(0, ages[i]) * DAY) if accessed[i] else None,
                    int(rng.integers(1, 30)) if accessed[i] else 0,
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
    rows = np.empty((len(queries), 10), dtype=np.intp)
    best = np.full((len(queries), 10), -np.inf, dtype=np.float32)
    for start in range(0, len(index.ids), 65_536):
        scores = queries @ index.matrix[start : start + 65_536].T
        merged = np.concatenate([best, scores], axis=1)
        merged_rows = np.concatenate(
            [rows, np.arange(start, start + scores.shape[1])[None, :].repeat(len(queries), 0)], axis=1
        )
        keep = np.argpartition(-merged, 9, axis=1)[:, :10]
        best = np.take_along_axis(merged, keep, axis=1)
        rows = np.take_along_axis(merged_rows, keep, axis=1)
    return rows


def log_queries(store: Store, index: VectorIndex, count: int, rng: np.random.Generator) -> np.ndarray:
    picks = rng.integers(0, len(index.ids), count)
    queries = unit_rows(index.matrix[picks] + 0.04 * rng.standard_normal((count, DIM)).astype(np.float32))
    results = top10(index, queries)
    with store.transaction():
        for q in range(count):
            cursor = store.db.execute(
                "INSERT INTO queries (text, scope, k, created_at, embedder, embedding) VALUES ('q', NULL, 10, ?, ?, ?)",
                (NOW - DAY, EMBEDDER, to_blob(queries[q])),
            )
            store.db.executemany(
                "INSERT INTO query_results (query_id, rank, entry_id, score) VALUES (?, ?, ?, 1.0)",
                [(cursor.lastrowid, r + 1, int(index.ids[p])) for r, p in enumerate(results[q])],
            )
    return queries


def fact_recall(
    before: VectorIndex, after: VectorIndex, facts: dict[int, int] | np.ndarray, queries: np.ndarray
) -> float:
    fact = np.asarray(facts)
    first, second = top10(before, queries), top10(after, queries)
    shares = []
    for q in range(len(queries)):
        wanted = {int(fact[before.ids[p]]) for p in first[q]}
        found = {int(fact[after.ids[p]]) for p in second[q]}
        shares.append(len(wanted & found) / len(wanted))
    return float(np.mean(shares))


def without(index: VectorIndex, ids: list[int]) -> VectorIndex:
    keep = ~np.isin(index.ids, np.array(ids, dtype=np.int64))
    return VectorIndex(
        index.ids[keep], index.scope_codes[keep], index.scope_names, index.matrix[keep], index.generation + 1
    )


def finished_build(ids: np.ndarray, facts: np.ndarray) -> Build:
    """A completed density build in which the entries sharing a fact are exactly the near pairs."""
    order = np.argsort(facts, kind="stable")
    _, starts, sizes = np.unique(facts[order], return_index=True, return_counts=True)
    firsts, seconds = [], []
    for size in range(2, int(sizes.max()) + 1):
        groups = starts[sizes == size]
        for a in range(size):
            for b in range(a + 1, size):
                firsts.append(ids[order[groups + a]])
                seconds.append(ids[order[groups + b]])
    counts = np.zeros(len(ids), dtype=np.int64)
    counts[order] = np.repeat(sizes - 1, sizes)
    pairs = (np.concatenate(firsts), np.concatenate(seconds)) if firsts else None
    return Build(ids.astype(np.int64), counts, len(ids), pairs)


def timed_resume(store: Store, index: VectorIndex, threshold: float, rng: np.random.Generator) -> float:
    """Seconds to load the saved build, reconcile it with an index that lost 1,000 entries (half
    counted, half not yet) and gained 1,000, and save it again: a night's overhead on the job."""
    saved = state.load_build(store, threshold, EMBEDDER)
    assert saved is not None and not saved.done
    lost = np.concatenate(
        [
            rng.choice(saved.next_row, 500, replace=False),
            saved.next_row + rng.choice(len(index.ids) - saved.next_row, 500, replace=False),
        ]
    )
    keep = np.ones(len(index.ids), dtype=bool)
    keep[lost] = False
    new_vectors, _ = synthetic(NEW_PER_NIGHT, rng)
    top = int(index.ids[-1])
    changed = density.Groups(
        np.concatenate([index.ids[keep], np.arange(top + 1, top + 1 + NEW_PER_NIGHT)]),
        np.zeros(int(keep.sum()) + NEW_PER_NIGHT, dtype=np.int32),
        ["default"],
        np.concatenate([index.matrix[keep], new_vectors]),
        index.generation + 1,
    )
    started = time.perf_counter()
    build, _, _ = density.reconcile(store, state.load_build(store, threshold, EMBEDDER), changed, threshold)
    with store.transaction():
        state.save_build(store, build, threshold, EMBEDDER)
    return time.perf_counter() - started


def timed_pass(
    store: Store, index: VectorIndex, config: ForgettingConfig, now: float
) -> tuple[PassReport, float, float]:
    tracemalloc.start()
    started = time.perf_counter()
    report = run_pass(store, index, config, EMBEDDER, now, explain="none")  # as the nightly run does
    seconds = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return report, seconds, (peak + index.matrix.nbytes) / index.matrix.nbytes


def measure(size: int, query_count: int, estimate_rebuild: bool) -> dict[str, object]:
    rng = np.random.default_rng(size)
    vectors, facts = synthetic(size, rng)
    store = Store.open(":memory:")
    fill_store(store, vectors, 1, rng, 0)
    ids = np.arange(1, size + 1, dtype=np.int64)
    index = VectorIndex(ids, np.zeros(size, dtype=np.int32), ["default"], vectors, store.generation())
    fact_of = np.concatenate([[0], facts])
    queries = log_queries(store, index, query_count, rng)
    config = ForgettingConfig(replay_queries=query_count)
    row: dict[str, object] = {
        "entries": size,
        "queries": query_count,
        "raw_mb": round(vectors.nbytes / 2**20),
    }
    if estimate_rebuild:
        # the background job's first minute, saved as a scheduled pass saves it
        groups = density.grouped(store, index)
        first_slice = density.rebuild(store, groups, config.density_threshold, EMBEDDER, 60.0)
        with store.transaction():
            density.save(store, first_slice, config.density_threshold, EMBEDDER)
        elapsed, done_share = first_slice.seconds, first_slice.progress
        row["first_density_s"] = f"~{elapsed / done_share:.0f} (est.)"
        if first_slice.mode == "building":
            row["resume_s"] = round(timed_resume(store, index, config.density_threshold, rng), 2)
        # ground truth stands in for the finished background build: near-copies of one fact are
        # each other's neighbours (the pass then finds a finished build, as the night after it ends)
        with store.transaction():
            state.save_build(store, finished_build(ids, facts), config.density_threshold, EMBEDDER)
        report, seconds, memory = timed_pass(store, index, config, NOW)
        row["first_pass_s"] = f"~{elapsed / done_share + seconds:.0f} (est.)"
    else:
        report, seconds, memory = timed_pass(store, index, config, NOW)
        row["first_density_s"] = round(report.seconds["density"], 2)
        row["first_pass_s"] = round(seconds, 2)
    row["first_scoring_s"] = round(report.seconds["scoring"], 2)
    row["first_prediction_s"] = round(report.seconds["prediction"], 2)
    row["first_peak_x_raw"] = round(memory, 2)
    row["candidates"] = report.candidates
    row["load_bearing"] = report.load_bearing
    row["forgotten"] = report.forgotten
    after = without(index, report.forgotten_ids)
    row["recall10_after_over_before"] = round(fact_recall(index, after, fact_of, queries), 4)
    row["predicted_recall_after"] = round(report.recall_after, 4)
    # a day later: 1,000 new entries (some copies of live ones), then the nightly pass
    new_vectors, new_facts = synthetic(NEW_PER_NIGHT, rng, first_fact=size + 1)
    source = rng.integers(0, len(after.ids), NEW_PER_NIGHT // 4)
    new_vectors[: len(source)] = unit_rows(
        after.matrix[source] + 0.016 * rng.standard_normal((len(source), DIM)).astype(np.float32)
    )
    new_facts[: len(source)] = fact_of[after.ids[source]]
    first_new = size + 1
    fill_store(store, new_vectors, first_new, rng, NOW + DAY)
    new_ids = np.arange(first_new, first_new + NEW_PER_NIGHT, dtype=np.int64)
    nightly = VectorIndex(
        np.concatenate([after.ids, new_ids]),
        np.zeros(len(after.ids) + NEW_PER_NIGHT, dtype=np.int32),
        ["default"],
        np.concatenate([after.matrix, new_vectors]),
        store.generation(),
    )
    del after, index, vectors
    fact_of = np.concatenate([fact_of, new_facts])
    night, seconds, memory = timed_pass(store, nightly, config, NOW + DAY)
    row["nightly_pass_s"] = round(seconds, 2)
    row["nightly_density_s"] = round(night.seconds["density"], 2)
    row["nightly_scoring_s"] = round(night.seconds["scoring"], 2)
    row["nightly_prediction_s"] = round(night.seconds["prediction"], 2)
    row["nightly_peak_x_raw"] = round(memory, 2)
    row["nightly_forgotten"] = night.forgotten
    row["nightly_recall10_after_over_before"] = round(
        fact_recall(nightly, without(nightly, night.forgotten_ids), fact_of, queries), 4
    )
    return row


COLUMNS = [
    ("entries", "entries"),
    ("first_density_s", "1st density s"),
    ("first_scoring_s", "1st scoring s"),
    ("first_prediction_s", "1st predict s"),
    ("first_pass_s", "1st pass s"),
    ("resume_s", "resume build s"),
    ("first_peak_x_raw", "1st peak/raw"),
    ("candidates", "candidates"),
    ("load_bearing", "load-bearing"),
    ("forgotten", "forgotten"),
    ("recall10_after_over_before", "recall@10 after/before"),
    ("nightly_density_s", "night density s"),
    ("nightly_scoring_s", "night scoring s"),
    ("nightly_prediction_s", "night predict s"),
    ("nightly_pass_s", "night pass s"),
    ("nightly_peak_x_raw", "night peak/raw"),
    ("nightly_forgotten", "night forgotten"),
    ("nightly_recall10_after_over_before", "night recall@10 after/before"),
]


def sgemm_rate() -> float:
    """float32 matmul speed right now: the issue's figures assume ~200 GFLOP/s on an idle machine."""
    left = np.random.default_rng(0).random((1024, DIM), dtype=np.float32)
    right = np.random.default_rng(1).random((8192, DIM), dtype=np.float32)
    left @ right.T
    started = time.perf_counter()
    for _ in range(5):
        left @ right.T
    return 5 * 2 * 1024 * 8192 * DIM / (time.perf_counter() - started) / 1e9


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--with-1m", action="store_true", help="also 1,000,000 entries (about 10 minutes)")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--estimate", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one:
        print(json.dumps(measure(arguments.one, arguments.queries, arguments.estimate)))
        return
    sizes = [*arguments.sizes, *([1_000_000] if arguments.with_1m else [])]
    print(f"Machine now: sgemm {sgemm_rate():.0f} GFLOP/s, load average {os.getloadavg()[0]:.1f}")
    rows = []
    for size in sizes:
        command = [sys.executable, __file__, "--one", str(size), "--queries", str(arguments.queries)]
        if size >= 1_000_000:
            command.append("--estimate")
        output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        rows.append(json.loads(output.strip().splitlines()[-1]))
        print(f"measured {size:,} entries", file=sys.stderr)
    for key, title in COLUMNS:
        print(f"{title:<30}" + "".join(f"{row.get(key, '-')!s:>16}" for row in rows))
    print(
        "Targets: nightly pass <= 5 s at 100k, <= 30 s at 1M; first pass <= 40 s at 100k; "
        "recall@10 after >= 0.99 of before; peak memory <= 2x raw vectors."
    )


if __name__ == "__main__":
    main()
