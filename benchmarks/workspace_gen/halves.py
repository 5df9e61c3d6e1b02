"""Tuning and test halves of the generator's wordings, so an engine is scored on wordings it was not tuned on.

Every template family (a `Family`, by its name) and every template (an entry of a template list or
of a phrase pool, by its text) belongs to one half: "tune" when the first byte of the SHA-256 of
its UTF-8 name is even, else "test". `--half tune` writes only the tuning half's families and
templates, `--half test` only the test half's, `all` (the default) everything, byte for byte as
before. A list with no entry in the half keeps all its entries, so every kind of item is still
written. Rules of an engine may be looked at against the tuning half only; figures are reported
on the test half.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Literal

Half = Literal["tune", "test", "all"]
HALVES: tuple[Half, ...] = ("tune", "test", "all")


def half_of(name: str) -> Half:
    """The half a family name or a template's text belongs to."""
    return "tune" if hashlib.sha256(name.encode("utf-8")).digest()[0] % 2 == 0 else "test"


@cache
def _in_half(options: tuple[str, ...], half: Half) -> tuple[str, ...]:
    kept = tuple(option for option in options if half_of(option) == half)
    return kept or options


def templates(options: tuple[str, ...], half: Half) -> tuple[str, ...]:
    """The entries of a template list that belong to `half` (all of them for "all" or when none do)."""
    if half == "all":
        return options
    return _in_half(options, half)
