"""`purge --older-than AGE`: what was soft-deleted that long ago goes for good, with no byte of it left
in the sidecar, its WAL or anywhere under the workspace; what is younger, or still in its file, stays."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.sidecar import open_sidecar

from .conftest import run_offline, snapshot_tree
from .forget_helpers import OFFLINE, erasures, holding

T0 = datetime(2026, 11, 26, 12, tzinfo=UTC).timestamp()
GONE = "- Wibblefrost cache warmer needs 3 GB of RAM on the Kestrel box, says Ottoline.\n"
KEPT = "- The Kestrel box is rebooted every Sunday at 03:00 for patching.\n"


def _workspace(folder: Path) -> Path:
    """A run over the fixture; then a note line indexed, recalled and removed (soft-deleted on
    2026-11-26), and an entry SleepGate forgot whose item is still in its note."""
    (folder / "memory-sleep.toml").write_text('[sidecar]\nembedder = "offline"\n', encoding="utf-8")
    run_offline(folder, config=OFFLINE)
    note = folder / "memory" / "2026-11-26.md"
    note.write_text(f"# 2026-11-26\n{GONE}{KEPT}", encoding="utf-8")
    with open_sidecar(folder, OFFLINE, clock=lambda: T0) as sidecar:
        sidecar.index()
        hits = sidecar.recall("cache warmer RAM", k=3)  # the question is the user's, and stays
        assert "Wibblefrost" in hits[0].text
        kept = next(hit.id for hit in sidecar.recall("Kestrel rebooted Sunday", k=3) if "Sunday" in hit.text)
        sidecar.store.soft_delete([kept], "forgotten", T0)
        note.write_text(f"# 2026-11-26\n{KEPT}", encoding="utf-8")
        assert sidecar.index().removed == 1
    return folder


def _purge(folder: Path, *options: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["purge", str(folder), "--older-than", "90d", *options])
    return result.exit_code, result.output


def test_purge_dry_run_counts_only_what_is_old_enough(fixture_workspace: Path) -> None:
    folder = _workspace(fixture_workspace)
    before = snapshot_tree(folder, skip_state=False)
    code, output = _purge(folder, "--today", "2027-01-10", "--dry-run", "--json")
    assert code == 0, output
    assert json.loads(output)["removed"]["sidecar_entries"] == 0  # 45 days: too young
    code, output = _purge(folder, "--today", "2027-03-10", "--dry-run", "--json")
    report = json.loads(output)
    assert report["removed"]["sidecar_entries"] == 1
    assert report["warnings"] == [
        "1 soft-deleted entry kept: its item is still in its file, so purged it would be indexed again, live"
    ]
    assert snapshot_tree(folder, skip_state=False).keys() == before.keys()
    assert holding(folder, ("Wibblefrost",)) == {"memory/.sleep/sidecar.db": ["Wibblefrost"]}


def test_purge_leaves_no_byte_of_what_it_deletes(fixture_workspace: Path) -> None:
    folder = _workspace(fixture_workspace)
    code, output = _purge(folder, "--today", "2027-03-10")
    assert code == 2 and "add --yes to confirm" in output
    assert holding(folder, ("Wibblefrost",))

    code, output = _purge(folder, "--today", "2027-03-10", "--yes")

    assert code == 0, output
    assert output.startswith("Removed for good, entries soft-deleted over 90 days ago: 1 sidecar entry")
    assert holding(folder, ("Wibblefrost", "Ottoline")) == {}  # db, WAL, vector caches, everything
    wal = folder / "memory" / ".sleep" / "sidecar.db-wal"
    assert not wal.exists() or wal.stat().st_size == 0
    assert holding(folder, ("rebooted every Sunday",))["memory/.sleep/sidecar.db"]  # still in its note
    stats = json.loads(CliRunner().invoke(main, ["stats", str(folder), "--json"]).output)
    assert stats["soft_deleted"] == 1 and stats["queries_logged"] == 2  # the log keeps the questions
    record = erasures(folder)[0]
    assert (record["action"], record["olderThanDays"], record["removed"]) == (
        "purge",
        90.0,
        {"sidecar_entries": 1, "cache_files": record["removed"]["cache_files"]},  # type: ignore[index]
    )
