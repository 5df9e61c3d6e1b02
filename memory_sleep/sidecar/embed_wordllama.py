"""The default embedder: WordLlama's static token embeddings (model l2_supercat, 256 dimensions, or
128 or 64 truncated), loaded from the files its package ships and never downloaded.

One loaded model per process and size: loading takes a few tenths of a second, embedding thousands of
sentences a second (benchmarks/bench_embedders.py has the figures against the alternatives).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory_sleep.errors import ConfigError
from memory_sleep.sidecar.embed import EmbeddingUsage, Vectors, l2_normalise

MODEL = "l2_supercat"
SIZES = (64, 128, 256)

_loaded: dict[int, Any] = {}


class WordLlamaEmbedder:
    """Mean of the model's token vectors, L2-normalised; any language its tokenizer covers."""

    def __init__(self, model: Any, dimensions: int) -> None:
        self.model = model
        self.dimensions = dimensions
        self.id = f"wordllama:{MODEL}/{dimensions}"
        self.usage = EmbeddingUsage()

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self.usage.calls += 1
        return l2_normalise(np.asarray(self.model.embed(list(texts)), dtype=np.float32))


def load_model(dimensions: int) -> Any:
    """The model from the installed package's own folder (disable_download: never the network);
    ImportError when the package is missing, another exception when its files do not load."""
    if dimensions not in SIZES:
        raise ConfigError(
            f"sidecar.dimensions = {dimensions}: the wordllama embedder gives {', '.join(map(str, SIZES))} "
            "dimensions; leave sidecar.dimensions out for its full 256."
        )
    model = _loaded.get(dimensions)
    if model is None:
        wordllama = _import_quietly()
        model = wordllama.WordLlama.load(
            config=MODEL,
            cache_dir=Path(wordllama.__file__).parent,
            disable_download=True,
            trunc_dim=None if dimensions == SIZES[-1] else dimensions,
        )
        _loaded[dimensions] = model
    return model


def _import_quietly() -> Any:
    """Import wordllama, undoing the logging.basicConfig(level=INFO) its modules call on import: it
    would print every INFO record of every library, memory-sleep's included, to stderr."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import wordllama  # type: ignore[import-untyped]
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return wordllama


def wordllama_embedder(dimensions: int | None) -> WordLlamaEmbedder:
    size = dimensions or SIZES[-1]
    return WordLlamaEmbedder(load_model(size), size)
