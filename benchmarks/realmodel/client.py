"""The engine's client as the benchmark sees it: every call timed per phase, every unusable answer
and the problem sent back noted, with its kind."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from memory_sleep.engines.model import AnswerT, CallUsage, Exchange, InvalidAnswer, Prompt
from memory_sleep.engines.openai_client import OpenAIClient
from memory_sleep.errors import ProviderError

PHASE_OF = {
    "nrem_classify.md.j2": "nrem",
    "rem_integrate.md.j2": "rem",
    "rem_close.md.j2": "rem",
    "project_summary.md.j2": "rem",
    "weekly_summary.md.j2": "cleanup",
    "briefing.md.j2": "cleanup",
}


@dataclass
class Exchanges:
    """Every HTTP exchange with the server (for cassettes) and what each call met."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=lambda: dict.fromkeys(PHASE_OF.values(), 0.0))
    failures: Counter[str] = field(default_factory=Counter)
    current: dict[str, Any] = field(default_factory=dict)


class TimedClient:
    """The OpenAIClient, timed per phase, noting every unusable answer and the problem sent back."""

    def __init__(self, inner: OpenAIClient, exchanges: Exchanges) -> None:
        self.inner, self.exchanges = inner, exchanges
        self.provider, self.model = inner.provider, inner.model
        self.notices = inner.notices
        self.requests_sent = 0

    def complete(
        self,
        prompt: Prompt,
        schema: type[AnswerT],
        *,
        max_output_tokens: int,
        history: tuple[Exchange, ...] = (),
        timeout: float | None = None,
    ) -> tuple[AnswerT, CallUsage]:
        phase = PHASE_OF[prompt.template]
        if history:
            self.exchanges.failures[f"{phase}: {kind_of(history[-1].problem)}"] += 1
            self.exchanges.calls[-1].setdefault("problem", history[-1].problem)
        self.exchanges.current = {
            "template": prompt.template, "version": prompt.version, "values": dict(prompt.values),
            "repair": len(history),
        }  # fmt: skip
        started = time.perf_counter()
        try:
            return self.inner.complete(
                prompt, schema, max_output_tokens=max_output_tokens, history=history, timeout=timeout
            )
        except InvalidAnswer as invalid:
            self.exchanges.calls[-1]["problem"] = invalid.problem
            raise
        except ProviderError as error:
            self.exchanges.failures[f"{phase}: provider error {error.status}"] += 1
            raise
        finally:
            self.exchanges.seconds[phase] += time.perf_counter() - started
            self.requests_sent = self.inner.requests_sent


def kind_of(problem: str) -> str:
    """A failure's kind, from the problem text the engine sent back to the model."""
    kinds = [
        ("cut off", "truncated"), ("not valid JSON", "invalid JSON"), ("refused", "refusal"),
        ("does not match the schema", "schema violation"), ("does not exist", "wrong ids"),
        ("unknown item ids", "wrong ids"), ("no classification for", "missing ids"),
        ("needs exactly one operation", "missing ids"), ("more than one", "doubled ids"),
        ("empty text", "empty text"), ("drops the open action", "dropped actions"),
        ("missing from", "dropped actions"), ("over 300 characters", "too long"),
        ("is empty", "empty field"), ("without a category", "schema violation"),
    ]  # fmt: skip
    return next((kind for needle, kind in kinds if needle in problem), problem[:40])
