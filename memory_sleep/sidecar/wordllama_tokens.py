"""WordLlama's tokenizer file read in Python, for the few texts of a recall.

Loading the file with `tokenizers` builds its whole BPE model in Rust, ~60 ms of every recall process
(with the import), to tokenize one query. Here the vocabulary and the merges' ranks are tables: the
file's JSON parsed (~27 ms), or the copy a workspace keeps in its sidecar folder, of which a query
reads only its own tokens and merges (wordllama_cache.py); the query's few merges are applied in
Python. The result is the `tokenizers` result, id for id: this is its algorithm for the file's
settings (special tokens split out first, "▁" prepended and spaces replaced by "▁", the rest one
BPE word, lowest-ranked merge first and leftmost among equals, characters outside the vocabulary as
their UTF-8 byte tokens), and a file with any other setting is refused with ValueError.
tests/test_sidecar_wordllama_tokens.py compares the two on many texts.
"""

from __future__ import annotations

import heapq
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

SPACE = "\u2581"  # SentencePiece's word boundary: the normalizer prepends it and puts it for spaces
NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": SPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": SPACE},
    ],
}
MODEL_SETTINGS = {
    "type": "BPE",
    "dropout": None,
    "continuing_subword_prefix": None,
    "end_of_word_suffix": None,
    "byte_fallback": True,
    "ignore_merges": False,
}
BYTE_TOKENS = [f"<0x{value:02X}>" for value in range(256)]


class Lookup(Protocol):
    """Token text to number: a dict read from the file, or the table kept of it (wordllama_cache.py)."""

    def get(self, key: str, /) -> int | None: ...

    def __getitem__(self, key: str, /) -> int: ...


class BpeTokens:
    """Token ids of texts as `tokenizers` gives them for this file, without special tokens added:
    `vocab` maps a token to its id, `ranks` a merge ("left right") to its rank, `specials` an added
    token to its id."""

    def __init__(self, vocab: Lookup, ranks: Lookup, specials: Mapping[str, int]) -> None:
        self.vocab = vocab
        self.ranks = ranks
        self.specials = dict(specials)
        longest_first = sorted(self.specials, key=len, reverse=True)  # as `tokenizers`: leftmost-longest
        self.special = re.compile("|".join(map(re.escape, longest_first)) or "(?!)")

    @classmethod
    def from_file(cls, path: Path) -> BpeTokens:
        vocab, ranks, specials = read_tables(path)
        return cls(vocab, ranks, specials)

    def ids(self, text: str) -> list[int]:
        """The ids `Tokenizer.encode(text, add_special_tokens=False).ids` gives."""
        found: list[int] = []
        start = 0
        for match in self.special.finditer(text):
            found += self._word(text[start : match.start()])
            found.append(self.specials[match.group()])
            start = match.end()
        found += self._word(text[start:])
        return found

    def _word(self, piece: str) -> list[int]:
        if not piece:
            return []
        symbols: list[str] = []
        for char in SPACE + piece.replace(" ", SPACE):
            if self.vocab.get(char) is not None:
                symbols.append(char)
            else:
                symbols.extend(BYTE_TOKENS[value] for value in char.encode("utf-8"))
        return [self.vocab[token] for token in self._merged(symbols)]

    def _merged(self, symbols: list[str]) -> list[str]:
        """BPE as `tokenizers` runs it: a queue of the pairs that merge, lowest rank first and
        leftmost among equals; a queued entry still merges if its place now holds any pair that
        makes the same token (`tokenizers` checks the token made, not the pair)."""
        following = [*range(1, len(symbols)), -1]
        preceding = list(range(-1, len(symbols) - 1))
        alive = [True] * len(symbols)
        queue: list[tuple[int, int, str]] = []
        for position in range(len(symbols) - 1):
            self._queue(queue, symbols, position, position + 1)
        while queue:
            _, position, made = heapq.heappop(queue)
            right = following[position]
            if not alive[position] or right == -1:
                continue
            if (
                self.ranks.get(f"{symbols[position]} {symbols[right]}") is None
                or symbols[position] + symbols[right] != made
            ):
                continue
            symbols[position] = made
            alive[right] = False
            following[position] = following[right]
            if following[right] != -1:
                preceding[following[right]] = position
            if preceding[position] != -1:
                self._queue(queue, symbols, preceding[position], position)
            if following[position] != -1:
                self._queue(queue, symbols, position, following[position])
        return [symbol for symbol, kept in zip(symbols, alive, strict=True) if kept]

    def _queue(self, queue: list[tuple[int, int, str]], symbols: list[str], left: int, right: int) -> None:
        rank = self.ranks.get(f"{symbols[left]} {symbols[right]}")
        if rank is not None:
            heapq.heappush(queue, (rank, left, symbols[left] + symbols[right]))


def read_tables(path: Path) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """The vocabulary, the merges' ranks and the special tokens of a tokenizer file; ValueError for a
    file whose settings this reader does not implement."""
    config = json.loads(path.read_bytes())
    model = config["model"]
    _check_settings(path, config, model)
    vocab: dict[str, int] = model["vocab"]
    missing = [token for token in BYTE_TOKENS if token not in vocab]
    if missing:
        raise ValueError(f"{path}: no byte token {missing[0]} in the vocabulary")
    # merges by their text, "left right" (`tokenizers` refuses a merge of more than one space): the
    # symbols merged here never hold a space (the normalizer replaced them), so a text names one
    # pair; a pair listed twice keeps its last rank, as in the `tokenizers` map
    ranks = dict(zip(model["merges"], range(len(model["merges"])), strict=False))
    specials = {token["content"]: token["id"] for token in config["added_tokens"]}
    return vocab, ranks, specials


def _check_settings(path: Path, config: dict[str, Any], model: dict[str, Any]) -> None:
    plain_specials = all(
        token["special"]
        and not (token["normalized"] or token["lstrip"] or token["rstrip"] or token["single_word"])
        for token in config["added_tokens"]
    )
    if (
        {name: model.get(name) for name in MODEL_SETTINGS} != MODEL_SETTINGS
        or config["normalizer"] != NORMALIZER
        or config["pre_tokenizer"] is not None
        or not plain_specials
    ):
        raise ValueError(f"{path}: tokenizer settings this reader does not implement")
