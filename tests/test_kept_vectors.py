"""The candidate step's vectors and index terms kept between runs: a text the last run embedded (and
tokenized) is not embedded (or tokenized) again, and the candidates found with what was kept are the
ones found by computing everything."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memory_sleep.cycle import candidates
from memory_sleep.cycle.candidates import HybridCandidates
from memory_sleep.cycle.kept_vectors import NAME, KeptVectors
from memory_sleep.models import EntryView
from memory_sleep.sidecar.embed import FunctionEmbedder, OfflineEmbedder
from memory_sleep.sidecar.tokenize import index_terms

from .item_helpers import note_item

TEXTS = [f"Service {name} runs on port {8000 + n}" for n, name in enumerate("abcdefghijklmnop")]
ENTRIES = [
    EntryView(ref=f"A{n}", section="Facts", topic=None, text=text, day=None) for n, text in enumerate(TEXTS)
]


class Counting(OfflineEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.seen.extend(texts)
        return super().embed(texts)


def test_a_second_run_embeds_only_the_texts_the_first_did_not(tmp_path: Path) -> None:
    items = [note_item("Service c now runs on port 9000")]
    everything = HybridCandidates(OfflineEmbedder(), per_item=3).for_items(items, ENTRIES)
    first = HybridCandidates(Counting(), per_item=3, kept=KeptVectors(tmp_path))
    assert first.for_items(items, ENTRIES) == everything
    first.keep()
    assert (tmp_path / NAME).is_file()
    embedder = Counting()
    second = HybridCandidates(embedder, per_item=3, kept=KeptVectors(tmp_path))
    more = [
        *ENTRIES,
        EntryView(ref="A99", section="Facts", topic=None, text="Service z runs on port 1", day=None),
    ]
    assert second.for_items(items, more) == HybridCandidates(OfflineEmbedder(), per_item=3).for_items(
        items, more
    )
    assert embedder.seen == ["Service z runs on port 1", "Service c now runs on port 9000"]


def test_vectors_kept_by_another_embedder_are_not_used(tmp_path: Path) -> None:
    KeptVectors(tmp_path).save({"a text": np.ones(4, dtype=np.float32) / 2}, "function/4")
    assert KeptVectors(tmp_path).found(["a text"], "function/4")["a text"].tolist() == [0.5] * 4
    assert KeptVectors(tmp_path).found(["a text"], "other/4") == {}
    embedder = FunctionEmbedder(lambda text: [1.0, 0.0, 0.0, 0.0], 4, id="other")
    candidates = HybridCandidates(embedder, kept=KeptVectors(tmp_path))
    list(candidates.echoes(["a query"], ["a text"], [1], 0.5, 5))
    assert embedder.seen == ["a text", "a query"]


def test_a_damaged_cache_is_embedded_again(tmp_path: Path) -> None:
    (tmp_path / NAME).write_bytes(b"not a zip")
    assert KeptVectors(tmp_path).found(["a text"], "function/4") == {}


def test_a_second_run_tokenizes_only_the_texts_the_first_did_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = [note_item("Service c now runs on port 9000")]
    first = HybridCandidates(OfflineEmbedder(), per_item=3, kept=KeptVectors(tmp_path))
    first.for_items(items, ENTRIES)
    first.keep()
    tokenized: list[str] = []

    def counting(text: str) -> list[str]:
        tokenized.append(text)
        return index_terms(text)

    monkeypatch.setattr(candidates, "index_terms", counting)
    more = [
        *ENTRIES,
        EntryView(ref="A99", section="Facts", topic=None, text="Service z runs on port 1", day=None),
    ]
    second = HybridCandidates(OfflineEmbedder(), per_item=3, kept=KeptVectors(tmp_path))
    found = second.for_items(items, more)
    assert tokenized == ["Service z runs on port 1"]
    monkeypatch.undo()
    assert found == HybridCandidates(OfflineEmbedder(), per_item=3).for_items(items, more)
    assert second._terms == {entry.text: index_terms(entry.text) for entry in more}


def test_terms_kept_by_an_earlier_tokenizer_are_read_again(tmp_path: Path) -> None:
    kept = KeptVectors(tmp_path)
    text = "Deployed v0.6.5 to prod"
    kept.save({text: np.ones(4, dtype=np.float32)}, "e/4", {text: ["deploy", "v0", "6", "5", "to", "prod"]})
    with np.load(tmp_path / NAME) as data:  # as the version before whole words wrote it: no terms_version
        before = {key: data[key] for key in data.files if key != "terms_version"}
    with open(tmp_path / NAME, "wb") as handle:
        np.savez(handle, **before)
    assert KeptVectors(tmp_path).found_terms([text]) == {}
    kept.save({text: np.ones(4, dtype=np.float32)}, "e/4", {text: index_terms(text)})
    assert KeptVectors(tmp_path).found_terms([text]) == {text: index_terms(text)}
