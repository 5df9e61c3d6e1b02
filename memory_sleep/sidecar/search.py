"""Hybrid search: exact vector top-n and FTS5 BM25 top-n, their scores fused, decayed by age; what had
stopped being true on the day asked about (today, or --as-of) ranks below what had not; copies of a
note line (MEMORY.md, weekly, archive) fold into it; later lines restating the best results are
looked up by their rarest words (sidecar/successors.py). Reciprocal rank fusion and an in-memory BM25
serve the run's candidate step (memory_sleep/cycle/candidates.py).

Pure: it reads the store and the vector index and writes nothing (recall.py logs what it returns).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

import numpy as np
import numpy.typing as npt

from memory_sleep.gc.signals import confidence, written_at
from memory_sleep.sidecar.boundary import SidecarStore, VectorSearch
from memory_sleep.sidecar.rows import FIRST_DAY_KEY, day_timestamp, merge_link, places
from memory_sleep.sidecar.store import EntryRow
from memory_sleep.sidecar.successors import (
    LATER_TERMS,
    Lookup,
    Ranked,
    fold_copies,
    newest_first,
    with_successors,
)
from memory_sleep.sidecar.tokenize import query_terms

Mode = Literal["hybrid", "vector", "text"]
DAY = 86_400.0
ENDED_WEIGHT = 0.75  # an ended entry needs a third more relevance than a valid one to rank above it
# a weekly summary's line and the archive's entry are copies (shortened, or moved out) of an item that
# is indexed too: on the same relevance the original, with its full text and place, comes first
COPY_WEIGHT = {"weekly": 0.95, "archive": 0.95}


@dataclass(frozen=True)
class SearchOptions:
    """How one search ranks: k results, a candidate pool per list, the full-text side's share of the
    fused score, and age decay."""

    k: int = 5
    scope: str | None = None
    mode: Mode = "hybrid"
    candidates: int = 50
    text_weight: float = 0.5
    half_life_days: float = 90.0
    decay_floor: float = 0.5
    text_budget: int = 1_000
    as_of: date | None = None  # answer as memory stood on this day (None: as of now)
    include_discarded: bool = False  # also items the run discarded as noise
    min_confidence: float | None = None  # [memory.gc.decay] recall_threshold: leave out what decayed under it
    confidence_half_life_days: float = 30.0


@dataclass(frozen=True)
class Hit:
    """One ranked result, with where it came from and why it ranked."""

    rank: int
    score: float
    entry: EntryRow
    vector_rank: int | None
    text_rank: int | None
    decay: float
    on: str  # the day it was asked about, ISO
    newer: EntryRow | None = None  # a later result that restates it (sidecar/successors.py)
    also: tuple[EntryRow, ...] = ()  # its copies (MEMORY.md, weekly summary, archive) folded into it
    merged: tuple[EntryRow, ...] = ()  # what GC merged into it (rows.merge_link): where it is written

    @property
    def status(self) -> str | None:
        """superseded, done or finished if it had stopped being true by then, "older" if a newer
        result restates it; None while valid and the latest word on it."""
        if self.entry.ended_on(self.on):
            return self.entry.status
        return "older" if self.newer is not None else None

    def status_line(self) -> str | None:
        """'superseded 2026-11-25 by memory/2026-11-25.md:14', 'older, see MEMORY.md:21 (2026-11-17)',
        or None."""
        if self.status is None:
            return None
        if self.newer is not None and not self.entry.ended_on(self.on):
            return f"older, see {self.newer.source_path}:{self.newer.line_start} ({self.newer.day})"
        by = f" by {self.entry.ended_by}" if self.entry.ended_by else ""
        return f"{self.status} {self.entry.valid_to}{by}"

    @property
    def id(self) -> int:
        return self.entry.id

    @property
    def source(self) -> str:
        return self.entry.source_path

    @property
    def line(self) -> int:
        return self.entry.line_start

    @property
    def day(self) -> str | None:
        return self.entry.day

    @property
    def text(self) -> str:
        return self.entry.text

    def as_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "id": self.id,
            "score": round(self.score, 6),
            "source": self.source,
            "line": self.line,
            "day": self.day,
            "kind": self.entry.kind,
            "scope": self.entry.scope,
            "context": self.entry.context,
            "text": self.text,
            "vector_rank": self.vector_rank,
            "text_rank": self.text_rank,
            "valid_from": self.day,
            "valid_to": self.entry.valid_to if self.entry.ended_on(self.on) else None,
            "status": self.status or "valid",
            "ended_by": self.entry.ended_by if self.entry.ended_on(self.on) else None,
            "newer": f"{self.newer.source_path}:{self.newer.line_start}" if self.newer else None,
            "also": places(self.also),
            "merged_from": places(self.merged),
        }


def decay_factor(
    row: EntryRow, now: float, half_life_days: float, floor: float, undated_since: float | None = None
) -> float:
    """floor + (1 - floor) * 0.5 ** (age / half-life); age from the entry's day, else, for a MEMORY.md
    row the file's first index found stating no day, from `undated_since` (the workspace's first note:
    nothing tells when it was written, and as if written the day indexed it outranked every dated
    answer as relevant for months), else from its last write."""
    if half_life_days <= 0:
        return 1.0
    if row.day:
        written = day_timestamp(date.fromisoformat(row.day))
    elif row.kind == "memory" and undated_since is not None:
        written = min(undated_since, row.updated_at)
    else:
        written = row.updated_at
    age_days = max(0.0, (now - written) / DAY)
    return float(floor + (1.0 - floor) * 0.5 ** (age_days / half_life_days))


def selective_terms(store: SidecarStore, terms: list[str], budget: int) -> list[str]:
    """The query's rarest indexed terms whose matches add up to at most `budget` entries.

    BM25 ranks every entry that matches any term, so one very common term makes a query slow
    while adding almost nothing to the ranking (its IDF is near zero); the vector side still
    sees the whole query. The rarest term always stays unless it alone exceeds the budget.
    """
    return within_budget(store.term_counts(terms), budget)


def rarest_terms(store: SidecarStore, texts: Sequence[str], budget: int) -> list[list[str]]:
    """`selective_terms` of each text, their counts read in one query for all of them."""
    wanted = [query_terms(text) for text in texts]
    counts = store.term_counts(sorted({term for terms in wanted for term in terms}))
    return [
        within_budget({term: counts[term] for term in terms if term in counts}, budget) for terms in wanted
    ]


def within_budget(counts: Mapping[str, int], budget: int) -> list[str]:
    """Of terms and how many entries hold each, the rarest whose matches add up to at most `budget`."""
    chosen: list[str] = []
    total = 0
    for term in sorted(counts, key=lambda t: (counts[t], t)):
        if total + counts[term] > budget:
            break
        chosen.append(term)
        total += counts[term]
    return chosen


def _text_ranked(
    store: SidecarStore, vectors: VectorSearch, query_text: str, options: SearchOptions, pool: int
) -> list[tuple[int, float]]:
    """(id, BM25 score) of the scope's live entries, best first, over the query's selective terms."""
    wanted = selective_terms(store, query_terms(query_text), options.text_budget)
    if not wanted:
        return []
    found = store.text_search(wanted, pool * 3)
    allowed = vectors.allowed([entry_id for entry_id, _ in found], options.scope)
    return [hit for hit, ok in zip(found, allowed, strict=True) if ok][:pool]


def fuse_scores(
    cosines: Mapping[int, float], text_scores: Mapping[int, float], text_weight: float
) -> dict[int, float]:
    """Each candidate's weighted sum of its two scores, each brought to [0, 1] over the candidates:
    the cosine from the lowest to the highest, BM25 as a share of the best (0 for an entry the
    full-text list does not hold: it shares no selective term, or ranks below the pool). With one
    side empty, the other alone.

    Scores, not ranks: reciprocal rank fusion gave an entry first on one side by a wide margin, and
    absent from the other, less than one in the middle of both (an answer the embedding ranked
    first lost to lines sharing two common words with the question); benchmarks/RECALL-MISSES.md
    has the figures.
    """
    if not text_scores:
        text_weight = 0.0
    elif not cosines:
        text_weight = 1.0
    low, high = min(cosines.values(), default=0.0), max(cosines.values(), default=0.0)
    best = max(text_scores.values(), default=0.0)
    fused: dict[int, float] = {}
    for entry_id in {**cosines, **text_scores}:
        cosine = cosines.get(entry_id)
        vector_side = 0.0 if cosine is None else (cosine - low) / (high - low) if high > low else 1.0
        text_side = text_scores.get(entry_id, 0.0) / best if best > 0 else 0.0
        fused[entry_id] = (1.0 - text_weight) * vector_side + text_weight * text_side
    return fused


def fuse(rankings: Iterable[Sequence[int]], rrf_k: int) -> dict[int, float]:
    """Reciprocal rank fusion: each id scores the sum of 1 / (rrf_k + rank) over the lists that hold it."""
    fused: dict[int, float] = {}
    for ranked in rankings:
        for rank, entry_id in enumerate(ranked, 1):
            fused[entry_id] = fused.get(entry_id, 0.0) + 1.0 / (rrf_k + rank)
    return fused


class TextScorer:
    """BM25 over a few texts held in memory, not in the store (a run's current MEMORY.md entries): FTS5's
    formula and parameters (k1 1.2, b 0.75) over the same terms as the store's (`index_terms` of each
    text, given; `query_terms` of the query)."""

    k1 = 1.2
    b = 0.75

    def __init__(self, documents: Sequence[Sequence[str]]) -> None:
        self.postings: dict[str, list[tuple[int, int]]] = {}
        lengths: list[int] = []
        for number, terms in enumerate(documents):
            lengths.append(len(terms))
            for term, count in Counter(terms).items():
                self.postings.setdefault(term, []).append((number, count))
        average = max(1.0, sum(lengths) / len(lengths)) if lengths else 1.0
        # each text's length norm, once: every query term reads it for each text holding the term
        self.norms = [self.k1 * (1 - self.b + self.b * length / average) for length in lengths]

    def ranked(self, query_text: str, limit: int) -> list[int]:
        """The indexes of the texts that share a query term, best first, at most `limit`."""
        total, norms, lift = len(self.norms), self.norms, self.k1 + 1
        scores: dict[int, float] = {}
        for term in query_terms(query_text):
            postings = self.postings.get(term, ())
            idf = max(1e-6, math.log((total - len(postings) + 0.5) / (len(postings) + 0.5)))
            for number, count in postings:
                scores[number] = scores.get(number, 0.0) + idf * count * lift / (count + norms[number])
        return sorted(scores, key=lambda number: (-scores[number], number))[:limit]


def search(
    store: SidecarStore,
    vectors: VectorSearch,
    query_text: str,
    query_vector: npt.NDArray[np.float32] | None,
    options: SearchOptions,
    now: float,
    parallel: Executor | None = None,
) -> list[Hit]:
    """The k best live, unexpired entries of the scope for a query, best first."""
    pool = max(options.candidates, options.k * 4)
    vector_ranked: list[tuple[int, float]] = []
    text_ranked: list[tuple[int, float]] = []
    pending: Future[list[tuple[int, float]]] | None = None
    if options.mode in ("hybrid", "text"):
        if parallel is not None and options.mode == "hybrid":
            # SQLite and numpy both release the GIL: BM25 runs on the other core during the mat-vec
            pending = parallel.submit(_text_ranked, store, vectors, query_text, options, pool)
        else:
            text_ranked = _text_ranked(store, vectors, query_text, options, pool)
    if options.mode in ("hybrid", "vector") and query_vector is not None:
        vector_ranked = vectors.top(query_vector, pool, options.scope, parallel)
    if pending is not None:
        text_ranked = pending.result()
    cosines = dict(vector_ranked)
    if options.mode == "hybrid" and query_vector is not None:
        cosines.update(vectors.cosines(query_vector, [i for i, _ in text_ranked if i not in cosines]))
    fused = fuse_scores(cosines, dict(text_ranked), options.text_weight)
    rows = store.fetch(fused)
    vector_rank = {entry_id: rank for rank, (entry_id, _) in enumerate(vector_ranked, 1)}
    text_rank = {entry_id: rank for rank, (entry_id, _) in enumerate(text_ranked, 1)}
    on = options.as_of or datetime.fromtimestamp(now, UTC).date()
    moment = day_timestamp(on) if options.as_of else now
    day = on.isoformat()
    first = store.meta(FIRST_DAY_KEY)
    since = day_timestamp(date.fromisoformat(first)) if first else None

    def decayed(row: EntryRow) -> float:
        return decay_factor(row, moment, options.half_life_days, options.decay_floor, since)

    ranked = []
    for entry_id, score in fused.items():
        row = rows.get(entry_id)
        if row is None or not _answers(row, options, day, moment):
            continue
        decay = decayed(row)
        relevance = score * decay * COPY_WEIGHT.get(row.kind, 1.0)
        ranked.append(Ranked(relevance * (ENDED_WEIGHT if row.ended_on(day) else 1.0), decay, row, relevance))

    def admits(row: EntryRow) -> bool:
        return _answers(row, options, day, moment)

    def rarest(texts: list[str]) -> list[list[str]]:
        return rarest_terms(store, texts, LATER_TERMS)

    lookup = Lookup(store, day, admits, options.k, rarest, decayed)
    ranked = newest_first(lookup, with_successors(lookup, fold_copies(ranked)))
    return [
        Hit(
            rank,
            item.score,
            item.row,
            vector_rank.get(item.row.id),
            text_rank.get(item.row.id),
            item.decay,
            day,
            item.newer,
            tuple(item.also),
            tuple(store.ended_by(link)) if (link := merge_link(item.row)) else (),
        )
        for rank, item in enumerate(ranked[: options.k], 1)
    ]


def _answers(row: EntryRow, options: SearchOptions, on: str, moment: float) -> bool:
    """A live entry of the scope that existed on the day asked about, not expired by then, and not
    noise the run discarded (unless asked for)."""
    if row.deleted_at is not None or (options.scope is not None and row.scope != options.scope):
        return False
    if row.expires_at is not None and row.expires_at <= moment:
        return False
    if row.discarded and not options.include_discarded:
        return False
    if options.min_confidence is not None and options.as_of is None:
        since = max(written_at(row), row.last_accessed_at or 0.0)
        if (
            confidence(row.importance, since, moment, options.confidence_half_life_days)
            < options.min_confidence
        ):
            return False
    return options.as_of is None or row.day is None or row.day <= on
