"""The default embedder: WordLlama's static token embeddings (model l2_supercat, 256 dimensions, or
128 or 64 truncated), read from the files its package ships and never downloaded.

The files are read directly (the tokenizer by wordllama_tokens.py, then `tokenizers` for many texts,
the weights memory-mapped from their .safetensors file) and the vectors computed as WordLlama computes them (the mean of the text's token vectors): importing the
wordllama package itself costs a recall process about half a second (it imports requests and
pydantic models for downloads it never makes here), and would set up logging on import. A test
checks the vectors equal the package's own.

One loaded model per process and size: embedding thousands of sentences a second
(benchmarks/bench_embedders.py has the figures against the alternatives).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memory_sleep.errors import ConfigError
from memory_sleep.sidecar.embed import EmbeddingUsage, Vectors, l2_normalise
from memory_sleep.sidecar.wordllama_cache import cached_tokens
from memory_sleep.sidecar.wordllama_tokens import BpeTokens

MODEL = "l2_supercat"
SIZES = (64, 128, 256)
BATCH = 64  # texts tokenized and pooled at once, as WordLlama does
# a process's texts tokenized in Python before `tokenizers` loads (TokenMeans): the break-even measured on
# note lines, 0.09 ms a text in Python against 0.016 ms and ~51 ms to load, is ~700 texts (a steady
# night embeds ~340)
FEW_TEXTS = 600
# a text's mean is read from its first this many characters: what a pasted megabyte line means is in
# its start, and tokenizing all of it took seconds and hundreds of MB (longest real-note paragraph: 13 KB)
EMBED_CHARS = 32_000

_loaded: dict[int, TokenMeans] = {}


class TokenMeans:
    """WordLlama's inference for dense vectors: tokenize without special tokens, look up each token's
    row, average them over the attention mask.

    A process's first few hundred texts (a recall's one query, a night's new lines) are tokenized by
    `BpeTokens`, which reads its cached tables in 3 ms where `tokenizers` takes ~51 ms to load; a call
    that takes the process past them loads `tokenizers`, five times faster per text, for all its
    texts. Both give the same ids (a test compares them).
    """

    def __init__(self, matrix: npt.NDArray[np.float16], few: BpeTokens, tokenizer_file: Path) -> None:
        self.matrix = matrix
        self.few = few
        self.tokenizer_file = tokenizer_file
        self.tokenized = 0
        self._many: Any = None  # tokenizers.Tokenizer, once a call took the process past FEW_TEXTS

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        pooled = np.empty((len(texts), self.matrix.shape[1]), dtype=np.float32)
        self.tokenized += len(texts)
        for start in range(0, len(texts), BATCH):
            ids, mask = self._token_ids([text[:EMBED_CHARS] for text in texts[start : start + BATCH]])
            np.clip(ids, 0, self.matrix.shape[0] - 1, out=ids)
            # each text's own tokens, not the batch padded to its longest: one pasted 1 MB line made
            # every text of its batch as long (gigabytes), and the same means come out, bit for bit
            for row, (tokens, real) in enumerate(zip(ids, mask.sum(axis=1).astype(np.intp), strict=True)):
                pooled[start + row] = np.sum(
                    self.matrix[tokens[:real]], axis=0, dtype=np.float32
                ) / np.float32(max(real, 1))
        return pooled

    def _token_ids(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float32]]:
        """The texts' token ids padded with 0 to the longest, and the mask of the real ones."""
        if self.tokenized <= FEW_TEXTS and self._many is None:
            rows = [self.few.ids(text) for text in texts]
            width = max(map(len, rows), default=0)
            ids = [row + [0] * (width - len(row)) for row in rows]
            mask = [[1] * len(row) + [0] * (width - len(row)) for row in rows]
        else:
            if self._many is None:
                from tokenizers import Tokenizer

                self._many = Tokenizer.from_file(str(self.tokenizer_file))
                self._many.enable_padding()
                self._many.no_truncation()
            encoded = self._many.encode_batch(list(texts), add_special_tokens=False)
            ids, mask = [one.ids for one in encoded], [one.attention_mask for one in encoded]
        return np.array(ids, dtype=np.int32), np.array(mask, dtype=np.float32)


class WordLlamaEmbedder:
    """Mean of the model's token vectors, L2-normalised; any language its tokenizer covers."""

    def __init__(self, model: TokenMeans, dimensions: int) -> None:
        self.model = model
        self.dimensions = dimensions
        self.id = f"wordllama:{MODEL}/{dimensions}"
        self.usage = EmbeddingUsage()

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        self.usage.calls += 1
        return l2_normalise(self.model.embed(texts))


def package_folder() -> Path:
    """Where the wordllama package is installed, found without importing it; ImportError if missing."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("No module named 'wordllama'")
    return Path(next(iter(spec.submodule_search_locations)))


def load_model(dimensions: int, cache_dir: Path | None = None) -> TokenMeans:
    """The model from the installed package's own folder (never the network); ImportError when the
    package is missing, another exception when its files do not load. `cache_dir` (a workspace's
    memory/.sleep) keeps the tokenizer's tables for the next process (wordllama_cache.py)."""
    if dimensions not in SIZES:
        raise ConfigError(
            f"sidecar.dimensions = {dimensions}: the wordllama embedder gives {', '.join(map(str, SIZES))} "
            "dimensions; leave sidecar.dimensions out for its full 256."
        )
    model = _loaded.get(dimensions)
    if model is None:
        folder = package_folder()
        tokenizer_file = folder / "tokenizers" / f"{MODEL}_tokenizer_config.json"
        # kept in float16 as stored: the rows a text uses are widened to float32 when averaged (the
        # same sums), so loading skips converting all 32,000 rows: ~15 ms of every recall process
        matrix = mapped_weights(folder / "weights" / f"{MODEL}_{SIZES[-1]}.safetensors")
        few = cached_tokens(tokenizer_file, cache_dir) if cache_dir else BpeTokens.from_file(tokenizer_file)
        model = TokenMeans(matrix[:, :dimensions], few, tokenizer_file)
        _loaded[dimensions] = model
    return model


def mapped_weights(path: Path) -> npt.NDArray[np.float16]:
    """The float16 embedding matrix of a .safetensors file (an 8-byte header length, a JSON header
    giving each tensor's dtype, shape and byte range, then the data), memory-mapped: a recall reads a
    few of its rows, where copying all 16 MB cost ~11 ms; ValueError for a file not like that."""
    with path.open("rb") as handle:
        length = int.from_bytes(handle.read(8), "little")
        if not 0 < length < path.stat().st_size:
            raise ValueError(f"{path}: not a .safetensors file (a header of {length} bytes)")
        tensor = json.loads(handle.read(length))["embedding.weight"]
    rows, columns = tensor["shape"]
    start, end = tensor["data_offsets"]
    if tensor["dtype"] != "F16" or end - start != rows * columns * 2:
        raise ValueError(f"{path}: embedding.weight is not a float16 matrix of its stated shape")
    return np.memmap(path, dtype="<f2", mode="r", offset=8 + length + start, shape=(rows, columns))


def wordllama_embedder(dimensions: int | None, cache_dir: Path | None = None) -> WordLlamaEmbedder:
    size = dimensions or SIZES[-1]
    return WordLlamaEmbedder(load_model(size, cache_dir), size)
