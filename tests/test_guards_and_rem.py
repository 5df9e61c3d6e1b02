"""Guards that protect MEMORY.md, and REM refusing operations that name nothing real."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import Config
from memory_sleep.cycle.guards import check_removals, tool_bytes, trim_to_size
from memory_sleep.cycle.plan import DocumentEditor
from memory_sleep.errors import GuardError
from memory_sleep.models import EntryView, KeptItem, NoteItem, Operation
from memory_sleep.workspace.memory_doc import Entry, MemoryDocument

from .conftest import run_offline
from .item_helpers import archived_by, integrate_and_apply, judged

MEMORY = """# MEMORY.md

## Facts
- Alpha runs on port 8080 (2026-11-01)
- Beta lives at beta.internal (2026-11-02)
- Gamma uses Postgres 16 (2026-11-03)
- Delta owner is Raj (2026-11-04)
"""


def _kept(text: str, item_id: str = "i1", day: date = date(2026, 11, 20)) -> KeptItem:
    item = NoteItem(
        id=item_id, file="memory/2026-11-20.md", day=day, line_start=3, line_end=3, kind="bullet", text=text
    )
    return KeptItem(item=item, category="fact", topic=None)


TODAY = date(2026, 11, 21)


class _Scripted:
    """An Integrator that answers with fixed operations."""

    def __init__(self, operations: list[Operation]) -> None:
        self.operations = operations
        self.seen: list[Sequence[EntryView]] = []

    def integrate(self, items: Sequence[KeptItem], entries: Sequence[EntryView]) -> list[Operation]:
        self.seen.append(entries)
        return self.operations


def test_an_operation_naming_a_missing_entry_is_rejected_and_the_item_carried_over() -> None:
    document = MemoryDocument.parse(MEMORY)
    before = document.render()
    scripted = _Scripted([Operation(item_id="i1", op="update", target="E99", text="Alpha runs on 9090")])
    result, _applied = integrate_and_apply(
        [_kept("- Alpha moved to port 9090")], document, scripted, date(2026, 11, 21), 20
    )
    assert document.render() == before
    assert result.applied == [] and result.integrated_ids() == set()
    assert result.rejected == [
        "update for item i1: names entry E99, which does not exist",
        "no operation for item i1 (memory/2026-11-20.md:3); carried over",
    ]


@pytest.mark.parametrize(
    ("operation", "problem"),
    [
        (Operation(item_id="i1", op="update", target="E1", text="   "), "empty text"),
        (Operation(item_id="i1", op="supersede", text="Alpha on 9090"), "needs the entry it changes"),
        (Operation(item_id="nope", op="add", text="x"), "names no item of this batch"),
    ],
)
def test_invalid_operations_change_nothing(operation: Operation, problem: str) -> None:
    document = MemoryDocument.parse(MEMORY)
    result, _applied = integrate_and_apply(
        [_kept("- Alpha moved to port 9090")], document, _Scripted([operation]), date(2026, 11, 21), 20
    )
    assert document.render() == MEMORY
    assert problem in result.rejected[0]


def test_a_supersede_takes_the_engines_text_as_given_and_archives_the_old_text() -> None:
    document = MemoryDocument.parse(MEMORY)
    scripted = _Scripted(
        [Operation(item_id="i1", op="supersede", target="E1", text="Alpha runs on port 9090")]
    )
    _result, applied = integrate_and_apply(
        [_kept("- Alpha moved to port 9090")], document, scripted, date(2026, 11, 21), 20
    )
    assert "- Alpha runs on port 9090 (2026-11-20)\n" in document.render()  # the cycle adds no wording
    assert [record.entry for record in applied.archived] == ["- Alpha runs on port 8080 (2026-11-01)"]
    assert "superseded by memory/2026-11-20.md:3" in applied.archived[0].reason


def test_an_older_note_never_overwrites_a_newer_entry() -> None:
    document = MemoryDocument.parse(MEMORY)
    scripted = _Scripted([Operation(item_id="i1", op="supersede", target="E4", text="Delta owner is Maya")])
    old = _kept("- Delta owner is Maya", day=date(2026, 10, 1))
    result, _applied = integrate_and_apply([old], document, scripted, date(2026, 11, 21), 20)
    assert document.render() == MEMORY
    assert result.applied[0][1].op == "noop"


def test_a_later_item_may_name_an_item_added_earlier_in_its_batch() -> None:
    document = MemoryDocument.parse(MEMORY)
    scripted = _Scripted(
        [
            Operation(item_id="a", op="add", text="Epsilon deploys on Fridays"),
            Operation(item_id="b", op="update", target="a", text="Epsilon deploys on Fridays before 15:00"),
        ]
    )
    items = [_kept("- Epsilon deploys on Fridays", "a"), _kept("- Epsilon: Fridays before 15:00", "b")]
    integrate_and_apply(items, document, scripted, date(2026, 11, 21), 20)
    text = document.render()
    assert text.count("Epsilon") == 1 and "before 15:00" in text


def test_removing_more_than_the_allowed_share_is_refused() -> None:
    document = MemoryDocument.parse(MEMORY)
    before = [entry for _, entry in document.entries()]
    for entry in before[:2]:
        document.remove_entry(entry)
    with pytest.raises(GuardError, match=r"shrink MEMORY\.md from 4 to 2 entries"):
        check_removals(before, document, share=0.25)
    check_removals(before, document, share=0.5)


def test_emptying_memory_is_refused_whatever_the_share() -> None:
    document = MemoryDocument.parse(MEMORY)
    before = [entry for _, entry in document.entries()]
    for entry in before:
        document.remove_entry(entry)
    with pytest.raises(GuardError, match="remove all 4 entries"):
        check_removals(before, document, share=1.0)


def test_growth_past_the_limit_is_trimmed_by_archiving_the_oldest() -> None:
    document = MemoryDocument.parse(MEMORY)
    limit = tool_bytes(MemoryDocument.parse(MEMORY)) - 30
    records = archived_by(
        document,
        TODAY,
        lambda e: trim_to_size(
            e, limit, budget=2, today=TODAY, last_used=_written, judgements=judged(e, TODAY)
        ),
    )
    assert tool_bytes(document) <= limit
    assert [r.entry for r in records] == ["- Alpha runs on port 8080 (2026-11-01)"]
    with pytest.raises(GuardError, match="memory_max_bytes"):
        trim_to_size(
            DocumentEditor(MemoryDocument.parse(MEMORY), TODAY),
            60,
            budget=1,
            today=TODAY,
            last_used=_written,
            judgements={},
        )


def _written(entry: Entry) -> date:
    return entry.day or date.min


def _old_workspace(tmp_path: Path, entries: int) -> Path:
    (tmp_path / "memory").mkdir()
    bullets = "".join(
        f"- Old fact number {n} about system {n} (2026-09-{n + 1:02d})\n" for n in range(entries)
    )
    (tmp_path / "MEMORY.md").write_text(f"# MEMORY.md\n\n## Facts\n{bullets}")
    return tmp_path


def test_stale_entries_beyond_the_allowance_wait_for_later_runs(tmp_path: Path) -> None:
    workspace = _old_workspace(tmp_path, 8)
    report = run_offline(workspace, today=date(2026, 11, 25))
    assert report.record.entriesArchived == 2  # 25 % of 8
    assert any("6 stale entries left for a later run" in warning for warning in report.record.warnings)
    assert (workspace / "MEMORY.md").read_text().count("- Old fact") == 6
    archive = (workspace / "memory" / "archive.md").read_text()
    assert "Old fact number 0 " in archive and "Old fact number 1 " in archive  # oldest first


JOBS = [
    "amber",
    "birch",
    "cedar",
    "dune",
    "ember",
    "fjord",
    "grove",
    "heath",
    "iris",
    "juniper",
    "kelp",
    "larch",
    "maple",
    "nettle",
    "oak",
    "pine",
    "quartz",
    "reed",
    "sage",
    "thyme",
]
FLAGS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
]
RUNS = [
    "mercury",
    "venus",
    "earth",
    "mars",
    "jupiter",
    "saturn",
    "uranus",
    "neptune",
    "pluto",
    "ceres",
    "eris",
    "vesta",
    "pallas",
    "juno",
    "hygiea",
    "europa",
    "titan",
    "rhea",
    "io",
    "triton",
]


def test_lessons_past_the_limit_go_last_oldest_first_and_the_run_is_not_refused(tmp_path: Path) -> None:
    """Lessons are trimmed only when no other entry is left, the oldest first: a workspace whose lessons
    alone passed memory_max_bytes had every run refused. What is trimmed is in the archive."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n\n## Facts\n- Alpha runs on port 8080 (2026-11-22)\n")
    lessons = [
        f"lesson: the {a} job needs the {b} flag before {c} runs, or it silently drops rows"
        for a, b, c in zip(JOBS, FLAGS, RUNS, strict=True)
    ]
    for day, said in (("2026-11-23", lessons[:10]), ("2026-11-24", lessons[10:])):
        (tmp_path / "memory" / f"{day}.md").write_text("".join(f"- {lesson}\n" for lesson in said))
    run_offline(tmp_path, today=date(2026, 11, 25), config=Config(memory_max_bytes=1024))
    memory = (tmp_path / "MEMORY.md").read_text()
    archive = (tmp_path / "memory" / "archive.md").read_text()
    assert tool_bytes(MemoryDocument.parse(memory)) <= 1024
    assert "Alpha runs on port 8080" in archive
    assert all(lesson in archive for lesson in lessons[:10])
    kept = [lesson for lesson in lessons if lesson in memory]
    assert kept and set(kept) <= set(lessons[10:])
    assert all(lesson in archive for lesson in lessons if lesson not in kept)


def test_trimming_takes_routine_readings_first_and_keeps_decisions_and_changed_facts_longest() -> None:
    text = (
        "# MEMORY.md\n\n## Facts\n"
        "- panic: runtime error in the Build job (2026-11-10)\n"
        "- Alpha runs on port 8080 (2026-11-01)\n"
        "- Beta lives at beta2.internal (previously: Beta lives at beta.internal) (2026-10-31)\n"
        "\n## Decisions\n- Gamma moves to Postgres 16 (2026-10-30)\n"
    )
    document = MemoryDocument.parse(text)
    limit = tool_bytes(MemoryDocument.parse(text)) - 60
    records = archived_by(
        document,
        TODAY,
        lambda e: trim_to_size(
            e, limit, budget=3, today=TODAY, last_used=_written, judgements=judged(e, TODAY)
        ),
    )
    assert [r.entry for r in records] == [
        "- panic: runtime error in the Build job (2026-11-10)",
        "- Alpha runs on port 8080 (2026-11-01)",
    ]


def test_trimming_takes_finished_business_first_and_keeps_facts_people_keep_changing_longest() -> None:
    text = (
        "# MEMORY.md\n\n## Facts\n"
        "- [Beta] Beta API on port 8080 (2026-11-15)\n"
        "- Globex contract renews on 2026-11-18 (2026-11-16)\n"
        "- Alpha runs on port 8080 (2026-11-10)\n"
        "- Alpha DB is Postgres 16 (previously: Postgres 15) (2026-10-15)\n"
        "\n## People\n- [Beta] Nadia is in Europe/Lisbon (2026-11-14)\n"
        "\n## Action items\n- Renew the cert by 2026-11-19 (2026-11-16)\n"
    )
    document = MemoryDocument.parse(text)
    limit = tool_bytes(MemoryDocument.parse(text)) - 130  # three entries
    records = archived_by(
        document,
        TODAY,
        lambda e: trim_to_size(
            e,
            limit,
            budget=3,
            today=TODAY,
            last_used=_written,
            judgements=judged(e, TODAY),
            finished_projects=frozenset({"Beta"}),
        ),
    )
    assert [r.entry for r in records] == [
        "- [Beta] Beta API on port 8080 (2026-11-15)",  # a finished project
        "- Globex contract renews on 2026-11-18 (2026-11-16)",  # an event that is over
        "- Alpha runs on port 8080 (2026-11-10)",  # written after the changed fact, still trimmed first
    ]


def test_an_open_action_keeps_its_place_until_it_is_due() -> None:
    text = (
        "# MEMORY.md\n\n## Facts\n"
        "- Alpha runs on port 8080 (2026-11-10)\n"
        "\n## Action items\n- send Hooli the revised SOW by 3 Dec (2026-11-01)\n"
    )
    document = MemoryDocument.parse(text)
    limit = tool_bytes(document) - 10
    records = archived_by(
        document,
        TODAY,
        lambda e: trim_to_size(
            e, limit, budget=1, today=TODAY, last_used=_written, judgements=judged(e, TODAY)
        ),
    )
    assert [r.entry for r in records] == ["- Alpha runs on port 8080 (2026-11-10)"]
