"""The vectors the candidate step embedded in the last run, kept in memory/.sleep/candidate-vectors.npz
by a digest of each text and the embedder's id, so a night embeds only texts it has not seen: the
archived entries REM may supersede are the same thousands every night. Each text's index terms (what
its BM25 ranking counts) are kept beside them, so a night tokenizes only the texts it has not seen.

A derived cache, like the sidecar's vector matrices: written atomically, only the last run's texts
(it never grows past one run's), read back only for the same embedder, and dropped by `forget`.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from memory_sleep.sidecar.tokenize import INDEX_TERMS_VERSION

NAME = "candidate-vectors.npz"
Vector = npt.NDArray[np.float32]


class KeptVectors:
    """The cache file in `folder`, read on first use."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / NAME
        self._rows: dict[bytes, Vector] | None = None
        self._terms: dict[bytes, list[str]] = {}
        self._embedder: str | None = None

    def found(self, texts: Sequence[str], embedder: str) -> dict[str, Vector]:
        """The kept vectors of those of `texts` the last run embedded with `embedder`."""
        rows = self._read()
        rows = rows if self._embedder == embedder else {}
        return {text: rows[key] for text in texts if (key := _digest(text)) in rows}

    def found_terms(self, texts: Sequence[str]) -> dict[str, list[str]]:
        """The kept index terms of those of `texts` the last run ranked."""
        self._read()
        return {text: self._terms[key] for text in texts if (key := _digest(text)) in self._terms}

    def save(
        self, vectors: Mapping[str, Vector], embedder: str, terms: Mapping[str, list[str]] | None = None
    ) -> None:
        """Keep `vectors` and `terms` (this run's) for the next run. A cache that cannot be written is
        only embedded again next time: never an error."""
        from memory_sleep.workspace.atomic import atomic_write

        if not vectors:
            return
        texts = list(vectors)
        digests = np.frombuffer(b"".join(_digest(text) for text in texts), dtype=np.uint8).reshape(-1, 16)
        matrix = np.stack([vectors[text] for text in texts]).astype(np.float32, copy=False)
        terms = terms or {}
        term_digests = np.frombuffer(b"".join(_digest(text) for text in terms), dtype=np.uint8)
        listed = json.dumps(list(terms.values()), ensure_ascii=False).encode("utf-8")

        def write(handle: BinaryIO) -> None:
            np.savez(
                handle,
                embedder=np.array(embedder),
                digests=digests,
                matrix=matrix,
                term_digests=term_digests.reshape(-1, 16),
                terms=np.frombuffer(listed, dtype=np.uint8),
                terms_version=np.array(INDEX_TERMS_VERSION),
            )

        try:
            atomic_write(self.path, write)
        except OSError:
            return

    def _read(self) -> dict[bytes, Vector]:
        if self._rows is not None:
            return self._rows
        self._rows = {}
        try:
            with np.load(self.path, allow_pickle=False) as data:
                self._embedder = str(data["embedder"])
                digests, matrix = data["digests"], data["matrix"]
                term_digests = data.get("term_digests")
                if int(data.get("terms_version", 1)) != INDEX_TERMS_VERSION:
                    term_digests = None  # another tokenizer's terms: read again
                listed = json.loads(data["terms"].tobytes()) if term_digests is not None else []
        except (OSError, ValueError, KeyError, zipfile.BadZipFile):
            return self._rows  # none yet, or damaged: embedded again
        if matrix.ndim == 2 and digests.shape == (len(matrix), 16):
            self._rows = {key.tobytes(): row for key, row in zip(digests, matrix, strict=True)}
        if term_digests is not None and term_digests.shape == (len(listed), 16):
            self._terms = {key.tobytes(): found for key, found in zip(term_digests, listed, strict=True)}
        return self._rows


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
