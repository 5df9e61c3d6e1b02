"""The vectors the candidate step embedded in the last run, kept in memory/.sleep/candidate-vectors.npz
by a digest of each text and the embedder's id, so a night embeds only texts it has not seen: the
archived entries REM may supersede are the same thousands every night.

A derived cache, like the sidecar's vector matrices: written atomically, only the last run's texts
(it never grows past one run's), read back only for the same embedder, and dropped by `forget`.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

NAME = "candidate-vectors.npz"
Vector = npt.NDArray[np.float32]


class KeptVectors:
    """The cache file in `folder`, read on first use."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / NAME
        self._rows: dict[bytes, Vector] | None = None
        self._embedder: str | None = None

    def found(self, texts: Sequence[str], embedder: str) -> dict[str, Vector]:
        """The kept vectors of those of `texts` the last run embedded with `embedder`."""
        if self._rows is None:
            self._rows = self._read(embedder)
        rows = self._rows if self._embedder == embedder else {}
        return {text: rows[key] for text in texts if (key := _digest(text)) in rows}

    def save(self, vectors: Mapping[str, Vector], embedder: str) -> None:
        """Keep `vectors` (this run's) for the next run. A cache that cannot be written is only
        embedded again next time: never an error."""
        from memory_sleep.workspace.atomic import atomic_write

        if not vectors:
            return
        texts = list(vectors)
        digests = np.frombuffer(b"".join(_digest(text) for text in texts), dtype=np.uint8).reshape(-1, 16)
        matrix = np.stack([vectors[text] for text in texts]).astype(np.float32, copy=False)

        def write(handle: BinaryIO) -> None:
            np.savez(handle, embedder=np.array(embedder), digests=digests, matrix=matrix)

        try:
            atomic_write(self.path, write)
        except OSError:
            return

    def _read(self, embedder: str) -> dict[bytes, Vector]:
        try:
            with np.load(self.path, allow_pickle=False) as data:
                self._embedder = str(data["embedder"])
                if self._embedder != embedder:
                    return {}
                digests, matrix = data["digests"], data["matrix"]
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return {}  # none yet, or damaged: embedded again
        if matrix.ndim != 2 or digests.shape != (len(matrix), 16):
            return {}
        return {key.tobytes(): row for key, row in zip(digests, matrix, strict=True)}


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
