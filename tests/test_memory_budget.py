"""memory_max_bytes bounds what the tool writes and keeps; what a person wrote never counts against it."""

from __future__ import annotations

import shutil
from pathlib import Path

from memory_sleep.config import Config
from memory_sleep.cycle.guards import tool_bytes
from memory_sleep.workspace.memory_doc import MemoryDocument

from .conftest import FIXTURE_WORKSPACE, run_offline
from .handwritten import handwritten_memory


def _big_handwritten_workspace(tmp_path: Path) -> tuple[Path, str]:
    folder = tmp_path / "workspace"
    shutil.copytree(FIXTURE_WORKSPACE / "memory", folder / "memory")
    text = handwritten_memory(28_000)
    (folder / "MEMORY.md").write_text(text, encoding="utf-8")
    return folder, text


def _handwritten_lines_kept(before: str, after: str) -> bool:
    """Every hand-written line but the bullets of the tool's sections (which it may update) is still there."""
    kept = after.splitlines()
    return all(line in kept for line in before.splitlines() if not line.startswith("- "))


def test_a_first_run_on_a_big_handwritten_memory_runs_and_archives_nothing_of_it(tmp_path: Path) -> None:
    folder, before = _big_handwritten_workspace(tmp_path)
    report = run_offline(folder)
    after = (folder / "MEMORY.md").read_text(encoding="utf-8")
    assert (
        report.record.memoryMdSizeBefore > 28_000 and len(after.encode()) > report.record.memoryMdSizeBefore
    )
    assert _handwritten_lines_kept(before, after)
    assert all(line in after.splitlines() for line in before.splitlines() if line.startswith("- "))
    assert 0 < tool_bytes(MemoryDocument.parse(after)) <= Config().memory_max_bytes
    archive = folder / "memory" / "archive.md"
    assert not archive.exists() or "over memory_max_bytes" not in archive.read_text(encoding="utf-8")


def test_the_tools_additions_to_a_big_handwritten_memory_stay_within_memory_max_bytes(tmp_path: Path) -> None:
    folder, before = _big_handwritten_workspace(tmp_path)
    run_offline(folder, config=Config(memory_max_bytes=3072))
    after = (folder / "MEMORY.md").read_text(encoding="utf-8")
    assert _handwritten_lines_kept(before, after)
    assert 0 < tool_bytes(MemoryDocument.parse(after)) <= 3072
    assert "over memory_max_bytes (3,072)" in (folder / "memory" / "archive.md").read_text(encoding="utf-8")


def test_tool_bytes_counts_dated_entries_and_summary_fields_not_handwritten_text() -> None:
    text = (
        "# MEMORY.md\n\nA paragraph Ines wrote.\n\n## Facts\n- Hand-written, no date\n"
        "- Alpha runs on port 8080 (2026-11-01)\n\n## Projects\n\n### Atlas\nHer own prose.\n- Status: live\n"
    )
    assert tool_bytes(MemoryDocument.parse(text)) == len(
        "- Alpha runs on port 8080 (2026-11-01)\n### Atlas\n- Status: live\n"
    )
