"""Family: a kind of keyed statement (fact, relationship, decision) that can change later."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Family:
    """A kind of keyed statement. Templates see `{v}` (value) and, in updates, `{old}`."""

    name: str
    category: str  # fact | relationship | decision
    scope: str  # project | person | contact | global
    key: str
    value: str
    states: tuple[str, ...]
    updates: tuple[str, ...] = ()
    key_value: tuple[str, str] | None = None
    weight: float = 1.0
