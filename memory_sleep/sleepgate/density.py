"""Semantic density: for every live entry, how many other live entries of its scope lie within the
similarity threshold.

Counts are kept as a build: entries in build order and their counts, where every pair with an end
among the first `next_row` entries has been counted. A finished table is a build with every row
done. Bringing a build up to date with the live index (`reconcile`) takes removed and re-embedded
entries out of the counts they were part of and has new ones meet the done rows, so a nightly
update pays only for the day's changes, and a full rebuild (hours at a million entries) can stop at
a time budget, be saved, and resume the next night over an index that has changed meanwhile."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.sleepgate import state
from memory_sleep.sleepgate.build import Build, pair_limit
from memory_sleep.sleepgate.pairs import Codes, Counts, PairLog, Positions, against, all_pairs

log = logging.getLogger("memory_sleep")
Ids = npt.NDArray[np.int64]


@dataclass
class DensityResult:
    """Neighbour counts aligned with the index rows, or why they are not ready yet, and what to
    store: counts to write, ids to drop, consumed retired embeddings."""

    counts: Counts | None
    mode: str  # "incremental", "rebuilt" or "building"
    seconds: float = 0.0
    progress: float = 1.0
    write_ids: Ids = field(default_factory=lambda: np.zeros(0, np.int64))
    write_counts: Counts = field(default_factory=lambda: np.zeros(0, np.int64))
    drop: list[int] = field(default_factory=list)
    retired: list[int] = field(default_factory=list)
    pairs: tuple[Positions, Positions] | None = None  # near pairs by index row, after a one-go rebuild
    build: Build | None = None  # an unfinished rebuild to save


class Groups(VectorIndex):
    """The live index with each row's scope code replaced by its density group's: the entry's scope
    and the values it states (sidecar/statement.py `values_key`), named "<values key> <scope>". Two
    entries are near only within one group: one stating another release, day or address than its
    nearest neighbour is no copy of it, and forgetting it would lose that value."""


def grouped(store: SidecarStore, index: VectorIndex, persist: bool = True) -> Groups:
    """`index` with its rows' density groups (`persist` False, a dry run, stores no key it works out)."""
    ids, keys = state.values_keys(store, persist)
    row_keys = np.zeros(len(index.ids), dtype=np.int64)
    if len(ids):
        at = np.minimum(np.searchsorted(ids, index.ids), len(ids) - 1)
        row_keys = np.where(ids[at] == index.ids, keys[at], 0)
    scopes = index.scope_codes
    order = np.lexsort((scopes, row_keys))  # a 2-column np.unique took ~2 s at 1M rows
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = (np.diff(row_keys[order]) != 0) | (np.diff(scopes[order]) != 0)
    codes = np.empty(len(order), dtype=np.int32)
    codes[order] = np.cumsum(starts) - 1
    firsts = order[starts]
    names = [
        _group_name(key, index.scope_names[scope])
        for key, scope in zip(row_keys[firsts].tolist(), scopes[firsts].tolist(), strict=True)
    ]
    return Groups(index.ids, codes, names, index.matrix, index.generation)


def _group_name(values_key: int, scope: str) -> str:
    return f"{values_key} {scope}"


def _codes(index: Groups) -> Codes | None:
    return index.scope_codes if len(index.scope_names) > 1 else None


def _positions(index: VectorIndex, ids: Ids) -> tuple[Positions, npt.NDArray[np.bool_]]:
    """Row of each id in the index, and whether it is there."""
    if len(index.ids) == 0:
        return np.zeros(len(ids), dtype=np.intp), np.zeros(len(ids), dtype=bool)
    positions = np.minimum(np.searchsorted(index.ids, ids), len(index.ids) - 1)
    return positions, index.ids[positions] == ids


def _old_vectors(
    store: SidecarStore, index: Groups, ids: Ids, retired: dict[int, state.Counted]
) -> tuple[npt.NDArray[np.float32], Codes, npt.NDArray[np.bool_]]:
    """The embeddings `ids` had when they were counted (a re-embedded entry's old one, a removed
    entry's stored one), their group codes, and which of them are known."""
    dim = index.matrix.shape[1]
    stored = state.stored_embeddings(store, [int(i) for i in ids if int(i) not in retired])
    code_of = {name: code for code, name in enumerate(index.scope_names)}
    vectors = np.zeros((len(ids), dim), dtype=np.float32)
    codes = np.full(len(ids), -1, dtype=np.int32)
    known = np.zeros(len(ids), dtype=bool)
    for row, entry_id in enumerate(ids.tolist()):
        counted = retired.get(entry_id) or stored.get(entry_id)
        if counted is None or len(counted.embedding) != dim * 4:
            continue
        vectors[row] = np.frombuffer(counted.embedding, dtype="<f4")
        codes[row] = code_of.get(_group_name(counted.values_key, counted.scope), -1)
        known[row] = True
    return vectors, codes, known


def reconcile(
    store: SidecarStore, build: Build, index: Groups, threshold: float
) -> tuple[Build, list[int], Ids]:
    """The build brought in step with the live index, the retired embeddings it consumed, and the
    ids that left it.

    Entries gone from the index or re-embedded since they were counted leave the build, and their
    counted pairs come out of the other rows' counts (a done row met every row; a row still to do
    met only the done ones). Live entries the build lacks (new, restored, re-embedded) meet the done
    rows and join the rows still to do."""
    retired = state.retired_embeddings(store)
    codes = _codes(index)
    positions, live = _positions(index, build.ids)
    changed = np.isin(build.ids, np.fromiter(retired, dtype=np.int64, count=len(retired)))
    stale = ~live | changed
    done = np.arange(len(build.ids)) < build.next_row
    counts = build.counts.copy()
    # a row counted with no neighbour is in no other row's count: most rows, as most state values no
    # other entry states (`Groups`), so only the stale rows with neighbours are met again
    paired = build.counts > 0
    probing = stale & paired
    if probing.any():
        vectors, probe_codes, known = _old_vectors(store, index, build.ids[probing], retired)
        if not known.all():
            log.debug(
                "sleepgate: %d removed entries have no stored embedding; their neighbours' counts "
                "stay high until a rebuild",
                int((~known).sum()),
            )
        met = np.zeros(len(index.ids), dtype=np.int64)
        live_paired = ~stale & paired
        # a done row met every row; a row still to do met the done ones
        for probes, columns in (
            (done[probing] & known, live_paired),
            (~done[probing] & known, live_paired & done),
        ):
            met += against(
                vectors[probes],
                None if codes is None else probe_codes[probes],
                index.matrix,
                codes,
                threshold,
                columns=positions[columns],
            )[1]
        counts[~stale] -= met[positions[~stale]]
    kept = ~stale
    ids, counts, next_row = build.ids[kept], counts[kept], int((kept & done).sum())
    pairs = build.pairs
    if pairs is not None and stale.any():
        gone = build.ids[stale]
        valid = ~(np.isin(pairs[0], gone) | np.isin(pairs[1], gone))
        pairs = (pairs[0][valid], pairs[1][valid])
    result = Build(ids, counts, next_row, pairs)
    present = np.zeros(len(index.ids), dtype=bool)
    present[positions[kept]] = True
    missing = np.flatnonzero(~present)
    if len(missing):
        done_positions = _positions(index, ids[:next_row])[0]
        found = PairLog(pair_limit(len(index.ids))) if pairs is not None else None
        met, met_by = _rows_against(index, missing, done_positions, threshold, found)
        counts[:next_row] += met_by[done_positions]
        result = Build(
            np.concatenate([ids, index.ids[missing]]), np.concatenate([counts, met]), next_row, pairs
        )
        _keep_logged(result, found, index.ids[missing], index.ids)
    result.counts = np.maximum(result.counts, 0)
    return result, list(retired), build.ids[stale]


def _rows_against(
    index: Groups, rows: Positions, columns: Positions, threshold: float, found: PairLog | None = None
) -> tuple[Counts, Counts]:
    """`against` for index rows meeting other index rows."""
    codes = _codes(index)
    return against(
        index.matrix[rows],
        None if codes is None else codes[rows],
        index.matrix,
        codes,
        threshold,
        columns=columns,
        log=found,
    )


def _keep_logged(build: Build, found: PairLog | None, first_ids: Ids, second_ids: Ids) -> None:
    """Add a count's logged pairs (positions into `first_ids` and `second_ids`) to the build's."""
    if found is None:
        return
    logged = found.pairs()
    if logged is None:
        build.pairs = None
    else:
        build.keep_pairs(first_ids[logged[0]], second_ids[logged[1]])


def _advance(build: Build, index: Groups, threshold: float, deadline: float | None) -> Positions:
    """Count the rows still to do (until the deadline), keeping the pairs if the build keeps them;
    returns the build's rows in the index."""
    positions = _positions(index, build.ids)[0]
    identity = len(positions) == len(index.ids) and bool(np.all(positions == np.arange(len(positions))))
    order = None if identity else positions
    codes = _codes(index)
    pair_log = PairLog(pair_limit(len(build.ids))) if build.pairs is not None else None
    build.next_row = all_pairs(
        index.matrix,
        None if codes is None else codes[positions],
        threshold,
        build.counts,
        build.next_row,
        deadline,
        order,
        pair_log,
    )
    _keep_logged(build, pair_log, build.ids, build.ids)
    return positions


def update(store: SidecarStore, index: Groups, threshold: float) -> DensityResult:
    """Bring the stored, finished counts up to the live index; only changed counts are written."""
    started = time.perf_counter()
    counted_ids, counted = state.density_counts(store)
    build, consumed, dropped = reconcile(
        store, Build(counted_ids, counted, len(counted_ids)), index, threshold
    )
    positions = _advance(build, index, threshold, None)
    counts = np.zeros(len(index.ids), dtype=np.int64)
    counts[positions] = build.counts
    fresh = np.ones(len(build.ids), dtype=bool)
    if len(counted_ids):
        at = np.minimum(np.searchsorted(counted_ids, build.ids), len(counted_ids) - 1)
        fresh = (counted_ids[at] != build.ids) | (counted[at] != build.counts)
    dropped = dropped[~_positions(index, dropped)[1]]  # re-embedded entries left and came back
    return DensityResult(
        counts,
        "incremental",
        time.perf_counter() - started,
        write_ids=build.ids[fresh],
        write_counts=build.counts[fresh],
        drop=[int(i) for i in dropped],
        retired=consumed,
    )


def rebuild(
    store: SidecarStore,
    index: Groups,
    threshold: float,
    embedder: str,
    budget_secs: float | None,
    persist: bool = True,
) -> DensityResult:
    """All-pairs counts, resuming the saved build for this threshold and embedder if there is one
    (reconciled with today's index); stops at the budget and returns mode "building" with the build
    to save, or the finished counts. `persist` False (a dry run) neither reads nor clears state."""
    started = time.perf_counter()
    saved = state.load_build(store, threshold, embedder) if persist else None
    consumed: list[int] = []
    if saved is None:
        if persist:
            with store.transaction():
                state.clear_retired(store)  # edits from now on are changes against this snapshot
        empty = np.zeros(0, dtype=np.int64)
        build = Build(index.ids.copy(), np.zeros(len(index.ids), dtype=np.int64), 0, (empty, empty))
    else:
        build, consumed, _ = reconcile(store, saved, index, threshold)
    deadline = None if budget_secs is None else time.monotonic() + budget_secs
    positions = _advance(build, index, threshold, deadline)
    if not build.done:
        progress = build.next_row / len(build.ids)
        share = 1 - (1 - progress) ** 2  # the pairs counted so far
        return DensityResult(
            None, "building", time.perf_counter() - started, share, retired=consumed, build=build
        )
    counts = np.zeros(len(index.ids), dtype=np.int64)
    counts[positions] = build.counts
    pairs = None
    if build.pairs is not None:
        pairs = (_positions(index, build.pairs[0])[0], _positions(index, build.pairs[1])[0])
    return DensityResult(
        counts,
        "rebuilt",
        time.perf_counter() - started,
        write_ids=build.ids,
        write_counts=build.counts,
        retired=consumed,
        pairs=pairs,
    )


def save(store: SidecarStore, result: DensityResult, threshold: float, embedder: str) -> None:
    """Write what `update` or `rebuild` computed (inside the caller's transaction): the finished
    counts (all of them after a rebuild), or the unfinished build to resume."""
    if result.build is not None:
        state.save_build(store, result.build, threshold, embedder)
        state.write_density(store, [], [], result.retired)
        return
    if result.mode == "rebuilt":
        state.discard_build(store)
    state.write_density(
        store,
        zip(result.write_ids.tolist(), result.write_counts.tolist(), strict=True),
        result.drop,
        result.retired,
        replace_all=result.mode == "rebuilt",
    )
    store.set_meta("density_threshold", repr(threshold))
    store.set_meta("density_embedder", embedder)


def is_built(store: SidecarStore, threshold: float, embedder: str) -> bool:
    return store.meta("density_threshold") == repr(threshold) and store.meta("density_embedder") == embedder


def forget_rows(
    store: SidecarStore,
    index: Groups,
    rows: Positions,
    counts: Counts,
    threshold: float,
    pairs: tuple[Positions, Positions] | None = None,
) -> None:
    """Take soft-deleted rows out of their neighbours' stored counts (inside the caller's transaction),
    so the next update starts from the live set. With the near pairs of the rebuild that produced
    `counts` this is a lookup; otherwise rows with neighbours meet the rows that have some."""
    if len(rows) == 0:
        return
    gone = np.zeros(len(index.ids), dtype=bool)
    gone[rows] = True
    if pairs is not None:
        firsts, seconds = pairs
        per_row = np.bincount(seconds[gone[firsts]], minlength=len(gone))
        per_row += np.bincount(firsts[gone[seconds]], minlength=len(gone))
    else:
        probes = rows[counts[rows] > 0]  # an entry without neighbours is nobody's neighbour
        _, per_row = _rows_against(index, probes, np.flatnonzero(counts > 0), threshold)
    touched = np.flatnonzero(~gone & (per_row > 0))
    counts[touched] = np.maximum(counts[touched] - per_row[touched], 0)
    state.write_density(
        store,
        zip(index.ids[touched].tolist(), counts[touched].tolist(), strict=True),
        [int(index.ids[p]) for p in rows],
        [],
    )
