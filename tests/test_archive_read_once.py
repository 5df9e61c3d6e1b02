"""A run reads archive.md's entries once, however many of its steps read the archive: its planner,
GC, REM and the index after it (which reads the file the run appended to)."""

from __future__ import annotations

from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory_sleep.workspace import memory_doc
from memory_sleep.workspace.archive import archive_text, records_since
from memory_sleep.workspace.layout import Workspace
from tests.conftest import run_offline
from tests.validity_helpers import run_nights


def test_a_run_parses_each_archived_entry_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = run_nights(tmp_path)
    (folder / "memory" / "2026-11-19.md").write_text(
        "# 2026-11-19\n\n- Decided: Orion moves its backups to Glacier, replacing the tape archive\n",
        encoding="utf-8",
    )
    parsed: Counter[str] = Counter()
    real = memory_doc._parse_entry

    def counted(lines: list[str]) -> memory_doc.Entry | None:
        parsed[lines[0]] += 1
        return real(lines)

    monkeypatch.setattr(memory_doc, "_parse_entry", counted)
    run_offline(folder, today=date(2026, 11, 20))
    space = Workspace.open(folder)
    archived = {f"- {record.entry}" for record in records_since(space.archive.read_text("utf-8"), date.min)}
    in_memory = set(space.memory_md.read_text("utf-8").splitlines())
    counts = [parsed[line] for line in archived - in_memory]
    assert counts and max(counts) <= 1


# line endings of every kind, bytes that are not UTF-8, a character of several bytes (cut, too)
_PIECES = [
    b"\r",
    b"\n",
    b"\r\n",
    b"- a",
    b"## 2026-10-28",
    b"\xff",
    b"\xc3",
    b"\xc3\xa9",
    "\u2028".encode(),
    b"\xe2\x80",
]


@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_archive_text_is_what_reading_the_file_as_text_gives(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[bytes]
) -> None:
    path = tmp_path_factory.mktemp("archive") / "archive.md"
    path.write_bytes(b"".join(pieces))
    assert archive_text(path) == path.read_text(encoding="utf-8", errors="replace")
    path.unlink()
    assert archive_text(path) == ""
