"""The candidate step: NREM and REM show an engine, for each batch, only the entries the sidecar's hybrid
search finds for its items (the archived ones REM may supersede included), whatever the engine."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

import numpy as np

from memory_sleep.cycle.candidates import HybridCandidates, _nearest_first
from memory_sleep.cycle.nrem import run_nrem
from memory_sleep.engines.base import ClassifyContext
from memory_sleep.models import Classification, EntryView, KeptItem, NoteItem, Operation
from memory_sleep.sidecar.embed import FunctionEmbedder, OfflineEmbedder
from memory_sleep.workspace.archive import records_since
from memory_sleep.workspace.layout import NoteFile
from memory_sleep.workspace.memory_doc import MemoryDocument

from .item_helpers import ScriptedIntegrator, integrate_and_apply, note_item

TODAY = date(2026, 11, 21)
FACTS = [
    "Alpha runs on port 8080",
    "Beta lives at beta.internal",
    "Gamma uses Postgres 16",
    "Delta owner is Raj",
    "The standup moved to 10:00",
    "Grafana dashboards sit behind the VPN",
    "Invoices are sent on the first Monday",
    "Nadia prefers async reviews",
    "The staging cluster is in eu-west-1",
    "Release notes go to the #eng channel",
    "CI caches npm packages for a week",
    "Kenji is the on-call lead in November",
]
MEMORY = "# MEMORY.md\n\n## Facts\n" + "".join(
    f"- {fact} (2026-11-0{n % 9 + 1})\n" for n, fact in enumerate(FACTS)
)


def _kept(text: str, item_id: str = "i1") -> KeptItem:
    item = NoteItem(
        id=item_id,
        file="memory/2026-11-20.md",
        day=date(2026, 11, 20),
        line_start=3,
        line_end=3,
        kind="bullet",
        text=text,
    )
    return KeptItem(item=item, category="fact", topic=None)


def test_rem_shows_a_batch_only_its_candidate_entries_and_refuses_any_other() -> None:
    document = MemoryDocument.parse(MEMORY)
    integrator = ScriptedIntegrator(
        [Operation(item_id="i1", op="supersede", target="E4", text="Delta owner is Tom")]
    )
    result, _ = integrate_and_apply(
        [_kept("Alpha moved to port 9090")],
        document,
        integrator,
        TODAY,
        20,
        candidates=HybridCandidates(OfflineEmbedder(), per_item=2),
    )
    shown = [entry.text for entry in integrator.shown[0]]
    assert len(shown) == 2 and "Alpha runs on port 8080" in shown and "Delta owner is Raj" not in shown
    assert result.rejected[0] == "supersede for item i1: names entry E4, which does not exist"
    assert document.render() == MEMORY


def test_the_candidate_step_finds_an_entry_sharing_no_word_when_the_embedder_finds_it_close() -> None:
    item = note_item("Our Kubernetes workloads relocated to Frankfurt")
    close = "The staging cluster is in eu-west-1"  # no word in common with the item
    values = {item.text: [1.0, 0.0, 0.0], close: [0.9, 0.1, 0.0]}
    embedder = FunctionEmbedder(lambda text: values.get(text, [0.0, 0.0, 1.0]), 3)
    entries = [
        EntryView(ref=f"E{n}", section="Facts", topic=None, text=fact, day=None)
        for n, fact in enumerate(
            [*FACTS, "Frankfurt office opens in May", "Kubernetes docs live in the wiki"], 1
        )
    ]
    hybrid = HybridCandidates(embedder, per_item=3).for_items([item], entries)
    words_alone = HybridCandidates(None, per_item=3).for_items([item], entries)
    assert "E9" in hybrid[item.id] and entries[8].text == close
    assert "E9" not in words_alone[item.id]
    assert set(words_alone[item.id]) == {"E13", "E14"}  # only the entries that share a word


def test_a_step_asked_again_over_other_entries_ranks_them_as_a_fresh_step_does() -> None:
    """The step keeps the last entries' word index: entries changed since (an earlier batch edited one)
    are indexed again, not ranked by the index of the ones before."""
    item = note_item("Delta owner changed")
    entries = [
        EntryView(ref=f"E{n}", section="Facts", topic=None, text=f, day=None) for n, f in enumerate(FACTS, 1)
    ]
    edited = [*entries[:3], entries[3].model_copy(update={"text": "Delta is now gone"}), *entries[4:]]
    edited[0] = edited[0].model_copy(update={"text": "Delta owner moved on"})
    step = HybridCandidates(None, per_item=2)
    assert step.for_items([item], entries) == HybridCandidates(None, per_item=2).for_items([item], entries)
    again = step.for_items([item], edited)
    assert again == HybridCandidates(None, per_item=2).for_items([item], edited)
    assert again[item.id][0] == "E1"  # the edited entry ranks first, which the earlier index could not say
    assert step.for_items([item], entries) == HybridCandidates(None, per_item=2).for_items([item], entries)


def test_archived_entries_rem_may_supersede_are_the_ones_the_candidate_step_picks(tmp_path: Path) -> None:
    archive = (
        "# Archive\n\n## 2026-11-10\n"
        "- Backups run nightly at 02:00 (2026-11-01) — from Facts; MEMORY.md over memory_max_bytes (16,384)\n"
        "- web-1 is at 10.0.0.1 (2026-11-02) — from Facts; MEMORY.md over memory_max_bytes (16,384)\n"
    )
    archived = list(records_since(archive, date(2026, 11, 1)))

    class PicksTheBackups:
        def __init__(self) -> None:
            self.warnings: list[str] = []

        def for_items(self, items: Sequence[NoteItem], entries: Sequence[EntryView]) -> dict[str, list[str]]:
            return {item.id: [entry.ref for entry in entries if "Backups" in entry.text] for item in items}

        def echoes(
            self, queries: Sequence[str], pool: Sequence[str], reach: Sequence[int], floor: float, most: int
        ) -> list[list[str]]:
            return [[] for _ in queries]

    text = "Database dumps start at 03:30 now"  # no subject word in common with the archived entry
    integrator = ScriptedIntegrator(
        [Operation(item_id="i1", op="add", text=text)],
        [Operation(item_id="i1", op="supersede", target="A1", text=f"{text} (was 02:00)")],
    )
    document = MemoryDocument.parse("# MEMORY.md\n\n## Facts\n")
    _, applied = integrate_and_apply(
        [_kept(text)], document, integrator, TODAY, 20, archived, candidates=PicksTheBackups()
    )
    assert [[entry.text for entry in shown] for shown in integrator.shown] == [
        [],
        ["Backups run nightly at 02:00"],
    ]
    assert "- Database dumps start at 03:30 now (was 02:00) (2026-11-20)" in document.render()
    assert [record.reason for record in applied.archived] == ["superseded by memory/2026-11-20.md:3"]


def test_nrem_checks_an_item_against_its_candidate_entries_only(tmp_path: Path) -> None:
    path = tmp_path / "2026-11-20.md"
    path.write_text("# 2026-11-20\n\n- Alpha now runs on port 9090\n")
    note = NoteFile(path=path, name=path.name, day=date(2026, 11, 20), topic=None)
    shown: list[list[str]] = []

    class Recording:
        def classify(self, items: Sequence[NoteItem], context: ClassifyContext) -> list[Classification]:
            shown.append([entry.text for entry in context.memory])
            return [Classification(item_id=item.id, verdict="KEEP", category="fact") for item in items]

    memory = [
        EntryView(ref=f"E{n}", section="Facts", topic=None, text=fact, day=None)
        for n, fact in enumerate(FACTS, 1)
    ]
    context = ClassifyContext(projects=[], memory=memory)
    run_nrem(
        [(note, None)], Recording(), context, 2_000_000, 20, HybridCandidates(OfflineEmbedder(), per_item=2)
    )
    assert len(shown[0]) == 2 and "Alpha runs on port 8080" in shown[0]


def test_the_nearest_first_are_a_stable_sort_s_first_ties_and_all() -> None:
    generator = np.random.default_rng(0)
    for columns in (3, 50, 51, 400):
        similarities = np.round(generator.random((20, columns), dtype=np.float32), 1)  # many ties
        expected = np.argsort(-similarities, axis=1, kind="stable")[:, :50]
        assert np.array_equal(_nearest_first(similarities, 50), expected)


def test_echoes_are_the_nearest_few_of_all_close_texts_ties_in_order() -> None:
    """Each query gets the `most` nearest of the texts before its reach at least `floor` close, as ranking
    them all would give (ties in pool order), without listing them all: a note of thousands of
    near-identical lines made that list quadratic (6 GB for 33,636 lines)."""
    rng = np.random.default_rng(0)
    directions = {f"t{n}": rng.integers(0, 3, size=4).tolist() for n in range(300)}  # many exact ties
    embedder = FunctionEmbedder(lambda text: [float(x) + 1 for x in directions[text]], 4)
    pool = list(directions)
    queries = pool[100:]
    reach = list(range(100, 300))
    candidates = HybridCandidates(embedder)
    found = list(candidates.echoes(queries, pool, reach, 0.9, 5))
    every = list(candidates.echoes(queries, pool, reach, 0.9, len(pool)))  # all close, ranked
    assert found == [echoes[:5] for echoes in every]
    assert max(map(len, every)) > 50 and max(map(len, found)) == 5
    vectors = embedder.embed(pool)
    for query, limit, echoes in zip(queries, reach, every, strict=True):
        near = vectors[:limit] @ vectors[pool.index(query)]
        assert set(echoes) == {pool[i] for i in range(limit) if near[i] >= 0.9}
        assert [round(float(near[pool.index(e)]), 5) for e in echoes] == sorted(
            (round(float(near[pool.index(e)]), 5) for e in echoes), reverse=True
        )
