"""SleepGate's reads and writes of the sidecar database: entry signals, density counts, the query
log with embeddings, pass records and restores. The entries themselves change only through Store."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.boundary import Cursor, SidecarStore, in_namespace
from memory_sleep.sidecar.evidence import evidence_ids
from memory_sleep.sidecar.rows import EntryRow
from memory_sleep.sidecar.successors import MAX_CHAIN
from memory_sleep.sleepgate.build import Build

Ids = npt.NDArray[np.int64]
FORGOTTEN = "forgotten"  # the soft-delete reason of the forgetting pass


@dataclass(frozen=True)
class Counted:
    """What density counted an entry by: its scope, its values key and its embedding."""

    scope: str
    values_key: int
    embedding: bytes


@dataclass(frozen=True)
class EntrySignals:
    """Raw per-entry inputs to scoring, in ascending id order."""

    ids: Ids
    touched: npt.NDArray[np.float64]
    access_counts: npt.NDArray[np.int64]
    importance: npt.NDArray[np.float64]


def entry_signals(store: SidecarStore) -> EntrySignals:
    """When each live entry was last written, accessed or restored, and its access count."""
    where, params = in_namespace(store, "e.namespace")
    rows = store.db.execute(
        f"SELECT e.id, coalesce({store.day_noon_sql}, e.updated_at), coalesce(e.last_accessed_at, 0),"
        " coalesce(r.restored_at, 0), e.access_count, e.importance FROM entries e"
        f" LEFT JOIN entry_restores r ON r.entry_id = e.id WHERE e.deleted_at IS NULL{where} ORDER BY e.id",
        params,
    )
    columns = _columns(rows, 6, np.float64)
    touched = columns[:, 1:4].max(axis=1)
    return EntrySignals(
        columns[:, 0].astype(np.int64), touched, columns[:, 4].astype(np.int64), columns[:, 5]
    )


def latest_words(store: SidecarStore) -> list[EntryRow]:
    """The entries at the end of the chain a live entry's ending starts (the line that superseded or
    closed it, the entry GC merged that line into, ...; MAX_CHAIN links, as recall follows it),
    unless superseded by what is not indexed, live or soft-deleted: the latest word on what ended,
    which recall ranks above it (sidecar/successors.py). Forgetting one while what it ended stays
    would leave recall the old value alone."""
    where, params = in_namespace(store)
    endings = {
        ending
        for (ending,) in store.db.execute(
            "SELECT DISTINCT ended_by FROM entries"
            f" WHERE status IS NOT NULL AND ended_by IS NOT NULL AND deleted_at IS NULL{where}",
            params,
        )
    }
    latest: dict[int, EntryRow] = {}
    seen: set[int] = set()
    for _ in range(MAX_CHAIN):
        found = {found for found in evidence_ids(store, endings).values() if found and found not in seen}
        seen |= found
        named = store.fetch(found).values()
        latest |= {row.id: row for row in named if row.status != "superseded"}
        endings = {row.ended_by for row in named if row.status == "superseded" and row.ended_by}
        if not endings:
            break
    return list(latest.values())


def _build_key(store: SidecarStore) -> tuple[str, object]:
    """The unfinished density count's row: the only one (SQLite) or the namespace's (Postgres)."""
    return ("id", 1) if store.namespace is None else ("namespace", store.namespace)


def _columns(cursor: Cursor, width: int, dtype: type[np.generic]) -> npt.NDArray[Any]:
    """A query's numeric rows as one array, read in slices (never a million Python tuples at once)."""
    parts = [np.zeros((0, width), dtype=dtype)]
    while rows := cursor.fetchmany(65_536):
        parts.append(np.array(rows, dtype=dtype).reshape(-1, width))
    return np.concatenate(parts)


def density_counts(store: SidecarStore) -> tuple[Ids, npt.NDArray[np.int64]]:
    """(ids, neighbour counts) of every counted entry, ascending."""
    if store.namespace is None:
        rows = store.db.execute("SELECT entry_id, neighbours FROM entry_density ORDER BY entry_id")
    else:
        rows = store.db.execute(
            "SELECT d.entry_id, d.neighbours FROM entry_density d JOIN entries e ON e.id = d.entry_id"
            " WHERE e.namespace = ? ORDER BY d.entry_id",
            (store.namespace,),
        )
    table = _columns(rows, 2, np.int64)
    return table[:, 0].copy(), table[:, 1].copy()


def load_build(store: SidecarStore, threshold: float, embedder: str) -> Build | None:
    """The saved unfinished density count for this threshold and embedder."""
    column, key = _build_key(store)
    row = store.db.execute(
        "SELECT ids, counts, next_row, pair_firsts, pair_seconds FROM density_build"
        f" WHERE threshold = ? AND embedder = ? AND {column} = ?",
        (threshold, embedder, key),
    ).fetchone()
    if row is None:
        return None
    ids, counts = _int64s(row[0]), _int64s(row[1])
    if len(ids) != len(counts):
        return None
    pairs = None if row[3] is None else (_int64s(row[3]), _int64s(row[4]))
    return Build(ids, counts, int(row[2]), pairs)


def save_build(store: SidecarStore, build: Build, threshold: float, embedder: str) -> None:
    firsts, seconds = build.pairs if build.pairs is not None else (None, None)
    column, key = _build_key(store)
    store.db.execute(
        f"INSERT INTO density_build ({column}, threshold, embedder, next_row, ids, counts, pair_firsts,"
        f" pair_seconds) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ({column}) DO UPDATE SET"
        " threshold = excluded.threshold, embedder = excluded.embedder, next_row = excluded.next_row,"
        " ids = excluded.ids, counts = excluded.counts, pair_firsts = excluded.pair_firsts,"
        " pair_seconds = excluded.pair_seconds",
        (
            key,
            threshold,
            embedder,
            build.next_row,
            _blob(build.ids),
            _blob(build.counts),
            None if firsts is None else _blob(firsts),
            None if seconds is None else _blob(seconds),
        ),
    )


def _int64s(blob: bytes) -> Ids:
    return np.frombuffer(blob, dtype="<i8").astype(np.int64)


def _blob(values: npt.NDArray[np.int64]) -> bytes:
    return values.astype("<i8").tobytes()


def discard_build(store: SidecarStore) -> None:
    column, key = _build_key(store)
    store.db.execute(f"DELETE FROM density_build WHERE {column} = ?", (key,))


def retired_embeddings(store: SidecarStore) -> dict[int, Counted]:
    """The embedding each changed entry had when it was last counted, with its scope and values key."""
    where, params = in_namespace(store)
    return {
        int(entry_id): Counted(scope, int(key or 0), blob)
        for entry_id, scope, key, blob in store.db.execute(
            f"SELECT entry_id, scope, values_key, embedding FROM density_retired WHERE 1 = 1{where}", params
        )
    }


def stored_embeddings(store: SidecarStore, ids: Sequence[int]) -> dict[int, Counted]:
    """Scope, values key and embedding of entries by id, deleted or not (soft-deleted entries keep
    theirs)."""
    query = (
        "SELECT id, scope, values_key, embedding FROM entries WHERE embedding IS NOT NULL AND id IN ({marks})"
    )
    return {
        int(entry_id): Counted(scope, int(key or 0), blob)
        for entry_id, scope, key, blob in _by_ids(store, query, ids)
    }


def values_keys(store: SidecarStore, persist: bool) -> tuple[Ids, Ids]:
    """(ids, values keys) of every live entry, ascending. An entry indexed before keys were kept has
    its key worked out from its text (and stored, unless `persist` is False: a dry run)."""
    where, params = in_namespace(store)
    rows = store.db.execute(
        f"SELECT id, coalesce(values_key, 0), values_key IS NULL FROM entries WHERE deleted_at IS NULL{where}"
        " ORDER BY id",
        params,
    )
    table = _columns(rows, 3, np.int64)
    ids, keys = table[:, 0].copy(), table[:, 1].copy()
    unknown = ids[table[:, 2] == 1]
    if len(unknown) == 0:
        return ids, keys
    from memory_sleep.sidecar.statement import values_key

    query = "SELECT id, kind, text FROM entries WHERE id IN ({marks})"
    found = {
        int(entry_id): values_key(text, kind)
        for entry_id, kind, text in _by_ids(store, query, unknown.tolist())
    }
    keys[np.searchsorted(ids, unknown)] = [found[int(i)] for i in unknown]
    if persist:
        with store.transaction():
            store.db.executemany(
                "UPDATE entries SET values_key = ? WHERE id = ?", [(key, i) for i, key in found.items()]
            )
    return ids, keys


def _by_ids(store: SidecarStore, query: str, ids: Sequence[int]) -> Iterator[tuple[Any, ...]]:
    """The rows of `query` for `ids`, 500 at a time (its "{marks}": the placeholders of an IN list)."""
    for start in range(0, len(ids), 500):
        chunk = [int(i) for i in ids[start : start + 500]]
        yield from store.db.execute(query.format(marks=",".join("?" * len(chunk))), chunk)


def write_density(
    store: SidecarStore,
    set_counts: Iterable[tuple[int, int]],
    drop: Sequence[int],
    retired: Sequence[int],
    replace_all: bool = False,
) -> None:
    """Store neighbour counts (inside the caller's transaction)."""
    if replace_all:
        store.db.execute("DELETE FROM entry_density")
    store.db.executemany("DELETE FROM entry_density WHERE entry_id = ?", [(int(i),) for i in drop])
    store.db.executemany(
        "INSERT INTO entry_density (entry_id, neighbours) VALUES (?, ?)"
        " ON CONFLICT (entry_id) DO UPDATE SET neighbours = excluded.neighbours",
        set_counts,
    )
    store.db.executemany("DELETE FROM density_retired WHERE entry_id = ?", [(int(i),) for i in retired])


def clear_retired(store: SidecarStore) -> None:
    where, params = in_namespace(store)
    store.db.execute(f"DELETE FROM density_retired WHERE 1 = 1{where}", params)


@dataclass(frozen=True)
class LoggedQuery:
    """A logged recall as the predictor replays it."""

    id: int
    scope: str | None
    k: int
    embedding: npt.NDArray[np.float32]
    served: list[int]


def logged_queries(store: SidecarStore, limit: int, embedder: str, dimensions: int) -> list[LoggedQuery]:
    """The last `limit` recalls embedded by `embedder`, newest first, with the ids they served."""
    if limit <= 0:
        return []
    where, params = in_namespace(store)
    rows = store.db.execute(
        "SELECT id, scope, k, embedding FROM queries WHERE embedder = ? AND embedding IS NOT NULL"
        f"{where} ORDER BY id DESC LIMIT ?",
        (embedder, *params, limit),
    ).fetchall()
    served: dict[int, list[int]] = {int(row[0]): [] for row in rows}
    if rows:
        for query_id, entry_id in store.db.execute(
            "SELECT query_id, entry_id FROM query_results WHERE query_id >= ? ORDER BY query_id, rank",
            (min(served),),
        ):
            if query_id in served:
                served[query_id].append(int(entry_id))
    queries = []
    for query_id, scope, k, blob in rows:
        vector = np.frombuffer(blob, dtype="<f4").astype(np.float32)
        if len(vector) == dimensions:
            queries.append(LoggedQuery(int(query_id), scope, int(k), vector, served[int(query_id)]))
    return queries


def last_pass_at(store: SidecarStore) -> float | None:
    """When the last real (not dry-run) pass started, skipped or not."""
    where, params = in_namespace(store)
    row = store.db.execute(
        f"SELECT max(started_at) FROM forgetting_passes WHERE dry_run = 0{where}", params
    ).fetchone()
    return None if row[0] is None else float(row[0])


def record_pass(
    store: SidecarStore,
    pass_id: str,
    started_at: float,
    seconds: float,
    counts: dict[str, int],
    skipped: str | None,
) -> None:
    scoped = "" if store.namespace is None else ", namespace"
    store.db.execute(
        f"INSERT INTO forgetting_passes (id, started_at, seconds, dry_run, entries, candidates, load_bearing,"
        f" forgotten, skipped{scoped}) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?{', ?' if scoped else ''})",
        (
            pass_id,
            started_at,
            seconds,
            counts.get("entries", 0),
            counts.get("candidates", 0),
            counts.get("loadBearing", 0),
            counts.get("forgotten", 0),
            skipped,
            *([] if store.namespace is None else [store.namespace]),
        ),
    )


def drop_pass(store: SidecarStore, pass_id: str) -> None:
    """Forget that a pass ran (its run was undone): the next one is due as if it never had."""
    store.db.execute("DELETE FROM forgetting_passes WHERE id = ?", (pass_id,))


def note_restores(store: SidecarStore, ids: Sequence[int], now: float) -> None:
    store.db.executemany(
        "INSERT INTO entry_restores (entry_id, restored_at) VALUES (?, ?)"
        " ON CONFLICT (entry_id) DO UPDATE SET restored_at = excluded.restored_at",
        [(int(i), now) for i in ids],
    )


def last_restores(store: SidecarStore, ids: Sequence[int]) -> list[tuple[int, float]]:
    """(id, restored_at) of those of `ids` restored before."""
    query = "SELECT entry_id, restored_at FROM entry_restores WHERE entry_id IN ({marks})"
    return [(int(i), float(at)) for i, at in _by_ids(store, query, ids)]


def forgotten_ids(
    store: SidecarStore, ids: Sequence[int] = (), pass_id: str | None = None, since: float | None = None
) -> list[tuple[int, str | None]]:
    """(id, deleted_reason) of the entries a restore names: by id, by pass, or forgotten since a time."""
    db = store.db
    if pass_id is not None:
        query = "SELECT id, deleted_reason FROM entries WHERE deleted_pass = ? AND deleted_at IS NOT NULL"
        return [(int(i), r) for i, r in db.execute(query + " ORDER BY id", (pass_id,))]
    if since is not None:
        where, params = in_namespace(store)
        query = (
            "SELECT id, deleted_reason FROM entries WHERE (deleted_reason = 'forgotten'"
            " OR deleted_reason LIKE 'gc:%') AND deleted_at >= ?"
        )
        return [(int(i), r) for i, r in db.execute(query + where + " ORDER BY id", (since, *params))]
    found = store.fetch(ids)
    return [
        (i, found[i].deleted_reason if i in found and found[i].deleted_at else None)
        for i in ids
        if i in found
    ]


def pass_exists(store: SidecarStore, pass_id: str) -> bool:
    """A forgetting pass, or a GC run that soft-deleted something (GC runs keep no record of their own)."""
    if store.db.execute("SELECT 1 FROM forgetting_passes WHERE id = ?", (pass_id,)).fetchone() is not None:
        return True
    return (
        store.db.execute("SELECT 1 FROM entries WHERE deleted_pass = ? LIMIT 1", (pass_id,)).fetchone()
        is not None
    )


def status(store: SidecarStore) -> dict[str, object]:
    """For `stats`: the last real pass, and how far the density counts are (counted, or a build's
    share of pairs done, or none yet)."""
    where, params = in_namespace(store)
    last = store.db.execute(
        "SELECT id, started_at, forgotten, load_bearing, skipped FROM forgetting_passes WHERE dry_run = 0"
        f"{where} ORDER BY started_at DESC LIMIT 1",
        params,
    ).fetchone()
    column, key = _build_key(store)
    build = store.db.execute(
        f"SELECT next_row, length(ids) / 8 FROM density_build WHERE {column} = ?", (key,)
    ).fetchone()
    counted = store.db.execute(
        "SELECT count(*) FROM entry_density"
        if store.namespace is None
        else "SELECT count(*) FROM entry_density d JOIN entries e ON e.id = d.entry_id WHERE e.namespace = ?",
        params,
    ).fetchone()[0]
    if build is not None and build[1]:
        density: dict[str, object] = {"state": "building", "progress": 1 - (1 - build[0] / build[1]) ** 2}
    elif counted:
        density = {"state": "counted", "entries": counted, "threshold": store.meta("density_threshold")}
    else:
        density = {"state": "none"}
    return {
        "last_pass": None
        if last is None
        else {
            "id": last[0],
            "started_at": last[1],
            "forgotten": last[2],
            "load_bearing": last[3],
            "skipped": last[4],
        },
        "density": density,
    }
