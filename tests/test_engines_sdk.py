"""Both official SDKs, for real, against the fake API on 127.0.0.1: structured output and every fault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memory_sleep.config import EngineConfig
from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.model import (
    InvalidAnswer,
    ModelClient,
    Prompt,
    ProviderTimeout,
    ProviderTransient,
    ProviderUnusable,
)
from memory_sleep.engines.providers import model_client
from memory_sleep.engines.schemas import ClassifyAnswer, IntegrateAnswer, json_schema
from memory_sleep.errors import ConfigError, ProviderError
from memory_sleep.models import EntryView, KeptItem

from .conftest import REPO
from .fake_api import (
    FakeAPI,
    Reply,
    anthropic_error,
    anthropic_message,
    openai_completion,
    openai_error,
    serve,
)
from .test_engines_llm import _classify_reply, _entry, _item, _kept, _op

api = pytest.fixture(serve)
PROVIDERS = ["anthropic", "openai"]
PROMPT = Prompt(
    "nrem_classify.md.j2",
    "Classify the items.\n",
    '<note_items>\n<item id="I1" source="memory/2026-11-24.md:3">\nDecided: queue on Postgres\n</item>\n</note_items>\n',
)
GOOD = _classify_reply(["I1"], "KEEP")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    for name in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def _config(api: FakeAPI, provider: str, **options: Any) -> EngineConfig:
    base = api.url if provider == "anthropic" else api.url + "/v1"
    settings: dict[str, Any] = {"base_url": base, "max_retries": 1, "timeout_secs": 5.0}
    return EngineConfig(name=provider, **(settings | options))  # type: ignore[arg-type]


def _client(api: FakeAPI, provider: str, **options: Any) -> ModelClient:
    return model_client(provider, _config(api, provider, **options))


def _answer_reply(provider: str, body: dict[str, Any], answer: Any, **details: Any) -> Reply:
    if provider == "anthropic":
        return Reply(body=anthropic_message(body, answer, 1200, 80, **details))
    content = answer if isinstance(answer, str) or answer is None else json.dumps(answer)
    return Reply(body=openai_completion(body, content, 1200, 80, **details))


def test_anthropic_forces_the_answer_tool_and_marks_the_prefix_for_caching(api: FakeAPI) -> None:
    api.queue.append(Reply(body=anthropic_message({"tools": [1]}, GOOD, 1500, 90, cache_read=1024)))
    answer, usage = _client(api, "anthropic").complete(PROMPT, ClassifyAnswer, max_output_tokens=2048)
    assert answer.classifications[0].verdict == "KEEP"
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (2524, 90, 1024)
    sent = api.requests[0]
    assert sent.path == "/v1/messages" and sent.headers["authorization"] == "Bearer sk-ant-test-key"
    assert sent.body["tool_choice"]["name"] == "answer" and sent.body["max_tokens"] == 2048
    assert sent.body["system"][0] == {
        "type": "text",
        "text": "Classify the items.\n",
        "cache_control": {"type": "ephemeral"},
    }
    schema = sent.body["tools"][0]["input_schema"]
    assert schema["additionalProperties"] is False and schema["required"] == ["classifications"]


def test_anthropic_json_schema_output_format(api: FakeAPI) -> None:
    api.queue.append(Reply(body=anthropic_message({}, GOOD, 700, 60)))
    client = _client(api, "anthropic", structured_output="json_schema")
    answer, _ = client.complete(PROMPT, ClassifyAnswer, max_output_tokens=1024)
    assert answer.classifications[0].id == "I1"
    assert api.requests[0].body["output_config"]["format"]["type"] == "json_schema"
    assert "tools" not in api.requests[0].body


def test_openai_asks_for_a_strict_json_schema_and_reads_usage(api: FakeAPI) -> None:
    api.queue.append(Reply(body=openai_completion({}, json.dumps(GOOD), 900, 70, cached=512)))
    answer, usage = _client(api, "openai").complete(PROMPT, ClassifyAnswer, max_output_tokens=1024)
    assert answer.classifications[0].category == "fact"
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == (900, 70, 512)
    sent = api.requests[0]
    assert sent.path == "/v1/chat/completions" and sent.headers["authorization"] == "Bearer sk-test-key"
    assert sent.body["response_format"]["json_schema"]["strict"] is True
    assert sent.body["max_tokens"] == 1024  # any base_url may be an OpenAI-compatible server
    assert sent.body["messages"][0] == {"role": "system", "content": "Classify the items.\n"}


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "response_format json_schema is not supported"),  # older Ollama, vLLM, llama-server builds
        (
            500,
            "1 validation error: response_format.type Input should be 'text' or 'json_object'",
        ),  # llama-cpp-python
    ],
)
def test_compatible_server_without_json_schema_gets_json_mode_and_it_is_remembered(
    api: FakeAPI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, status: int, message: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    api.queue.extend([openai_error(status, "invalid_request_error", message), GOOD])
    client = model_client("openai", _config(api, "openai", model="llama3.2"), tmp_path)
    answer, _ = client.complete(PROMPT, ClassifyAnswer, max_output_tokens=1024)
    assert answer.classifications[0].id == "I1"
    second = api.requests[1].body
    assert second["response_format"] == {"type": "json_object", "schema": json_schema(ClassifyAnswer)}
    assert second["max_tokens"] == 1024
    assert "JSON schema exactly" in second["messages"][0]["content"]
    assert api.requests[1].headers["authorization"] == "Bearer not-needed"
    assert "JSON mode" in client.notices[0]  # type: ignore[attr-defined]

    api.queue.append(GOOD)
    next_run = model_client("openai", _config(api, "openai", model="llama3.2"), tmp_path)
    next_run.complete(PROMPT, ClassifyAnswer, max_output_tokens=1024)
    assert len(api.requests) == 3 and api.requests[2].body["response_format"]["type"] == "json_object"


def _classify(api: FakeAPI, provider: str, **options: Any) -> tuple[str, Any]:
    """One NREM batch through the engine (retries, breaker, counting), its verdict and the engine's usage."""
    engine = llm_engine(_client(api, provider), _config(api, provider, **options))
    verdicts = engine.classifier.classify([_item(1, "Decided: queue on Postgres")], ClassifyContext([], []))
    return verdicts[0].reason, engine.usage  # "r" from the model, the offline engine's own otherwise


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rate_limit_then_success_is_retried(api: FakeAPI, provider: str) -> None:
    error = (
        anthropic_error(
            429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"
        )
        if provider == "anthropic"
        else openai_error(429, "rate_limit_exceeded", "Rate limit reached for gpt-4.1-mini")
    )
    api.queue.extend([error, GOOD])
    reason, usage = _classify(api, provider)
    assert reason == "r" and len(api.requests) == 2 and usage.calls == 2


@pytest.mark.parametrize("provider", PROVIDERS)
def test_server_error_after_retries_is_a_provider_error(api: FakeAPI, provider: str) -> None:
    error = (
        anthropic_error(500, "api_error", "Internal server error")
        if provider == "anthropic"
        else openai_error(500, "server_error", "The server had an error")
    )
    api.queue.extend([error, error])
    with pytest.raises(ProviderError, match=r"after 2 attempts: server error \(500\) ") as raised:
        _classify(api, provider, require_llm=True)
    assert raised.value.status == 500 and len(api.requests) == 2


NOT_AN_ANSWER = {
    "a web page": (Reply(raw="<!doctype html><title>Open WebUI</title>", content_type="text/html"), "answered with an HTML page; check that [engine] base_url is the API"),
    "a page labelled JSON": (Reply(raw="<html><body>Sign in</body></html>"), "answered with an HTML page"),
    "an HTML error page": (Reply(status=502, raw="<html><h1>502 Bad Gateway</h1></html>", content_type="text/html"), "server error (502) (an HTML error page"),
    "an empty body": (Reply(raw=""), "answered with an empty body"),
    "plain text": (Reply(raw="Not Found", content_type="text/plain"), "answered with 'Not Found', which is not an API response"),
    "a body cut mid-stream": (Reply(raw='{"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "content": [{"ty', cut=True), "peer closed connection"),
}  # fmt: skip


@pytest.mark.parametrize("body", NOT_AN_ANSWER)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_answer_that_is_not_an_api_response_is_a_transient_provider_failure(
    api: FakeAPI, provider: str, body: str
) -> None:
    reply, problem = NOT_AN_ANSWER[body]
    api.queue.append(reply)
    with pytest.raises(ProviderTransient) as raised:
        _client(api, provider).complete(PROMPT, ClassifyAnswer, max_output_tokens=512)
    assert problem in str(raised.value) and len(api.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_page_instead_of_an_answer_is_retried_and_the_wait_is_reported(api: FakeAPI, provider: str) -> None:
    api.queue.extend([Reply(raw="<html><body>Sign in</body></html>", content_type="text/html"), GOOD])
    heard: list[str] = []
    engine = llm_engine(_client(api, provider), _config(api, provider), progress=heard.append)
    verdicts = engine.classifier.classify([_item(1, "Decided: queue on Postgres")], ClassifyContext([], []))
    assert verdicts[0].reason == "r" and engine.usage.calls == len(api.requests) == 2
    batch = "NREM batch of 1 item from memory/2026-11-24.md:1 (call 1)"
    assert heard == [
        f"waiting on the model: {batch}",
        f"retrying in 0 s: {batch}",
        f"waiting on the model, attempt 2: {batch}",
    ]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_no_request_waits_past_the_run_deadline(api: FakeAPI, provider: str) -> None:
    api.queue.append(Reply(body={}, delay=1.0))
    with pytest.raises(ProviderError, match=r"reached \[engine\] deadline_secs \(0.2s after the first one\)"):
        _classify(api, provider, timeout_secs=5.0, deadline_secs=0.2, require_llm=True)
    assert len(api.requests) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_timeout_is_a_provider_error_naming_the_setting(api: FakeAPI, provider: str) -> None:
    api.queue.append(Reply(body={}, delay=1.0))
    client = _client(api, provider, timeout_secs=0.2, max_retries=0)
    with pytest.raises(ProviderTimeout, match=r"no answer within 0.2s .* raise \[engine\] timeout_secs"):
        client.complete(PROMPT, ClassifyAnswer, max_output_tokens=512)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_rejected_key_makes_the_provider_unusable(api: FakeAPI, provider: str) -> None:
    error = (
        anthropic_error(401, "authentication_error", "invalid x-api-key")
        if provider == "anthropic"
        else openai_error(401, "invalid_api_key", "Incorrect API key provided")
    )
    api.queue.append(error)
    with pytest.raises(ProviderUnusable, match="key was rejected"):
        _client(api, provider).complete(PROMPT, ClassifyAnswer, max_output_tokens=512)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_malformed_json_answer(api: FakeAPI, provider: str) -> None:
    api.queue.append(_answer_reply(provider, {}, '{"classifications": [{"id": "I1", '))
    with pytest.raises(InvalidAnswer, match="not valid JSON"):
        _client(api, provider).complete(PROMPT, ClassifyAnswer, max_output_tokens=512)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_schema_violating_answer(api: FakeAPI, provider: str) -> None:
    wrong = {"classifications": [{"id": "I1", "verdict": "KEEP", "colour": "blue"}]}
    api.queue.append(_answer_reply(provider, {"tools": [1]}, wrong))
    with pytest.raises(InvalidAnswer, match="does not match the schema") as raised:
        _client(api, provider).complete(PROMPT, ClassifyAnswer, max_output_tokens=512)
    assert "colour" in raised.value.problem and raised.value.retryable


@pytest.mark.parametrize("provider", PROVIDERS)
def test_refusal_is_not_retryable(api: FakeAPI, provider: str) -> None:
    if provider == "anthropic":
        api.queue.append(Reply(body=anthropic_message({}, "", 900, 3, stop_reason="refusal")))
    else:
        api.queue.append(Reply(body=openai_completion({}, None, 900, 9, refusal="I can't help with that.")))
    with pytest.raises(InvalidAnswer, match="refused") as raised:
        _client(api, provider).complete(PROMPT, ClassifyAnswer, max_output_tokens=512)
    assert not raised.value.retryable and raised.value.usage.input_tokens == 900


@pytest.mark.parametrize("provider", PROVIDERS)
def test_truncated_answer_is_retried_with_more_output_tokens(api: FakeAPI, provider: str) -> None:
    if provider == "anthropic":
        cut = Reply(
            body=anthropic_message(
                {"tools": [1]}, {"classifications": []}, 900, 512, stop_reason="max_tokens"
            )
        )
    else:
        cut = Reply(
            body=openai_completion(
                {}, '{"classifications": [{"id": "I1", "verd', 900, 512, finish_reason="length"
            )
        )
    api.queue.extend([cut, GOOD])
    engine = llm_engine(_client(api, provider), _config(api, provider, max_output_tokens=512))
    verdicts = engine.classifier.classify([_item(1, "Decided: queue on Postgres")], ClassifyContext([], []))
    assert verdicts[0].verdict == "KEEP" and engine.usage.calls == 2
    limits = [r.body.get("max_tokens") or r.body.get("max_completion_tokens") for r in api.requests]
    assert limits == [512, 1024]


def _integrate_through(api: FakeAPI, provider: str, first: dict[str, Any]) -> tuple[list[Any], FakeAPI]:
    items: list[KeptItem] = [_kept(1, "Atlas staging moved to port 9443", topic="Atlas")]
    entries: list[EntryView] = [_entry(1, "Atlas staging is at staging.atlas.internal:8443", topic="Atlas")]
    fixed = {"operations": [_op("I1", "supersede", "E1", "Atlas staging is at staging.atlas.internal:9443")]}
    api.queue.extend([first, fixed])
    engine = llm_engine(_client(api, provider), _config(api, provider))
    return engine.integrator.integrate(items, entries), api


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unknown_entry_id_is_sent_back_to_the_model(api: FakeAPI, provider: str) -> None:
    operations, _ = _integrate_through(api, provider, {"operations": [_op("I1", "update", "E42", "x :9443")]})
    assert operations[0].target == "E1"
    assert "entry E42 does not exist" in json.dumps(api.requests[1].body["messages"])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_empty_rewrite_is_sent_back_to_the_model(api: FakeAPI, provider: str) -> None:
    operations, _ = _integrate_through(api, provider, {"operations": [_op("I1", "update", "E1", "")]})
    assert operations[0].op == "supersede" and operations[0].text
    assert "empty text" in json.dumps(api.requests[1].body["messages"])


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_sdks_base_url_variables_apply_without_base_url(
    api: FakeAPI, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    variable = f"{provider.upper()}_BASE_URL"
    monkeypatch.setenv(variable, api.url if provider == "anthropic" else api.url + "/v1")
    api.queue.append(GOOD)
    client = model_client(provider, EngineConfig(name=provider, max_retries=0, timeout_secs=5.0))  # type: ignore[arg-type]
    answer, _ = client.complete(PROMPT, ClassifyAnswer, max_output_tokens=512)
    assert answer.classifications[0].id == "I1" and len(api.requests) == 1
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "the SDKs read `ANTHROPIC_BASE_URL` and `OPENAI_BASE_URL` from the environment" in readme


def test_missing_key_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ConfigError, match=r"No ANTHROPIC_API_KEY: set it, or run with --engine offline"):
        model_client("anthropic", EngineConfig(name="anthropic"))


def test_answer_schemas_are_valid_strict_json_schemas() -> None:
    from memory_sleep.engines.schemas import json_schema

    for schema in (ClassifyAnswer, IntegrateAnswer):
        rendered = json_schema(schema)
        item = next(iter(rendered["$defs"].values()))
        assert item["additionalProperties"] is False and set(item["required"]) == set(item["properties"])
