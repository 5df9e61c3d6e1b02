"""Test doubles for ModelClient, shipped with the package so that users' tests can drive an LLM engine.

`ScriptedModel` answers with queued replies; `FunctionModel` computes each reply from the prompt
(value_answers.values_answer is a ready-made function, computed from the values the prompt was rendered from). A reply may be a schema instance, a dict,
raw text (parsed as a provider's answer would be, so malformed or schema-violating text raises
InvalidAnswer), or an exception to raise. `answer_pending` is a scripted host agent for `--engine
agent`: it answers the requests waiting in a workspace from their values and schema.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from memory_sleep.engines.model import AnswerT, CallUsage, Exchange, Prompt, estimate_tokens
from memory_sleep.engines.schemas import parse_answer

Reply = BaseModel | dict[str, Any] | str | BaseException
ReplyFunction = Callable[[Prompt, type[BaseModel], tuple[Exchange, ...]], Reply]
# an answer computed from what a request was rendered from and the JSON schema it is answered in
# (a str is sent as it is: prose, or JSON that does not match, to see it rejected)
Decide = Callable[[Mapping[str, Any], dict[str, Any]], dict[str, Any] | str]


@dataclass(frozen=True)
class Request:
    """One call a double received."""

    prompt: Prompt
    schema: type[BaseModel]
    max_output_tokens: int
    history: tuple[Exchange, ...]


class _RecordingModel:
    """Records every request; tokens are estimated from the text sent and answered."""

    provider = "test"

    def __init__(self, model: str) -> None:
        self.model = model
        self.requests: list[Request] = []

    @property
    def requests_sent(self) -> int:
        return len(self.requests)

    def complete(
        self,
        prompt: Prompt,
        schema: type[AnswerT],
        *,
        max_output_tokens: int,
        history: tuple[Exchange, ...] = (),
        timeout: float | None = None,
    ) -> tuple[AnswerT, CallUsage]:
        self.requests.append(Request(prompt, schema, max_output_tokens, history))
        reply = self._reply(prompt, schema, history)
        if isinstance(reply, BaseException):
            raise reply
        sent = prompt.text + "".join(exchange.answer + exchange.problem for exchange in history)
        if isinstance(reply, BaseModel):
            text = reply.model_dump_json()
        elif isinstance(reply, dict):
            text = json.dumps(reply, default=str)
        else:
            text = reply
        usage = CallUsage(input_tokens=estimate_tokens(sent), output_tokens=estimate_tokens(text))
        if isinstance(reply, schema):
            return reply, usage
        return parse_answer(text, schema, usage), usage

    def _reply(self, prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...]) -> Reply:
        raise NotImplementedError


class ScriptedModel(_RecordingModel):
    """Answers with `replies` in order; running out is an error in the test, not a silent default."""

    def __init__(self, replies: Iterable[Reply], model: str = "scripted") -> None:
        super().__init__(model)
        self.replies: deque[Reply] = deque(replies)

    def _reply(self, prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...]) -> Reply:
        if not self.replies:
            raise AssertionError(
                f"ScriptedModel ran out of replies at call {len(self.requests)} ({prompt.template})"
            )
        return self.replies.popleft()


class FunctionModel(_RecordingModel):
    """Answers with `function(prompt, schema, history)`; `prompt.values` holds what was rendered."""

    def __init__(self, function: ReplyFunction, model: str = "function") -> None:
        super().__init__(model)
        self.function = function

    def _reply(self, prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...]) -> Reply:
        return self.function(prompt, schema, history)


def deciding_model(decide: Decide, model: str = "function") -> FunctionModel:
    """A FunctionModel making the decisions `decide` makes: what the agent would answer, through a model."""
    from memory_sleep.engines.schemas import json_schema

    return FunctionModel(lambda prompt, schema, history: decide(prompt.values, json_schema(schema)), model)


def answer_pending(workspace: Path, decide: Decide) -> list[str]:
    """A scripted host agent: answer every request waiting in `workspace` with `decide(values, schema)`,
    written where the request says; returns the ids answered."""
    from memory_sleep.engines.agent import AgentDesk
    from memory_sleep.workspace.atomic import atomic_write

    desk = AgentDesk(workspace)
    answered = []
    for request in desk.pending():
        reply = decide(request.values, request.answer_schema)
        text = reply if isinstance(reply, str) else json.dumps(reply)
        atomic_write(workspace / request.answer_file, text.encode("utf-8"))
        answered.append(request.id)
    return answered
