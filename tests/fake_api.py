"""A small fake of the Anthropic Messages and OpenAI Chat Completions APIs on 127.0.0.1.

The real SDKs talk to it over HTTP (their base_url pointed here), so the tests exercise the
SDKs' own request building, retries, timeouts and response parsing. Scripted replies
(`FakeAPI.queue`) are served first, one per request; then `FakeAPI.brain`, a function of the
request body, if a test set one; else the smallest instance of the answer schema the request
carries (like pydantic-ai's TestModel). Nothing here reads the prompt's text.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Brain = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Reply:
    """One scripted answer: an HTTP status and JSON body, or raw text, after an optional delay;
    `cut` announces more bytes than it sends and closes the connection mid-body."""

    status: int = 200
    body: Any = None
    raw: str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    cut: bool = False


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class FakeAPI:
    def __init__(self) -> None:
        self.queue: deque[Reply | dict[str, Any]] = deque()
        self.requests: list[Seen] = []
        self.brain: Brain | None = None
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a client that gave up
                    api._serve(self)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length", 0))
        body = json.loads(handler.rfile.read(length) or b"{}")
        with self.lock:
            self.requests.append(Seen(handler.path, {k.lower(): v for k, v in handler.headers.items()}, body))
            scripted = self.queue.popleft() if self.queue else None
        if isinstance(scripted, dict):  # a model answer to wrap in a well-formed response
            scripted = Reply(body=self._wrap(handler.path, body, scripted))
        reply = scripted or Reply(body=self._wrap(handler.path, body, self._think(handler.path, body)))
        if reply.delay:
            time.sleep(reply.delay)
        payload = (reply.raw if reply.raw is not None else json.dumps(reply.body)).encode()
        handler.send_response(reply.status)
        handler.send_header("content-type", reply.content_type)
        handler.send_header("content-length", str(len(payload) * (10 if reply.cut else 1)))
        for name, value in reply.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(payload)
        if reply.cut:
            handler.close_connection = True

    def _think(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        if self.brain is not None:
            return self.brain(body)
        instance: dict[str, Any] = smallest_instance(answer_schema(path, body))
        return instance

    def _wrap(self, path: str, body: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        prompt_tokens = len(json.dumps(body)) // 4
        output_tokens = len(json.dumps(answer)) // 4
        if path.endswith("/messages"):
            return anthropic_message(body, answer, prompt_tokens, output_tokens)
        return openai_completion(body, json.dumps(answer), prompt_tokens, output_tokens)


def answer_schema(path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema a request asks the answer in: the tool's, the output format's or response_format's."""
    if path.endswith("/messages"):
        if body.get("tools"):
            return body["tools"][0]["input_schema"]  # type: ignore[no-any-return]
        return body["output_config"]["format"]["schema"]  # type: ignore[no-any-return]
    response_format = body["response_format"]
    if response_format["type"] == "json_schema":
        return response_format["json_schema"]["schema"]  # type: ignore[no-any-return]
    return response_format["schema"]  # type: ignore[no-any-return]


def smallest_instance(schema: dict[str, Any]) -> Any:
    """The least a valid answer can hold: empty lists, nulls where allowed, first enum values, 'x'."""
    if "anyOf" in schema:
        options = schema["anyOf"]
        return None if {"type": "null"} in options else smallest_instance(options[0])
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object":
        return {name: smallest_instance(part) for name, part in schema.get("properties", {}).items()}
    return {"array": [], "string": "x", "boolean": False, "integer": 0, "number": 0}.get(str(kind))


def anthropic_message(
    body: dict[str, Any],
    answer: dict[str, Any] | str,
    input_tokens: int,
    output_tokens: int,
    stop_reason: str | None = None,
    cache_read: int = 0,
) -> dict[str, Any]:
    """A Messages API response: a tool_use block when tools were sent, else a text block."""
    if body.get("tools") and isinstance(answer, dict):
        content: list[dict[str, Any]] = [
            {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "answer", "input": answer}
        ]
        stop = stop_reason or "tool_use"
    else:
        text = answer if isinstance(answer, str) else json.dumps(answer)
        content = [{"type": "text", "text": text}] if text else []
        stop = stop_reason or "end_turn"
    return {
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "claude-haiku-4-5"),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": cache_read,
            "output_tokens": output_tokens,
            "service_tier": "standard",
        },
    }


def openai_completion(
    body: dict[str, Any],
    content: str | None,
    prompt_tokens: int,
    completion_tokens: int,
    finish_reason: str = "stop",
    refusal: str | None = None,
    cached: int = 0,
) -> dict[str, Any]:
    """A Chat Completions response as OpenAI sends it."""
    return {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion",
        "created": 1764400000,
        "model": body.get("model", "gpt-4.1-mini"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal, "annotations": []},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_6b68a8204b",
    }


def anthropic_error(status: int, kind: str, message: str) -> Reply:
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": kind, "message": message}},
        headers={"retry-after-ms": "5", "request-id": "req_011CSHoEeqs5C35K2UUqR7Fy"},
    )


def openai_error(status: int, code: str, message: str) -> Reply:
    return Reply(
        status=status,
        body={"error": {"message": message, "type": code, "param": None, "code": code}},
        headers={"retry-after-ms": "5", "x-request-id": "req_8d1e0b7c2f"},
    )


def serve() -> Iterator[FakeAPI]:
    api = FakeAPI()
    try:
        yield api
    finally:
        api.close()
