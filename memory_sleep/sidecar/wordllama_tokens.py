"""WordLlama's tokenizer file read in Python, for the few texts of a recall.

Loading the file with `tokenizers` builds its whole BPE model in Rust, ~60 ms of every recall process
(with the import), to tokenize one query; parsing the JSON and indexing the merges by their text
takes about a quarter of that, and the query's few merges are then applied here. The result is the
`tokenizers` result, id for id: this is its algorithm for the file's settings (special tokens split
out first, "▁" prepended and spaces replaced by "▁", the rest one BPE word, lowest-ranked merge
first and leftmost among equals, characters outside the vocabulary as their UTF-8 byte tokens), and
a file with any other setting is refused with ValueError. tests/test_sidecar_wordllama_tokens.py
compares the two on many texts.
"""

from __future__ import annotations

import heapq
import json
import re
from pathlib import Path
from typing import Any

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


class BpeTokens:
    """Token ids of texts as `tokenizers` gives them for this file, without special tokens added."""

    def __init__(self, path: Path) -> None:
        config = json.loads(path.read_bytes())
        model = config["model"]
        _check_settings(path, config, model)
        self.vocab: dict[str, int] = model["vocab"]
        # merges by their text, "left right" (`tokenizers` refuses a merge of more than one space):
        # the symbols merged here never hold a space (the normalizer replaced them), so a text names
        # one pair; a pair listed twice keeps its last rank, as in the `tokenizers` map
        self.ranks: dict[str, int] = dict(zip(model["merges"], range(len(model["merges"])), strict=False))
        self.bytes = [f"<0x{value:02X}>" for value in range(256)]
        missing = [token for token in self.bytes if token not in self.vocab]
        if missing:
            raise ValueError(f"{path}: no byte token {missing[0]} in the vocabulary")
        self.specials: dict[str, int] = {token["content"]: token["id"] for token in config["added_tokens"]}
        longest_first = sorted(self.specials, key=len, reverse=True)  # as `tokenizers`: leftmost-longest
        self.special = re.compile("|".join(map(re.escape, longest_first)) or "(?!)")

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
            if char in self.vocab:
                symbols.append(char)
            else:
                symbols.extend(self.bytes[value] for value in char.encode("utf-8"))
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
                f"{symbols[position]} {symbols[right]}" not in self.ranks
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
