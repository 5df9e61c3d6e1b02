"""One guarded model call: render, redact, cache, budget, call, validate, repair, or give up.

Giving up returns None and leaves a warning; the caller then decides that batch offline. With
require_llm a provider failure raises instead, so that the run stops before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic

from ..config import EngineConfig
from ..errors import ProviderError
from ..prompting import render_prompt_parts
from .base import PhaseUsage, Usage
from .budget import CircuitBreaker, TokenBudget, estimate_cost
from .cache import ResponseCache
from .model import (
    AnswerT,
    CallUsage,
    Exchange,
    InvalidAnswer,
    ModelClient,
    Prompt,
    ProviderUnusable,
    estimate_tokens,
)
from .redact import redact_prompt

Check = Callable[[AnswerT], list[str]]


@dataclass(frozen=True)
class Ask(Generic[AnswerT]):
    """A decision to put to the model: which template, rendered from what, answered in which schema."""

    phase: str
    template: str
    values: Mapping[str, Any]
    schema: type[AnswerT]
    what: str = field(metadata={"doc": "names the batch in warnings, e.g. 'NREM batch at memory/x.md:3'"})
    check: Check[AnswerT] = field(default=lambda answer: [])


class ModelCalls:
    """The engine's only way to reach a model; counts everything into `usage`."""

    def __init__(
        self,
        client: ModelClient,
        config: EngineConfig,
        usage: Usage,
        cache: ResponseCache | None = None,
        prompts_dir: Path | None = None,
    ) -> None:
        self.client, self.config, self.usage, self.cache = client, config, usage, cache
        self.prompts_dir = prompts_dir or config.prompts_dir
        self.budget = TokenBudget(config.max_tokens_per_run)
        self.breaker = CircuitBreaker(config.breaker_failures)
        self._said: set[str] = set()

    def ask(self, request: Ask[AnswerT]) -> AnswerT | None:
        """The validated answer, or None when this batch must be decided offline (a warning says why)."""
        prompt = self.render(request.template, request.values)
        key = ResponseCache.key(prompt, self.client.model, request.schema) if self.cache else ""
        cached = self.cache.get(key, request.schema) if self.cache is not None else None
        if cached is not None and not request.check(cached):
            self.usage.record(request.phase, 0, 0, None, cached=True)
            return cached
        history: tuple[Exchange, ...] = ()
        max_output = self.config.max_output_tokens
        last_problem = ""
        for _ in range(1 + self.config.repair_attempts):
            if self.breaker.is_open:
                self._give_up(request, None)
                return None
            estimate = (
                estimate_tokens(prompt.text) + sum(estimate_tokens(h.answer) for h in history) + max_output
            )
            if not self.budget.allows(estimate):
                self._say_once(
                    "budget",
                    f"max_tokens_per_run ({self.config.max_tokens_per_run:,}) reached after {self.budget.used:,} tokens: "
                    "no more LLM calls; the rest of this run was decided offline. Raise [engine] max_tokens_per_run to allow more.",
                )
                self._give_up(request, None)
                return None
            try:
                answer, spent = self.client.complete(
                    prompt, request.schema, max_output_tokens=max_output, history=history
                )
            except InvalidAnswer as invalid:
                self._spend(request.phase, invalid.usage)
                self.breaker.succeeded()
                last_problem = invalid.problem
                if not invalid.retryable:
                    break
                if invalid.truncated:
                    max_output = min(max_output * 2, 32_000)
                history = (*history, Exchange(invalid.answer, invalid.problem))
                continue
            except ProviderError as error:
                fatal = isinstance(error, ProviderUnusable)
                if self.breaker.failed(fatal):
                    self._say_once(
                        "breaker",
                        f"{self.client.provider}: stopped calling for the rest of this run ({error}).",
                    )
                if self.config.require_llm:
                    raise ProviderError(
                        self.client.provider,
                        f"{str(error).removeprefix(self.client.provider + ': ')} ({request.what}). "
                        "Nothing was changed (--require-llm); fix the provider or run without --require-llm.",
                        error.status,
                    ) from error
                self._give_up(request, str(error))
                return None
            self._spend(request.phase, spent)
            self.breaker.succeeded()
            self._take_notices()
            problems = request.check(answer)
            if not problems:
                if self.cache is not None:
                    self.cache.put(key, answer)
                return answer
            last_problem = "; ".join(problems)
            history = (*history, Exchange(answer.model_dump_json(), last_problem))
        self._give_up(request, f"unusable answer ({last_problem})")
        return None

    def render(self, template: str, values: Mapping[str, Any]) -> Prompt:
        instructions, data = render_prompt_parts(template, self.prompts_dir, **values)
        return Prompt(template, redact_prompt(instructions), redact_prompt(data), values)

    def _spend(self, phase: str, spent: CallUsage) -> None:
        self.budget.spend(spent)
        cost = estimate_cost(self.client.model, spent, self.config.prices)
        self.usage.record(phase, spent.input_tokens, spent.output_tokens, cost)

    def _give_up(self, request: Ask[AnswerT], reason: str | None) -> None:
        self.usage.phases.setdefault(request.phase, PhaseUsage()).fallbacks += 1
        if reason is not None:
            self.usage.warnings.append(
                f"{self.client.provider}: {request.what}: {reason}; decided offline instead."
            )
        return None

    def _take_notices(self) -> None:
        notices = getattr(self.client, "notices", None)
        if isinstance(notices, list) and notices:
            for notice in notices:
                self._say_once(str(notice), str(notice))
            notices.clear()

    def _say_once(self, topic: str, message: str) -> None:
        if topic not in self._said:
            self._said.add(topic)
            self.usage.warnings.append(message)
