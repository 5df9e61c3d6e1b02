"""The safe writer: snapshots before writes, atomic writes, undo, crash recovery, pruning."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine

from memory_sleep.errors import UndoError, WorkspaceError
from memory_sleep.workspace import writer as writer_module
from memory_sleep.workspace.atomic import atomic_write, sha256
from memory_sleep.workspace.writer import FileChange, SafeWriter

from .conftest import REPO

OLD_MEMORY = b"# MEMORY.md\r\n\r\n## Facts\r\n- a (2026-01-01)   \r\n"
OLD_BRIEFING = b"old briefing \xe2\x9c\x93"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_bytes(OLD_MEMORY)
    (workspace / "memory" / "briefing.md").write_bytes(OLD_BRIEFING)
    return workspace


def make_writer(root: Path, keep: int = 30) -> SafeWriter:
    return SafeWriter(root, root / "memory" / ".sleep" / "snapshots", keep=keep)


def snapshot_dir(root: Path, run_id: str) -> Path:
    return root / "memory" / ".sleep" / "snapshots" / run_id


def files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_apply_writes_snapshots_and_skips_unchanged_files(root: Path) -> None:
    writer = make_writer(root)
    manifest = writer.apply(
        "run-1",
        [
            FileChange("MEMORY.md", b"new memory\n"),
            FileChange("memory/briefing.md", OLD_BRIEFING),
            FileChange("memory/weekly/2026-W46.md", b"week\n"),
        ],
    )
    assert manifest is not None
    assert manifest.status == "done"
    assert [(f.path, f.before_sha256, f.after_sha256) for f in manifest.files] == [
        ("MEMORY.md", sha256(OLD_MEMORY), sha256(b"new memory\n")),
        ("memory/weekly/2026-W46.md", None, sha256(b"week\n")),
    ]
    assert (root / "MEMORY.md").read_bytes() == b"new memory\n"
    assert (root / "memory" / "weekly" / "2026-W46.md").read_bytes() == b"week\n"
    assert (root / "memory" / "briefing.md").read_bytes() == OLD_BRIEFING
    assert files_under(snapshot_dir(root, "run-1")) == ["files/MEMORY.md", "manifest.json"]
    assert (snapshot_dir(root, "run-1") / "files" / "MEMORY.md").read_bytes() == OLD_MEMORY
    assert [m.run_id for m in writer.manifests()] == ["run-1"]


def test_apply_with_nothing_to_change_returns_none_and_writes_nothing(root: Path) -> None:
    writer = make_writer(root)
    assert (
        writer.apply("run-1", [FileChange("MEMORY.md", OLD_MEMORY), FileChange("memory/none.md", None)])
        is None
    )
    assert writer.apply("run-2", []) is None
    assert not (root / "memory" / ".sleep").exists()


def test_undo_restores_exact_bytes_and_deletes_created_files(root: Path) -> None:
    writer = make_writer(root)
    writer.apply(
        "run-1",
        [
            FileChange("MEMORY.md", b"new memory\n"),
            FileChange("memory/briefing.md", None),
            FileChange("memory/weekly/2026-W46.md", b"week\n"),
        ],
    )
    assert not (root / "memory" / "briefing.md").exists()
    undone = writer.undo()
    assert undone.run_id == "run-1"
    assert undone.status == "undone"
    assert (root / "MEMORY.md").read_bytes() == OLD_MEMORY
    assert (root / "memory" / "briefing.md").read_bytes() == OLD_BRIEFING
    assert not (root / "memory" / "weekly" / "2026-W46.md").exists()
    assert [m.status for m in make_writer(root).manifests()] == ["undone"]


def test_undo_removes_the_folders_the_run_made_when_they_are_empty_again(root: Path) -> None:
    writer = make_writer(root)
    (root / "memory" / "keep").mkdir()  # an empty folder of the user's, there before the run
    writer.apply(
        "run-1",
        [
            FileChange("memory/weekly/2026-W46.md", b"week\n"),
            FileChange("memory/keep/x.md", b"x\n"),
            FileChange("memory/.sleep/notes/a/b.json", b"{}"),
        ],
    )
    writer.apply("run-2", [FileChange("memory/topics/t.md", b"t\n")])
    (root / "memory" / "topics" / "mine.md").write_bytes(b"written since\n")
    writer.undo()
    assert (root / "memory" / "topics" / "mine.md").read_bytes() == b"written since\n"
    writer.undo()
    assert not (root / "memory" / "weekly").exists()
    assert not (root / "memory" / ".sleep" / "notes").exists()
    assert (root / "memory" / "keep").is_dir()
    assert (root / "memory" / "topics").is_dir()


def test_undo_goes_back_one_run_at_a_time(root: Path) -> None:
    writer = make_writer(root)
    with pytest.raises(UndoError, match=r"^Nothing to undo: no completed run has a snapshot"):
        writer.undo()
    writer.apply("run-1", [FileChange("MEMORY.md", b"one\n")])
    writer.apply("run-2", [FileChange("MEMORY.md", b"two\n")])
    assert writer.undo().run_id == "run-2"
    assert (root / "MEMORY.md").read_bytes() == b"one\n"
    assert writer.undo().run_id == "run-1"
    assert (root / "MEMORY.md").read_bytes() == OLD_MEMORY
    with pytest.raises(UndoError) as caught:
        writer.undo()
    assert str(caught.value) == (
        "Nothing to undo: every run kept was undone already, back to run run-1. `memory-sleep run` runs again."
    )


def test_a_run_after_the_clock_was_set_back_is_still_the_one_undo_reverts(root: Path) -> None:
    writer = make_writer(root)
    with time_machine.travel(datetime(2026, 11, 25, 4, tzinfo=UTC), tick=False):
        first = writer.new_run_id()
        writer.apply(first, [FileChange("MEMORY.md", b"first\n")])
    with time_machine.travel(datetime(2026, 11, 24, 4, tzinfo=UTC), tick=False):  # a day back
        second = writer.new_run_id()
        writer.apply(second, [FileChange("MEMORY.md", b"second\n")])
    assert first < second and first.startswith("20261125T04")
    assert writer.undo().run_id == second
    assert (root / "MEMORY.md").read_bytes() == b"first\n"


def test_undo_refuses_when_a_file_was_edited_after_the_run(root: Path) -> None:
    writer = make_writer(root)
    writer.apply(
        "run-1", [FileChange("MEMORY.md", b"new memory\n"), FileChange("memory/weekly/w.md", b"week\n")]
    )
    (root / "MEMORY.md").write_bytes(b"hand edit\n")
    with pytest.raises(UndoError) as caught:
        writer.undo()
    assert str(caught.value).startswith(
        "Changed since run run-1: MEMORY.md. Undo would overwrite those edits;"
    )
    assert f"memory-sleep undo --force {root}`" in str(caught.value)  # to copy and run from anywhere
    assert (root / "MEMORY.md").read_bytes() == b"hand edit\n"
    assert (root / "memory" / "weekly" / "w.md").read_bytes() == b"week\n"
    assert [m.status for m in writer.manifests()] == ["done"]


def test_forced_undo_keeps_the_overwritten_version_under_the_snapshot(root: Path) -> None:
    writer = make_writer(root)
    writer.apply("run-1", [FileChange("MEMORY.md", b"new memory\n"), FileChange("memory/new.md", b"n\n")])
    (root / "MEMORY.md").write_bytes(b"hand edit\n")
    (root / "memory" / "new.md").write_bytes(b"edited too\n")
    writer.undo(force=True)
    assert (root / "MEMORY.md").read_bytes() == OLD_MEMORY
    assert not (root / "memory" / "new.md").exists()
    kept = [p for p in files_under(snapshot_dir(root, "run-1")) if p.startswith("overwritten-")]
    assert [p.split("/", 1)[1] for p in kept] == ["MEMORY.md", "memory/new.md"]
    folder = snapshot_dir(root, "run-1")
    assert {(folder / p).read_bytes() for p in kept} == {b"hand edit\n", b"edited too\n"}


def test_undo_accepts_a_file_already_back_to_its_old_bytes(root: Path) -> None:
    writer = make_writer(root)
    writer.apply("run-1", [FileChange("MEMORY.md", b"new\n"), FileChange("memory/briefing.md", b"b\n")])
    (root / "MEMORY.md").write_bytes(OLD_MEMORY)
    writer.undo()
    assert (root / "memory" / "briefing.md").read_bytes() == OLD_BRIEFING


def test_recover_rolls_back_a_run_left_writing(root: Path) -> None:
    writer = make_writer(root)
    writer.apply("run-1", [FileChange("MEMORY.md", b"new memory\n"), FileChange("memory/w.md", b"w\n")])
    manifest_path = snapshot_dir(root, "run-1") / "manifest.json"
    manifest_path.write_text(manifest_path.read_text().replace('"status": "done"', '"status": "writing"'))
    assert make_writer(root).recover() == ["run-1"]
    assert (root / "MEMORY.md").read_bytes() == OLD_MEMORY
    assert not (root / "memory" / "w.md").exists()
    assert [m.status for m in writer.manifests()] == ["rolled-back"]
    assert writer.recover() == []
    with pytest.raises(UndoError):
        writer.undo()


def test_recover_writes_only_the_files_the_run_changed(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run that failed before writing MEMORY.md (its folder read-only, say) is rolled back without
    writing MEMORY.md: the roll-back used to rewrite it, and failed there, leaving the run's briefing."""
    writer = make_writer(root)
    writer.apply(
        "run-1", [FileChange("MEMORY.md", b"new memory\n"), FileChange("memory/briefing.md", b"b\n")]
    )
    (root / "MEMORY.md").write_bytes(OLD_MEMORY)  # as if the run had stopped before this write
    manifest_path = snapshot_dir(root, "run-1") / "manifest.json"
    manifest_path.write_text(manifest_path.read_text().replace('"status": "done"', '"status": "writing"'))
    written: list[str] = []

    def recording(path: Path, data: bytes) -> None:
        written.append(path.relative_to(root).as_posix())
        atomic_write(path, data)

    monkeypatch.setattr(writer_module, "atomic_write", recording)
    assert make_writer(root).recover() == ["run-1"]
    assert "MEMORY.md" not in written and "memory/briefing.md" in written
    assert (root / "memory" / "briefing.md").read_bytes() == OLD_BRIEFING
    assert (root / "MEMORY.md").read_bytes() == OLD_MEMORY


def test_a_crash_between_writes_leaves_old_or_new_files_and_recover_restores_all(root: Path) -> None:
    (root / "memory" / "c.md").write_bytes(b"old c\n")
    script = (
        "import sys; from pathlib import Path; from memory_sleep.workspace.writer import FileChange, SafeWriter\n"
        "from tests.crash_launcher import crash_before_write\n"
        "crash_before_write(1)\n"
        "root = Path(sys.argv[1])\n"
        "SafeWriter(root, root / 'memory/.sleep/snapshots').apply('run-1', [\n"
        "    FileChange('MEMORY.md', b'new memory'), FileChange('memory/briefing.md', b'new briefing'),\n"
        "    FileChange('memory/c.md', b'new c')])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(root)], cwd=REPO, capture_output=True, timeout=60
    )
    assert done.returncode == 137, done.stderr
    old = {"MEMORY.md": OLD_MEMORY, "memory/briefing.md": OLD_BRIEFING, "memory/c.md": b"old c\n"}
    new = {"MEMORY.md": b"new memory", "memory/briefing.md": b"new briefing", "memory/c.md": b"new c"}
    now = {path: (root / path).read_bytes() for path in old}
    assert now == {
        "MEMORY.md": new["MEMORY.md"],
        **{p: old[p] for p in ["memory/briefing.md", "memory/c.md"]},
    }
    assert [path for path, data in now.items() if data not in (old[path], new[path])] == []
    assert [p.name for p in root.rglob("*.tmp")] == []
    writer = make_writer(root)
    assert [m.status for m in writer.manifests()] == ["writing"]
    assert writer.recover() == ["run-1"]
    assert {path: (root / path).read_bytes() for path in old} == old


def test_pruning_keeps_the_last_snapshots(root: Path) -> None:
    writer = make_writer(root, keep=2)
    for number in range(1, 5):
        writer.apply(f"run-{number}", [FileChange("MEMORY.md", f"v{number}\n".encode())])
    assert [m.run_id for m in writer.manifests()] == ["run-3", "run-4"]
    assert sorted(p.name for p in (root / "memory" / ".sleep" / "snapshots").iterdir()) == ["run-3", "run-4"]
    assert writer.undo().run_id == "run-4"
    assert (root / "MEMORY.md").read_bytes() == b"v3\n"


def test_writes_never_follow_a_symlink(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"outside\n")
    (root / "memory" / "briefing.md").unlink()
    os.symlink(outside, root / "memory" / "briefing.md")
    writer = make_writer(root)
    with pytest.raises(WorkspaceError) as caught:
        writer.apply("run-1", [FileChange("MEMORY.md", b"new\n"), FileChange("memory/briefing.md", b"x")])
    assert str(caught.value) == (
        "memory/briefing.md: is a link; memory-sleep never writes through links. Replace it with a file."
    )
    assert outside.read_bytes() == b"outside\n"
    assert (root / "MEMORY.md").read_bytes() == OLD_MEMORY
    assert writer.manifests() == []


def test_atomic_write_preserves_mode_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes(b"old")
    target.chmod(0o600)
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    created = tmp_path / "deep" / "er" / "new.md"
    atomic_write(created, b"")
    assert created.read_bytes() == b""
    assert stat.S_IMODE(created.stat().st_mode) == 0o644
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "deep",
        "deep/er",
        "deep/er/new.md",
        "notes.md",
    ]


def test_atomic_write_failure_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes(b"old")
    with pytest.raises(TypeError):
        atomic_write(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]


def test_undo_after_a_crashed_run_rolls_that_run_back_and_stops(root: Path) -> None:
    writer = make_writer(root)
    writer.apply("run-1", [FileChange("MEMORY.md", b"one\n")])
    writer.apply("run-2", [FileChange("MEMORY.md", b"two\n"), FileChange("memory/briefing.md", b"b2")])
    manifest_path = snapshot_dir(root, "run-2") / "manifest.json"
    manifest_path.write_text(manifest_path.read_text().replace('"status": "done"', '"status": "writing"'))
    (root / "memory" / "briefing.md").write_bytes(OLD_BRIEFING)  # the crash came before this write
    assert writer.undo().run_id == "run-2"
    assert (root / "MEMORY.md").read_bytes() == b"one\n"
    assert (root / "memory" / "briefing.md").read_bytes() == OLD_BRIEFING
    assert [m.status for m in writer.manifests()] == ["done", "rolled-back"]
    assert writer.recover() == []
    assert (root / "MEMORY.md").read_bytes() == b"one\n"


def test_recover_sweeps_temporary_files_left_by_a_killed_write(tmp_path: Path) -> None:
    from memory_sleep.workspace.writer import SafeWriter

    (tmp_path / "memory" / "weekly").mkdir(parents=True)
    leftover = tmp_path / "memory" / "weekly" / ".2026-W47.md.k3j_9xq2.tmp"
    leftover.write_text("half a file")
    top_leftover = tmp_path / ".MEMORY.md.abcd1234.tmp"
    top_leftover.write_text("half")
    user_file = tmp_path / "memory" / ".my-notes.tmp"  # not a name atomic_write makes: left alone
    user_file.write_text("mine")
    SafeWriter(tmp_path, tmp_path / "memory" / ".sleep" / "snapshots").recover()
    assert not leftover.exists() and not top_leftover.exists()
    assert user_file.read_text() == "mine"


def test_recover_sweeps_the_snapshots_and_drops_a_run_killed_before_its_manifest(root: Path) -> None:
    writer = make_writer(root)
    kept = writer.apply(writer.new_run_id(), [FileChange("MEMORY.md", b"one\n")])
    assert kept is not None
    half_manifest = (
        snapshot_dir(root, kept.run_id) / ".manifest.json.e3r84qt9.tmp"
    )  # killed while saving it again
    half_manifest.write_text("{")
    unbegun = snapshot_dir(root, "20261202T184159972297Z")  # killed while copying, before its manifest
    (unbegun / "files" / "memory").mkdir(parents=True)
    (unbegun / "files" / "memory" / ".briefing.md.a1b2c3d4.tmp").write_bytes(OLD_BRIEFING[:3])
    (unbegun / "files" / "MEMORY.md").write_bytes(b"one\n")
    stranger = snapshot_dir(root, "notes-by-hand")  # not a run's folder: left alone
    stranger.mkdir()

    assert writer.recover() == []

    assert not half_manifest.exists() and not unbegun.exists() and stranger.is_dir()
    assert [m.run_id for m in writer.manifests()] == [kept.run_id]
    writer.undo()
    assert (root / "MEMORY.md").read_bytes() == OLD_MEMORY
