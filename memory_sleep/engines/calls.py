"""One guarded model call: render, redact, cache, budget, call, retry, validate, repair, or give up.

Giving up returns None and leaves a warning; the caller then decides that batch offline. With
require_llm a provider failure raises instead, so that the run stops before anything is written.
Every HTTP request is counted, each waits at most until the run's deadline for model calls, and
a progress callback hears what is being waited on (the CLI shows it on a terminal).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic

from memory_sleep.config import EngineConfig
from memory_sleep.engines.base import PhaseUsage, Usage
from memory_sleep.engines.budget import CircuitBreaker, Deadline, TokenBudget, estimate_cost
from memory_sleep.engines.cache import ResponseCache
from memory_sleep.engines.model import (
    AnswerPending,
    AnswerT,
    CallUsage,
    Exchange,
    InvalidAnswer,
    ModelClient,
    Prompt,
    ProviderTimeout,
    ProviderTransient,
    ProviderUnusable,
    estimate_tokens,
)
from memory_sleep.engines.prompting import prompt_version, render_prompt_parts
from memory_sleep.engines.redact import redact_prompt
from memory_sleep.errors import ProviderError

Check = Callable[[AnswerT], list[str]]
Progress = Callable[[str], None]
MAX_RETRY_WAIT_SECS = 60.0


@dataclass(frozen=True)
class Ask(Generic[AnswerT]):
    """A decision to put to the model: which template, rendered from what, answered in which schema."""

    phase: str
    template: str
    values: Mapping[str, Any]
    schema: type[AnswerT]
    what: str = field(metadata={"doc": "names the batch in warnings, e.g. 'NREM batch at memory/x.md:3'"})
    check: Check[AnswerT] = field(default=lambda answer: [])
    basis: str = field(
        default="",
        metadata={"doc": "requests of one template and basis do not build on each other's answers"},
    )


class ModelCalls:
    """The engine's only way to reach a model; counts everything into `usage`."""

    def __init__(
        self,
        client: ModelClient,
        config: EngineConfig,
        usage: Usage,
        cache: ResponseCache | None = None,
        prompts_dir: Path | None = None,
        progress: Progress | None = None,
        deadline: Deadline | None = None,
        sleep: Callable[[float], None] = time.sleep,
        request_max_tokens: int | None = None,
    ) -> None:
        self.client, self.config, self.usage, self.cache = client, config, usage, cache
        self.request_max_tokens = request_max_tokens
        self.prompts_dir = prompts_dir or config.prompts_dir
        self.budget = TokenBudget(config.max_tokens_per_run)
        self.breaker = CircuitBreaker(config.breaker_failures)
        self.deadline = deadline or Deadline(config.deadline_secs)
        self.progress = progress or (lambda _: None)
        self.sleep = sleep
        self._asked: dict[str, int] = {}
        self._said: set[str] = set()
        self._waiting_on: tuple[str, str] | None = None  # the first request left waiting (AnswerPending)

    def too_large(self, template: str, values: Mapping[str, Any]) -> bool:
        """Whether the request would exceed the per-request token bound, if there is one (the caller splits it)."""
        if self.request_max_tokens is None:
            return False
        return estimate_tokens(self.render(template, values).text) > self.request_max_tokens

    def ask(self, request: Ask[AnswerT]) -> AnswerT | None:
        """The validated answer, or None when this batch must be decided offline (a warning says why).

        Once a request waits for its answer, the run is provisional: a later request is asked only when it
        does not build on that one (the same template and basis), since the others would change once it is
        answered; the rest are decided offline, never applied."""
        if self._waiting_on not in (None, (request.template, request.basis)):
            self._give_up(request, None)
            return None
        prompt = self.render(request.template, request.values)
        key = ResponseCache.key(prompt, self.client.model, request.schema) if self.cache else ""
        cached = self.cache.get(key, request.schema) if self.cache is not None else None
        if cached is not None and not request.check(cached):
            self.usage.record(request.phase, 0, 0, None, cached=True)
            return cached
        if self.cache is not None and (problem := self.cache.unusable(key)) is not None:
            self._give_up(request, f"unusable answer to this same prompt before ({problem}); not asked again")
            return None
        history: tuple[Exchange, ...] = ()
        max_output = self.config.max_output_tokens
        last_problem = ""
        self._asked[request.phase] = self._asked.get(request.phase, 0) + 1
        spent_on = self.usage.phases.setdefault(request.phase, PhaseUsage())
        spent_on.batches += 1
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
                answer, spent = self._complete(request, prompt, max_output, history)
            except AnswerPending:
                self._waiting_on = (request.template, request.basis)
                self._give_up(request, None)  # provisional: the run asking it applies nothing
                return None
            except InvalidAnswer as invalid:
                self._spend(request.phase, invalid.usage)
                last_problem = invalid.problem
                self._unusable(last_problem)
                if not invalid.retryable:
                    break
                if invalid.truncated:
                    max_output = min(max_output * 2, 32_000)
                history = (*history, Exchange(invalid.answer, invalid.problem))
                continue
            except ProviderError as error:
                reason = str(error).removeprefix(f"{error.provider}: ")
                if self.breaker.failed(fatal=isinstance(error, ProviderUnusable)):
                    self._say_once(
                        "breaker",
                        f"{self.client.provider}: stopped calling for the rest of this run ({reason}).",
                    )
                if self.config.require_llm:
                    raise ProviderError(
                        self.client.provider,
                        f"{reason} ({request.what}). "
                        "Nothing was changed (--require-llm); fix the provider or run without --require-llm.",
                        error.status,
                    ) from error
                self._give_up(request, reason)
                return None
            self._spend(request.phase, spent)
            self._take_notices()
            problems = request.check(answer)
            if not problems:
                self.breaker.succeeded()
                spent_on.repaired += 1 if history else 0
                if self.cache is not None:
                    self.cache.put(key, answer)
                return answer
            last_problem = "; ".join(problems)
            self._unusable(last_problem)
            history = (*history, Exchange(answer.model_dump_json(), last_problem))
        if self.cache is not None:
            self.cache.put_unusable(key, last_problem)
        self._give_up(request, f"unusable answer ({last_problem})")
        return None

    def _complete(
        self, request: Ask[AnswerT], prompt: Prompt, max_output: int, history: tuple[Exchange, ...]
    ) -> tuple[AnswerT, CallUsage]:
        """One answer, retrying what a retry may fix (max_retries), each request counted and cut off at the deadline."""
        attempts = 1 + self.config.max_retries
        label = f"{request.what} (call {self._asked[request.phase]})"
        for attempt in range(1, attempts + 1):
            remaining = self.deadline.remaining()
            if remaining <= 0:
                raise self._past_deadline()
            self.deadline.start()
            self.progress(
                "waiting on the model" + (f", attempt {attempt}" if attempt > 1 else "") + f": {label}"
            )
            before = self.client.requests_sent
            try:
                return self.client.complete(
                    prompt,
                    request.schema,
                    max_output_tokens=max_output,
                    history=history,
                    timeout=min(self.config.timeout_secs, remaining),
                )
            except ProviderTimeout as error:
                if self.deadline.remaining() <= 0:
                    raise self._past_deadline() from error
                raise
            except ProviderTransient as error:
                wait = min(MAX_RETRY_WAIT_SECS, error.retry_after or 0.5 * 2 ** (attempt - 1))
                if attempt == attempts or wait >= self.deadline.remaining():
                    tried = f"after {attempt} attempts: " if attempt > 1 else ""
                    reason = str(error).removeprefix(f"{self.client.provider}: ")
                    raise ProviderError(self.client.provider, tried + reason, error.status) from error
                self.progress(f"retrying in {wait:.0f} s: {label}")
                self.sleep(wait)
            finally:
                self.usage.sent(request.phase, self.client.requests_sent - before)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _past_deadline(self) -> ProviderUnusable:
        return ProviderUnusable(
            self.client.provider,
            f"model calls reached [engine] deadline_secs ({self.config.deadline_secs:g}s after the first one); "
            "raise deadline_secs for a slow server",
        )

    def _unusable(self, problem: str) -> None:
        """An answer that cannot be used counts against the breaker like a failed call."""
        if self.breaker.failed():
            self._say_once(
                "breaker",
                f"{self.client.provider}: stopped calling for the rest of this run ({self.breaker.threshold} "
                f"unusable answers in a row, the last: {problem}); check [engine] model, or use a larger one.",
            )

    def render(self, template: str, values: Mapping[str, Any]) -> Prompt:
        instructions, data = render_prompt_parts(template, self.prompts_dir, **values)
        version = prompt_version(template, self.prompts_dir)
        self.usage.prompt_versions[template] = version
        return Prompt(template, redact_prompt(instructions), redact_prompt(data), values, version)

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
