"""What an LLM engine needs from a model provider: one structured completion, and its usage.

A `ModelClient` turns a rendered prompt into an instance of a pydantic schema. Real clients
(anthropic_client, openai_client) wrap an SDK client they are handed; test doubles live in
testing.py. Everything above this Protocol (batching, validation, retries with the error,
fallback, cache, budget) is provider-independent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from memory_sleep.errors import ProviderError

AnswerT = TypeVar("AnswerT", bound=BaseModel)


@dataclass(frozen=True)
class Prompt:
    """A rendered template: `instructions` is the stable prefix (cacheable), `data` the per-call part.

    `values` are what the template was rendered from; real clients ignore them, test doubles
    (FunctionModel) may compute an answer from them.
    """

    template: str
    instructions: str
    data: str
    values: Mapping[str, Any] = field(default_factory=dict, compare=False)
    version: str = ""

    @property
    def text(self) -> str:
        return self.instructions + self.data


@dataclass(frozen=True)
class CallUsage:
    """Tokens one provider call used; cached input tokens are also counted in `input_tokens`."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0

    def __add__(self, other: CallUsage) -> CallUsage:
        return CallUsage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_input_tokens + other.cached_input_tokens,
        )


@dataclass(frozen=True)
class Exchange:
    """An earlier invalid answer and what was wrong with it, sent back so the model can correct it."""

    answer: str
    problem: str


def repair_messages(history: tuple[Exchange, ...]) -> list[dict[str, str]]:
    """The chat turns that send earlier invalid answers back, each with what was wrong with it."""
    messages: list[dict[str, str]] = []
    for exchange in history:
        messages += [
            {"role": "assistant", "content": exchange.answer or "(no answer)"},
            {
                "role": "user",
                "content": f"That answer was rejected: {exchange.problem}. Answer again, complete and corrected.",
            },
        ]
    return messages


class ModelClient(Protocol):
    """One provider and model behind a structured-completion call."""

    provider: str
    model: str
    requests_sent: int  # HTTP requests so far, failed ones included

    def complete(
        self,
        prompt: Prompt,
        schema: type[AnswerT],
        *,
        max_output_tokens: int,
        history: tuple[Exchange, ...] = (),
        timeout: float | None = None,
    ) -> tuple[AnswerT, CallUsage]:
        """The model's answer parsed into `schema`, waiting at most `timeout` seconds (None: the client's own).

        Raises InvalidAnswer when the answer cannot be used (malformed JSON, schema violation,
        truncation, refusal) and ProviderError when the call itself failed; the caller retries
        (ProviderTransient), so a client makes one attempt.
        """
        ...


def estimate_tokens(text: str) -> int:
    """A provider-independent token estimate (about 4 characters a token) for budgets and doubles."""
    return max(1, (len(text) + 3) // 4)


class InvalidAnswer(Exception):
    """The provider answered, but not with something usable; `usage` was still spent."""

    def __init__(
        self,
        problem: str,
        usage: CallUsage,
        answer: str = "",
        retryable: bool = True,
        truncated: bool = False,
    ) -> None:
        super().__init__(problem)
        self.problem, self.usage, self.answer = problem, usage, answer
        self.retryable, self.truncated = retryable, truncated


class AnswerPending(Exception):
    """No answer yet: the host agent has this request to answer (engines/agent.py). The batch is decided
    provisionally, and the run that asked it applies nothing."""


class ProviderUnusable(ProviderError):
    """A failure no later call in this run can fix: no key, a rejected key, an unknown model."""


class ProviderTransient(ProviderError):
    """A failure a retry may fix: rate limit, server error, dropped connection, a page instead of an answer."""

    def __init__(
        self, provider: str, message: str, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(provider, message, status)
        self.retry_after = retry_after


class ProviderTimeout(ProviderError):
    """No answer within the call's timeout; not retried, since the same prompt would wait as long again."""


__all__ = [
    "AnswerPending",
    "AnswerT",
    "CallUsage",
    "Exchange",
    "InvalidAnswer",
    "ModelClient",
    "Prompt",
    "ProviderError",
    "ProviderTimeout",
    "ProviderTransient",
    "ProviderUnusable",
    "estimate_tokens",
    "repair_messages",
]
