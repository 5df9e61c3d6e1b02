"""REM's repeats by meaning: an item that only says again what memory or a recent kept item says is a
noop (issue 15: novelty and repeats by similarity through the sidecar's embeddings), never one that
brings a new value, name or thing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

import pytest

from memory_sleep.cycle.candidates import HybridCandidates
from memory_sleep.engines.offline.integrate import OfflineIntegrator
from memory_sleep.engines.offline.matching import predicate
from memory_sleep.engines.offline.repeats import echoes
from memory_sleep.models import Category, EntryView, KeptItem, NoteItem
from memory_sleep.sidecar.embed import FunctionEmbedder
from memory_sleep.workspace.memory_doc import MemoryDocument

from .conftest import run_offline
from .item_helpers import integrate_and_apply, note_item

TODAY = date(2026, 11, 21)


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("Again, for the books: Quill keeps invoices for 90 days", "Quill invoices retention: 90 days"),
        ("Owner (Quill ledger): Ines", "Quill ledger is Ines's area"),
        ("Ines owns the Quill ledger", "Quill ledger is Ines's area"),
        ("Quill ledger is Ines's area", "Ines owns the Quill ledger"),
        (
            "Migrate the Quill ledger off box-fra-07 is still open",
            "TODO migrate the Quill ledger off box-fra-07 (due 2026-11-30)",
        ),
        (
            "Get Ines access to the Quill canary cluster is still pending",
            "Follow-up: get Ines access to the Quill canary cluster due 12/01",
        ),
        # the same values of the same subject, a key in one a verb in the other
        ("Note: Quill ledger is written in Python 3.12", "Quill ledger stack: Python 3.12"),
        ("FYI, Acme is on the Starter (30 seats) plan for Quill", "Quill: Acme pays for Starter (30 seats)"),
        # a key in one, a verb of its root in the other, whichever names its subject in fewer words
        ("Orla contract renews on 2026-12-16", "Orla renewal: 2026-12-16"),
        ("Orla renewal: 2026-12-16", "Orla contract renews on 2026-12-16"),
        ("Orla Corp contract renews on 2026-10-09", "Orla Corp renewal is due 2026-10-09"),
        ("Quill owner: Ines (again)", "Quill owner: Ines"),  # a remark beside the key's value
    ],
)
def test_a_restatement_with_nothing_new_echoes(text: str, other: str) -> None:
    assert echoes(text, other, frozenset({"quill", "zenit"}))


@pytest.mark.parametrize(
    ("text", "other"),
    [
        ("Quill keeps invoices for 60 days", "Quill invoices retention: 90 days"),  # another value
        ("Retention for Quill email archives: 90 days", "Quill invoices retention: 90 days"),  # another thing
        (
            "Quill: blocked on the design for the new export flow",
            "Quill: blocked on the design for the new sso flow",
        ),
        ("Ines owns the Quill ledger", "Omar owns the Quill ledger"),  # another person
        # another person, a word before the verb: the new owner was a noop in a new user's trial
        ("Ines now owns the Quill on-call rotation.", "Omar owns the Quill on-call rotation"),
        ("Ines will lead the Quill on-call rotation", "Omar leads the Quill on-call rotation"),
        ("Quill ledger moved to box-fra-09 (was box-fra-07)", "Quill ledger runs on box-fra-07"),  # a change
        (
            "Migrate the Quill ledger off box-fra-07 by 2026-12-04",
            "TODO migrate the Quill ledger off box-fra-07",
        ),
        ("Fix the flaky Quill test (QL-748)", "Fix the flaky Quill test (QL-1268)"),  # another ticket
        # how a thing is, beside what to do with it: what each says of the flag is not in the other
        (
            "Quill flag `dark_mode` is off in prod",
            "clean up the `dark_mode` flag in Quill (deadline 2026-11-30)",
        ),
        ("Quill flag `dark_mode` is off in prod", "Clean up the `dark_mode` flag in Quill is still pending"),
        ("Quill talks to Orla about payouts", "Quill ledger runs on box-fra-07, payouts"),  # a name not there
        ("Quill ledger review with Lucía on Friday", "Quill ledger review on Friday"),  # spelled past ASCII
        ("Lucía owns the Quill ledger", "the Quill ledger is owned by the payments team"),
        (
            "Zenit API style settled: REST + OpenAPI",
            "Decided: Quill public API is REST + OpenAPI",
        ),  # a project
        (
            "Decision: no own cluster for the ledger, since it removes a moving part from on-call",
            "Decision: no own cluster for the ledger, since it unblocks Orla's work on payouts",
        ),  # another reason
        ("Quill api stack: Python 3.12", "Quill ledger stack: Python 3.12"),  # another part
        ("Quill needs Python 3.12", "Quill ledger stack: Python 3.12"),  # the whole, not the part
        ("Quill ledger is written in Python 3.12 and deployed nightly", "Quill ledger stack: Python 3.12"),
        ("Quill ledger is written in Python 3.13", "Quill ledger stack: Python 3.12"),
        ("Orla contract renews on 2026-12-17", "Orla renewal: 2026-12-16"),  # another date
        ("Orla pays on 2026-12-16", "Orla renewal: 2026-12-16"),  # another thing on that day
        ("Orla review: 2026-12-16", "Orla contract renews on 2026-12-16"),  # not a form of "renews"
        ("Orla contract renews on 2026-12-16", "Orla review: 2026-12-16"),
        # one key, another value: a word changed at its end is no remark
        ("Sprint 14 goal: ship the Quill exporter", "Sprint 14 goal: ship the Quill importer"),
        # near by an embedding that reads the script poorly, with hardly a word in common
        ("文档需要随着代码一起演进，定期审查很重要", "决定：从简单的工作流模式开始，只在需要时增加复杂性"),
        ("Урок: проверять факты, а не догадки", "Решение: добавил раздел в MEMORY.md"),
    ],
)
def test_a_statement_that_brings_something_new_does_not_echo(text: str, other: str) -> None:
    assert not echoes(text, other, frozenset({"quill", "zenit"}))


def _kept(text: str, category: Category = "fact", echoed: Sequence[str] = ()) -> KeptItem:
    return KeptItem(item=note_item(text), category=category, topic=None, echoes=tuple(echoed))


def test_the_offline_integrator_makes_a_repeat_of_an_echo_a_noop_and_names_the_entry_it_repeats() -> None:
    entry = EntryView(
        ref="E1",
        section="Facts",
        topic=None,
        text="Quill invoices retention: 90 days, set by finance after the audit",
        day=None,
    )
    item = _kept("Again, for the books: Quill keeps invoices for 90 days", echoed=[entry.text])
    (operation,) = OfflineIntegrator().integrate([item], [entry])
    assert (operation.op, operation.target) == ("noop", "E1")
    (without,) = OfflineIntegrator().integrate([item.model_copy(update={"echoes": ()})], [entry])
    assert without.op != "noop"  # words alone do not tell it: "keeps ... for" is not "retention:"


def test_an_echo_of_an_item_memory_no_longer_shows_is_a_noop_too() -> None:
    item = _kept("Ines owns the Quill ledger", "relationship", ["- Quill ledger is Ines's area"])
    (operation,) = OfflineIntegrator().integrate([item], [])
    assert (operation.op, operation.target) == ("noop", None)


def test_a_restatement_of_a_kept_key_in_a_sentence_is_a_noop_after_a_remark_or_without() -> None:
    """ "For the record, Orla contract renews on 2026-12-16" after "**Orla renewal:** 2026-12-16" (left
    in the notes, or archived to keep memory small): the same date of the same thing, told again."""
    for text in ("For the record, Orla contract renews on 2026-12-16", "Orla contract renews on 2026-12-16"):
        item = _kept(text, echoed=["**Orla renewal:** 2026-12-16"])
        (operation,) = OfflineIntegrator().integrate([item], [])
        assert (operation.op, operation.target) == ("noop", None)


def test_an_echo_is_no_repeat_when_memory_holds_another_value_of_it() -> None:
    """Back to an old value: the note repeats what a kept item said, but memory says otherwise now."""
    entry = EntryView(
        ref="E1", section="Facts", topic=None, text="Quill invoices retention: 30 days", day=None
    )
    item = _kept("Quill keeps invoices for 90 days", echoed=["Quill invoices retention: 90 days"])
    (operation,) = OfflineIntegrator().integrate([item], [entry])
    assert operation.op != "noop"


def test_a_change_memory_already_holds_is_a_repeat_unless_an_entry_still_says_the_old_value() -> None:
    renamed = EntryView(ref="E1", section="People", topic=None, text="Ola GitHub: @ola_dev", day=None)
    item = _kept("Once more: Ola renamed their GitHub account to @ola_dev (was @ola)", echoed=[renamed.text])
    (operation,) = OfflineIntegrator().integrate([item], [renamed])
    assert (operation.op, operation.target) == ("noop", "E1")
    old = EntryView(ref="E2", section="People", topic=None, text="Ola is @ola on GitHub", day=None)
    (change,) = OfflineIntegrator().integrate([item], [renamed, old])
    assert change.op != "noop"


def test_an_echo_that_is_an_entry_is_a_repeat_beside_an_entry_on_another_release() -> None:
    """Memory holds the item's own statement: the entry on another release beside it is another thing."""
    shipped = EntryView(ref="E1", section="Facts", topic="Quill", text="Quill v0.6.8: audit log v2", day=None)
    later = EntryView(
        ref="E2",
        section="Facts",
        topic="Quill",
        text="For the record, audit log v2 goes out with Quill v0.7.2",
        day=None,
    )
    item = _kept("For the record, audit log v2 goes out with Quill v0.6.8", echoed=[shipped.text])
    (operation,) = OfflineIntegrator().integrate(
        [item.model_copy(update={"topic": "Quill"})], [later, shipped]
    )
    assert (operation.op, operation.target) == ("noop", "E1")


def test_an_echo_of_a_recent_note_is_a_repeat_when_memory_holds_only_another_release() -> None:
    later = EntryView(
        ref="E2", section="Facts", topic="Quill", text="Quill v0.7.2 will ship audit log v2", day=None
    )
    item = _kept("Quill v0.6.8: audit log v2", echoed=["Quill v0.6.8 will ship audit log v2"])
    (operation,) = OfflineIntegrator().integrate([item.model_copy(update={"topic": "Quill"})], [later])
    assert (operation.op, operation.target) == ("noop", None)
    (other,) = OfflineIntegrator().integrate(
        [_kept("Quill v0.6.8: audit log v3", echoed=["Quill v0.6.8 will ship audit log v2"])], [later]
    )
    assert other.op == "add"  # another scope of the release: news


def _words(text: str) -> list[float]:
    """A test embedder that reads a sentence by the things it names: near for one owner of one ledger."""
    lowered = text.lower()
    return [float("ines" in lowered), float("ledger" in lowered), float("omar" in lowered), 0.1]


def test_rem_gives_each_item_the_recent_kept_items_it_echoes_so_a_repeat_of_one_left_in_the_notes_is_a_noop() -> (
    None
):
    earlier = KeptItem(
        item=NoteItem(
            id="k0",
            file="memory/2026-11-10.md",
            day=date(2026, 11, 10),
            line_start=5,
            line_end=5,
            kind="line",
            text="- Quill ledger is Ines's area",
        ),
        category="relationship",
        topic=None,
        promote=False,  # left in the notes, never added
    )
    candidates = HybridCandidates(FunctionEmbedder(_words, 4))

    def placed(text: str) -> list[tuple[tuple[str, ...], str]]:
        document = MemoryDocument.parse("# MEMORY.md\n\n## People\n")
        kept = [_kept(text, "relationship")]
        result, _ = integrate_and_apply(
            kept, document, OfflineIntegrator(), TODAY, 20, candidates=candidates, recent=[earlier]
        )
        return [(kept.echoes, operation.op) for kept, operation in result.applied]

    assert placed("Ines owns the Quill ledger") == [(("- Quill ledger is Ines's area",), "noop")]
    assert placed("Omar owns the Quill ledger") == [((), "add")]


def test_a_project_status_that_only_repeats_an_earlier_one_is_a_noop_not_a_summary_update() -> None:
    def status(line: int, text: str) -> KeptItem:
        item = NoteItem(
            id=f"s{line}",
            file="memory/2026-11-20.md",
            day=date(2026, 11, 20),
            line_start=line,
            line_end=line,
            kind="line",
            text=text,
        )
        return KeptItem(item=item, category="status", topic="Quill")

    first = status(3, "- Quill: blocked on the vendor's API key")
    again = status(9, "Once more: Quill: blocked on the vendor's API key")
    other = status(12, "- Quill: blocked on the design for the new ledger")
    candidates = HybridCandidates(FunctionEmbedder(lambda text: [float("vendor" in text), 1.0], 2))
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n")
    result, _ = integrate_and_apply(
        [first, again, other], document, OfflineIntegrator(), TODAY, 20, candidates=candidates
    )
    assert [(kept.item.id, operation.op, operation.target) for kept, operation in result.applied] == [
        ("s3", "update", "project:Quill"),
        ("s9", "noop", None),
        ("s12", "update", "project:Quill"),
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Quill flag `dark_mode` is off in prod", " is off in prod"),
        ("Decided: Quill ledger is written in Rust. It ships in May", " is written in Rust"),
        ("Quill exporter → port 6379, behind nginx", ""),  # no verb or key: the comma ends no subject
        ("clean up the `dark_mode` flag in Quill", ""),  # a task
    ],
)
def test_what_a_statement_says_of_its_subject_runs_from_its_verb_or_key_to_its_first_clause_end(
    text: str, said: str
) -> None:
    assert predicate(text) == said


def test_a_key_with_one_word_of_its_value_changed_replaces_the_entry_rather_than_repeat_it() -> None:
    """The entry holds every word of the item but one, which is the key's new value: memory keeps the
    newer goal, not the older as "already in memory"."""
    entry = EntryView(
        ref="E1", section="Decisions", topic=None, text="Sprint 14 goal: ship the Quill importer", day=None
    )
    item = _kept("Sprint 14 goal: ship the Quill exporter", "decision")
    (operation,) = OfflineIntegrator().integrate([item], [entry])
    assert (operation.op, operation.target) in {("update", "E1"), ("supersede", "E1")}


def test_a_new_owner_named_before_now_reaches_memory_beside_the_old_one(tmp_path: Path) -> None:
    """A new user's trial: "Ahmed now owns the Basalt on-call rotation" was a noop against "Jonas owns
    the Basalt on-call rotation", so MEMORY.md kept only Jonas."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "2026-11-03.md").write_text(
        "# 2026-11-03\n\n- Jonas owns the Basalt on-call rotation.\n"
    )
    run_offline(tmp_path, today=date(2026, 11, 4))
    (tmp_path / "memory" / "2026-11-09.md").write_text(
        "# 2026-11-09\n\n- Ahmed now owns the Basalt on-call rotation.\n"
    )
    run_offline(tmp_path, today=date(2026, 11, 10))
    assert "Ahmed now owns the Basalt on-call rotation" in (tmp_path / "MEMORY.md").read_text()
