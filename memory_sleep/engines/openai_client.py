"""ModelClient on the official openai SDK (Chat Completions), for OpenAI and OpenAI-compatible servers.

Asks for JSON-schema structured output; a server that rejects `json_schema` (llama-cpp-python's
server with HTTP 500 "Input should be 'text' or 'json_object'", older Ollama, llama.cpp and vLLM
builds with 400) is asked again in JSON mode, with the schema both in the prompt and in
`response_format.schema` (which llama-cpp-python turns into a grammar), and the answer is
validated all the same. The server's mode is remembered (server_modes.py), so the next run asks
in JSON mode first. The SDK client is built in providers.py and handed in.
"""

from __future__ import annotations

import json
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from memory_sleep.engines.model import (
    AnswerT,
    CallUsage,
    Exchange,
    InvalidAnswer,
    Prompt,
    estimate_tokens,
    repair_messages,
)
from memory_sleep.engines.schemas import json_schema, parse_answer
from memory_sleep.engines.sdk_errors import not_an_api_answer, provider_error
from memory_sleep.engines.server_modes import Mode, ServerModes

SYSTEM = (
    "You are memory-sleep, a tool that consolidates an AI agent's notes. Answer only with the JSON requested."
)
_SCHEMA_WORDS = ("response_format", "json_schema", "json_object", "structured")
_CAPABILITY_STATUSES = (400, 422, 500)


class OpenAIClient:
    provider = "openai"

    def __init__(
        self,
        sdk: openai.OpenAI,
        model: str,
        mode: Mode = "json_schema",
        compatible_server: bool = False,
        server_modes: ServerModes | None = None,
    ) -> None:
        self.server_modes = server_modes or ServerModes(None)
        self.sdk, self.model = sdk, model
        self.mode: Mode = self.server_modes.get(str(sdk.base_url)) or mode
        self.compatible_server = compatible_server
        self.notices: list[str] = []
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
        seconds = timeout or _seconds(self.sdk.timeout)
        try:
            response = self._create(prompt, schema, max_output_tokens, history, seconds)
        except openai.APIStatusError as error:
            if not self._rejects_json_schema(error):
                raise self._error(error, seconds) from error
            self.mode = "json_object"
            self.server_modes.remember(str(self.sdk.base_url), "json_object")
            self.notices.append(
                f"openai: {self.sdk.base_url} rejected JSON-schema output ({error.status_code}); "
                "using JSON mode with validation instead, and for this server from now on."
            )
            try:
                response = self._create(prompt, schema, max_output_tokens, history, seconds)
            except openai.OpenAIError as again:
                raise self._error(again, seconds) from again
        except openai.OpenAIError as error:
            raise self._error(error, seconds) from error
        return _answer(response, schema, max_output_tokens, prompt)

    def _rejects_json_schema(self, error: openai.APIStatusError) -> bool:
        """The server's way of saying it has no `json_schema` response format (a capability error)."""
        said = str(error).lower()
        return (
            self.mode == "json_schema"
            and error.status_code in _CAPABILITY_STATUSES
            and any(word in said for word in _SCHEMA_WORDS)
        )

    def _create(
        self,
        prompt: Prompt,
        schema: type[AnswerT],
        max_output_tokens: int,
        history: tuple[Exchange, ...],
        timeout: float,
    ) -> ChatCompletion:
        system = prompt.instructions or SYSTEM
        if self.mode == "json_object":
            system += "\n\nAnswer with one JSON object that matches this JSON schema exactly:\n" + json.dumps(
                json_schema(schema)
            )
            response_format: dict[str, Any] = {"type": "json_object"}
            if self.compatible_server:  # llama-cpp-python constrains the output to it; OpenAI refuses the key
                response_format["schema"] = json_schema(schema)
        else:
            response_format = {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": json_schema(schema), "strict": True},
            }
        messages = [
            {"role": "system", "content": system},
            {"role": "user", "content": prompt.data or prompt.text},
            *repair_messages(history),
        ]
        limit = (
            {"max_tokens": max_output_tokens}
            if self.compatible_server
            else {"max_completion_tokens": max_output_tokens}
        )
        completions: Any = self.sdk.chat.completions  # message and format dicts, not the SDK's TypedDicts
        self.requests_sent += 1
        try:
            response = completions.create(
                model=self.model, messages=messages, response_format=response_format, timeout=timeout, **limit
            )
        except ValueError as error:  # a 200 whose body is not JSON
            raise not_an_api_answer(
                self.provider, getattr(error, "doc", ""), str(self.sdk.base_url)
            ) from None
        if not isinstance(
            response, ChatCompletion
        ):  # a 200 with a non-JSON content type: the SDK hands back text
            raise not_an_api_answer(self.provider, str(response), str(self.sdk.base_url))
        return response

    def _error(self, error: Exception, seconds: float) -> Exception:
        return provider_error(self.provider, error, openai, "OPENAI_API_KEY", seconds, str(self.sdk.base_url))


def _seconds(timeout: Any) -> float:
    """The SDK client's timeout in seconds (its read timeout when it is an httpx-style Timeout)."""
    return float(timeout) if isinstance(timeout, int | float) else float(getattr(timeout, "read", 0) or 0)


def _answer(
    response: Any, schema: type[AnswerT], max_output_tokens: int, prompt: Prompt
) -> tuple[AnswerT, CallUsage]:
    if not response.choices:
        raise InvalidAnswer("an answer without choices", _usage(response, prompt, ""))
    choice = response.choices[0]
    content = choice.message.content or ""
    usage = _usage(response, prompt, content)
    if choice.message.refusal:
        raise InvalidAnswer(f"the model refused: {choice.message.refusal[:200]}", usage, retryable=False)
    if choice.finish_reason == "content_filter":
        raise InvalidAnswer("the answer was withheld by the content filter", usage, retryable=False)
    if choice.finish_reason == "length":
        raise InvalidAnswer(
            f"the answer was cut off at {max_output_tokens} output tokens", usage, content, truncated=True
        )
    if not content.strip():
        raise InvalidAnswer("an empty answer", usage)
    return parse_answer(content, schema, usage), usage


def _usage(response: Any, prompt: Prompt, content: str) -> CallUsage:
    """The server's token counts; local servers that send none get an estimate."""
    usage = getattr(response, "usage", None)
    if usage is None:
        return CallUsage(estimate_tokens(prompt.text), estimate_tokens(content))
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or 0
    return CallUsage(usage.prompt_tokens, usage.completion_tokens, cached)
