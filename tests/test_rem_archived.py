"""REM against entries that left MEMORY.md while still true: a new value for a fact trimmed for room
supersedes it, so the old value is recorded as replaced and the new one keeps its history."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memory_sleep.cycle import rem
from memory_sleep.engines.offline.integrate import OfflineIntegrator
from memory_sleep.models import KeptItem, NoteItem, Operation
from memory_sleep.workspace.archive import (
    ArchiveRecord,
    Ending,
    ended_statements,
    records_since,
    superseded_by_day,
)
from memory_sleep.workspace.memory_doc import Entry, MemoryDocument

from .conftest import run_offline
from .item_helpers import ScriptedIntegrator, integrate_and_apply

ARCHIVE = """# Archive

Entries memory-sleep removed from MEMORY.md, newest last, with the reason.

## 2026-09-30
- Old host web-1 is at 10.0.0.1 (2026-09-01) — from Facts; MEMORY.md over memory_max_bytes (16,384)

## 2026-10-28
- [Gra] ovh-gra-07 resolves to 10.9.24.84 internally (2026-10-17) — from Facts; MEMORY.md over memory_max_bytes (16,384)
- Beta lives at beta.internal (2026-10-02) — from Facts; superseded by memory/2026-10-20.md:4
- a line someone typed by hand
## 2026-13-45
- Gamma — from the wiki — uses Postgres 16 (2026-10-03) — from Facts; stale: no reference since 2026-10-03
"""


def _kept(text: str, item_id: str, day: date = date(2026, 11, 1)) -> KeptItem:
    item = NoteItem(
        id=item_id, file=f"memory/{day}.md", day=day, line_start=4, line_end=4, kind="bullet", text=text
    )
    return KeptItem(item=item, category="fact", topic=None)


def test_records_since_reads_the_tail_and_skips_what_is_not_a_record() -> None:
    records = list(records_since(ARCHIVE, date(2026, 10, 1)))
    assert [(r.day, r.entry) for r in records] == [
        (date(2026, 10, 28), "[Gra] ovh-gra-07 resolves to 10.9.24.84 internally (2026-10-17)"),
        (date(2026, 10, 28), "Beta lives at beta.internal (2026-10-02)"),
    ]  # before the cutoff, a hand-typed line, and records under a day that does not exist are left out
    assert [r.still_true for r in records] == [True, False]
    everything = list(records_since(ARCHIVE, date(2000, 1, 1)))
    assert everything[0].entry == "Old host web-1 is at 10.0.0.1 (2026-09-01)"


def test_a_record_keeps_an_em_dash_phrase_of_its_entry() -> None:
    text = "## 2026-10-28\n- Gamma — from the wiki — uses Postgres 16 (2026-10-03) — from Facts; stale: no reference since 2026-10-03\n"
    (record,) = records_since(text, date(2026, 10, 1))
    assert record.entry == "Gamma — from the wiki — uses Postgres 16 (2026-10-03)"
    assert record.section == "Facts" and record.still_true


def test_a_new_value_for_a_fact_trimmed_for_room_supersedes_it() -> None:
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n- Alpha runs on port 8080 (2026-10-01)\n")
    archived = list(records_since(ARCHIVE, date(2026, 10, 1)))
    kept = _kept("**ovh-gra-07 IP:** 10.9.86.105", "i1")
    result, applied = integrate_and_apply(
        [kept], document, OfflineIntegrator(), date(2026, 11, 2), 20, archived
    )
    assert (
        "- ovh-gra-07 IP: 10.9.86.105 (previously: ovh-gra-07 resolves to 10.9.24.84 internally) (2026-11-01)"
        in document.render()
    )
    assert applied.archived == [
        ArchiveRecord(
            date(2026, 11, 2),
            "Facts",
            "[Gra] ovh-gra-07 resolves to 10.9.24.84 internally (2026-10-17)",
            "superseded by memory/2026-11-01.md:4",
            Ending("superseded", date(2026, 11, 2), "memory/2026-11-01.md:4"),
        )
    ]
    assert result.counts()["supersede"] == 1 and result.counts()["add"] == 0


def test_a_new_value_of_a_key_supersedes_the_trimmed_entry_that_took_its_last_value() -> None:
    change = "[Pavo] Pavo billing got rewritten from Elixir 1.17 to TypeScript on Node 20 (2026-11-02)"
    archived = [
        ArchiveRecord(date(2026, 11, 20), "Facts", change, "MEMORY.md over memory_max_bytes (16,384)")
    ]
    replaced = {date(2026, 11, 2): ("Pavo billing language: Elixir 1.17", "Pavo billing owner: Ines")}
    kept = KeptItem(
        item=_kept("**Pavo billing language:** Go 1.22", "i1", date(2026, 11, 21)).item,
        category="fact",
        topic="Pavo",
    )
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n")
    _result, applied = integrate_and_apply(
        [kept], document, OfflineIntegrator(), date(2026, 11, 22), 20, archived, replaced=replaced
    )
    assert [(record.entry, record.reason) for record in applied.archived] == [
        (change, "superseded by memory/2026-11-21.md:4")
    ]


def test_what_each_days_note_superseded_is_read_from_the_places_its_records_name() -> None:
    day = date(2026, 11, 3)
    ended = [
        (
            "Pavo billing language: Elixir 1.17",
            Ending("superseded", day, "memory/2026-11-02-pavo-retro.md:4"),
        ),
        ("Pavo port: 5432", Ending("superseded", day, "memory/2026-11-02.md:9")),
        ("renew the Pavo cert", Ending("done", day, "memory/2026-11-02.md:5")),  # closed, not replaced
        ("Pavo region: ams", Ending("superseded", day, "MEMORY.md:14")),  # by an entry, no note's day
        ("Pavo owner: Ines", Ending("superseded", day, "memory/2026-13-45.md:3")),  # edited by hand
    ]
    statements = [(Entry(text=text, topic="Pavo", day=date(2026, 10, 1)), ending) for text, ending in ended]
    assert superseded_by_day(statements) == {
        date(2026, 11, 2): ("Pavo billing language: Elixir 1.17", "Pavo port: 5432")
    }


def test_an_archived_entry_is_offered_once_and_never_when_replaced_or_back_in_memory() -> None:
    trimmed = "[Gra] ovh-gra-07 resolves to 10.9.24.84 internally (2026-10-17)"
    replaced = ArchiveRecord(date(2026, 11, 2), "Facts", trimmed, "superseded by memory/2026-11-01.md:4")
    archived = [*records_since(ARCHIVE, date(2026, 10, 1)), replaced]
    integrator = ScriptedIntegrator([Operation(item_id="i1", op="add", text="Delta owner is Raj")])
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n")
    integrate_and_apply(
        [_kept("Delta owner is Raj", "i1")], document, integrator, date(2026, 11, 3), 20, archived
    )
    assert len(integrator.shown) == 1  # nothing archived is still true: no second call

    back = MemoryDocument.parse(f"# MEMORY.md\n\n## Facts\n- {trimmed}\n")
    integrator = ScriptedIntegrator([Operation(item_id="i1", op="add", text="Delta owner is Raj")])
    archived = list(records_since(ARCHIVE, date(2026, 10, 1)))
    integrate_and_apply(
        [_kept("Delta owner is Raj", "i1")], back, integrator, date(2026, 11, 3), 20, archived
    )
    assert len(integrator.shown) == 1


def test_a_live_entry_is_superseded_before_an_archived_one() -> None:
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n- ovh-gra-07 IP: 10.9.50.50 (2026-10-25)\n")
    archived = list(records_since(ARCHIVE, date(2026, 10, 1)))
    kept = _kept("**ovh-gra-07 IP:** 10.9.86.105", "i1")
    _result, applied = integrate_and_apply(
        [kept], document, OfflineIntegrator(), date(2026, 11, 2), 20, archived
    )
    assert "- ovh-gra-07 IP: 10.9.86.105 (previously: 10.9.50.50) (2026-11-01)" in document.render()
    assert [record.entry for record in applied.archived] == ["- ovh-gra-07 IP: 10.9.50.50 (2026-10-25)"]


def test_an_older_item_or_one_changed_again_leaves_the_archived_entry_alone() -> None:
    archived = list(records_since(ARCHIVE, date(2026, 10, 1)))
    old = _kept("ovh-gra-07 IP: 10.9.1.1", "i1", day=date(2026, 10, 10))  # older than the trimmed entry
    integrator = ScriptedIntegrator(
        [Operation(item_id="i1", op="add", text="ovh-gra-07 IP: 10.9.1.1")],
        [Operation(item_id="i1", op="supersede", target="A1", text="ovh-gra-07 IP: 10.9.1.1")],
    )
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n")
    _result, applied = integrate_and_apply([old], document, integrator, date(2026, 11, 2), 20, archived)
    assert "- ovh-gra-07 IP: 10.9.1.1 (2026-10-10)" in document.render() and applied.archived == []

    first, second = _kept("ovh-gra-07 IP: 10.9.2.2", "i1"), _kept("ovh-gra-07 IP: 10.9.3.3", "i2")
    integrator = ScriptedIntegrator(
        [
            Operation(item_id="i1", op="add", text="ovh-gra-07 IP: 10.9.2.2"),
            Operation(
                item_id="i2",
                op="supersede",
                target="i1",
                text="ovh-gra-07 IP: 10.9.3.3 (previously: 10.9.2.2)",
            ),
        ],
        [Operation(item_id="i1", op="supersede", target="A1", text="ovh-gra-07 IP: 10.9.2.2")],
    )
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n")
    _result, applied = integrate_and_apply(
        [first, second], document, integrator, date(2026, 11, 2), 20, archived
    )
    assert "10.9.3.3 (previously: 10.9.2.2)" in document.render()
    assert [record.reason for record in applied.archived] == ["superseded by memory/2026-11-01.md:4"]
    assert "10.9.24.84" not in document.render()


def test_a_run_supersedes_a_fact_its_archive_says_was_trimmed(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n\n## Facts\n- Alpha runs on port 8080 (2026-10-30)\n")
    (tmp_path / "memory" / "archive.md").write_text(ARCHIVE)
    (tmp_path / "memory" / "2026-11-01.md").write_text("# 2026-11-01\n\n- **ovh-gra-07 IP:** 10.9.86.105\n")
    run_offline(tmp_path, today=date(2026, 11, 2))
    assert (
        "ovh-gra-07 IP: 10.9.86.105 (previously: ovh-gra-07 resolves to 10.9.24.84 internally)"
        in (tmp_path / "MEMORY.md").read_text()
    )
    archive = (tmp_path / "memory" / "archive.md").read_text()
    assert archive.startswith(ARCHIVE)  # appended to, never rewritten
    assert archive.endswith(
        "## 2026-11-02\n- [Gra] ovh-gra-07 resolves to 10.9.24.84 internally (2026-10-17) — from Facts; "
        "superseded by memory/2026-11-01.md:3 [superseded 2026-11-02 by memory/2026-11-01.md:3]\n"
    )


def test_a_batch_that_adds_nothing_reads_no_archived_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only an added item may supersede an archived entry: a night that adds nothing does not parse
    the archive's records (thousands on a long history)."""

    def unwanted(*args: object) -> None:
        raise AssertionError("read the archived entries with nothing added")

    monkeypatch.setattr(rem, "_dormant", unwanted)
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n- Alpha runs on port 8080 (2026-10-01)\n")
    integrator = ScriptedIntegrator([Operation(item_id="i1", op="noop", target="E1", reason="said already")])
    result, _ = integrate_and_apply(
        [_kept("Alpha runs on port 8080", "i1")],
        document,
        integrator,
        date(2026, 11, 2),
        20,
        list(records_since(ARCHIVE, date(2026, 10, 1))),
    )
    assert result.counts()["noop"] == 1 and result.counts()["add"] == 0


def test_a_key_changed_in_a_sentence_and_then_told_as_the_key_again_keeps_only_the_newest(
    tmp_path: Path,
) -> None:
    notes = [
        "- **Pavo billing language:** Elixir 1.17",
        "- Pavo billing got rewritten from Elixir 1.17 to TypeScript on Node 20",
        "- **Pavo billing language:** Go 1.22",
    ]
    (tmp_path / "memory").mkdir()
    for number, line in enumerate(notes, start=1):
        day = date(2026, 11, number)
        (tmp_path / "memory" / f"{day}.md").write_text(f"---\nproject: Pavo\n---\n# {day}\n\n{line}\n")
        run_offline(tmp_path, today=day)
    memory = (tmp_path / "MEMORY.md").read_text()
    facts = memory.split("## Facts\n")[1].split("\n\n")[0].splitlines()
    assert facts == [
        "- [Pavo] Pavo billing language: Go 1.22 (previously: Pavo billing got rewritten from Elixir 1.17 to "
        "TypeScript on Node 20) (2026-11-03)"
    ]
    ended = [
        (entry.text, ending.by)
        for entry, ending in ended_statements((tmp_path / "memory" / "archive.md").read_text())
    ]
    assert ended == [
        ("Pavo billing language: Elixir 1.17", "memory/2026-11-02.md:6"),
        ("Pavo billing got rewritten from Elixir 1.17 to TypeScript on Node 20", "memory/2026-11-03.md:6"),
    ]
