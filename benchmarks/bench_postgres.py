"""Benchmark the sidecar on Postgres + pgvector beside SQLite, on the bundled server (pgserver).

Usage: nice python benchmarks/bench_postgres.py [--entries 100000] [--namespaces 100] [--dim 384]
       [--gate-entries 10000] [--writers 8] [--writer-entries 10000] [--queries 200] [--seed 0]
       [--dsn postgresql://...]   (default: a fresh pgserver in a temporary folder)

The issue's scale is `--entries 1000000 --namespaces 1000`. Entries are synthetic: clustered unit
vectors (so near neighbours exist, as among real notes) and a few words each; a query is an entry
moved by noise of norm 0.3 (cosine about 0.96 to it), as a question lies near the note that answers
it. Prints one table, each row as it is measured:

- index build: every entry written through the store (on Postgres a binary COPY per batch into a
  staging table, one INSERT from it), then the HNSW index built once they are all in;
- N concurrent writers (processes) indexing 10k entries each: seconds, and rows lost or duplicated;
  on Postgres before and after the HNSW index exists, which shows what the writers spend on it;
- recall, in-process: one agent's hybrid recall (vector + full text, fused) in its namespace, its
  vector side alone with the plan the store picks (`pg.store.ef_search`: exact over a namespace
  of up to 20k live rows, HNSW over a larger one) and its recall@10 against exact; the HNSW plan
  over the whole table (a namespace as large as the store) at several ef_search, and HNSW kept to
  one namespace by its filter, which is why small namespaces are read exactly;
- a SleepGate nightly pass (density from scratch, scoring, replay) on one namespace of 10k entries.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from memory_sleep.config import ForgettingConfig
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.pg.connect import connect
from memory_sleep.sidecar.pg.store import (
    EF_SEARCH_MAX,
    EF_SEARCH_MIN,
    PgStore,
    PgVectors,
    ef_search,
    ensure_hnsw,
    hnsw_index_name,
)
from memory_sleep.sidecar.rows import NewEntry
from memory_sleep.sidecar.search import SearchOptions, search
from memory_sleep.sidecar.store import Store
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.sleepgate.forget import run_pass

EMBEDDER = "bench/384"
NOW = 1_800_000_000.0
WORDS = [f"w{i}" for i in range(5_000)]


def vectors(count: int, dim: int, seed: int) -> np.ndarray:
    """Clustered unit vectors: 1 cluster per 50 entries, each entry its centre plus noise."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(1, count // 50), dim)).astype(np.float32)
    out = centres[rng.integers(0, len(centres), count)] + 0.6 * rng.standard_normal((count, dim)).astype(
        np.float32
    )
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def entries(count: int, scope: str, seed: int, start: int = 0) -> list[NewEntry]:
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(WORDS), (count, 8))
    made = []
    for number, words in enumerate(picks):
        text = " ".join(WORDS[w] for w in words)
        made.append(
            NewEntry(
                source_key=f"memory/{(start + number) // 100:06d}.md",
                source_path=f"memory/{(start + number) // 100:06d}.md",
                kind="note",
                line_start=(start + number) % 100 + 1,
                line_end=(start + number) % 100 + 1,
                context="",
                text=text,
                content_hash=f"{start + number}",
                day=None,
                scope=scope,
                importance=0.5,
                expires_at=None,
                tokens=text,
            )
        )
    return made


def write(store: SidecarStore, rows: list[NewEntry], matrix: np.ndarray, batch: int = 1_000) -> None:
    for begin in range(0, len(rows), batch):
        with store.transaction():
            if store.meta("embedder") is None:
                store.set_meta("embedder", EMBEDDER)
            store.insert_entries(
                rows[begin : begin + batch], matrix[begin : begin + batch], EMBEDDER, NOW - 400 * 86_400
            )


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[int(0.95 * (len(ordered) - 1))] * 1000


class Bench:
    def __init__(self, args: argparse.Namespace, dsn: str, folder: Path) -> None:
        self.args, self.dsn, self.folder = args, dsn, folder
        self.matrix = vectors(args.entries, args.dim, args.seed)
        self.per = args.entries // args.namespaces

    def namespace_rows(self, number: int) -> tuple[list[NewEntry], np.ndarray]:
        block = self.matrix[number * self.per : (number + 1) * self.per]
        return entries(self.per, f"agent-{number}", self.args.seed + number), block

    def build(self) -> None:
        first = PgStore.open(self.dsn, "agent-0", self.args.dim)
        first.db.execute(f"DROP INDEX {hnsw_index_name(self.args.dim)}")  # bulk load first, then build it
        first.close()

        every = max(1, self.args.namespaces // 10)

        def postgres() -> None:
            for number in range(self.args.namespaces):
                store = PgStore(connect(self.dsn), self.dsn, f"agent-{number}")  # open would make the index
                write(store, *self.namespace_rows(number))
                store.close()
                if (number + 1) % every == 0:
                    progress(f"postgres: {number + 1} of {self.args.namespaces} namespaces written")

        def sqlite() -> None:
            store = Store.open(self.folder / "bench.db")
            for number in range(self.args.namespaces):
                write(store, *self.namespace_rows(number))
                if (number + 1) % every == 0:
                    progress(f"sqlite: {number + 1} of {self.args.namespaces} namespaces written")
            store.close()

        self.row("index build: write every entry (s)", timed(sqlite), timed(postgres))
        store = PgStore(connect(self.dsn), self.dsn, "agent-0")
        store.db.execute("VACUUM ANALYZE entries")
        self.writers("no HNSW index yet", "a")
        store.db.execute(f"SET maintenance_work_mem = '{self.args.build_memory}'")
        store.db.execute("SET max_parallel_maintenance_workers = 2")
        progress("building the HNSW index")
        pg_hnsw = timed(lambda: ensure_hnsw(store.db, self.args.dim))
        store.db.execute("ANALYZE entries")
        store.close()
        self.row(
            f"index build: HNSW (m 16, ef_construction 64; {self.args.build_memory}, 2 workers) (s)",
            None,
            pg_hnsw,
        )

    def queries(self, noise: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Which entry each query is drawn from, and the queries: those entries moved by noise of
        norm about `noise` (--query-noise)."""
        rng = np.random.default_rng(self.args.seed + 1)
        picks = rng.integers(0, self.args.entries, self.args.queries)
        moves = rng.standard_normal((len(picks), self.args.dim)).astype(np.float32)
        scale = self.args.query_noise if noise is None else noise
        queries = self.matrix[picks] + scale / np.sqrt(self.args.dim) * moves
        return picks, queries / np.linalg.norm(queries, axis=1, keepdims=True)

    def recall(self) -> None:
        picks, queries = self.queries()
        sqlite = Store.open(self.folder / "bench.db")
        index = VectorIndex.from_store(sqlite, self.args.dim)
        local: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        vector: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        hits: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        shared = PgStore.open(self.dsn, "agent-0", self.args.dim).db  # one connection: 1,000 would not fit
        for pick, query in zip(picks, queries, strict=True):
            number = int(pick) // self.per
            pg = PgStore(shared, self.dsn, f"agent-{number}")
            text = " ".join(WORDS[w] for w in np.random.default_rng(int(pick)).integers(0, len(WORDS), 3))
            options = SearchOptions(k=10, scope=f"agent-{number}")
            local["postgres"].append(timed(partial(search, pg, PgVectors(pg), text, query, options, NOW)))
            local["sqlite"].append(timed(partial(search, sqlite, index, text, query, options, NOW)))
            block = self.matrix[number * self.per : (number + 1) * self.per]
            truth = {number * self.per + int(i) for i in np.argsort(-(block @ query))[:10]}
            for kind, searcher in (("sqlite", index), ("postgres", PgVectors(pg))):
                started = time.perf_counter()
                found = searcher.top(query, 10, options.scope)
                vector[kind].append(time.perf_counter() - started)
                hits[kind].append(len(truth & {entry_id - 1 for entry_id, _ in found}) / 10)
        plan = ef_search(10, self.per, self.args.entries)
        shown = "exact" if plan is None else f"HNSW, ef_search {plan}"
        label = f"one namespace of {self.per:,}"
        self.row(
            f"hybrid recall in {label}, p50 / p95 (ms)",
            percentiles(local["sqlite"]),
            percentiles(local["postgres"]),
        )
        self.row(
            f"vector top-10 in {label} (store's plan: {shown}), p50 / p95 (ms)",
            percentiles(vector["sqlite"]),
            percentiles(vector["postgres"]),
        )
        self.row(
            "  its recall@10 vs exact", statistics.mean(hits["sqlite"]), statistics.mean(hits["postgres"])
        )
        shared.close()
        self.whole_table(index, queries)
        sqlite.close()

    def whole_table(self, index: VectorIndex, queries: np.ndarray) -> None:
        """The HNSW plan over every entry (a namespace as large as the store), and HNSW kept to one
        small namespace by its filter."""
        numpy_times = [timed(partial(index.top, query, 10)) for query in queries]
        exact = [{int(i) for i in np.argsort(-(self.matrix @ query))[:10]} for query in queries]  # id - 1
        pg = PgStore.open(self.dsn, "agent-0", self.args.dim)
        nearest = (
            f"SELECT id FROM entries WHERE deleted_at IS NULL AND dim = {self.args.dim} {{}}"
            f" ORDER BY embedding::vector({self.args.dim}) <=> ? LIMIT 10"
        )
        for candidates in (40, EF_SEARCH_MIN, 200):
            hnsw_times, hits = self.hnsw(pg, nearest, candidates, queries, exact)
            label = f"top-10 of all {self.args.entries:,}: numpy exact / HNSW ef_search {candidates}"
            self.row(f"{label}, p50 / p95 (ms)", percentiles(numpy_times), percentiles(hnsw_times))
            self.row("  its recall@10 vs exact", 1.0, hits)
        _, far = self.queries(self.args.query_noise * np.sqrt(self.args.dim))
        far_exact = [{int(i) for i in np.argsort(-(self.matrix @ query))[:10]} for query in far]
        for candidates in (EF_SEARCH_MIN, EF_SEARCH_MAX):
            hits = self.hnsw(pg, nearest, candidates, far, far_exact)[1]
            self.row(
                f"  the same with the old queries (cosine ~0.17 to their entry), ef_search {candidates}",
                1.0,
                hits,
            )
        pg.db.execute(f"SET hnsw.ef_search = {EF_SEARCH_MAX}")
        returned = [
            len(pg.db.execute(nearest.format("AND namespace = 'agent-0'"), (query,)).fetchall())
            for query in queries[:20]
        ]
        self.row(
            f"HNSW kept to one namespace of {self.per:,} by its filter, ef_search {EF_SEARCH_MAX}: rows of 10",
            None,
            statistics.mean(returned),
        )
        pg.close()

    @staticmethod
    def hnsw(
        pg: PgStore, nearest: str, candidates: int, queries: np.ndarray, exact: list[set[int]]
    ) -> tuple[list[float], float]:
        """Seconds per query and recall@10 of the HNSW scan at this ef_search."""
        pg.db.execute(f"SET hnsw.ef_search = {candidates}")
        times, hits = [], []
        for query, truth in zip(queries, exact, strict=True):
            started = time.perf_counter()
            found = pg.db.execute(nearest.format(""), (query,)).fetchall()
            times.append(time.perf_counter() - started)
            hits.append(len(truth & {int(row[0]) - 1 for row in found}) / 10)
        return times, statistics.mean(hits)

    def gate(self) -> None:
        count = self.args.gate_entries
        matrix = vectors(count, self.args.dim, self.args.seed + 7)
        rows = entries(count, "gate", self.args.seed + 7)
        settings = ForgettingConfig(min_entries=0)

        def nightly(store: SidecarStore) -> float:
            write(store, rows, matrix, 5_000)
            return timed(
                lambda: run_pass(store, VectorIndex.from_store(store, self.args.dim), settings, EMBEDDER, NOW)
            )

        sqlite = Store.open(self.folder / "gate.db")
        pg = PgStore.open(self.dsn, "gate", self.args.dim)
        self.row(f"SleepGate nightly pass, one namespace of {count:,} (s)", nightly(sqlite), nightly(pg))
        sqlite.close()
        pg.close()

    def writers(self, when: str, run: str) -> None:
        count, each = self.args.writers, self.args.writer_entries
        figures = {}
        for kind in ("sqlite", "postgres") if run == "a" else ("postgres",):
            target = str(self.folder / "writers.db") if kind == "sqlite" else self.dsn
            progress(f"{count} {kind} writers, {when}")
            started = time.perf_counter()
            with multiprocessing.get_context("spawn").Pool(count) as pool:
                jobs = [(kind, target, f"writer-{run}-{n}", n, each, self.args.dim) for n in range(count)]
                pool.starmap(_writer, jobs)
            seconds = time.perf_counter() - started
            store = Store.open(target) if kind == "sqlite" else PgStore(connect(target), target, "w")
            total, distinct = store.db.execute(
                "SELECT count(*), count(DISTINCT scope || '/' || source_key || '/' || line_start)"
                f" FROM entries WHERE scope LIKE 'writer-{run}-%'"
            ).fetchone()
            store.close()
            figures[kind] = (seconds, f"{count * each - distinct} / {total - distinct}")
        sqlite = figures.get("sqlite", (None, None))
        label = f"{count} writers x {each:,} entries ({when})"
        self.row(f"{label}: seconds", sqlite[0], figures["postgres"][0])
        self.row(f"{label}: rows lost / duplicated", sqlite[1], figures["postgres"][1])

    def row(self, what: str, sqlite: Any, postgres: Any) -> None:
        def shown(value: Any) -> str:
            if value is None:
                return "-"
            if isinstance(value, tuple):
                return " / ".join(f"{v:.1f}" for v in value)
            return f"{value:.3f}" if isinstance(value, float) else str(value)

        print(f"| {what} | {shown(sqlite)} | {shown(postgres)} |", flush=True)


def progress(message: str) -> None:
    """A line on stderr (the table goes to stdout), with the time and the load average."""
    print(
        f"{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}: {message}", file=sys.stderr, flush=True
    )


def _writer(kind: str, target: str, scope: str, number: int, each: int, dim: int) -> None:
    store: SidecarStore = (  # the schema is there; PgStore.open would also make the HNSW index
        Store.open(target) if kind == "sqlite" else PgStore(connect(target), target, scope)
    )
    write(store, entries(each, scope, number), vectors(each, dim, 100 + number), 500)
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--namespaces", type=int, default=100)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--gate-entries", type=int, default=10_000)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--writer-entries", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--query-noise", type=float, default=0.3, help="a query's distance from its entry")
    parser.add_argument("--build-memory", default="4GB", help="maintenance_work_mem for the HNSW build")
    parser.add_argument("--dsn", help="a Postgres with pgvector; default: a fresh pgserver in a temp folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-postgres-") as temp:
        folder = Path(temp)
        server = None
        dsn = args.dsn
        if dsn is None:
            import pgserver

            server = pgserver.get_server(folder / "pg", cleanup_mode="stop")
            dsn = server.get_uri()
        bench = Bench(args, dsn, folder)
        print(f"{args.entries:,} entries (d = {args.dim}) over {args.namespaces:,} namespaces; load average")
        print(f"{os.getloadavg()[0]:.1f} at the start ({os.cpu_count()} cores)\n")
        print("| measure | SQLite | Postgres + pgvector |\n|---|---|---|")
        bench.build()
        bench.recall()
        bench.gate()
        bench.writers("HNSW index built", "b")
        print(f"\nload average {os.getloadavg()[0]:.1f} at the end")
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
