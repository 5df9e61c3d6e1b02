"""Noise does not bloat the sidecar: items NREM discarded as heartbeat, routine reading or debug output
are indexed once per shape (README, "Vector sidecar"); real items and rare noise stay recallable."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import Config
from memory_sleep.sidecar import sources
from memory_sleep.workspace.layout import Workspace

from .conftest import run_offline
from .sidecar_helpers import make_workspace, open_at, with_store

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

REAL = [
    "- Decided: the billing export moves to Postgres 16 next sprint; Raj signs off the cutover.",
    "- Lesson: the nightly import fails silently when the S3 token expires; check the token age first.",
    "- Maria Chen is the new contact for the Orion contract renewal.",
]


def _noisy_note(lines: int) -> str:
    out = ["# 2026-11-24", "", "## Log", ""]
    for n in range(lines):
        stamp = f"{n // 60 % 24:02d}:{n % 60:02d}:{n * 7 % 60:02d}"
        out.append(
            [
                f"{stamp} HEARTBEAT_OK",
                f"- Build: #{3000 + n:,} green (7m{n % 60:02d}s)",
                f"- disk on db-0{n % 4}: {40 + n % 50}% used",
                f"- Backup: ok, {10 + n % 30}.{n % 10} GB",
                f"{stamp} [DEBUG] poll worker={n % 16} queue=0 latency={n % 90}ms",
            ][n % 5]
        )
        if n % 400 == 200:
            out.append(REAL[n // 400 % len(REAL)])
        if n == 1_234:
            out.append(f"{stamp} heartbeat failed: gateway timeout on web-2, restarted")
    return "\n".join(out) + "\n"


def test_discarded_noise_is_not_embedded_nor_returned_by_default_and_the_sidecar_stays_small(
    tmp_path: Path, sidecar_store: str
) -> None:
    folder = make_workspace(tmp_path, {"2026-11-24.md": _noisy_note(3_000)})
    run_offline(folder, today=date(2026, 11, 24), config=with_store(Config()))
    with open_at(folder) as sidecar:
        store = sidecar.store
        if sidecar_store == "sqlite":
            store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        texts = [text for (text,) in store.db.execute("SELECT text FROM entries WHERE embedding IS NOT NULL")]
        hits = sidecar.recall("when does the billing export move to Postgres?", k=3)
        failed = sidecar.recall("when did the heartbeat fail?", k=3, include_discarded=True)
        routine = sidecar.recall("HEARTBEAT_OK", k=3, include_discarded=True)
        by_default = sidecar.recall("HEARTBEAT_OK", k=10)
    for noise in ("HEARTBEAT_OK", "[DEBUG]", "Backup: ok", "green ("):
        assert len([t for t in texts if noise in t]) == 1, noise
    assert any("Postgres 16" in t for t in texts) and len(texts) < 40
    assert "Postgres 16" in hits[0].text
    assert "heartbeat failed" in failed[0].text
    assert "HEARTBEAT_OK" in routine[0].text
    assert not [hit for hit in by_default if "HEARTBEAT_OK" in hit.text]  # discarded: out by default
    if sidecar_store == "sqlite":
        note = folder / "memory" / "2026-11-24.md"
        database = folder / "memory" / ".sleep" / "sidecar.db"
        assert database.stat().st_size < 10 * note.stat().st_size


def test_a_note_is_indexed_one_item_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sidecar reads a note's items as a stream: it never asks for the list of all of them."""
    folder = make_workspace(tmp_path, {"2026-11-24.md": _noisy_note(600)})
    run_offline(folder, today=date(2026, 11, 24))

    def whole_note(*_: object) -> None:
        raise AssertionError("the sidecar asked for every item of the note at once")

    monkeypatch.setattr(sources, "parse_note_text", whole_note)
    source = next(s for s in sources.source_files(Workspace.open(folder)) if s.kind == "note")
    text = source.path.read_text(encoding="utf-8")
    items = sources.read_items(source, text, sources.noise_ids(Workspace.open(folder), source))
    assert sum("HEARTBEAT_OK" in item.text for item in items) == 1
    assert any(item.text == REAL[0] for item in items)
