"""The GC run applies any strategy's actions the same way: a stand-in for the strategies another
module builds (supersede, merge, review) shows each op taking effect, on both stores."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.config import Config
from memory_sleep.gc import registry
from memory_sleep.gc.actions import GcAction, GcContext, StrategyName
from memory_sleep.sidecar import OfflineEmbedder, open_sidecar
from memory_sleep.sidecar.display import hit_lines
from memory_sleep.sleepgate.session import restore
from memory_sleep.workspace.memory_doc import MemoryDocument

from .conftest import run_offline
from .gc_helpers import collect, deleted, noon
from .sidecar_helpers import make_workspace, open_at


@dataclass
class Scripted:
    """A strategy that returns what it is told, naming entries by their text."""

    name: StrategyName
    script: list[tuple[str, list[str], str | None, str | None]] = field(default_factory=list)

    def plan(self, context: GcContext) -> list[GcAction]:
        ids = {entry.text: entry.id for entry in context.entries}
        return [
            GcAction(
                strategy=self.name,
                op=op,  # type: ignore[arg-type]
                ids=[ids[text] for text in texts],
                into=ids[into] if into else None,
                text=statement,
                reason="scripted",
            )
            for op, texts, into, statement in self.script
            if all(text in ids for text in texts)
        ]


NOTES = {
    "2026-11-01.md": "- Raj owns the billing service\n- The cutover is on 12-01\n- Cutover happens December 1st\n",
    "2026-11-20.md": "- Tom owns the billing service now\n",
}


@pytest.mark.usefixtures("sidecar_store")
def test_supersede_and_merge_apply_to_the_sidecar_and_survive_indexing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(
        registry.REGISTRY,
        "contradiction",
        Scripted(
            "contradiction",
            [("supersede", ["- Raj owns the billing service"], "- Tom owns the billing service now", None)],
        ),
    )
    monkeypatch.setitem(
        registry.REGISTRY,
        "compaction",
        Scripted(
            "compaction",
            [
                (
                    "merge",
                    ["- The cutover is on 12-01", "- Cutover happens December 1st"],
                    None,
                    "The cutover is on 2026-12-01",
                )
            ],
        ),
    )
    make_workspace(tmp_path, NOTES)
    with open_at(tmp_path) as sidecar:
        sidecar.index()
        plan = collect(sidecar, ("contradiction", "compaction"), noon(date(2026, 11, 25)))
        assert deleted(sidecar) == {
            "- The cutover is on 12-01": "gc:compaction",
            "- Cutover happens December 1st": "gc:compaction",
        }
        (
            make_workspace(
                tmp_path, {"2026-11-21.md": "- another note\n"}, (tmp_path / "MEMORY.md").read_text()
            )
        )
        sidecar.index()  # validity is re-derived from the files; GC's links stay
        rows = {
            text: (status, ended_by, deleted_at)
            for text, status, ended_by, deleted_at in sidecar.store.db.execute(
                "SELECT text, status, ended_by, deleted_at FROM entries"
            )
        }
        old, merged = rows["- Raj owns the billing service"], rows["The cutover is on 2026-12-01"]
        merged_id = sidecar.store.db.execute(
            "SELECT id FROM entries WHERE text = 'The cutover is on 2026-12-01'"
        ).fetchone()[0]
        assert old[0] == "superseded" and "(gc:contradiction)" in str(old[1]) and old[2] is None
        assert merged[0] is None and merged[2] is None  # the new entry holds the statement
        assert rows["- The cutover is on 12-01"][:2] == ("superseded", f"entry {merged_id} (gc:compaction)")
        hits = sidecar.search("when is the cutover", k=3)
        assert hits[0].entry.text == "The cutover is on 2026-12-01"
        # the merge lives in no file: recall shows where its originals stand
        originals = ["memory/2026-11-01.md:2", "memory/2026-11-01.md:3"]
        assert hits[0].as_dict()["merged_from"] == originals and hits[0].source == "gc:compaction"
        assert hit_lines(hits)[0].startswith(f" 1. merged from {', '.join(originals)}  2026-11-25")
        assert len(restore(sidecar, [], plan.decision.pass_id, None).restored) == 2


def _entry_texts(folder: Path, *starts: str) -> list[str]:
    """The texts (as MEMORY.md's parser and the sidecar hold them) of the first entry starting with each."""
    document = MemoryDocument.parse((folder / "MEMORY.md").read_text(encoding="utf-8"))
    return [
        next(entry.text for _, entry in document.entries() if entry.text.startswith(start))
        for start in starts
    ]


def test_a_merge_of_memory_md_entries_is_an_update_and_archives(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_offline(fixture_workspace)
    memory = (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8")
    texts = _entry_texts(fixture_workspace, "Android: approved", "runbook: 80% done")
    monkeypatch.setitem(
        registry.REGISTRY,
        "compaction",
        Scripted("compaction", [("merge", texts, None, "Beacon held, Atlas runbook 80%")]),
    )
    result = CliRunner().invoke(
        main, ["gc", "compaction", str(fixture_workspace), "--today", "2026-11-26", "--engine", "offline"]
    )
    assert result.exit_code == 0, result.output
    after = (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8")
    assert "Beacon held, Atlas runbook 80%" in after
    entries = [entry.text for _, entry in MemoryDocument.parse(after).entries()]
    assert "Beacon held, Atlas runbook 80%" in entries and not set(texts) & set(entries)
    archive = (fixture_workspace / "memory" / "archive.md").read_text(encoding="utf-8")
    assert "gc:compaction: scripted" in archive
    assert CliRunner().invoke(main, ["undo", str(fixture_workspace)]).exit_code == 0
    assert (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8") == memory


def test_a_merge_into_the_newest_entry_as_it_stands_archives_only_the_others(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The newest original already says the merged statement: it stays as it is, and the archive holds
    the other original, not a copy of the kept one marked superseded by itself."""
    run_offline(fixture_workspace)
    texts = _entry_texts(fixture_workspace, "Android: approved", "iOS and Android ship")
    newest = texts[0]  # 2026-11-24; the other is of 2026-11-12
    monkeypatch.setitem(
        registry.REGISTRY, "compaction", Scripted("compaction", [("merge", texts, None, newest)])
    )
    result = CliRunner().invoke(
        main, ["gc", "compaction", str(fixture_workspace), "--today", "2026-11-26", "--engine", "offline"]
    )
    assert result.exit_code == 0, result.output
    after = MemoryDocument.parse((fixture_workspace / "MEMORY.md").read_text(encoding="utf-8"))
    entries = [entry.text for _, entry in after.entries()]
    assert newest in entries and texts[1] not in entries
    archive = (fixture_workspace / "memory" / "archive.md").read_text(encoding="utf-8")
    archived = [line for line in archive.splitlines() if "gc:compaction" in line]
    assert len(archived) == 1 and texts[1] in archived[0]


def test_review_is_never_applied_and_is_listed_in_status_and_the_briefing(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_offline(fixture_workspace)
    first, second = _entry_texts(fixture_workspace, "Android: approved", "runbook: 80% done")
    monkeypatch.setitem(
        registry.REGISTRY, "contradiction", Scripted("contradiction", [("review", [first], second, None)])
    )
    run_offline(fixture_workspace, date(2026, 11, 27))
    assert first in (fixture_workspace / "MEMORY.md").read_text(encoding="utf-8")
    briefing = (fixture_workspace / "memory" / "briefing.md").read_text(encoding="utf-8")
    assert "1 garbage-collection judgement left for you to review, not applied" in briefing
    status = CliRunner().invoke(main, ["status", str(fixture_workspace), "--today", "2026-11-27"])
    assert "GC judgements to review:" in status.output and first[:40] in status.output


def test_a_merged_original_ends_in_the_entry_holding_the_statement_and_undo_takes_the_ending_away(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry merged into another left memory because another entry says it now: its archive record
    ends in that entry, as a supersede's names the entry that superseded it, so recall shows the
    original (its note line, with the archive's copy folded in) with that status, below the entry
    holding the statement; undo takes the ending away with the archive record."""
    run_offline(fixture_workspace)
    texts = _entry_texts(fixture_workspace, "Android: approved", "iOS and Android ship")
    merged = f"{texts[0]}; iOS the same day"
    monkeypatch.setitem(
        registry.REGISTRY, "compaction", Scripted("compaction", [("merge", texts, None, merged)])
    )
    result = CliRunner().invoke(
        main, ["gc", "compaction", str(fixture_workspace), "--today", "2026-11-26", "--engine", "offline"]
    )
    assert result.exit_code == 0, result.output
    archive = (fixture_workspace / "memory" / "archive.md").read_text(encoding="utf-8")
    records = [line for line in archive.splitlines() if "gc:compaction" in line]
    later = noon(date(2026, 11, 27))
    with open_sidecar(fixture_workspace, Config(), OfflineEmbedder(), clock=lambda: later) as sidecar:
        sidecar.index()
        (kept,) = [row for row in sidecar.store.entries_of_source("MEMORY.md") if row.text == merged]
        ending = f"superseded 2026-11-26 by entry {kept.id}: {merged}"
        assert len(records) == 2 and all(record.endswith(f"[{ending}]") for record in records)
        hits = sidecar.search(texts[1], k=10)
        (original,) = [hit for hit in hits if texts[1] in hit.text]
        assert original.status_line() == ending
        assert "memory/archive.md" in [row.source_path for row in original.also]
        assert {row.status for row in original.also} == {"superseded"}
        assert hits[0].id == kept.id  # the entry holding the statement ranks above it
    assert CliRunner().invoke(main, ["undo", str(fixture_workspace)]).exit_code == 0
    with open_sidecar(fixture_workspace, Config(), OfflineEmbedder(), clock=lambda: later) as sidecar:
        sidecar.index()
        row = sidecar.store.fetch([original.id])[original.id]
    assert (row.status, row.valid_to, row.ended_by) == (None, None, None)


def test_a_supersede_by_an_entry_of_several_lines_writes_its_archive_record_on_one_line(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record names the entry that superseded it with that entry's text: a note item of two lines
    written as it is split the record, so its ending was read as part of its reason."""
    run_offline(fixture_workspace)
    (first,) = _entry_texts(fixture_workspace, "Android: approved")
    with open_sidecar(fixture_workspace, Config(), OfflineEmbedder()) as sidecar:
        (into,) = sidecar.store.db.execute(
            "SELECT text FROM entries WHERE kind = 'note' AND text LIKE 'Going to check the CI config%'"
        ).fetchone()
    assert "\n" in into
    monkeypatch.setitem(
        registry.REGISTRY, "contradiction", Scripted("contradiction", [("supersede", [first], into, None)])
    )
    result = CliRunner().invoke(
        main, ["gc", "contradiction", str(fixture_workspace), "--today", "2026-11-26", "--engine", "offline"]
    )
    assert result.exit_code == 0, result.output
    archive = (fixture_workspace / "memory" / "archive.md").read_text(encoding="utf-8")
    (record,) = [line for line in archive.splitlines() if "gc:contradiction: scripted" in line]
    assert record.endswith(" ".join(into.split()) + "]") and first in record
