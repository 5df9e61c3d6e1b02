"""The in-memory vector index: every live embedding in one float32 matrix, searched exactly with numpy.

Exact search over a matrix was chosen by measurement (see "Vector sidecar" in README.md): at 100k x 384
a matrix-vector product and the top rows' selection take about 11-15 ms, inside the 20 ms budget, with
perfect recall, no build step and no extension to load. SQLite stays the source of truth; the matrix is
a derived cache saved beside the database as .npy files named by the store's generation, memory-mapped
when read (a recall process maps 100k vectors at once where reading them took ~0.05 s, or ~0.35 s from
SQLite BLOBs; processes share the pages). A stale or missing cache is rebuilt from SQLite; an older one
is patched with the rows changed since its generation.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.store import Vectors, from_blobs

PREFIX = "sidecar-vectors"
BLOCK_ROWS = 1024


class VectorIndex:
    """Live entry ids (ascending), their scopes, and their unit vectors as rows of one matrix."""

    def __init__(
        self,
        ids: npt.NDArray[np.int64],
        scope_codes: npt.NDArray[np.int32],
        scope_names: list[str],
        matrix: Vectors,
        generation: int,
    ) -> None:
        self.ids = ids
        self.scope_codes = scope_codes
        self.scope_names = scope_names
        self.matrix = matrix
        self.generation = generation

    def __len__(self) -> int:
        return len(self.ids)

    def drop(self, ids: Sequence[int], generation: int) -> VectorIndex:
        """This index without `ids`, as `generation`: the matrix is compacted in place (no second
        copy of the vectors; a mapped cache file's pages are copied on write, the file is left as
        it was), so this index must not be used afterwards."""
        keep = ~np.isin(self.ids, np.array(ids, dtype=np.int64))
        rows = np.flatnonzero(keep)
        for start in range(0, len(rows), 65_536):
            chunk = rows[start : start + 65_536]
            self.matrix[start : start + len(chunk)] = self.matrix[chunk]
        return VectorIndex(
            self.ids[keep], self.scope_codes[keep], self.scope_names, self.matrix[: len(rows)], generation
        )

    @classmethod
    def from_store(cls, store: SidecarStore, dimensions: int) -> VectorIndex:
        ids, scopes, matrix = store.live_vectors(dimensions)
        names = sorted(set(scopes))
        lookup = {name: code for code, name in enumerate(names)}
        codes = np.fromiter((lookup[s] for s in scopes), dtype=np.int32, count=len(scopes))
        return cls(ids, codes, names, matrix, store.generation())

    @classmethod
    def load(
        cls, store: SidecarStore, folder: Path | None, dimensions: int, current: VectorIndex | None = None
    ) -> VectorIndex:
        """The index for the store's current generation.

        Starts from `current` (this process's index) or the newest cache file, and re-reads only the
        entries whose vector generation is newer; with no base, or when most rows have a new vector
        (a new embedder), it reads every vector. Deleted rows are only dropped, however many (the
        first garbage collection of a long history deletes most of them). A patched index is saved
        once its changes pass 5% of it: a nightly increment of a large index never rewrites the
        whole file, and a small one (the first run's index, patched onto the empty matrix of its
        start) is not read again from SQLite by every recall.
        """
        generation = store.generation()
        if current is not None and current.generation == generation:
            return current
        base = current if current is not None and current.matrix.shape[1] == dimensions else None
        if base is None and folder is not None:
            base = newest_cache(folder, generation, dimensions)
        if base is not None and base.generation == generation:
            return base  # nothing changed since: nothing to ask the store
        if base is not None:
            changed, live = store.vectors_changed_since(base.generation)
            sizes_match = all(len(blob) == dimensions * 4 for _, _, blob in live)
            if sizes_match and len(live) <= max(1_000, len(base) // 2):
                index = base.patched(changed, live, generation, dimensions)
                if folder is not None and worth_saving(len(changed), len(base)):
                    index.save(folder)
                return index
        index = cls.from_store(store, dimensions)
        if folder is not None:
            index.save(folder)
        return index

    def patched(
        self, changed: Sequence[int], live: Sequence[tuple[int, str, bytes]], generation: int, dimensions: int
    ) -> VectorIndex:
        """This index without the `changed` ids, plus the `live` rows (id, scope, embedding) read anew."""
        if not changed:
            return VectorIndex(self.ids, self.scope_codes, self.scope_names, self.matrix, generation)
        keep = ~np.isin(self.ids, np.array(changed, dtype=np.int64))
        names = sorted(set(self.scope_names) | {scope for _, scope, _ in live})
        lookup = {name: code for code, name in enumerate(names)}
        remap = np.array([lookup[name] for name in self.scope_names], dtype=np.int32)
        old_codes = remap[self.scope_codes[keep]] if len(self.scope_names) else self.scope_codes[keep]
        ids = np.concatenate([self.ids[keep], np.array([row[0] for row in live], dtype=np.int64)])
        codes = np.concatenate([old_codes, np.array([lookup[row[1]] for row in live], dtype=np.int32)])
        kept = self.matrix if keep.all() else self.matrix[keep]
        matrix = np.concatenate([kept, from_blobs([row[2] for row in live], dimensions)])
        order = np.argsort(ids, kind="stable")
        if len(order) and np.any(order != np.arange(len(order))):
            ids, codes, matrix = ids[order], codes[order], matrix[order]
        return VectorIndex(ids, codes, names, np.ascontiguousarray(matrix), generation)

    def save(self, folder: Path) -> None:
        """Write the cache atomically under this generation's names, then drop older generations.

        A cache that cannot be written (a full disk; a run's start sweeping the temporary file of a
        recall that saves without the lock) is only rebuilt from SQLite next time: never an error.
        """
        from memory_sleep.workspace.atomic import atomic_write

        dim = self.matrix.shape[1]
        vectors_path, rows_path = _paths(folder, self.generation, dim)
        try:
            atomic_write(rows_path, self._write_rows)
            atomic_write(vectors_path, lambda handle: np.save(handle, self.matrix))
        except OSError:
            return
        for stale in folder.glob(f"{PREFIX}-*"):
            if stale not in (vectors_path, rows_path):
                with contextlib.suppress(FileNotFoundError):
                    stale.unlink()

    def _write_rows(self, handle: BinaryIO) -> None:
        """Three .npy arrays one after the other (ids, scope codes, scope names): np.load reads them
        in turn from the open file, where an .npz archive cost each recall importing zipfile (~4 ms)."""
        for array in (self.ids, self.scope_codes, np.array(self.scope_names, dtype=str)):
            np.save(handle, array)

    def resident(self) -> VectorIndex:
        """This index with its matrix in the process's own memory, not mapped from the cache file:
        a mat-vec over the map ran ~10% slower, which a process that searches again wins back."""
        if not isinstance(self.matrix, np.memmap):
            return self
        matrix = np.array(self.matrix)
        return VectorIndex(self.ids, self.scope_codes, self.scope_names, matrix, self.generation)

    def scope_mask(self, scope: str | None) -> npt.NDArray[np.bool_] | None:
        """Rows of `scope`; None means every row."""
        if scope is None:
            return None
        if scope not in self.scope_names:
            return np.zeros(len(self.ids), dtype=bool)
        mask: npt.NDArray[np.bool_] = self.scope_codes == self.scope_names.index(scope)
        return mask

    def similarities(self, query: npt.NDArray[np.float32], helper: Executor | None = None) -> Vectors:
        """Every row's dot product with `query`, computed in blocks of BLOCK_ROWS rows, each block by
        this thread or, once it is free, `helper`'s (recall's runs the full-text search first).

        Blocks this small keep OpenBLAS on one thread: on a loaded 2-core machine its threaded
        mat-vec waited on a descheduled thread and ran 1.5-3x slower. Here each thread takes the next
        block when done with its own, so a helper descheduled by a loaded machine holds up the scan
        by the one block it has taken, and one never started holds up nothing.
        """
        vector = np.ascontiguousarray(query, dtype=np.float32)
        scores = np.empty(len(self.ids), dtype=np.float32)
        blocks = iter(range(0, len(self.ids), BLOCK_ROWS))
        taking = threading.Lock()

        def scan() -> None:
            while True:
                with taking:
                    start = next(blocks, None)
                if start is None:
                    return
                end = start + BLOCK_ROWS
                np.matmul(self.matrix[start:end], vector, out=scores[start:end])

        shared = helper.submit(scan) if helper is not None else None
        scan()
        if shared is not None and not shared.cancel():
            shared.result()
        return scores

    def top(
        self,
        query: npt.NDArray[np.float32],
        n: int,
        scope: str | None = None,
        helper: Executor | None = None,
    ) -> list[tuple[int, float]]:
        """The n rows most similar to `query` (cosine, as rows are unit vectors), best first; `helper`
        may take a share of the scan (`similarities`)."""
        if len(self.ids) == 0 or n <= 0:
            return []
        scores = self.similarities(query, helper)
        mask = self.scope_mask(scope)
        if mask is None:
            best = highest(scores, min(n, len(scores)))
        else:
            rows = np.flatnonzero(mask)
            best = rows[highest(scores[rows], min(n, len(rows)))] if len(rows) else rows
        return [(int(self.ids[i]), float(scores[i])) for i in best if np.isfinite(scores[i])]

    def cosines(self, query: npt.NDArray[np.float32], ids: Iterable[int]) -> dict[int, float]:
        """The cosine similarity to `query` of each of `ids` that has a live row."""
        wanted = np.array(list(ids), dtype=np.int64)
        if len(wanted) == 0 or len(self.ids) == 0:
            return {}
        positions = np.minimum(np.searchsorted(self.ids, wanted), len(self.ids) - 1)
        rows = positions[self.ids[positions] == wanted]
        scores = self.matrix[rows] @ np.asarray(query, dtype=np.float32)
        return {int(self.ids[row]): float(score) for row, score in zip(rows, scores, strict=True)}

    def allowed(self, ids: Iterable[int], scope: str | None) -> list[bool]:
        """Which of `ids` are live (and in `scope`, if given)."""
        wanted = np.array(list(ids), dtype=np.int64)
        if len(wanted) == 0:
            return []
        positions = np.searchsorted(self.ids, wanted)
        positions = np.minimum(positions, max(len(self.ids) - 1, 0))
        found = (self.ids[positions] == wanted) if len(self.ids) else np.zeros(len(wanted), dtype=bool)
        if scope is not None and len(self.ids):
            mask = self.scope_mask(scope)
            assert mask is not None
            found &= mask[positions]
        return [bool(value) for value in found]


def highest(scores: Vectors, n: int) -> npt.NDArray[np.intp]:
    """The positions of the `n` highest scores (1 <= n <= len(scores)), best first, ties in position
    order. Only the rows scoring at least the n-th highest of a first slice can be among them (that
    score is at most the n-th highest of all): ~600 of 100k, where partitioning all of them took
    0.8 ms a query, these 0.08 ms (all 100k tied: 1.1 ms, the stable sort meets them in order)."""
    sample = min(len(scores), max(4 * n, 8_192))
    floor = np.partition(scores[:sample], sample - n)[sample - n]
    candidates = np.flatnonzero(scores >= floor)
    return candidates[np.argsort(-scores[candidates], kind="stable")[:n]]


def worth_saving(changed: int, rows: int) -> bool:
    """Whether an index patched with `changed` rows of an index of `rows` is saved: once its changes
    pass 5% of it (a nightly increment of a large index never rewrites the whole file; a small one, as
    the first run's, is not read again from SQLite by every recall; a garbage collection's thousands
    of deletions are not patched out again by every later load)."""
    return changed > rows // 20


def _paths(folder: Path, generation: int, dim: int) -> tuple[Path, Path]:
    stem = f"{PREFIX}-g{generation}-d{dim}"
    return folder / f"{stem}.npy", folder / f"{stem}.rows"


def cache_generations(folder: Path, generation: int, dimensions: int) -> list[int]:
    """Generations of the cache files of these dimensions at or before `generation`, newest first
    (read nothing but the folder, so asking whether a cache exists costs nothing)."""
    found = []
    for path in folder.glob(f"{PREFIX}-g*-d{dimensions}.npy"):
        try:
            found.append(int(path.name.removeprefix(f"{PREFIX}-g").split("-d")[0]))
        except ValueError:
            continue
    return sorted((g for g in found if g <= generation), reverse=True)


def newest_cache(folder: Path, generation: int, dimensions: int) -> VectorIndex | None:
    """The newest readable cache of these dimensions at or before `generation`."""
    for candidate in cache_generations(folder, generation, dimensions):
        cached = read_cache(folder, candidate, dimensions)
        if cached is not None:
            return cached
    return None


def read_cache(folder: Path, generation: int, dimensions: int) -> VectorIndex | None:
    vectors_path, rows_path = _paths(folder, generation, dimensions)
    try:
        with rows_path.open("rb") as rows:
            ids, codes, names = np.load(rows), np.load(rows), [str(name) for name in np.load(rows)]
        matrix = np.load(vectors_path, mmap_mode="c")  # copy-on-write: `drop` compacts in place
    except (OSError, ValueError, EOFError):
        return None
    if matrix.shape != (len(ids), dimensions):
        return None
    return VectorIndex(ids, codes, names, matrix, generation)
