"""Recall: paraphrased questions find their answers; soft-deleted and other scopes never show; the log is exact."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_sleep.sidecar import FunctionEmbedder
from memory_sleep.sidecar.search import selective_terms

from .sidecar_helpers import NOW, make_workspace, open_at

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres

PARAPHRASES = [
    (
        "Why do jobs fail when two workers share the SQLite queue?",
        "memory/2026-11-17.md",
        "SQLite locked under concurrent writers",
    ),
    (
        "Who needs to approve the numbers before the new invoicing goes live?",
        "memory/2026-11-04.md",
        "owns invoice sign-off",
    ),
    (
        "When does the renewed certificate for the billing domain run out?",
        "memory/2026-11-19.md",
        "new expiry 2027-02-17",
    ),
    (
        "How long until an uploaded beta build is visible to testers?",
        "MEMORY.md",
        "TestFlight builds take about 40 minutes",
    ),
    ("键盘挡住按钮的问题是谁报告的？", "memory/2026-11-17.md", "Wei 在 Linear 里写道"),
]


@pytest.fixture
def indexed(fixture_workspace: Path) -> Path:
    with open_at(fixture_workspace) as sidecar:
        sidecar.index()
    return fixture_workspace


@pytest.mark.parametrize(("question", "source", "answer"), PARAPHRASES)
def test_recall_finds_the_entry_that_answers_a_paraphrased_question(
    indexed: Path, question: str, source: str, answer: str
) -> None:
    with open_at(indexed) as sidecar:
        hits = sidecar.recall(question, k=5)
    assert any(hit.source == source and answer in hit.text for hit in hits), [h.text[:60] for h in hits]


def test_soft_deleted_entries_never_appear_in_any_mode(indexed: Path) -> None:
    question = "Why do jobs fail when two workers share the SQLite queue?"
    with open_at(indexed) as sidecar:
        first = sidecar.search(question, k=5)
        gone = [hit.id for hit in first[:3]]
        with sidecar.store.transaction():
            sidecar.store.soft_delete(gone, "forgotten", NOW, pass_id="test")
        for mode in ("hybrid", "vector", "text"):
            hits = sidecar.search(question, k=50, mode=mode)  # type: ignore[arg-type]
            assert hits and not {hit.id for hit in hits} & set(gone), mode
        with sidecar.store.transaction():
            sidecar.store.restore(gone)
        assert [hit.id for hit in sidecar.search(question, k=5)] == [hit.id for hit in first]


def test_scopes_never_leak_into_each_other(tmp_path: Path) -> None:
    folder = make_workspace(
        tmp_path,
        {
            "2026-11-20.md": "---\nscope: alice\n---\n- Alice's dentist appointment is on Friday at nine\n",
            "2026-11-21.md": "---\nscope: bob\n---\n- Bob's dentist appointment is on Monday at ten\n",
        },
    )
    with open_at(folder) as sidecar:
        sidecar.index()
        alice = sidecar.recall("when is the dentist appointment?", k=10, scope="alice")
        bob = sidecar.recall("when is the dentist appointment?", k=10, scope="bob")
        everyone = sidecar.recall("when is the dentist appointment?", k=10)
        nobody = sidecar.recall("when is the dentist appointment?", k=10, scope="carol")
    assert [hit.entry.scope for hit in alice] == ["alice"] and "Alice" in alice[0].text
    assert [hit.entry.scope for hit in bob] == ["bob"] and "Bob" in bob[0].text
    assert {hit.entry.scope for hit in everyone} == {"alice", "bob"}
    assert nobody == []


def test_the_query_log_and_access_counts_are_exact(indexed: Path) -> None:
    with open_at(indexed) as sidecar:
        first = sidecar.recall("who renews the TLS certificate?", k=4)
        second = sidecar.recall("who renews the TLS certificate?", k=2)
        sidecar.search("this one is not logged", k=3)
        sidecar.record_access([first[-1].id])
        store = sidecar.store
        logged = store.logged_queries(10)
        assert [(text, ranked) for _, text, _, _, ranked in logged] == [
            ("who renews the TLS certificate?", [hit.id for hit in second]),
            ("who renews the TLS certificate?", [hit.id for hit in first]),
        ]
        assert all(created == NOW for _, _, _, created, _ in logged)
        embedder, embedding = store.db.execute("SELECT embedder, embedding FROM queries LIMIT 1").fetchone()
        assert (embedder, len(embedding)) == ("offline-hash-v3/384", 384 * 4)
        expected = {hit.id: 0 for hit in first}
        for hit in [*first, *second]:
            expected[hit.id] += 1
        expected[first[-1].id] += 1
        counted = {
            entry_id: (count, last)
            for entry_id, count, last in store.db.execute(
                "SELECT id, access_count, last_accessed_at FROM entries WHERE access_count > 0"
            )
        }
    assert counted == {entry_id: (count, NOW) for entry_id, count in expected.items()}


def test_expired_entries_are_not_returned(tmp_path: Path) -> None:
    folder = make_workspace(
        tmp_path,
        {
            "2026-11-01.md": "---\nexpires: 2026-11-10\n---\n- the wifi password for the offsite venue\n",
            "2026-11-02.md": "- the wifi password for the office is on the whiteboard\n",
        },
    )
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("wifi password", k=5)
    assert [hit.source for hit in hits] == ["memory/2026-11-02.md"]


def test_newer_entries_win_ties_through_temporal_decay(tmp_path: Path) -> None:
    folder = make_workspace(
        tmp_path,
        {
            "2026-06-01.md": "- the staging host is staging-a\n",
            "2026-11-24.md": "- the staging host is staging-b\n",
        },
    )
    flat = FunctionEmbedder(lambda text: [1.0, 0.0, 0.0, 0.0], 4)
    with open_at(folder, flat) as sidecar:
        sidecar.index()
        hits = sidecar.search("staging host", k=2, mode="vector")
    assert [hit.source for hit in hits] == ["memory/2026-11-24.md", "memory/2026-06-01.md"]
    assert hits[0].decay > hits[1].decay >= 0.5


def test_full_text_search_skips_terms_too_common_to_rank_cheaply(tmp_path: Path) -> None:
    notes = {f"2026-11-{day:02d}.md": f"- heartbeat status ok number {day}\n" for day in range(1, 21)}
    notes["2026-11-21.md"] = "- heartbeat status: the zeppelin hangar door is stuck\n"
    folder = make_workspace(tmp_path, notes)
    with open_at(folder) as sidecar:
        sidecar.index()
        assert selective_terms(sidecar.store, ["heartbeat", "zeppelin", "hangar"], budget=5) == [
            "hangar",
            "zeppelin",
        ]
        assert selective_terms(sidecar.store, ["heartbeat"], budget=5) == []
        hits = sidecar.search("heartbeat zeppelin", k=1, mode="text")
    assert "zeppelin" in hits[0].text


def test_vectors_from_another_embedder_are_never_searched_silently(indexed: Path) -> None:
    """A new embedder version (one stopword list changed what the offline one skips) left old vectors
    searched with new query vectors until the next index; then recall refused until an index. Now
    the first search re-embeds the store with the embedder its queries use."""
    other = FunctionEmbedder(lambda text: [1.0, float(len(text))], 2, id="other")
    with open_at(indexed, other) as sidecar:
        assert sidecar.search("certificate", k=3)
        assert sidecar.store.meta("embedder") == "other/2"
        assert not sidecar.index().reembedded
    with open_at(indexed, other) as sidecar:
        assert sidecar.search("SQLite locked", k=3)


def test_an_answer_only_the_embedding_finds_outranks_lines_sharing_a_common_word(tmp_path: Path) -> None:
    """Reciprocal rank fusion gave the embedding's clear first, absent from the full-text list, less
    than lines in the middle of both lists that share only a word most entries hold: it ranked 8th.
    Fused by score, its wide margin on the vector side counts and the common word's near-zero BM25
    does not."""
    lines = [f"- the duty roster for team {team} is printed" for team in "abcdef"]
    folder = make_workspace(
        tmp_path,
        {
            "2026-11-20.md": "- Raj asked for the Dec 1 rota: Raj, Sam, Dana\n" + "\n".join(lines) + "\n",
            "2026-11-21.md": "- the hangar duty list is on the door\n- lunch menu: soup\n",
        },
    )

    def meaning(text: str) -> list[float]:
        if "rota" in text or "on duty" in text:
            return [1.0, 0.0, 0.0]
        return [0.0, 0.0, 1.0] if "lunch" in text else [0.3, 1.0, 0.0]

    with open_at(folder, FunctionEmbedder(meaning, 3)) as sidecar:
        sidecar.index()
        hits = sidecar.search("Who is on duty at the hangar?", k=5)
    assert [hit.text_rank for hit in hits[:2]] == [1, None], [hit.text for hit in hits]
    assert "rota" in hits[1].text and hits[1].vector_rank == 1
