"""Incremental indexing: edits update rows in place, nothing is duplicated, embedder changes re-embed."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from memory_sleep.config import Config
from memory_sleep.sidecar import FunctionEmbedder, OfflineEmbedder
from memory_sleep.sidecar.tokenize import stem
from memory_sleep.sidecar.vectors import VectorIndex

from .sidecar_helpers import NOW, make_workspace, open_at, rows

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

NOTE = """# 2026-11-20

## Atlas
- Raj created the atlas_jobs database on the shared RDS instance
- deployed billing-svc v0.10.0 to staging
- the load test passed with two worker VMs

17:00 HEARTBEAT_OK
"""


def _hashing(dimensions: int = 8) -> FunctionEmbedder:
    def vector(text: str) -> list[float]:
        digest = hashlib.sha256(text.encode()).digest()
        return [byte - 127.5 for byte in digest[:dimensions]]

    return FunctionEmbedder(vector, dimensions, id="sha")


def test_editing_a_note_updates_one_row_and_duplicates_none(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    embedder = _hashing()
    with open_at(folder, embedder) as sidecar:
        first = sidecar.index()
        before = {row[0]: row[2] for row in rows(sidecar.store)}
        assert first.added == len(before) == 4
        note = folder / "memory" / "2026-11-20.md"
        note.write_text(NOTE.replace("v0.10.0 to staging", "v0.10.1 to staging"), encoding="utf-8")
        embedder.seen.clear()
        second = sidecar.index()
        after = {row[0]: row[2] for row in rows(sidecar.store)}
    assert (second.added, second.updated, second.removed) == (0, 1, 0)
    assert after.keys() == before.keys()
    changed = [entry_id for entry_id in after if after[entry_id] != before[entry_id]]
    assert len(changed) == 1 and "v0.10.1" in after[changed[0]]
    assert len(embedder.seen) == 1 and "v0.10.1" in embedder.seen[0]


def test_each_row_keeps_the_vector_of_its_own_text_when_one_pass_rewrites_one_file_and_adds_to_another(
    tmp_path: Path,
) -> None:
    folder = make_workspace(
        tmp_path,
        {"2026-11-20.md": NOTE},
        memory="# MEMORY.md\n\n## Facts\n- Atlas runs on RDS (2026-11-19)\n",
    )
    embedder = _hashing()
    with open_at(folder, embedder) as sidecar:
        sidecar.index()
        memory = folder / "MEMORY.md"  # indexed first: its rewrite is embedded beside the note's insert
        memory.write_text(memory.read_text(encoding="utf-8").replace("RDS", "RDS Postgres"), encoding="utf-8")
        note = folder / "memory" / "2026-11-20.md"
        note.write_text(NOTE + "- Atlas queue moved to SQS\n", encoding="utf-8")
        second = sidecar.index()
        stored = sidecar.store.db.execute(
            "SELECT context, text, embedding FROM entries WHERE deleted_at IS NULL ORDER BY id"
        ).fetchall()
    assert (second.added, second.updated) == (1, 1)
    for context, text, blob in stored:
        expected = embedder.embed([f"{context}: {text}" if context else text])[0]
        assert np.allclose(np.frombuffer(bytes(blob), dtype="<f4"), expected), text


@pytest.mark.sqlite_only  # the SQLite file, its vector cache or its FTS5 table
def test_an_unchanged_workspace_is_not_read_embedded_or_written(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    embedder = _hashing()
    with open_at(folder, embedder) as sidecar:
        sidecar.index()
    database = folder / "memory" / ".sleep" / "sidecar.db"
    snapshot = database.read_bytes()
    calls = embedder.usage.calls
    with open_at(folder, embedder) as sidecar:
        report = sidecar.index()
    assert (report.sources_read, report.changed, embedder.usage.calls) == (0, False, calls)
    assert database.read_bytes() == snapshot


def test_lines_shifting_moves_rows_without_re_embedding(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    embedder = _hashing()
    with open_at(folder, embedder) as sidecar:
        sidecar.index()
        (folder / "memory" / "2026-11-20.md").write_text(
            NOTE.replace("## Atlas\n", "## Atlas\n\n\n"), encoding="utf-8"
        )
        embedder.seen.clear()
        report = sidecar.index()
        lines = sorted(row.line_start for row in sidecar.store.entries_of_source("note:2026-11-20.md"))
    assert (report.added, report.updated, report.moved) == (0, 0, 4)
    assert embedder.seen == []
    assert lines == [6, 7, 8, 10]


def test_a_removed_item_is_soft_deleted_and_comes_back_when_restored_to_the_file(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    note = folder / "memory" / "2026-11-20.md"
    with open_at(folder, _hashing()) as sidecar:
        sidecar.index()
        note.write_text(NOTE.replace("- the load test passed with two worker VMs\n", ""), encoding="utf-8")
        assert sidecar.index().removed == 1
        assert [row[3] for row in rows(sidecar.store, "deleted_at IS NOT NULL")] == ["item-removed"]
        note.write_text(NOTE, encoding="utf-8")
        report = sidecar.index()
        assert (report.added, report.restored) == (0, 1)
        assert rows(sidecar.store, "deleted_at IS NOT NULL") == []


def test_indexing_never_revives_an_entry_the_forgetting_pass_soft_deleted(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    with open_at(folder, _hashing()) as sidecar:
        sidecar.index()
        target = rows(sidecar.store)[0][0]
        with sidecar.store.transaction():
            sidecar.store.soft_delete([target], "forgotten", NOW, pass_id="p1")
        (folder / "memory" / "2026-11-20.md").write_text(NOTE + "\n- one more line\n", encoding="utf-8")
        sidecar.index()
        assert sidecar.store.fetch([target])[target].deleted_reason == "forgotten"
        assert len(rows(sidecar.store)) == 5


def test_a_deleted_note_soft_deletes_its_items_and_a_moved_note_keeps_them(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE, "2026-11-21.md": "- a second note\n"})
    with open_at(folder, _hashing()) as sidecar:
        sidecar.index()
        ids = [row[0] for row in rows(sidecar.store, "source_key = 'note:2026-11-20.md'")]
        archive = folder / "memory" / "archive" / "daily"
        archive.mkdir(parents=True)
        shutil.move(folder / "memory" / "2026-11-20.md", archive / "2026-11-20.md")
        (folder / "memory" / "2026-11-21.md").unlink()
        report = sidecar.index()
        moved = sidecar.store.fetch(ids)
    assert report.removed == 1 and report.added == 0
    assert {row.source_path for row in moved.values()} == {"memory/archive/daily/2026-11-20.md"}
    assert all(row.deleted_at is None for row in moved.values())


def test_changing_the_embedder_re_embeds_everything_and_never_mixes_dimensions(tmp_path: Path) -> None:
    folder = make_workspace(
        tmp_path, {"2026-11-20.md": NOTE}, "# MEMORY.md\n\n## Facts\n- Sprints are two weeks (2026-10-30)\n"
    )
    with open_at(folder, _hashing(8)) as sidecar:
        sidecar.index()
        with sidecar.store.transaction():
            sidecar.store.soft_delete([1], "forgotten", NOW)
    replacement = _hashing(16)
    with open_at(folder, replacement) as sidecar:
        report = sidecar.index()
        store = sidecar.store
        assert report.reembedded == 5
        assert len(replacement.seen) == 5
        assert {row for row in store.db.execute("SELECT DISTINCT embedder, dim FROM entries")} == {
            ("sha/16", 16)
        }
        assert store.meta("embedder") == "sha/16"
        assert sidecar.vectors().matrix.shape == (4, 16)
        assert len(sidecar.search("load test", k=3)) == 3


def test_repeated_lines_are_indexed_once(tmp_path: Path) -> None:
    note = "[heartbeat] no new messages\n\n[heartbeat] no new messages\n\n- real item\n"
    folder = make_workspace(tmp_path, {"2026-11-14.md": note})
    with open_at(folder, _hashing()) as sidecar:
        assert sidecar.index().added == 2


@pytest.mark.parametrize("empty", ["", "# 2026-11-15\n", "---\nscope: infra\n---\n", "\n\n"])
def test_a_note_of_no_item_is_indexed_as_nothing_and_the_others_are_indexed(
    tmp_path: Path, empty: str
) -> None:
    """A new user's empty note (or one holding a heading alone) failed the whole index ("zip() argument
    2 is longer than argument 1"): every run left the sidecar empty, and recall found nothing."""
    folder = make_workspace(
        tmp_path, {"2026-11-14.md": "- Quokka moves to Postgres\n", "2026-11-15.md": empty}
    )
    with open_at(folder, _hashing()) as sidecar:
        assert sidecar.index().added == 1
        assert [row[2] for row in rows(sidecar.store)] == ["- Quokka moves to Postgres"]


LONG_NOTE = "".join(
    f"- ticket {number} closed by run {number * 7} on host {number % 13}\n" for number in range(100)
)


@pytest.mark.sqlite_only  # the SQLite file, its vector cache or its FTS5 table
def test_the_patched_vector_cache_equals_a_rebuild_and_small_changes_leave_the_file(tmp_path: Path) -> None:
    """Changes to under 5% of the cached rows are patched on load, not written: a nightly increment
    never rewrites a large matrix file."""
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE, "2026-11-19.md": LONG_NOTE})
    state = folder / "memory" / ".sleep"
    with open_at(folder) as sidecar:
        sidecar.index()
        first_files = sorted(p.name for p in state.glob("sidecar-vectors-*"))
        sidecar.vectors()
        (folder / "memory" / "2026-11-20.md").write_text(
            NOTE.replace("v0.10.0", "v0.11.0").replace("- the load test passed with two worker VMs\n", ""),
            encoding="utf-8",
        )
        (folder / "memory" / "2026-11-21.md").write_text("- new note, new item\n", encoding="utf-8")
        sidecar.index()
        patched_in_process = sidecar.vectors()
        rebuilt = VectorIndex.from_store(sidecar.store, 384)
    with open_at(folder) as fresh:
        with fresh.store.transaction():
            fresh.store.soft_delete([int(rebuilt.ids[0])], "forgotten", NOW)
        patched_from_file = fresh.vectors()
        rebuilt_after_delete = VectorIndex.from_store(fresh.store, 384)
    assert first_files == ["sidecar-vectors-g2-d384.npy", "sidecar-vectors-g2-d384.rows"]
    assert sorted(p.name for p in state.glob("sidecar-vectors-*")) == first_files
    for patched, expected in ((patched_in_process, rebuilt), (patched_from_file, rebuilt_after_delete)):
        assert patched.generation == expected.generation
        assert patched.ids.tolist() == expected.ids.tolist()
        assert np.array_equal(patched.matrix, expected.matrix)


@pytest.mark.sqlite_only
def test_a_cache_patched_with_more_than_5_percent_of_its_rows_is_saved_for_the_next_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As after a first run, whose start cached the empty index: each recall read every row since
    from SQLite again until a thousand had changed."""
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    with open_at(folder) as sidecar:
        sidecar.index()
        (folder / "memory" / "2026-11-19.md").write_text(LONG_NOTE, encoding="utf-8")
        sidecar.index()  # the file of the first pass stays; the next load patches it
    with open_at(folder) as first:
        patched = first.vectors()
    with open_at(folder) as later:

        def unwanted(generation: int) -> None:
            raise AssertionError(f"read the vectors changed since {generation} again")

        monkeypatch.setattr(later.store, "vectors_changed_since", unwanted)
        saved = later.vectors()
        monkeypatch.undo()
        rebuilt = VectorIndex.from_store(later.store, 384)
    assert len(saved) == len(rebuilt) > 100 and saved.generation == patched.generation
    assert saved.ids.tolist() == rebuilt.ids.tolist()
    assert np.array_equal(saved.matrix, rebuilt.matrix)


def test_memory_md_entries_summaries_and_what_a_person_wrote_carry_their_lines(tmp_path: Path) -> None:
    """The intro and the sections the tool does not keep were not indexed: recall never found them."""
    memory = (
        "# MEMORY.md\n\nIntro by hand.\n\n## Decisions\n- [Atlas] Use Postgres for the job queue (2026-11-17)\n"
        "- Retro every other Thursday\n\n## Notes\n- the cat is called Miso\n\n### Wifi\n| net | pw |\n"
        "|---|---|\n| home | on the fridge |\n\n## Projects\n\n### Atlas\n- Status: cutover prep\n"
        "- Next: runbook\n"
    )
    folder = make_workspace(tmp_path, {}, memory)
    with open_at(folder, OfflineEmbedder()) as sidecar:
        sidecar.index()
        found = sidecar.store.entries_of_source("MEMORY.md")
    summary = [(row.kind, row.line_start, row.context, row.text, row.day) for row in found]
    assert summary == [
        ("memory", 3, "MEMORY.md", "Intro by hand.", None),
        ("memory", 6, "Decisions · Atlas", "Use Postgres for the job queue", "2026-11-17"),
        ("memory", 7, "Decisions", "Retro every other Thursday", None),
        ("memory", 10, "Notes", "- the cat is called Miso", None),
        ("memory", 13, "Notes · Wifi", "| net | pw |\n|---|---|\n| home | on the fridge |", None),
        ("project", 19, "Projects · Atlas", "Status: cutover prep; Next: runbook", None),
    ]


@pytest.mark.sqlite_only  # the SQLite file, its vector cache or its FTS5 table
def test_term_counts_follow_edits_exactly(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    note = folder / "memory" / "2026-11-20.md"
    with open_at(folder) as sidecar:
        sidecar.index()
        note.write_text(
            NOTE.replace("deployed billing-svc", "rolled out billing-svc") + "- staging is fine\n",
            encoding="utf-8",
        )
        sidecar.index()
        db = sidecar.store.db
        stored = dict(db.execute("SELECT term, docs FROM fts_terms WHERE docs > 0"))
        actual: dict[str, int] = {}
        for (tokens,) in db.execute("SELECT tokens FROM entries_fts"):
            for term in set(tokens.split()):
                actual[term] = actual.get(term, 0) + 1
    assert stored == actual
    assert "deploy" not in stored and stored["roll"] == 1 and stored[stem("staging")] == 2


@pytest.mark.sqlite_only  # the SQLite file's schema_migrations table
def test_a_store_indexed_before_the_vectors_were_realigned_is_re_embedded_once(tmp_path: Path) -> None:
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE})
    with open_at(folder) as sidecar:
        sidecar.index()
        sidecar.store.db.execute("DELETE FROM schema_migrations WHERE name = 'm008_realign_vectors'")
    with open_at(folder) as sidecar:
        first = sidecar.index()
        second = sidecar.index()
    assert (first.reembedded, second.reembedded) == (4, 0)


def test_the_tools_own_files_are_indexed_whatever_max_note_bytes_says(tmp_path: Path) -> None:
    # max_note_bytes guards against a pasted note; MEMORY.md (and archive.md, the weekly files) grow
    # with the years and were dropped from recall once past it ("Split the file", of a file the tool
    # writes itself)
    memory = (Path(__file__).parent.parent / "fixtures" / "expected" / "MEMORY.md").read_text(
        encoding="utf-8"
    )
    folder = make_workspace(tmp_path, {"2026-11-20.md": NOTE, "2026-11-21.md": NOTE + "x" * 2048}, memory)
    with open_at(folder, _hashing(), Config(max_note_bytes=2048)) as sidecar:
        report = sidecar.index()
        indexed = {row[1] for row in rows(sidecar.store)}
    assert len(memory.encode()) > 2048
    assert indexed == {"MEMORY.md", "note:2026-11-20.md"}
    assert report.warnings == [
        "memory/2026-11-21.md: 2,241 bytes, over max_note_bytes (2,048); not indexed. "
        "Split the file, or raise max_note_bytes in memory-sleep.toml."
    ]


SLASH_SECRET = "/92l1BNTL4IJZ4BqOrYhbADUuF14mG+WNpA5ydDa"  # one AWS secret in 64 starts with '/'


def _indexed_by_rules_that_missed_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A workspace whose sidecar an earlier release indexed: its rules missed the secret, which is
    stored in a live entry and in a soft-deleted one."""
    folder = make_workspace(
        tmp_path, {"2026-11-20.md": f"{NOTE}\n## AWS\n- aws_secret_access_key = {SLASH_SECRET}\n"}
    )
    with monkeypatch.context() as older:
        older.setattr("memory_sleep.sidecar.sources.redact_at", lambda text, file, line: text)
        older.setattr("memory_sleep.sidecar.index.RULES", "older")
        with open_at(folder, _hashing()) as sidecar:
            sidecar.index()
            (folder / "memory" / "2026-11-21.md").write_text(f"- aws_secret_access_key={SLASH_SECRET}\n")
            sidecar.index()
            (folder / "memory" / "2026-11-21.md").unlink()
            sidecar.index()
            assert len(rows(sidecar.store, f"text LIKE '%{SLASH_SECRET}%'")) == 2
    return folder


def test_a_secret_indexed_before_the_rules_found_it_is_redacted_in_place_on_the_next_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _indexed_by_rules_that_missed_it(tmp_path, monkeypatch)
    with open_at(folder, _hashing()) as sidecar:
        report = sidecar.index()
        stored = rows(sidecar.store, "text LIKE '%aws_secret%'")
        terms = sidecar.store.db.execute("SELECT term FROM fts_terms WHERE term LIKE '92l1%'").fetchall()
        again = sidecar.index()
    assert (report.redacted, report.added, report.updated, report.removed) == (2, 0, 0, 0)
    assert [(text, reason) for _, _, text, reason in stored] == [
        ("- aws_secret_access_key = [redacted secret, see memory/2026-11-20.md:11]", None),
        ("- aws_secret_access_key=[redacted secret, see memory/2026-11-21.md:1]", "source-removed"),
    ]
    note = (folder / "memory" / "2026-11-20.md").read_text(encoding="utf-8")
    with open_at(
        make_workspace(tmp_path / "fresh", {"2026-11-20.md": note}), _hashing()
    ) as fresh:  # what today's indexer stores for the note
        fresh.index()
        assert rows(fresh.store, "text LIKE '%aws_secret%'")[0][2] == stored[0][2]
    assert terms == []
    assert again.redacted == 0 and not again.changed


@pytest.mark.sqlite_only  # the SQLite file and its WAL
def test_no_copy_of_a_redacted_secret_stays_in_the_sidecar_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _indexed_by_rules_that_missed_it(tmp_path, monkeypatch)
    files = sorted((folder / "memory" / ".sleep").glob("sidecar.db*"))
    assert any(SLASH_SECRET.encode() in path.read_bytes() for path in files)
    with open_at(folder, _hashing()) as sidecar:
        assert sidecar.index().redacted == 2
    for path in sorted((folder / "memory" / ".sleep").glob("sidecar.db*")):
        content = path.read_bytes()
        assert SLASH_SECRET.encode() not in content and b"92l1bntl4ijz4bqo" not in content, path.name
