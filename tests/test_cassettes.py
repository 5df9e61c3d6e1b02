"""A real model's answers, replayed: request and response bodies that benchmarks/bench_real_model.py
recorded from SmolLM2-135M on a llama-cpp-python server, served again by the loopback fake API to
the real openai SDK, so that the suite meets a real model's mistakes in milliseconds.

Each cassette names what the engine made of the answer when it was recorded (accepted, or the
problem sent back); the replay must come to the same verdict through today's client and checks.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import openai
import pytest
from pydantic import BaseModel

from memory_sleep.engines import llm, summaries
from memory_sleep.engines.model import InvalidAnswer, Prompt
from memory_sleep.engines.openai_client import OpenAIClient
from memory_sleep.engines.schemas import (
    BriefingAnswer,
    ClassifyAnswer,
    CloseAnswer,
    IntegrateAnswer,
    ProjectAnswer,
    WeeklyAnswer,
)

from .fake_api import FakeAPI, Reply, serve

CASSETTES = sorted((Path(__file__).parent / "cassettes" / "real").glob("*.json"))
SCHEMAS: dict[str, type[BaseModel]] = {
    "nrem_classify.md.j2": ClassifyAnswer,
    "rem_integrate.md.j2": IntegrateAnswer,
    "rem_close.md.j2": CloseAnswer,
    "project_summary.md.j2": ProjectAnswer,
    "weekly_summary.md.j2": WeeklyAnswer,
    "briefing.md.j2": BriefingAnswer,
}
api = pytest.fixture(serve)


def _problems(template: str, answer: Any, values: dict[str, Any]) -> list[str]:
    """What the engine's checks find in `answer`, given the ids and texts the prompt showed."""
    items = {item["id"]: item for item in values.get("items", values.get("notes", [])) if "id" in item}
    if template == "nrem_classify.md.j2":
        return llm._classify_problems(answer, items)  # type: ignore[arg-type]
    if template == "rem_integrate.md.j2":
        shown = {entry["ref"]: entry for entry in values["entries"]}
        return llm._integrate_problems(answer, items, shown)  # type: ignore[arg-type]
    if template == "rem_close.md.j2":
        return llm._close_problems(answer, items, {action["ref"] for action in values["actions"]})  # type: ignore[arg-type]
    if template == "project_summary.md.j2":
        return summaries._project_problems(answer, values["open_actions"])
    if template == "weekly_summary.md.j2":
        actions = [item["text"] for item in values["items"] if item["category"] == "action"]
        return summaries._weekly_problems(answer, actions)
    required = [action["text"] for action in values["actions"]]
    return summaries._briefing_problems(answer, required, date.fromisoformat(values["today"]))


def _client(api: FakeAPI, request: dict[str, Any]) -> OpenAIClient:
    sdk = openai.OpenAI(api_key="not-needed", base_url=api.url + "/v1", max_retries=0, timeout=5.0)
    return OpenAIClient(sdk, request["model"], request["response_format"]["type"], compatible_server=True)


@pytest.mark.parametrize("path", CASSETTES, ids=[path.stem for path in CASSETTES])
def test_a_real_models_answer_gets_the_verdict_it_got_when_recorded(api: FakeAPI, path: Path) -> None:
    cassette = json.loads(path.read_text(encoding="utf-8"))
    request, template = cassette["request"], cassette["template"]
    schema = SCHEMAS[template]
    system, user = (message["content"] for message in request["messages"][:2])
    prompt = Prompt(template, system.split("\n\nAnswer with one JSON object that matches")[0], user)
    client = _client(api, request)
    if cassette["status"] != 200:  # the server's capability error: the client must turn to JSON mode
        api.queue.append(Reply(status=cassette["status"], body=cassette["response"]))
        client.complete(prompt, schema, max_output_tokens=request["max_tokens"])
        assert api.requests[1].body["response_format"]["type"] == "json_object"
        assert "JSON mode" in client.notices[0]
        return
    api.queue.append(Reply(body=cassette["response"]))
    try:
        answer, _ = client.complete(prompt, schema, max_output_tokens=request["max_tokens"])
    except InvalidAnswer as invalid:
        assert invalid.problem == cassette["problem"]
        return
    assert "; ".join(_problems(template, answer, cassette["values"])) == cassette.get("problem", "")
