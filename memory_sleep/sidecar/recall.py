"""The sidecar's Python API: open a workspace, index it, recall (logged), search (not logged), count access.

from memory_sleep.sidecar import open_sidecar

with open_sidecar("~/agent") as memory:
    memory.index()
    for hit in memory.recall("when does billing switch over?", k=5):
        print(hit.rank, hit.source, hit.line, hit.day, hit.text)
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from memory_sleep.errors import MemorySleepError, StoreError
from memory_sleep.sidecar import index_failure
from memory_sleep.sidecar.embed import Embedder, build_embedder
from memory_sleep.sidecar.search import Hit, Mode, SearchOptions, search
from memory_sleep.sidecar.settings import RecallSettings, recall_settings
from memory_sleep.sidecar.stats import sidecar_stats
from memory_sleep.sidecar.store import DB_NAME, Store
from memory_sleep.sidecar.vectors import VectorIndex, cache_generations
from memory_sleep.workspace.layout import Workspace, unwritable

if TYPE_CHECKING:
    from memory_sleep.config import Config, DecayConfig, SidecarConfig
    from memory_sleep.sidecar.boundary import SidecarStore
    from memory_sleep.sidecar.index import IndexReport

Clock = Callable[[], float]
log = logging.getLogger("memory_sleep")


class Sidecar:
    """An open sidecar: the store, the embedder, and the vector index (loaded on first search)."""

    def __init__(
        self,
        store: SidecarStore,
        embedder: Embedder,
        config: SidecarConfig,
        workspace: Workspace | None = None,
        cache_dir: Path | None = None,
        max_note_bytes: int = 2_000_000,
        clock: Clock = time.time,
        decay: DecayConfig | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.config = config
        self.workspace = workspace
        self.cache_dir = cache_dir
        self.max_note_bytes = max_note_bytes
        self.clock = clock
        self.decay = decay  # [memory.gc.decay]: recall leaves out what decayed under recall_threshold
        self._vectors: VectorIndex | None = None
        self._parallel = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sidecar-fts")

    def __enter__(self) -> Sidecar:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._parallel.shutdown()
        self.store.close()

    def index(self, dry_run: bool = False) -> IndexReport:
        """Bring the index up to date with the workspace's files (incremental)."""
        from memory_sleep.sidecar.index import index_workspace  # parsing: not needed to recall

        if self.workspace is None:
            raise ValueError("this sidecar was opened without a workspace; nothing to index")
        report = index_workspace(
            self.store,
            self.workspace,
            self.embedder,
            self.config.scope,
            self.max_note_bytes,
            self.config.batch_size,
            dry_run=dry_run,
            now=self.clock(),
        )
        if (
            not dry_run
            and self.cache_dir is not None
            and not cache_generations(self.cache_dir, self.store.generation(), self.embedder.dimensions)
        ):
            # the first build writes the matrix file; later passes leave it to be patched on load
            self._vectors = VectorIndex.load(self.store, self.cache_dir, self.embedder.dimensions)
        if not dry_run:
            index_failure.clear(self.workspace.state_dir)
        return report

    def vectors(self) -> VectorIndex:
        """The vector index for the store's current generation (patched when the store moved on);
        mapped from the cache file for a first search, held in memory from the second on."""
        current = self._vectors.resident() if self._vectors is not None else None
        self._vectors = VectorIndex.load(self.store, self.cache_dir, self.embedder.dimensions, current)
        return self._vectors

    def forget_vectors(self, ids: Sequence[int]) -> None:
        """Drop entries just soft-deleted from the index `vectors()` last returned (compacted in
        place) and save it as the store's current generation, so no load has to patch them out."""
        index = (self._vectors or self.vectors()).drop(ids, self.store.generation())
        self._vectors = index
        if self.cache_dir is not None:
            index.save(self.cache_dir)

    def search(
        self,
        query: str,
        k: int = 5,
        scope: str | None = None,
        mode: Mode = "hybrid",
        as_of: date | None = None,
        include_discarded: bool = False,
    ) -> list[Hit]:
        """Ranked hits for a query; logs nothing and counts no access (use `recall` for that)."""
        hits, _ = self._search(query, k, scope, mode, as_of, include_discarded)
        return hits

    def _search(
        self,
        query: str,
        k: int,
        scope: str | None,
        mode: Mode,
        as_of: date | None = None,
        include_discarded: bool = False,
    ) -> tuple[list[Hit], object]:
        if not query.strip():  # it would match everything and count every hit as a use
            raise MemorySleepError(
                'Empty query: give the words to search for, e.g. recall "billing cutover".'
            )
        if mode != "text":
            self._match_embedder()
        vector = self.embedder.embed([query])[0] if mode != "text" else None
        options = SearchOptions(
            k=k,
            scope=scope,
            mode=mode,
            candidates=self.config.candidates,
            half_life_days=self.config.half_life_days,
            decay_floor=self.config.decay_floor,
            as_of=as_of,
            include_discarded=include_discarded,
            min_confidence=self.decay.recall_threshold if self.decay and self.decay.enabled else None,
            confidence_half_life_days=self.decay.half_life_days if self.decay else 30.0,
        )
        vectors = self.store.vector_search() or self.vectors()
        return search(self.store, vectors, query, vector, options, self.clock(), self._parallel), vector

    def _match_embedder(self) -> None:
        """Re-embed a store whose vectors another embedder made (the configured one changed, or its
        model failed to load), so queries and vectors compare like with like."""
        stored = self.store.meta("embedder")
        if stored in (None, self.embedder.id):
            return
        if self.store.read_only:
            raise StoreError(
                f"{self.store.path}: its vectors come from {stored}, queries are embedded with "
                f"{self.embedder.id}, and the store is read-only ({self.store.read_only}). Make it "
                "writable and run `memory-sleep index` to re-embed it, or recall with --mode text."
            )
        log.warning(
            "memory-sleep: the sidecar's vectors come from %s; re-embedding them with %s (once).",
            stored,
            self.embedder.id,
        )
        from memory_sleep.sidecar.index import reembed_all

        reembed_all(self.store, self.embedder, self.config.batch_size)

    def recall(
        self,
        query: str,
        k: int = 5,
        scope: str | None = None,
        mode: Mode = "hybrid",
        as_of: date | None = None,
        include_discarded: bool = False,
    ) -> list[Hit]:
        """Search, then log the query (text, embedding, time, returned ids and ranks) and count each access.

        What is valid now ranks first; `as_of` answers as memory stood on that day; items the run
        discarded as noise are left out unless `include_discarded`."""
        hits, vector = self._search(query, k, scope, mode, as_of, include_discarded)
        self.store.log_query(
            query,
            scope,
            k,
            self.embedder.id,
            vector,  # type: ignore[arg-type]
            [(hit.id, hit.score) for hit in hits],
            self.clock(),
        )
        return hits

    def record_access(self, ids: Sequence[int]) -> None:
        """Count that the agent used these entries (recall already counts what it returns)."""
        self.store.record_access(ids, self.clock())

    def stats(self) -> dict[str, object]:
        return sidecar_stats(self.store, self.cache_dir)


def open_sidecar(
    folder: Path | str,
    config: Config | None = None,
    embedder: Embedder | None = None,
    clock: Clock = time.time,
) -> Sidecar:
    """Open the sidecar of the workspace in `folder` (memory/.sleep/sidecar.db), creating it if needed;
    read-only when the workspace cannot be written (`store.read_only` says why; writes then fail).
    With `[sidecar] store = "postgres"`, the workspace's scope of the database at `dsn` instead."""
    workspace = Workspace.open(Path(folder))
    settings = RecallSettings.of(config) if config is not None else recall_settings(workspace)
    if settings.sidecar.store == "postgres":
        embedder = embedder or build_embedder(settings.sidecar)
        return Sidecar(
            open_postgres(settings.sidecar, embedder.dimensions),
            embedder,
            settings.sidecar,
            workspace,
            None,  # no matrix cache: pgvector searches the database
            settings.max_note_bytes,
            clock,
            settings.decay,
        )
    path = workspace.check_state_dir() / DB_NAME
    embedder = embedder or build_embedder(settings.sidecar, path.parent)
    store = Store.open(path, read_only=unwritable(path.parent) or unwritable(path))
    return Sidecar(
        store,
        embedder,
        settings.sidecar,
        workspace,
        workspace.state_dir,
        settings.max_note_bytes,
        clock,
        settings.decay,
    )


def open_postgres(config: SidecarConfig, dimensions: int) -> SidecarStore:
    """The configured scope of the Postgres sidecar (psycopg is imported only here)."""
    from memory_sleep.sidecar.pg.connect import resolve_dsn
    from memory_sleep.sidecar.pg.store import PgStore

    return PgStore.open(resolve_dsn(config.dsn), config.scope, dimensions)
