"""Benchmark the sidecar on Postgres + pgvector beside SQLite, on the bundled server (pgserver).

Usage: nice python benchmarks/bench_postgres.py [--entries 100000] [--namespaces 100] [--dim 384]
       [--gate-entries 10000] [--writers 8] [--writer-entries 10000] [--queries 200] [--seed 0]
       [--dsn postgresql://...]   (default: a fresh pgserver in a temporary folder)

The issue's scale is `--entries 1000000 --namespaces 1000`. Entries are synthetic: clustered unit
vectors (so near neighbours exist, as among real notes) and a few words each. Prints one table:

- index build: every entry written through the store (its transactions and full-text terms), and
  on Postgres the HNSW index built afterwards;
- recall, in-process: one agent's hybrid recall (vector + full text, fused) in its namespace; the
  vector top-10 over the whole store with HNSW (Postgres) or the numpy matrix (SQLite), and
  HNSW's recall@10 against exact search;
- a SleepGate nightly pass (density from scratch, scoring, replay) on one namespace of 10k entries;
- N concurrent writers (processes) indexing 10k entries each: seconds, and rows lost or duplicated.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
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
from memory_sleep.sidecar.pg.store import PgStore, PgVectors, ensure_hnsw
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
        self.rows: dict[str, list[str]] = {}

    def namespace_rows(self, number: int) -> tuple[list[NewEntry], np.ndarray]:
        block = self.matrix[number * self.per : (number + 1) * self.per]
        return entries(self.per, f"agent-{number}", self.args.seed + number), block

    def build(self) -> None:
        first = PgStore.open(self.dsn, "agent-0", self.args.dim)
        first.db.execute(f"DROP INDEX entries_hnsw_{self.args.dim}")  # bulk load first, then build it
        first.close()

        def postgres() -> None:
            for number in range(self.args.namespaces):
                store = PgStore(connect(self.dsn), self.dsn, f"agent-{number}")  # open would make the index
                write(store, *self.namespace_rows(number))
                store.close()

        def sqlite() -> None:
            store = Store.open(self.folder / "bench.db")
            for number in range(self.args.namespaces):
                write(store, *self.namespace_rows(number))
            store.close()

        pg_write = timed(postgres)
        store = PgStore(connect(self.dsn), self.dsn, "agent-0")
        store.db.execute("SET maintenance_work_mem = '512MB'")
        pg_hnsw = timed(lambda: ensure_hnsw(store.db, self.args.dim))
        store.db.execute("ANALYZE entries")
        store.close()
        self.row("index build: write every entry (s)", timed(sqlite), pg_write)
        self.row("index build: HNSW index (s)", None, pg_hnsw)

    def recall(self) -> None:
        rng = np.random.default_rng(self.args.seed + 1)
        picks = rng.integers(0, self.args.entries, self.args.queries)
        queries = self.matrix[picks] + 0.3 * rng.standard_normal((len(picks), self.args.dim)).astype(
            np.float32
        )
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        sqlite = Store.open(self.folder / "bench.db")
        index = VectorIndex.from_store(sqlite, self.args.dim)
        local: dict[str, list[float]] = {"sqlite": [], "postgres": []}
        stores = [
            PgStore.open(self.dsn, f"agent-{n}", self.args.dim) for n in range(min(20, self.args.namespaces))
        ]
        for number, (pick, query) in enumerate(zip(picks, queries, strict=True)):
            pg = stores[number % len(stores)]
            text = " ".join(WORDS[w] for w in np.random.default_rng(int(pick)).integers(0, len(WORDS), 3))
            scope = f"agent-{number % len(stores)}"
            options = SearchOptions(k=10, scope=scope)
            local["postgres"].append(timed(partial(search, pg, PgVectors(pg), text, query, options, NOW)))
            local["sqlite"].append(timed(partial(search, sqlite, index, text, query, options, NOW)))
        self.row(
            "hybrid recall in one namespace, p50 / p95 (ms)",
            percentiles(local["sqlite"]),
            percentiles(local["postgres"]),
        )
        numpy_times = [timed(partial(index.top, query, 10)) for query in queries]
        exact = [{int(i) for i in np.argsort(-(self.matrix @ query))[:10]} for query in queries]  # id - 1
        pg = stores[0]
        for ef_search in (100, 400):
            pg.db.execute(f"SET hnsw.ef_search = {ef_search}")
            hnsw_times, hits = [], []
            for query, truth in zip(queries, exact, strict=True):
                started = time.perf_counter()
                found = pg.db.execute(
                    f"SELECT id FROM entries WHERE deleted_at IS NULL AND dim = {self.args.dim}"
                    f" ORDER BY embedding::vector({self.args.dim}) <=> ? LIMIT 10",
                    (query,),
                ).fetchall()
                hnsw_times.append(time.perf_counter() - started)
                hits.append(len(truth & {int(row[0]) - 1 for row in found}) / 10)
            self.row(
                f"vector top-10 over all {self.args.entries:,}, p50 / p95 (ms); HNSW ef_search={ef_search}",
                percentiles(numpy_times),
                percentiles(hnsw_times),
            )
            self.row(
                f"recall@10 vs exact (numpy: exact; HNSW m=16, ef_search={ef_search})",
                1.0,
                statistics.mean(hits),
            )
        for store in stores:
            store.close()
        sqlite.close()

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

    def writers(self) -> None:
        count, each = self.args.writers, self.args.writer_entries
        for kind in ("sqlite", "postgres"):
            target = str(self.folder / "writers.db") if kind == "sqlite" else self.dsn
            if kind == "sqlite":  # made first: eight processes creating one new file race its migrations
                Store.open(target).close()
            started = time.perf_counter()
            with multiprocessing.get_context("spawn").Pool(count) as pool:
                pool.starmap(_writer, [(kind, target, n, each, self.args.dim) for n in range(count)])
            seconds = time.perf_counter() - started
            store: SidecarStore = (
                Store.open(target) if kind == "sqlite" else PgStore.open(target, "w", self.args.dim)
            )
            where = "scope LIKE 'writer-%'"
            total, distinct = store.db.execute(
                f"SELECT count(*), count(DISTINCT scope || '/' || source_key || '/' || line_start) FROM entries WHERE {where}"
            ).fetchone()
            store.close()
            lost, duplicated = count * each - distinct, total - distinct
            setattr(self, kind + "_writers", (seconds, lost, duplicated))
        s, p = self.sqlite_writers, self.postgres_writers  # type: ignore[attr-defined]
        label = f"{count} writers x {each:,} entries"
        self.row(f"{label}: seconds", s[0], p[0])
        self.row(f"{label}: rows lost / duplicated", f"{s[1]} / {s[2]}", f"{p[1]} / {p[2]}")

    def row(self, what: str, sqlite: Any, postgres: Any) -> None:
        def shown(value: Any) -> str:
            if value is None:
                return "-"
            if isinstance(value, tuple):
                return " / ".join(f"{v:.1f}" for v in value)
            return f"{value:.3f}" if isinstance(value, float) else str(value)

        print(f"| {what} | {shown(sqlite)} | {shown(postgres)} |", flush=True)


def _writer(kind: str, target: str, number: int, each: int, dim: int) -> None:
    scope = f"writer-{number}"
    store: SidecarStore = Store.open(target) if kind == "sqlite" else PgStore.open(target, scope, dim)
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
        print(f"{args.entries:,} entries (d = {args.dim}) over {args.namespaces:,} namespaces\n")
        print("| measure | SQLite | Postgres + pgvector |\n|---|---|---|")
        bench.build()
        bench.recall()
        bench.gate()
        bench.writers()
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
