"""Provider faults with the LLM engines: down for the whole run, too slow, or answering with destruction
or made-up ids. The run completes offline and says so (or, with --require-llm, changes nothing), and no
entry is ever lost."""

from __future__ import annotations

import io
import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from memory_sleep.cli.main import _progress, main
from memory_sleep.config import Config, EngineConfig, SidecarConfig
from memory_sleep.cycle.runner import RunOptions, RunReport, run_cycle
from memory_sleep.engines.budget import Deadline
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.model import Exchange, Prompt
from memory_sleep.engines.testing import FunctionModel
from memory_sleep.engines.value_answers import values_answer
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.memory_doc import MemoryDocument

from .conftest import FIXTURE_TODAY, snapshot_tree
from .fake_api import FakeAPI, Reply, anthropic_error, openai_error, serve

api = pytest.fixture(serve)
PROVIDERS = ["anthropic", "openai"]


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    for name in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "MEMORY_SLEEP_DEBUG"):
        monkeypatch.delenv(name, raising=False)


def _configure(workspace: Path, provider: str, base_url: str, extra: str = "") -> None:
    (workspace / "memory-sleep.toml").write_text(
        f'[engine]\nname = "{provider}"\nbase_url = "{base_url}"\nmax_retries = 0\ntimeout_secs = 2\n{extra}'
        "[sidecar]\nenabled = false\n"
    )


def _run(workspace: Path, *options: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["run", str(workspace), "--today", "2026-11-25", *options])
    return result.exit_code, result.output


def _closed_port() -> str:
    with socket.socket() as probe:  # bound, never listening: connections are refused
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def _entries(folder: Path) -> list[str]:
    return [entry.text for _, entry in MemoryDocument.parse((folder / "MEMORY.md").read_text()).entries()]


def _nothing_lost(before: list[str], folder: Path) -> None:
    now = set(_entries(folder))
    archive = (folder / "memory" / "archive.md").read_text()
    assert [text for text in before if text not in now and text[:60] not in archive] == []


@pytest.mark.slow
@pytest.mark.parametrize("provider", PROVIDERS)
def test_provider_down_for_the_whole_run_completes_offline_and_says_so(
    fixture_workspace: Path, provider: str
) -> None:
    base = _closed_port()
    _configure(fixture_workspace, provider, base if provider == "anthropic" else base + "/v1")
    started = time.monotonic()
    code, output = _run(fixture_workspace)
    assert code == 0, output
    assert time.monotonic() - started < 30
    assert "batches decided offline (see warnings)" in output
    assert f"Warning: {provider}: stopped calling for the rest of this run (" in output
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert log["status"] == "ok" and log["itemsKept"] > 0 and log["llmCalls"] == 3  # tried, refused
    assert (fixture_workspace / "memory" / "briefing.md").exists()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_provider_down_with_require_llm_exits_1_and_changes_nothing(
    fixture_workspace: Path, provider: str
) -> None:
    base = _closed_port()
    _configure(fixture_workspace, provider, base if provider == "anthropic" else base + "/v1")
    before = snapshot_tree(fixture_workspace)
    code, output = _run(fixture_workspace, "--require-llm")
    assert code == 1
    assert output.startswith(f"Error: {provider}: ") and "Nothing was changed (--require-llm)" in output
    after = snapshot_tree(fixture_workspace)
    log = json.loads(after.pop("memory/sleep-log.json"))  # the failed run's record, nothing else
    assert after == before
    assert log["status"] == "failed" and "Nothing was changed (--require-llm)" in log["error"]


@pytest.mark.slow
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_provider_slower_than_the_timeout_is_given_up_on(
    fixture_workspace: Path, api: FakeAPI, provider: str
) -> None:
    _configure(fixture_workspace, provider, api.url if provider == "anthropic" else api.url + "/v1")
    (fixture_workspace / "memory-sleep.toml").write_text(
        (fixture_workspace / "memory-sleep.toml")
        .read_text()
        .replace("timeout_secs = 2", "timeout_secs = 0.3")
        .replace("max_retries = 0", "max_retries = 2")
    )
    api.queue.extend([Reply(body={}, delay=1.0)] * 9)
    started = time.monotonic()
    code, output = _run(fixture_workspace, "-v")
    assert code == 0, output
    assert time.monotonic() - started < 30
    assert len(api.requests) == 3  # a timed-out call is not retried; three open the circuit breaker
    assert "no answer within 0.3s" in output and "stopped calling for the rest of this run" in output
    assert (fixture_workspace / "memory" / "briefing.md").exists()


NOT_AN_ANSWER = {  # the other bodies that are no API answer: test_engines_sdk.py
    "a web page": Reply(raw="<!doctype html><title>Open WebUI</title>", content_type="text/html"),
    "a page labelled JSON": Reply(raw="<html><body>Sign in</body></html>"),
}


@pytest.mark.parametrize("body", NOT_AN_ANSWER)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_answer_that_is_not_an_api_response_is_a_provider_failure(
    fixture_workspace: Path, api: FakeAPI, provider: str, body: str
) -> None:
    reply, problem = NOT_AN_ANSWER[body], "answered with an HTML page"
    _configure(fixture_workspace, provider, api.url if provider == "anthropic" else api.url + "/v1")
    api.queue.extend([reply] * 10)
    code, output = _run(fixture_workspace, "-v")
    assert code == 0, output
    assert "Traceback" not in output and "unexpected" not in output
    assert "waiting on the model" not in output  # not a terminal: no progress line
    assert problem in output and f"Warning: {provider}: stopped calling for the rest of this run (" in output
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert log["status"] == "ok" and log["llmCalls"] == len(api.requests) == 3  # breaker_failures
    assert (fixture_workspace / "memory" / "briefing.md").exists()
    if body != "a web page":
        return
    api.queue.clear()
    api.queue.extend([reply] * 10)
    (fixture_workspace / "memory" / "2026-11-25.md").write_text(
        "# Notes\n\n- Decided: billing moves to Postgres 16\n"
    )
    code, output = _run(fixture_workspace, "--require-llm")
    assert code == 1 and output.startswith(f"Error: {provider}: ") and problem in output
    assert "Nothing was changed (--require-llm)" in output and "Traceback" not in output


def _engine_run(
    folder: Path, reply: Any, breaker_failures: int = 100, deadline: Deadline | None = None
) -> tuple[RunReport, FunctionModel]:
    model = FunctionModel(reply, model="claude-haiku-4-5")
    config = Config(
        engine=EngineConfig(breaker_failures=breaker_failures), sidecar=SidecarConfig(enabled=False)
    )
    engine = llm_engine(model, config.engine, deadline=deadline)
    return run_cycle(Workspace.open(folder), config, engine, RunOptions(today=FIXTURE_TODAY)), model


def _destroy(prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...]) -> Any:
    """Answers that would empty memory: every entry rewritten to nothing, summaries and briefing blank."""
    name = schema.__name__
    if name == "IntegrateAnswer":
        shown = [entry["ref"] for entry in prompt.values["entries"]] or [None]
        return {
            "operations": [
                {"item_id": item["id"], "op": "supersede", "target": shown[n % len(shown)], "text": " ", "reason": "wipe"}
                for n, item in enumerate(prompt.values["items"])
            ]
        }  # fmt: skip
    if name == "ProjectAnswer":
        return {"status": "", "contacts": "", "last_event": "", "next": ""}
    if name == "BriefingAnswer":
        return {"priorities": [], "actions": [], "context": [], "warnings": []}
    if name == "WeeklyAnswer":
        return {"overview": "", "highlights": []}
    return values_answer(prompt, schema, history)  # NREM keeps what it should, so REM is asked


def test_a_response_that_deletes_everything_is_refused(fixture_workspace: Path) -> None:
    before = _entries(fixture_workspace)
    report, model = _engine_run(fixture_workspace, _destroy)
    assert len(model.requests) > 5
    _nothing_lost(before, fixture_workspace)
    assert all(text.strip() for text in _entries(fixture_workspace))
    warnings = " ".join(report.record.warnings)
    assert (
        "empty text; give the entry's full new wording" in warnings and "decided offline instead" in warnings
    )
    projects = MemoryDocument.parse((fixture_workspace / "MEMORY.md").read_text()).projects()
    assert all(block.fields().get("Status") for block in projects.values())
    briefing = (fixture_workspace / "memory" / "briefing.md").read_text()
    assert "## Top priorities\n1. [" in briefing  # the blank briefing was refused for the offline one


def _made_up_ids(prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...]) -> Any:
    answer = values_answer(prompt, schema, history)
    if schema.__name__ == "IntegrateAnswer":
        for operation in answer["operations"]:
            operation.update(op="update", target="E9999", text="Atlas runs on Oracle now")
        answer["operations"].append(
            {"item_id": "I9999", "op": "add", "target": None, "text": "invented", "reason": "made up"}
        )
    elif schema.__name__ == "ClassifyAnswer":
        answer["classifications"].append({**answer["classifications"][0], "id": "I9999"})
    return answer


def test_a_response_naming_unknown_ids_is_rejected_never_applied(fixture_workspace: Path) -> None:
    before = _entries(fixture_workspace)
    report, _ = _engine_run(fixture_workspace, _made_up_ids)
    warnings = " ".join(report.record.warnings)
    assert "entry E9999 does not exist; use only the entry ids shown" in warnings
    assert "I9999: no such item" in warnings and "unknown item ids I9999" in warnings
    memory = (fixture_workspace / "MEMORY.md").read_text()
    assert "Oracle" not in memory and "invented" not in memory
    _nothing_lost(before, fixture_workspace)
    assert report.record.itemsKept > 0


def test_unusable_answers_in_a_row_open_the_breaker(fixture_workspace: Path) -> None:
    report, model = _engine_run(fixture_workspace, _made_up_ids, breaker_failures=3)
    assert len(model.requests) == report.record.llmCalls == 3  # one batch asked twice, the next once
    warnings = " ".join(report.record.warnings)
    assert (
        "stopped calling for the rest of this run (3 unusable answers in a row, the last: unknown item ids I9999"
        in warnings
    )
    assert report.record.itemsKept > 0  # decided offline


def test_model_calls_end_at_the_run_deadline(fixture_workspace: Path) -> None:
    now = [0.0]

    def slow(prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...]) -> Any:
        now[0] += 100.0  # each answer takes 100 s on this clock
        return values_answer(prompt, schema, history)

    report, model = _engine_run(fixture_workspace, slow, deadline=Deadline(250.0, clock=lambda: now[0]))
    assert len(model.requests) == report.record.llmCalls == 3  # started at 0, 100 and 200 s
    warnings = " ".join(report.record.warnings)
    assert "stopped calling for the rest of this run (model calls reached [engine] deadline_secs" in warnings
    assert (fixture_workspace / "memory" / "briefing.md").exists()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_request_is_counted_in_the_sleep_log(
    fixture_workspace: Path, api: FakeAPI, provider: str
) -> None:
    _configure(fixture_workspace, provider, api.url if provider == "anthropic" else api.url + "/v1")
    config = fixture_workspace / "memory-sleep.toml"
    config.write_text(config.read_text().replace("max_retries = 0", "max_retries = 2"))
    error = (
        anthropic_error(500, "api_error", "Internal server error")
        if provider == "anthropic"
        else openai_error(500, "server_error", "The server had an error")
    )
    api.queue.extend([error] * 20)
    code, output = _run(fixture_workspace)
    assert code == 0, output
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert log["llmCalls"] == len(api.requests) == 9  # three calls of three attempts, then the breaker
    assert (
        f"Warning: {provider}: stopped calling for the rest of this run (after 3 attempts: server error (500)"
        in output
    )


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_progress_says_what_the_run_waits_on(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with _progress(silent=False) as say:
        assert say is not None
        say("waiting on the model: REM batch of 20 items from memory/2026-11-24.md:3 (call 2)")
    assert "waiting on the model: REM batch of 20 items" in terminal.getvalue()
    with _progress(silent=True) as say:
        assert say is None
