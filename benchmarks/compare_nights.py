"""Whether two source trees write the same nights: each runs bench_run's first night after the first run
and the night after it (offline engine, one new note each) on its own copy of the same kept workspace,
and the two workspaces are compared after each night, byte for byte but for what differs between any
two runs: sleep-log.json's clocks and run ids, snapshot folders named by run id, manifests' clocks and
the sleep log's digests, and the sidecar's stamps (any time in seconds; mtime_ns, last_indexed_at...).
Derived caches are compared by content where it is theirs (candidate-vectors.npz's vectors), else left
out (the sidecar's vector matrices, named by the store's generation: `recall` checks them).

    python benchmarks/bench_run.py --days 365 --keep /tmp/keep   # once: the kept first run
    python benchmarks/compare_nights.py --days 365 --keep /tmp/keep --trees /work/main .

Exits 1 when a night differs, printing what does. A schema migration's row in schema_migrations
shows as a difference: say so when it is the only one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_run import END

RUN_ID = re.compile(rb"\d{8}T\d{6}\d*Z(-\d+)?")
LEFT_OUT = ("lock", "recall-config.json", "sidecar.db-wal", "sidecar.db-shm")  # the database: by its rows
LEFT_OUT += ("archive-entries.json",)  # a run's parse of archive.md's lines, derived: a tree may keep none
LOG_CLOCKS = ("lastRun", "runId", "durationSeconds", "seconds")
META_CLOCKS = ("last_indexed_at", "gc_importance_rated_at")  # the index's wall clock, not --today's
CLOCK_RANGE = (1.6e9, 2.1e9)  # Unix seconds of 2020-2036: a stamp (or a day's noon: NULL still shows)


def run_night(tree: Path, workspace: Path, today: date) -> None:
    command = [sys.executable, "-m", "memory_sleep", "run", str(workspace), "--engine", "offline"]
    command += ["--today", today.isoformat(), "-q"]
    subprocess.run(command, check=True, env={**os.environ, "PYTHONPATH": str(tree)}, cwd=tree)


def differences(a: Path, b: Path) -> list[str]:
    left, right = _files(a), _files(b)
    found = [f"only in one: {name}" for name in sorted(left.keys() ^ right.keys())]
    for name in sorted(left.keys() & right.keys()):
        first, second = left[name].read_bytes(), right[name].read_bytes()
        if first != second and not _same(left[name], first, second, right[name]):
            found.append(f"differs: {name}")
    return found


def _files(root: Path) -> dict[str, Path]:
    return {
        RUN_ID.sub(b"RUN", str(path.relative_to(root)).encode()).decode(): path
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name not in LEFT_OUT and not path.name.startswith("sidecar-vectors-")
    }


def _same(path: Path, first: bytes, second: bytes, other: Path) -> bool:
    if path.name == "sleep-log.json":
        return _cleared(json.loads(first), LOG_CLOCKS) == _cleared(json.loads(second), LOG_CLOCKS)
    if path.name == "manifest.json":
        return _manifest(first) == _manifest(second)
    if path.suffix == ".db":
        rows, others = _rows(path), _rows(other)
        for table in sorted(rows.keys() | others.keys()):
            mine, theirs = set(rows.get(table, [])), set(others.get(table, []))
            if mine != theirs:
                first = sorted(mine ^ theirs)[0]
                print(
                    f"  {path.name}: {table}: {len(mine - theirs)} and {len(theirs - mine)} rows differ, e.g. {first[:200]}"
                )
        return rows == others
    if path.name == "candidate-vectors.npz":
        with np.load(path) as x, np.load(other) as y:
            return all(np.array_equal(x[key], y[key]) for key in ("embedder", "digests", "matrix"))
    return RUN_ID.sub(b"RUN", first) == RUN_ID.sub(b"RUN", second)


def _cleared(value: object, keys: tuple[str, ...]) -> object:
    if isinstance(value, dict):
        return {k: "-" if k in keys else _cleared(v, keys) for k, v in value.items()}
    if isinstance(value, list):
        return [_cleared(v, keys) for v in value]
    return value


def _manifest(data: bytes) -> object:
    manifest = json.loads(RUN_ID.sub(b"RUN", data))
    manifest["created"] = "-"
    for change in manifest.get("files", []):
        if str(change.get("path", "")).endswith("sleep-log.json"):
            change["before_sha256"] = change["after_sha256"] = "-"
    return manifest


def _rows(path: Path) -> dict[str, list[str]]:
    """Every table's rows (the full-text index's own tables aside: they follow `entries`), clocks masked."""
    tables: dict[str, list[str]] = {}
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        names = db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'entries_fts%'"
        )
        for (table,) in names.fetchall():
            columns = [row[1] for row in db.execute(f"PRAGMA table_info({table})")]
            rows = []
            for row in db.execute(f"SELECT * FROM {table}"):
                record = {
                    column: "-" if _clock(column, value) else value
                    for column, value in zip(columns, row, strict=True)
                }
                if table == "meta" and record.get("key") in META_CLOCKS:
                    record["value"] = "-"
                record.pop("embedding", None)  # the vector follows the text and the embedder
                text = RUN_ID.sub(b"RUN", json.dumps(record, sort_keys=True, default=str).encode()).decode()
                rows.append(text)
            tables[table] = sorted(rows)
    return tables


def _clock(column: str, value: object) -> bool:
    return column == "mtime_ns" or (isinstance(value, float) and CLOCK_RANGE[0] < value < CLOCK_RANGE[1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--note-kb", type=float, default=8.0)
    parser.add_argument("--keep", type=Path, required=True, help="bench_run.py's --keep folder")
    parser.add_argument("--trees", type=Path, nargs=2, required=True, help="two source trees")
    args = parser.parse_args()
    kept = args.keep / f"days-{args.days}-kb-{args.note_kb:g}"
    if not (kept / "ready").exists():
        sys.exit(
            f"{kept} holds no kept first run: run bench_run.py --keep {args.keep} --days {args.days} first."
        )
    nights = [END - timedelta(days=1), END]
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        spaces = []
        for number in range(len(args.trees)):
            space = Path(folder) / f"tree-{number}"
            shutil.copytree(kept / "workspace", space, symlinks=True)
            spaces.append(space)
        for night in nights:
            for tree, space in zip(args.trees, spaces, strict=True):
                for note in sorted((kept / "held").glob(f"{night.isoformat()}*.md")):
                    shutil.copy2(note, space / "memory" / note.name)
                run_night(tree.resolve(), space, night + timedelta(days=1))
            found = differences(*spaces)
            print(f"night of {night}: " + ("the same" if not found else "; ".join(found)))
            failed = failed or bool(found)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
