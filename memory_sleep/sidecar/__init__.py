"""The vector sidecar: every memory entry and note item in SQLite with its embedding, hybrid recall that
logs what it serves, and the signals (access counts, query log, soft deletes) the forgetting pass uses.

Names are imported on first use: `memory-sleep recall` must not pay for the indexer's parsers."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory_sleep.sidecar.embed import Embedder as Embedder
    from memory_sleep.sidecar.embed import EmbeddingUsage as EmbeddingUsage
    from memory_sleep.sidecar.embed import FunctionEmbedder as FunctionEmbedder
    from memory_sleep.sidecar.embed import OfflineEmbedder as OfflineEmbedder
    from memory_sleep.sidecar.embed import build_embedder as build_embedder
    from memory_sleep.sidecar.index import IndexReport as IndexReport
    from memory_sleep.sidecar.index import index_workspace as index_workspace
    from memory_sleep.sidecar.recall import Sidecar as Sidecar
    from memory_sleep.sidecar.recall import open_sidecar as open_sidecar
    from memory_sleep.sidecar.search import Hit as Hit
    from memory_sleep.sidecar.search import SearchOptions as SearchOptions
    from memory_sleep.sidecar.store import Store as Store

_HOMES = {
    "Embedder": "embed",
    "EmbeddingUsage": "embed",
    "FunctionEmbedder": "embed",
    "OfflineEmbedder": "embed",
    "build_embedder": "embed",
    "IndexReport": "index",
    "index_workspace": "index",
    "Sidecar": "recall",
    "open_sidecar": "recall",
    "Hit": "search",
    "SearchOptions": "search",
    "Store": "store",
}
__all__ = sorted(_HOMES)


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'memory_sleep.sidecar' has no attribute {name!r}")
    return getattr(importlib.import_module(f"memory_sleep.sidecar.{home}"), name)
