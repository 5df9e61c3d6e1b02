"""Recall is fast as a whole process (it imports only what a query needs) and warm in the MCP server."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from memory_sleep.cli.main import VERB_MODULES, main
from memory_sleep.cli.mcp_server import WarmRecall
from memory_sleep.config import Config
from memory_sleep.sidecar.recall import open_sidecar
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.text import CJK_RANGES
from memory_sleep.workspace.layout import Workspace
from tests.sidecar_helpers import NOW, make_workspace, open_at

NOTES = {
    "2026-11-20.md": "- Orion staging server IP is 10.0.0.5\n- billing cutover moved to Friday\n",
    "2026-11-21.md": "- Orion booth code is 4411\n- Raj owns the Atlas job queue\n",
}

NOT_FOR_RECALL = (
    "memory_sleep.cycle.runner",
    "memory_sleep.engines.offline.classify",  # the engine's phases (recall reads changes with values.py)
    "memory_sleep.engines.offline.integrate",
    "memory_sleep.sidecar.index",
    "memory_sleep.workspace.notes",
    "memory_sleep.cli.gc",  # the modules of the other verbs, and what they import
    "memory_sleep.cli.forget",
    "memory_sleep.cli.setup",
    "memory_sleep.cli.redact",
    "memory_sleep.gc.actions",
    "markdown_it",
    "rich",
    "anthropic",
    "openai",
    "mcp",
    "pydantic",  # the config's models: recall reads the settings they validated last (sidecar/settings.py)
    "tokenizers",  # building its model of the tokenizer file: the query is read in Python (wordllama_tokens.py)
    "wordllama",  # its package imports requests and pydantic models for downloads (embed_wordllama.py)
    "requests",
    "httpx",
    "jinja2",
    "psycopg",
    "calendar",  # text.py finds a month's last day without it
    "memory_sleep.config",
    "memory_sleep.workspace.writer",
    "memory_sleep.sleepgate.forget",
)


PROBE = """
import json, re, sys
from pathlib import Path
compiled, compile = [], re.compile
re.compile = lambda pattern, flags=0: compiled.append(str(pattern)) or compile(pattern, flags)
parsed, read_bytes = [], Path.read_bytes
Path.read_bytes = lambda path: parsed.append(path.name) or read_bytes(path)
from memory_sleep.cli.main import main
main(["recall", "Orion booth code", sys.argv[1], "--dry-run"], standalone_mode=False)
import time
status = Path("/proc/self/status")
for _ in range(200):  # a joined thread's OS thread can linger a moment; a pool's threads stay
    threads = [line.split()[1] for line in status.read_text().splitlines() if line.startswith("Threads:")] if status.exists() else []
    if threads in ([], ["1"]):
        break
    time.sleep(0.01)
print(json.dumps({"modules": sorted(sys.modules), "compiled": compiled, "parsed": parsed, "threads": threads}))
"""


def _recall_in_a_new_process(tmp_path: Path, times: int = 1) -> tuple[str, dict[str, list[str]]]:
    """A recall of the NOTES in a fresh interpreter (`times` of them, one after the other): what the
    last printed, and what it imported, compiled (regular expressions), parsed (the tokenizer file)
    and ran on (threads, where /proc says)."""
    folder = make_workspace(tmp_path, NOTES)
    with open_sidecar(folder) as sidecar:  # the configured embedder, as recall's: nothing to re-embed
        sidecar.index()
    environment = {name: value for name, value in os.environ.items() if not name.endswith("_NUM_THREADS")}
    for _ in range(times):
        command = [sys.executable, "-c", PROBE, str(folder)]
        done = subprocess.run(command, capture_output=True, check=True, text=True, env=environment)
    *answer, seen = done.stdout.splitlines()
    return "\n".join(answer), json.loads(seen)


def test_the_recall_verb_imports_neither_the_cycle_nor_the_indexer_nor_sdks_nor_other_verbs(
    tmp_path: Path,
) -> None:
    answer, seen = _recall_in_a_new_process(tmp_path)
    assert "4411" in answer
    assert [name for name in NOT_FOR_RECALL if name in seen["modules"]] == []


def test_a_second_recall_reads_the_tokenizer_tables_its_workspace_keeps_on_the_main_thread_alone(
    tmp_path: Path,
) -> None:
    """Parsing the tokenizer file cost each recall process ~27 ms (wordllama_cache.py), and OpenBLAS's
    worker threads, which a query's mat-vec in blocks never wakes, ~20 ms of CPU to start."""
    answer, seen = _recall_in_a_new_process(tmp_path, times=2)
    assert "4411" in answer
    assert [name for name in seen["parsed"] if "tokenizer" in name] == []
    assert seen["threads"] in ([], ["1"])  # the full-text search's thread has finished with the recall


def test_a_recall_of_notes_without_cjk_compiles_no_cjk_pattern(tmp_path: Path) -> None:
    """Python compiles a class of the CJK blocks character by character: ~9 ms of a recall's start
    for the four patterns of memory_sleep/text.py, which notes in spaced scripts never need."""
    answer, seen = _recall_in_a_new_process(tmp_path)
    assert "4411" in answer
    assert [pattern for pattern in seen["compiled"] if CJK_RANGES in pattern] == []


def test_every_verb_of_a_module_of_its_own_is_in_verb_modules() -> None:
    for module in {*VERB_MODULES.values()}:
        importlib.import_module(f"memory_sleep.cli.{module}")
    elsewhere = {
        name: command.callback.__module__.rsplit(".", 1)[-1]
        for name, command in main.commands.items()
        if command.callback is not None and command.callback.__module__ != "memory_sleep.cli.main"
    }
    assert elsewhere == VERB_MODULES


def test_the_mcp_recall_keeps_one_sidecar_open_and_sees_what_a_run_indexes_later(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": "- Orion staging server IP is 10.0.0.5\n"})
    workspace = Workspace.open(folder)
    warm = WarmRecall()
    try:
        first = warm(workspace, "Orion staging server IP", 3, None)
        sidecar = warm._sidecar
        (folder / "memory" / "2026-11-21.md").write_text("- Orion booth code is 4411\n", encoding="utf-8")
        with open_at(folder, config=Config()) as other:  # a nightly run indexing in another process
            other.index()
        later = warm(workspace, "Orion booth code", 3, None)
        assert warm._sidecar is sidecar
    finally:
        warm.close()
    assert "10.0.0.5" in str(first[0]["text"])
    assert "4411" in str(later[0]["text"])


def test_a_cache_file_of_the_stores_generation_is_used_without_reading_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_workspace(tmp_path, NOTES)
    with open_at(folder) as sidecar:
        sidecar.index()
    with open_at(folder) as fresh:

        def unwanted(generation: int) -> None:
            raise AssertionError(f"read the vectors changed since {generation}, with none changed")

        monkeypatch.setattr(fresh.store, "vectors_changed_since", unwanted)
        hits = fresh.search("Orion booth code", k=1)
    assert "4411" in hits[0].text


def test_the_vectors_changed_since_a_generation_are_found_through_its_index(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, NOTES)
    with open_at(folder) as sidecar:
        sidecar.index()
        statements: list[str] = []
        sidecar.store.db.set_trace_callback(statements.append)
        sidecar.store.vectors_changed_since(0)
        sidecar.store.db.set_trace_callback(None)
        (query,) = [sql for sql in statements if "vector_generation" in sql]
        plan = " ".join(str(row[-1]) for row in sidecar.store.db.execute(f"EXPLAIN QUERY PLAN {query}"))
    assert "entries_by_vector_generation" in plan, plan  # not a scan of every row and its vector


def test_a_first_search_maps_the_cache_file_and_a_second_holds_the_vectors_in_memory(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, NOTES)
    with open_at(folder) as sidecar:
        sidecar.index()
    with open_at(folder) as fresh:
        first = fresh.vectors()
        second = fresh.vectors()
        rebuilt = VectorIndex.from_store(fresh.store, first.matrix.shape[1])
    assert isinstance(first.matrix, np.memmap)
    assert not isinstance(second.matrix, np.memmap)
    for index in (first, second):
        assert index.ids.tolist() == rebuilt.ids.tolist()
        assert np.array_equal(index.matrix, rebuilt.matrix)


def test_entries_forgotten_from_a_mapped_cache_leave_its_file_and_the_saved_index(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, NOTES)
    with open_at(folder) as sidecar:
        sidecar.index()
    (cache,) = (folder / "memory" / ".sleep").glob("sidecar-vectors-*.npy")
    before = cache.read_bytes()
    with open_at(folder) as probe:
        mapped = probe.vectors()
        gone = int(mapped.ids[0])
        left = mapped.drop([gone], mapped.generation)  # compacts the mapped matrix in place
    assert cache.read_bytes() == before  # copy on write: the file is not the index's scratch space
    with open_at(folder) as fresh:
        fresh.vectors()
        with fresh.store.transaction():
            fresh.store.soft_delete([gone], "forgotten", NOW)
        fresh.forget_vectors([gone])  # as a forgetting pass does, from the mapped file
    with open_at(folder) as later:
        saved = later.vectors()
        rebuilt = VectorIndex.from_store(later.store, saved.matrix.shape[1])
    assert gone not in left.ids.tolist()
    assert gone not in saved.ids.tolist()
    assert saved.ids.tolist() == rebuilt.ids.tolist()
    assert np.array_equal(saved.matrix, rebuilt.matrix)


def test_a_cache_is_patched_however_many_entries_were_deleted_since(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A garbage-collection pass may delete most of a long history's entries at once: the next load
    drops them from the cache file rather than reading every live vector again."""
    notes = {  # notes of a few kilobytes, as the index reads them
        f"2026-10-{day:02}.md": "".join(
            f"- ticket {day}-{number} closed by run {number * 7} on host {number % 13}\n"
            for number in range(100)
        )
        for day in range(1, 13)
    }
    folder = make_workspace(tmp_path, {**notes, **NOTES})
    with open_at(folder) as sidecar:
        sidecar.index()
        ids = [
            int(entry_id)
            for (entry_id,) in sidecar.store.db.execute("SELECT id FROM entries WHERE text LIKE '%ticket%'")
        ]
        with sidecar.store.transaction():
            sidecar.store.soft_delete(ids[:1150], "gc:ttl", NOW)
    with open_at(folder) as fresh:

        def unwanted(dimensions: int) -> None:
            raise AssertionError("read every live vector again after deletions alone")

        monkeypatch.setattr(fresh.store, "live_vectors", unwanted)
        patched = fresh.vectors()
        monkeypatch.undo()
        rebuilt = VectorIndex.from_store(fresh.store, patched.matrix.shape[1])
        hits = fresh.search("Orion booth code", k=1)
    assert len(ids) == 1200
    assert patched.ids.tolist() == rebuilt.ids.tolist()
    assert np.array_equal(patched.matrix, rebuilt.matrix)
    assert "4411" in hits[0].text
