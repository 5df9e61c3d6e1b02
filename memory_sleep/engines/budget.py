"""Cost control: the token budget of a run, its deadline for model calls, the circuit breaker, and
prices for the cost estimate."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from memory_sleep.config import ModelPrice
from memory_sleep.engines.model import CallUsage

# USD per million tokens, as published when this table was written; set [engine.prices] for
# current figures or other models. A model missing from both has no cost estimate (null).
DEFAULT_PRICES: dict[str, ModelPrice] = {
    "claude-haiku-4-5": ModelPrice(input=1.00, output=5.00, cached_input=0.10),
    "claude-sonnet-4-5": ModelPrice(input=3.00, output=15.00, cached_input=0.30),
    "claude-sonnet-4-6": ModelPrice(input=3.00, output=15.00, cached_input=0.30),
    "gpt-4.1-mini": ModelPrice(input=0.40, output=1.60, cached_input=0.10),
    "gpt-4.1-nano": ModelPrice(input=0.10, output=0.40, cached_input=0.025),
    "gpt-4.1": ModelPrice(input=2.00, output=8.00, cached_input=0.50),
    "gpt-5-mini": ModelPrice(input=0.25, output=2.00, cached_input=0.025),
}


def estimate_cost(model: str, usage: CallUsage, prices: Mapping[str, ModelPrice]) -> float | None:
    """USD for one call, or None when the model has no price."""
    price = prices.get(model) or DEFAULT_PRICES.get(model)
    if price is None:
        return None
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    cached_rate = price.input if price.cached_input is None else price.cached_input
    return (
        (usage.input_tokens - cached) * price.input
        + cached * cached_rate
        + usage.output_tokens * price.output
    ) / 1_000_000


@dataclass
class TokenBudget:
    """max_tokens_per_run: once the next call could cross it, no more calls this run (0 means none at all)."""

    limit: int
    used: int = 0
    exhausted: bool = False

    def allows(self, estimated_tokens: int) -> bool:
        if not self.exhausted and self.used + estimated_tokens > self.limit:
            self.exhausted = True
        return not self.exhausted

    def spend(self, usage: CallUsage) -> None:
        self.used += usage.input_tokens + usage.output_tokens
        if self.used >= self.limit:
            self.exhausted = True


@dataclass
class Deadline:
    """deadline_secs: model calls end this long after the run's first one started."""

    seconds: float
    clock: Callable[[], float] = time.monotonic
    started: float | None = None

    def start(self) -> None:
        if self.started is None:
            self.started = self.clock()

    def remaining(self) -> float:
        return self.seconds if self.started is None else self.seconds - (self.clock() - self.started)


@dataclass
class CircuitBreaker:
    """Opens after `threshold` failed calls or unusable answers in a row (or one failure a later call
    cannot fix); stays open."""

    threshold: int = 3
    failures_in_a_row: int = 0
    is_open: bool = False

    def succeeded(self) -> None:
        self.failures_in_a_row = 0

    def failed(self, fatal: bool = False) -> bool:
        """Count a failure; True when this one opened the breaker."""
        self.failures_in_a_row += 1
        if not self.is_open and (fatal or self.failures_in_a_row >= self.threshold):
            self.is_open = True
            return True
        return False
