"""The candidate step: which memory entries an engine is shown for each item (NREM's "already in memory",
REM's entries a batch may repeat, update or supersede), by the sidecar's hybrid search over the entries
as they are now (earlier batches of the run change them), not the index written after the last run."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import zip_longest
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from memory_sleep.config import Config
from memory_sleep.cycle.kept_vectors import KeptVectors
from memory_sleep.errors import MemorySleepError
from memory_sleep.models import EntryView, NoteItem
from memory_sleep.sidecar.embed import Embedder, build_embedder
from memory_sleep.sidecar.search import TextScorer, fuse
from memory_sleep.sidecar.tokenize import index_terms

_ECHO_CHUNK = 512
_TEXT_ONLY = "candidate entries ranked by their words alone: the sidecar's embedder failed ({error})"


class Candidates(Protocol):
    warnings: list[str]  # what the run should say (an embedder that failed, so text alone ranked)

    def for_items(self, items: Sequence[NoteItem], entries: Sequence[EntryView]) -> dict[str, list[str]]:
        """For each item's id, the refs of the `entries` it may be about, most likely first."""
        ...

    def echoes(
        self, queries: Sequence[str], pool: Sequence[str], reach: Sequence[int], floor: float, most: int
    ) -> Iterable[list[str]]:
        """For each query in turn, the `most` texts among the first `reach[i]` of `pool` that say much the same
        by meaning (cosine at least `floor`), nearest first; none without an embedder."""
        ...


def shown(candidates: Candidates, items: Sequence[NoteItem], entries: Sequence[EntryView]) -> list[EntryView]:
    """The entries any of `items` has among its candidates: what a batch is shown, best ranks first
    (every item's first candidate, then every item's second, ...), so a budget keeps the best."""
    ranked = zip_longest(*candidates.for_items(items, entries).values())
    by_ref = {entry.ref: entry for entry in entries}
    wanted = dict.fromkeys(ref for refs in ranked for ref in refs if ref is not None and ref in by_ref)
    return [by_ref[ref] for ref in wanted]


class HybridCandidates:
    """The default step: per item, the `per_item` entries the sidecar's hybrid search ranks best (exact
    vector top-`pool` and BM25 top-`pool`, fused by reciprocal rank; no age decay: an old entry is the
    one a new value supersedes). Without an embedder (the sidecar disabled), BM25 alone. Entry vectors
    are cached by text for the run, so each entry is embedded once however many batches see it, and with
    `kept`, between runs (`keep()` after a run), with each entry's index terms."""

    def __init__(
        self,
        embedder: Embedder | None,
        per_item: int = 8,
        pool: int = 50,
        rrf_k: int = 60,
        kept: KeptVectors | None = None,
    ) -> None:
        self.embedder, self.per_item, self.pool, self.rrf_k = embedder, per_item, pool, rrf_k
        self.kept = kept
        self.warnings: list[str] = []
        self._vectors: dict[str, npt.NDArray[np.float32]] = {}
        self._terms: dict[str, list[str]] = {}
        self._scorer: tuple[list[str], TextScorer] | None = None  # the last entries' BM25, by their texts

    def for_items(self, items: Sequence[NoteItem], entries: Sequence[EntryView]) -> dict[str, list[str]]:
        if len(entries) <= self.per_item:
            return {item.id: [entry.ref for entry in entries] for item in items}
        queries = [_query(item) for item in items]
        texts = [entry.text for entry in entries]
        scorer = self._text_scorer(texts)
        vector_ranked = self._vector_ranked(queries, texts)
        found: dict[str, list[str]] = {}
        for number, item in enumerate(items):
            rankings = [scorer.ranked(queries[number], self.pool)]
            if vector_ranked is not None:
                rankings.append(vector_ranked[number].tolist())
            fused = fuse(rankings, self.rrf_k)
            best = sorted(fused, key=lambda index: (-fused[index], index))[: self.per_item]
            found[item.id] = [entries[index].ref for index in best]
        return found

    def echoes(
        self, queries: Sequence[str], pool: Sequence[str], reach: Sequence[int], floor: float, most: int
    ) -> Iterator[list[str]]:
        """Computed a bounded block of queries at a time, as they are asked for."""
        if self.embedder is None or not queries or not pool:
            yield from ([] for _ in queries)
            return
        try:
            self._embed_missing(pool)
        except MemorySleepError as error:
            yield from self._without_embedder(error, len(queries))
            return
        matrix = np.stack([self._vectors[text] for text in pool])
        for start in range(0, len(queries), _ECHO_CHUNK):
            if self.embedder is None:  # it failed since, ranking candidates
                yield from ([] for _ in queries[start:])
                return
            try:
                rows = self.embedder.embed(queries[start : start + _ECHO_CHUNK])
            except MemorySleepError as error:
                yield from self._without_embedder(error, len(queries) - start)
                return
            for near, limit in zip(rows @ matrix.T, reach[start : start + _ECHO_CHUNK], strict=True):
                close = np.flatnonzero(near[:limit] >= floor)
                yield [pool[index] for index in _first(close, near, most)]

    def _without_embedder(self, error: MemorySleepError, count: int) -> Iterator[list[str]]:
        self.warnings.append(_TEXT_ONLY.format(error=error))
        self.embedder = None
        yield from ([] for _ in range(count))

    def keep(self) -> None:
        """Keep this run's vectors for the next run's candidate step (with `kept` and an embedder)."""
        if self.kept is not None and self.embedder is not None:
            self.kept.save(self._vectors, self.embedder.id, self._terms)

    def _embed_missing(self, texts: Sequence[str]) -> None:
        assert self.embedder is not None
        missing = list(dict.fromkeys(text for text in texts if text not in self._vectors))
        if missing and self.kept is not None:
            self._vectors.update(self.kept.found(missing, self.embedder.id))
            missing = [text for text in missing if text not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.embedder.embed(missing), strict=True))

    def _text_scorer(self, texts: list[str]) -> TextScorer:
        """BM25 over `texts`, built again only when they differ from the last call's: NREM shows every
        batch the same entries (thousands, in a year of history)."""
        if self._scorer is not None and self._scorer[0] == texts:
            return self._scorer[1]
        if self.kept is not None:
            self._terms.update(self.kept.found_terms([text for text in texts if text not in self._terms]))
        scorer = TextScorer([self._index_terms(text) for text in texts])
        self._scorer = (texts, scorer)
        return scorer

    def _index_terms(self, text: str) -> list[str]:
        if text not in self._terms:
            self._terms[text] = index_terms(text)
        return self._terms[text]

    def _vector_ranked(self, queries: Sequence[str], texts: Sequence[str]) -> npt.NDArray[np.intp] | None:
        """Per query, the indexes of the `pool` texts nearest it (cosine: the rows are unit vectors)."""
        if self.embedder is None or not queries:
            return None
        try:
            self._embed_missing(texts)
            similarities = self.embedder.embed(queries) @ np.stack([self._vectors[text] for text in texts]).T
        except MemorySleepError as error:
            self.warnings.append(_TEXT_ONLY.format(error=error))
            self.embedder = None
            return None
        return _nearest_first(similarities, self.pool)


def _nearest_first(similarities: npt.NDArray[np.float32], count: int) -> npt.NDArray[np.intp]:
    """Per row, the indexes of its `count` highest values, highest first, ties in index order: what a
    stable argsort of the whole row starts with, without sorting thousands of archived entries per
    query (only those at least the row's `count`-th highest value)."""
    columns = similarities.shape[1]
    if columns <= count:
        return np.argsort(-similarities, axis=1, kind="stable")
    floors = np.partition(similarities, columns - count, axis=1)[:, columns - count]
    best = np.empty((len(similarities), count), dtype=np.intp)
    for number, (row, floor) in enumerate(zip(similarities, floors, strict=True)):
        at_least = np.flatnonzero(row >= floor)
        best[number] = at_least[np.argsort(-row[at_least], kind="stable")][:count]
    return best


def _first(indexes: npt.NDArray[np.intp], values: npt.NDArray[np.float32], most: int) -> list[int]:
    """The `most` of `indexes` (ascending) with the highest `values`, highest first, ties in index order,
    in time linear in their number: a note of thousands of near-identical lines echoes each of them."""
    if len(indexes) > most:
        floor = np.partition(values[indexes], len(indexes) - most)[len(indexes) - most]
        indexes = indexes[values[indexes] >= floor]
    return [int(index) for index in indexes[np.argsort(-values[indexes], kind="stable")][:most]]


def _query(item: NoteItem) -> str:
    return f"{item.lead} {item.text}" if item.lead else item.text


def configured(config: Config, state_dir: Path | None = None) -> HybridCandidates:
    """The candidate step a run uses: the workspace's sidecar embedder (none when the sidecar is off),
    its vectors kept between runs in `state_dir`."""
    sidecar = config.sidecar
    embedder, problem = None, None
    if sidecar.enabled:
        try:
            embedder = build_embedder(sidecar)
        except MemorySleepError as error:
            problem = _TEXT_ONLY.format(error=error)
    candidates = HybridCandidates(
        embedder,
        config.engine.candidates_per_item,
        sidecar.candidates,
        sidecar.rrf_k,
        KeptVectors(state_dir) if state_dir is not None else None,
    )
    candidates.warnings.extend([problem] if problem else [])
    return candidates
