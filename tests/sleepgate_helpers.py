"""Small stores with hand-made vectors for the SleepGate tests."""

from __future__ import annotations

import numpy as np

from memory_sleep.config import ForgettingConfig
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.store import NewEntry, Store
from memory_sleep.sidecar.vectors import VectorIndex
from memory_sleep.sleepgate.forget import PassReport, run_pass

NOW = 1_800_000_000.0
DAY = 86_400.0
DIM = 16
EMBEDDER = "test-embedder"
DSN = ""  # set by the `sidecar_store` fixture to run on Postgres


def unit(seed: int, base: np.ndarray | None = None, noise: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vector = rng.standard_normal(DIM) if base is None else base + noise * rng.standard_normal(DIM)
    return (vector / np.linalg.norm(vector)).astype(np.float32)


def entry_text(number: int) -> str:
    """The text of a test entry, its number spelled in letters: "entry 12" would state a value (a
    count) that no other entry states, so it would be no near-duplicate of any (sidecar/statement.py
    `values_key`); "entry bc" states none."""
    return "entry " + str(number).translate(str.maketrans("0123456789", "abcdefghij"))


def entry(text: str, day: str | None = None, scope: str = "default") -> NewEntry:
    return NewEntry(
        source_key="memory/x.md",
        source_path="memory/x.md",
        kind="note",
        line_start=1,
        line_end=1,
        context="",
        text=text,
        content_hash=text,
        day=day,
        scope=scope,
        importance=0.5,
        expires_at=None,
        tokens=text.lower(),
    )


def open_store() -> SidecarStore:
    """An empty store: SQLite in memory, or the Postgres test database when DSN is set."""
    if DSN:
        from memory_sleep.sidecar.pg.store import PgStore

        return PgStore.open(DSN, "default", DIM)
    return Store.open(":memory:")


def store_with(
    vectors: list[np.ndarray], written: float = NOW - 365 * DAY, texts: list[str] | None = None
) -> tuple[SidecarStore, list[int]]:
    """A store holding one old entry per vector (written a year before NOW unless said), its text
    from `texts` or `entry_text`."""
    store = open_store()
    texts = texts or [entry_text(i) for i in range(len(vectors))]
    with store.transaction():
        store.set_meta("embedder", EMBEDDER)
        ids = store.insert_entries([entry(text) for text in texts], np.stack(vectors), EMBEDDER, written)
    return store, ids


def config(**changes: object) -> ForgettingConfig:
    return ForgettingConfig(**{"min_entries": 0, **changes})  # type: ignore[arg-type]


def forget(
    store: SidecarStore, settings: ForgettingConfig | None = None, dry_run: bool = False
) -> PassReport:
    index = VectorIndex.from_store(store, DIM)
    return run_pass(store, index, settings or config(), EMBEDDER, NOW, dry_run=dry_run, explain="all")


def log_query(store: SidecarStore, vector: np.ndarray, served: list[int], k: int = 1) -> None:
    store.log_query("q", None, k, EMBEDDER, vector, [(i, 1.0) for i in served], NOW - 300 * DAY)


def verdicts(report: PassReport) -> dict[int, str]:
    return {v.id: v.verdict for v in report.verdicts}
