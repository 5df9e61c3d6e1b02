"""ModelClient on the official anthropic SDK: structured output through a forced tool call
(or the API's JSON-schema output format), the stable prompt prefix marked for prompt caching.

The SDK client is built in providers.py and handed in; this module imports the SDK only for its
exception classes, and is itself imported only when the anthropic engine is chosen.
"""

from __future__ import annotations

from typing import Any, Literal

import anthropic
from anthropic.types import Message

from memory_sleep.engines.model import AnswerT, CallUsage, Exchange, InvalidAnswer, Prompt, repair_messages
from memory_sleep.engines.schemas import json_schema, parse_answer
from memory_sleep.engines.sdk_errors import not_an_api_answer, provider_error

TOOL_NAME = "answer"
SYSTEM = "You are memory-sleep, a tool that consolidates an AI agent's notes. Answer only through the structured output requested."


class AnthropicClient:
    provider = "anthropic"

    def __init__(
        self,
        sdk: anthropic.Anthropic,
        model: str,
        mode: Literal["tool", "json_schema"] = "tool",
    ) -> None:
        self.sdk, self.model, self.mode = sdk, model, mode
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
        messages = [{"role": "user", "content": prompt.data or prompt.text}, *repair_messages(history)]
        system = [
            {"type": "text", "text": prompt.instructions or SYSTEM, "cache_control": {"type": "ephemeral"}}
        ]
        shape: dict[str, Any]
        if self.mode == "tool":
            shape = {
                "tools": [
                    {
                        "name": TOOL_NAME,
                        "description": f"Record the {schema.__name__}.",
                        "input_schema": json_schema(schema),
                    }
                ],
                "tool_choice": {"type": "tool", "name": TOOL_NAME, "disable_parallel_tool_use": True},
            }
        else:
            shape = {"output_config": {"format": {"type": "json_schema", "schema": json_schema(schema)}}}
        seconds = timeout or _timeout(self.sdk)
        self.requests_sent += 1
        try:
            response = self.sdk.messages.create(
                model=self.model,
                max_tokens=max_output_tokens,
                system=system,  # type: ignore[arg-type]
                messages=messages,  # type: ignore[arg-type]
                timeout=seconds,
                **shape,
            )
        except anthropic.AnthropicError as error:
            raise provider_error(
                self.provider, error, anthropic, "ANTHROPIC_API_KEY", seconds, str(self.sdk.base_url)
            ) from error
        except ValueError as error:  # a 200 whose body is not JSON
            raise not_an_api_answer(
                self.provider, getattr(error, "doc", ""), str(self.sdk.base_url)
            ) from None
        if not isinstance(response, Message):  # a 200 with a non-JSON content type: the SDK hands back text
            raise not_an_api_answer(self.provider, str(response), str(self.sdk.base_url))
        return _answer(response, schema, max_output_tokens)


def _answer(response: Any, schema: type[AnswerT], max_output_tokens: int) -> tuple[AnswerT, CallUsage]:
    usage = _usage(response.usage)
    text = "".join(block.text for block in response.content if block.type == "text")
    tool_input = next(
        (block.input for block in response.content if block.type == "tool_use" and block.name == TOOL_NAME),
        None,
    )
    if response.stop_reason == "refusal":
        raise InvalidAnswer("the model refused to answer", usage, text, retryable=False)
    if response.stop_reason in ("max_tokens", "model_context_window_exceeded"):
        raise InvalidAnswer(
            f"the answer was cut off at {max_output_tokens} output tokens",
            usage,
            text or str(tool_input or ""),
            truncated=True,
        )
    if isinstance(tool_input, dict):
        return parse_answer(tool_input, schema, usage), usage
    if text.strip():
        return parse_answer(text, schema, usage), usage
    raise InvalidAnswer("an empty answer (no tool call, no text)", usage)


def _usage(usage: Any) -> CallUsage:
    created = usage.cache_creation_input_tokens or 0
    read = usage.cache_read_input_tokens or 0
    return CallUsage(
        input_tokens=usage.input_tokens + created + read,
        output_tokens=usage.output_tokens,
        cached_input_tokens=read,
    )


def _timeout(sdk: anthropic.Anthropic) -> float:
    timeout = sdk.timeout
    return float(timeout) if isinstance(timeout, int | float) else float(getattr(timeout, "read", None) or 0)
