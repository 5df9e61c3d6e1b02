"""`forget-scope`: everything of one scope goes for good, from every file, the sidecar and its WAL,
the caches and the snapshots; nothing of the other scopes goes; undo cannot bring it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.forget import ForgetError, forget_scope
from memory_sleep.workspace.writer import SafeWriter

from .conftest import snapshot_tree
from .forget_helpers import ALICE_WORDS, SHARED, erasures, holding


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def _caches_holding_alice(folder: Path) -> None:
    """What a run with an LLM or agent engine leaves: a cached answer and a pending request."""
    state = folder / "memory" / ".sleep"
    (state / "llm-cache" / "ab").mkdir(parents=True)
    (state / "llm-cache" / "ab" / "ab12.json").write_text('{"answer": {"text": "Zorbleck ledger"}}')
    (state / "agent" / "pending").mkdir(parents=True)
    (state / "agent" / "pending" / "r1.json").write_text('{"prompt": "... quokkavault ..."}')
    reviews = [{"strategy": "contradiction", "texts": [text], "reason": "uncertain"} for text in REVIEWED]
    (state / "gc-review.json").write_text(json.dumps(reviews))


REVIEWED = (
    "Alice keeps the Zorbleck ledger in the quokkavault bucket, not Drive (legal asked).",
    "Atlas cutover dry run moves to Friday",
)


def test_forget_scope_leaves_no_byte_of_the_scope_anywhere(workspace: Path) -> None:
    assert "MEMORY.md" in holding(workspace) and "memory/.sleep/sidecar.db" in holding(workspace)
    writer = SafeWriter(workspace, workspace / "memory" / ".sleep" / "snapshots")
    last_run = writer.manifests()[-1].run_id
    assert any(path.startswith(f"memory/.sleep/snapshots/{last_run}/") for path in holding(workspace))
    code, _ = _cli("recall", "Zorbleck ledger", str(workspace), "--scope", "alice")
    assert code == 0
    _caches_holding_alice(workspace)

    code, output = _cli("forget-scope", "alice", str(workspace), "--yes", "--today", "2026-11-26")

    assert code == 0, output
    assert holding(workspace) == {}  # the whole tree: notes, markdown, state, snapshots, db, WAL, caches
    wal = workspace / "memory" / ".sleep" / "sidecar.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    assert "Checked: none of it is left in any file under the workspace" in output
    assert f"rewritten without it (undo of those runs cannot bring it back): {last_run}" in output
    # bob's line (alice wrote it too) and everything of the default scope stay
    assert SHARED in (workspace / "memory" / "2026-11-12-bob.md").read_text()
    assert SHARED.rstrip(".") in (workspace / "MEMORY.md").read_text()
    assert "Atlas cutover dry run" in (workspace / "MEMORY.md").read_text()
    reviews = json.loads((workspace / "memory" / ".sleep" / "gc-review.json").read_text())
    assert [review["texts"] for review in reviews] == [[REVIEWED[1]]]  # the default scope's stays
    assert not (workspace / "memory" / "2026-11-10-ledger.md").exists()
    record = erasures(workspace)[0]
    assert record["action"] == "forget-scope" and record["scope"] == "alice"
    removed = record["removed"]
    assert isinstance(removed, dict)
    assert set(removed) == {"notes", "entries_and_lines", "sidecar_entries", "logged_queries", "cache_files"}
    # cache files: the candidate step's kept vectors and REM's parse of archive.md among them
    assert (removed["notes"], removed["logged_queries"], removed["cache_files"]) == (2, 1, 6)
    stats = json.loads(_cli("stats", str(workspace), "--json")[1])
    assert "alice" not in stats["by_scope"] and "bob" in stats["by_scope"]
    assert stats["queries_logged"] == 0

    # undo of the last run still works, without --force, and restores the rewritten snapshot
    code, output = _cli("undo", str(workspace))
    assert code == 0, output
    assert holding(workspace) == {}


def test_forget_scope_dry_run_says_what_and_changes_nothing(workspace: Path) -> None:
    before = snapshot_tree(workspace)
    code, output = _cli("forget-scope", "alice", str(workspace), "--dry-run", "--json")
    assert code == 0, output
    report = json.loads(output)
    assert report["dry_run"] is True
    assert report["removed"]["notes"] == 2 and report["removed"]["sidecar_entries"] >= 8
    assert report["files"]["memory/2026-11-10-ledger.md"] == -1
    assert report["files"]["MEMORY.md"] >= 4
    assert snapshot_tree(workspace) == before
    assert "memory/.sleep/sidecar.db" in holding(workspace)


def test_forget_scope_asks_for_yes_and_refuses_the_wrong_scopes(workspace: Path) -> None:
    before = snapshot_tree(workspace)
    code, output = _cli("forget-scope", "alice", str(workspace))  # not a terminal: no prompt
    assert code == 2 and "add --yes to confirm" in output
    code, output = _cli("forget-scope", "alcie", str(workspace), "--yes")
    assert (
        code == 1 and "No note or entry has scope 'alcie'; the scopes here are alice, bob, default" in output
    )
    with pytest.raises(ForgetError, match="this workspace's own scope"):
        forget_scope(workspace, "default")
    assert snapshot_tree(workspace) == before


def test_forget_scope_from_python_reports_each_file(workspace: Path) -> None:
    report = forget_scope(workspace, "bob")
    assert report.files["memory/2026-11-12-bob.md"] == -1
    assert report.traces == []
    assert holding(workspace, ("Halvorsen",)) == {}
    assert holding(workspace, ALICE_WORDS)  # alice's text is untouched


def test_a_forget_stopped_half_way_is_finished_by_running_it_again(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(self: SafeWriter, changes: object) -> None:
        raise OSError("killed before the files were written")

    monkeypatch.setattr(SafeWriter, "erase", killed)
    with pytest.raises(OSError):
        forget_scope(workspace, "alice")
    assert "memory/2026-11-10-ledger.md" in holding(workspace)  # the notes are still there
    monkeypatch.undo()
    report = forget_scope(workspace, "alice")
    assert report.removed["notes"] == 2 and report.traces == []
    assert holding(workspace) == {}
