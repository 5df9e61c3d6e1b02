"""The vector sidecar: every memory entry and note item in SQLite with its embedding, hybrid recall that
logs what it serves, and the signals (access counts, query log, soft deletes) the forgetting pass uses."""

from __future__ import annotations

from .embed import Embedder, EmbeddingUsage, FunctionEmbedder, OfflineEmbedder, build_embedder
from .index import IndexReport, index_workspace
from .recall import Sidecar, open_sidecar
from .search import Hit, SearchOptions
from .store import Store

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
