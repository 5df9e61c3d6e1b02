"""Benchmark the vector sidecar: index build, recall latency, nightly increments, memory, recall@5.

Usage: python benchmarks/bench_sidecar.py [--sizes 10000 100000] [--queries 200] [--embedder hashing]

Each size runs in its own process (so peak memory is that size's own): a synthetic workspace of daily
notes (100 bullets a note, embedded by the default embedder, wordllama, unless --embedder says) is
indexed from scratch through the real pipeline (parse, embed, SQLite + FTS5, vector cache), then queried
through `Sidecar.recall` (embed, vector top-k, BM25, fusion, decay, query log, access counts: the whole
query), then a new note of 100 items is indexed. Recall@5 is measured on
benchmarks/data/recall_queries.json over a copy of fixtures/workspace. Times are medians unless the
column says otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memory_sleep.config import Config  # noqa: E402
from memory_sleep.sidecar import Embedder, OfflineEmbedder, open_sidecar  # noqa: E402
from memory_sleep.sidecar.search import Mode  # noqa: E402

QUERIES = REPO / "benchmarks" / "data" / "recall_queries.json"
FIXTURE = REPO / "fixtures" / "workspace"
COMMON = """deploy release staging billing invoice queue worker cluster database migration review design
customer cutover runbook rollback certificate budget latency crash build test sprint demo""".split()  # noqa: SIM905
CJK = "会议周四下午服务器证书过期发布测试数据库迁移账单客户设计评审"


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    syllables = [
        "ka",
        "lo",
        "mi",
        "ren",
        "tor",
        "vas",
        "el",
        "qui",
        "dan",
        "bor",
        "sul",
        "fen",
        "ra",
        "ix",
        "op",
    ]
    words = {"".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(size * 2)}
    return sorted(words)[:size]


def _sentence(rng: random.Random, vocabulary: list[str], weights: list[float]) -> str:
    if rng.random() < 0.05:
        start = rng.randrange(len(CJK) - 8)
        return CJK[start : start + rng.randint(6, 12)]
    words = rng.choices(vocabulary, weights=weights, k=rng.randint(8, 24))
    words += rng.sample(COMMON, 2)
    rng.shuffle(words)
    return " ".join(words)


def _write_notes(folder: Path, count: int, start: date, rng: random.Random, vocab: list[str]) -> list[str]:
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    texts = []
    notes = folder / "memory"
    notes.mkdir(parents=True, exist_ok=True)
    for index in range(0, count, 100):
        lines = [_sentence(rng, vocab, weights) for _ in range(min(100, count - index))]
        texts.extend(lines)
        day = start + timedelta(days=index // 100)
        name = f"{day.isoformat()}.md" if index // 100 < 3650 else f"{day.isoformat()}-{index}.md"
        (notes / name).write_text(f"# {day}\n\n" + "".join(f"- {line}\n" for line in lines), encoding="utf-8")
    return texts


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _embedder(name: str) -> Embedder:
    if name == "wordllama":
        from memory_sleep.sidecar.embed_wordllama import wordllama_embedder

        return wordllama_embedder(None)
    return OfflineEmbedder()


def measure_size(size: int, queries: int, embedder: str = "wordllama") -> dict[str, float]:
    """One size, in this process: build, recall latency, nightly increment, peak memory."""
    rng = random.Random(size)
    vocab = _vocabulary(rng, 20_000)
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
        texts = _write_notes(folder, size, date(2020, 1, 1), rng, vocab)
        now = datetime(2030, 1, 1, tzinfo=UTC).timestamp()
        config = Config()
        with open_sidecar(folder, config, _embedder(embedder), clock=lambda: now) as sidecar:
            started = time.perf_counter()
            report = sidecar.index()
            build = time.perf_counter() - started
            assert report.added == len(set(texts)) or report.added > 0.99 * size, report
        with open_sidecar(folder, config, _embedder(embedder), clock=lambda: now) as sidecar:
            started = time.perf_counter()
            sidecar.recall("warm up and load the vector cache", k=5)
            cold = time.perf_counter() - started
            probes = []
            for text in rng.sample(texts, queries):
                words = text.split()
                keep = max(1, len(words) // 2)
                probes.append(
                    " ".join(rng.sample(words, keep)) if len(words) > 1 else text[: max(2, len(text) // 2)]
                )
            timings: dict[Mode, list[float]] = {"hybrid": [], "vector": [], "text": []}
            cpu: list[float] = []
            for probe in probes:
                for mode in ("hybrid", "vector", "text"):
                    started, started_cpu = time.perf_counter(), time.process_time()
                    if mode == "hybrid":
                        sidecar.recall(probe, k=5)
                    else:
                        sidecar.search(probe, k=5, mode=mode)
                    timings[mode].append(time.perf_counter() - started)
                    if mode == "hybrid":
                        cpu.append(time.process_time() - started_cpu)
            nightly_folder = folder / "memory"
            nightly = []
            for night in range(3):
                day = date(2029, 6, 1) + timedelta(days=night)
                lines = [
                    f"nightly item {night}-{i} " + _sentence(rng, vocab, [1.0] * len(vocab))
                    for i in range(100)
                ]
                (nightly_folder / f"{day.isoformat()}.md").write_text(
                    "".join(f"- {line}\n" for line in lines), encoding="utf-8"
                )
                started = time.perf_counter()
                added = sidecar.index().added
                nightly.append(time.perf_counter() - started)
                assert added == 100, added
            sizes = sidecar.stats()["bytes_on_disk"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "entries": size,
        "build_s": build,
        "cold_first_recall_ms": cold * 1000,
        "recall_p50_ms": statistics.median(timings["hybrid"]) * 1000,
        "recall_p95_ms": _percentile(timings["hybrid"], 0.95) * 1000,
        "recall_cpu_p50_ms": statistics.median(cpu) * 1000,
        "vector_p50_ms": statistics.median(timings["vector"]) * 1000,
        "text_p50_ms": statistics.median(timings["text"]) * 1000,
        "nightly_100_s": statistics.median(nightly),
        "peak_rss_mb": peak,
        "disk_mb": sizes["total"] / 1e6 if isinstance(sizes, dict) else 0.0,
        "raw_vectors_mb": size * _embedder(embedder).dimensions * 4 / 1e6,
    }


def recall_at_5() -> dict[str, dict[str, tuple[int, int]]]:
    """Recall@5 per mode and split on the fixture retrieval set, with and without the thesaurus."""
    data = json.loads(QUERIES.read_text(encoding="utf-8"))
    now = datetime.fromisoformat(data["today"] + "T12:00:00+00:00").timestamp()
    results: dict[str, dict[str, tuple[int, int]]] = {}
    for label, embedder in (
        ("offline", OfflineEmbedder()),
        ("offline + thesaurus", OfflineEmbedder(use_lexicon=True)),
    ):
        with tempfile.TemporaryDirectory() as temporary:
            folder = Path(temporary) / "workspace"
            shutil.copytree(FIXTURE, folder)
            with open_sidecar(folder, Config(), embedder, clock=lambda: now) as sidecar:
                sidecar.index()
                for mode in ("vector", "text", "hybrid"):
                    counts: dict[str, list[int]] = {"dev": [0, 0], "test": [0, 0]}
                    for query in data["queries"]:
                        hits = sidecar.search(query["query"], k=5, mode=mode)  # type: ignore[arg-type]
                        found = any(
                            hit.source == answer["file"] and _squash(answer["contains"]) in _squash(hit.text)
                            for hit in hits
                            for answer in query["answers"]
                        )
                        counts[query["split"]][0] += int(found)
                        counts[query["split"]][1] += 1
                    results[f"{label} / {mode}"] = {
                        split: (hit, total) for split, (hit, total) in counts.items()
                    }
    return results


def _squash(text: str) -> str:
    return " ".join(text.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--embedder", choices=["hashing", "wordllama"], default="wordllama")
    parser.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_size:
        print(json.dumps(measure_size(args.one_size, args.queries, args.embedder)))
        return
    load_before = os.getloadavg()[0]
    rows = []
    for size in args.sizes:
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--one-size",
                str(size),
                "--queries",
                str(args.queries),
                "--embedder",
                args.embedder,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(child.stdout.strip().splitlines()[-1]))
    header = (
        "| entries | index build | nightly +100 | recall p50 | recall p95 | recall CPU p50 | vector p50 | BM25 p50 "
        "| cold first recall | peak RSS | raw vectors | on disk |"
    )
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    for row in rows:
        print(
            f"| {row['entries']:,} | {row['build_s']:.1f} s | {row['nightly_100_s']:.2f} s "
            f"| {row['recall_p50_ms']:.1f} ms | {row['recall_p95_ms']:.1f} ms | {row['recall_cpu_p50_ms']:.1f} ms "
            f"| {row['vector_p50_ms']:.1f} ms "
            f"| {row['text_p50_ms']:.1f} ms | {row['cold_first_recall_ms']:.0f} ms | {row['peak_rss_mb']:.0f} MB "
            f"| {row['raw_vectors_mb']:.0f} MB | {row['disk_mb']:.0f} MB |"
        )
    print(
        f"(load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} CPUs; "
        f"nice {os.nice(0)}: other processes slow every figure)"
    )
    print()
    print(f"Recall@5 on {QUERIES.relative_to(REPO)} (fixtures/workspace):")
    print("| embedder / mode | dev | test | all |")
    print("|---|---|---|---|")
    for label, splits in recall_at_5().items():
        dev, test = splits["dev"], splits["test"]
        hits, total = dev[0] + test[0], dev[1] + test[1]
        print(f"| {label} | {dev[0]}/{dev[1]} | {test[0]}/{test[1]} | {hits}/{total} = {hits / total:.2f} |")


if __name__ == "__main__":
    main()
