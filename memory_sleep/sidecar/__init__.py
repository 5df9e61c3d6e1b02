"""The vector sidecar: every memory entry and note item in SQLite with its embedding, hybrid recall that
logs what it serves, and the signals (access counts, query log, soft deletes) the forgetting pass uses."""

from __future__ import annotations

from memory_sleep.sidecar.embed import (
    Embedder,
    EmbeddingUsage,
    FunctionEmbedder,
    OfflineEmbedder,
    build_embedder,
)
from memory_sleep.sidecar.index import IndexReport, index_workspace
from memory_sleep.sidecar.recall import Sidecar, open_sidecar
from memory_sleep.sidecar.search import Hit, SearchOptions
from memory_sleep.sidecar.store import Store

__all__ = [
    "Embedder",
    "EmbeddingUsage",
    "FunctionEmbedder",
    "Hit",
    "IndexReport",
    "OfflineEmbedder",
    "SearchOptions",
    "Sidecar",
    "Store",
    "build_embedder",
    "index_workspace",
    "open_sidecar",
]
