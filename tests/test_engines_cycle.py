"""`memory-sleep run --engine anthropic|openai` on the fixture workspace, against the fake API."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memory_sleep.cli.main import main
from memory_sleep.engines.calls import ModelCalls
from memory_sleep.engines.model import Prompt
from memory_sleep.engines.schemas import (
    BriefingAnswer,
    ClassifyAnswer,
    CloseAnswer,
    IntegrateAnswer,
    ProjectAnswer,
    WeeklyAnswer,
)
from memory_sleep.engines.value_answers import values_answer

from .conftest import snapshot_tree
from .fake_api import FakeAPI, anthropic_error, openai_error, serve

api = pytest.fixture(serve)
DEFAULT_MODELS = {"anthropic": "claude-haiku-4-5", "openai": "gpt-4.1-mini"}


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key")
    for name in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "ANTHROPIC_AUTH_TOKEN", "MEMORY_SLEEP_DEBUG"):
        monkeypatch.delenv(name, raising=False)


def _configure(workspace: Path, api: FakeAPI, provider: str, extra: str = "") -> None:
    base = api.url if provider == "anthropic" else api.url + "/v1"
    (workspace / "memory-sleep.toml").write_text(
        f'[engine]\nname = "{provider}"\nbase_url = "{base}"\nmax_retries = 1\ntimeout_secs = 5\n{extra}'
        "[sidecar]\nenabled = false\n"
    )


def _assert_nothing_changed(workspace: Path, before: dict[str, bytes]) -> None:
    """Every file as it was; a failed run may only leave its `failed` record in sleep-log.json."""
    after = snapshot_tree(workspace)
    log = "memory/sleep-log.json"
    if after.get(log) != before.get(log):
        assert json.loads(after[log])["status"] != "ok"
    assert {k: v for k, v in after.items() if k != log} == {k: v for k, v in before.items() if k != log}


def _run(workspace: Path, *options: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["run", str(workspace), "--today", "2026-11-25", *options])
    return result.exit_code, result.output + (result.stderr if result.stderr_bytes else "")


ANSWERS = {
    "nrem_classify.md.j2": ClassifyAnswer,
    "rem_integrate.md.j2": IntegrateAnswer,
    "rem_close.md.j2": CloseAnswer,
    "project_summary.md.j2": ProjectAnswer,
    "weekly_summary.md.j2": WeeklyAnswer,
    "briefing.md.j2": BriefingAnswer,
}


def _answer_from_values(api: FakeAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake server answers with values_answer, from the values each request was rendered from
    (looked up by the exact data the engine sent, never read out of it)."""
    rendered: dict[str, Prompt] = {}
    render = ModelCalls.render

    def remember(calls: ModelCalls, template: str, values: Any) -> Prompt:
        prompt = render(calls, template, values)
        rendered[prompt.data] = prompt
        return prompt

    def brain(body: dict[str, Any]) -> dict[str, Any]:
        data = next(m["content"] for m in body["messages"] if m["role"] == "user")
        prompt = rendered[data if isinstance(data, str) else data[0]["text"]]
        return values_answer(prompt, ANSWERS[prompt.template])

    monkeypatch.setattr(ModelCalls, "render", remember)
    api.brain = brain


@pytest.mark.slow
@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_whole_cycle_through_each_sdk_writes_every_file_from_model_output(
    fixture_workspace: Path, api: FakeAPI, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _configure(fixture_workspace, api, provider)
    _answer_from_values(api, monkeypatch)
    code, output = _run(fixture_workspace)
    assert code == 0, output
    assert f"Engine: {provider} ({DEFAULT_MODELS[provider]}), {len(api.requests)} LLM calls" in output
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert log["engine"] == provider and log["model"] == DEFAULT_MODELS[provider]
    assert log["llmCalls"] == len(api.requests) and log["estimatedCostUsd"] > 0
    assert set(log["llmUsage"]) == {"nrem", "rem", "cleanup"}
    assert not [w for w in log["warnings"] if "decided offline" in w]
    paths = {seen.path for seen in api.requests}
    assert paths == ({"/v1/messages"} if provider == "anthropic" else {"/v1/chat/completions"})
    weekly = sorted(p.name for p in (fixture_workspace / "memory" / "weekly").glob("*.md"))
    assert weekly == ["2026-W44.md", "2026-W45.md", "2026-W46.md", "2026-W47.md"]
    assert (
        "items worth keeping this week"
        in (fixture_workspace / "memory" / "weekly" / "2026-W45.md").read_text()
    )
    briefing = (fixture_workspace / "memory" / "briefing.md").read_bytes()
    assert len(briefing) <= 2048 and b"Atlas: status: active" in briefing
    memory = (fixture_workspace / "MEMORY.md").read_text()
    assert log["operations"]["add"] > 0 and "## How I like to work" in memory

    calls = len(api.requests)
    before = snapshot_tree(fixture_workspace)
    code, output = _run(fixture_workspace)
    assert code == 0 and "Nothing to do" in output
    assert len(api.requests) == calls and snapshot_tree(fixture_workspace) == before


def test_model_option_reaches_the_provider(fixture_workspace: Path, api: FakeAPI) -> None:
    _configure(fixture_workspace, api, "openai")
    code, output = _run(fixture_workspace, "--model", "gpt-4.1-nano", "--phase", "nrem")
    assert code == 0, output
    assert {seen.body["model"] for seen in api.requests} == {"gpt-4.1-nano"}
    assert "Engine: openai (gpt-4.1-nano)" in output


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
def test_require_llm_with_a_failing_provider_exits_1_and_changes_nothing(
    fixture_workspace: Path, api: FakeAPI, provider: str
) -> None:
    _configure(fixture_workspace, api, provider)
    failure = (
        anthropic_error(529, "overloaded_error", "Overloaded")
        if provider == "anthropic"
        else openai_error(503, "server_error", "Service unavailable")
    )
    api.queue.extend([failure] * 4)
    before = snapshot_tree(fixture_workspace)
    code, output = _run(fixture_workspace, "--require-llm")
    assert code == 1
    assert f"Error: {provider}: after 2 attempts: server error" in output
    assert "Nothing was changed (--require-llm)" in output
    _assert_nothing_changed(fixture_workspace, before)


def test_without_require_llm_a_dead_provider_falls_back_offline_and_says_so(
    fixture_workspace: Path, api: FakeAPI
) -> None:
    _configure(fixture_workspace, api, "anthropic", "breaker_failures = 2\n")
    api.queue.extend([anthropic_error(500, "api_error", "Internal server error")] * 4)
    code, output = _run(fixture_workspace)
    assert code == 0, output
    assert len(api.requests) == 4  # two calls of two attempts each, then the breaker opened
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert any("stopped calling for the rest of this run" in w for w in log["warnings"])
    assert log["itemsKept"] > 0 and (fixture_workspace / "memory" / "briefing.md").exists()


def test_require_llm_without_any_key_exits_1(
    fixture_workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    before = snapshot_tree(fixture_workspace)
    code, output = _run(fixture_workspace, "--require-llm")
    assert code == 1 and "--require-llm, but no provider" in output
    code, output = _run(fixture_workspace, "--engine", "anthropic")
    assert code == 1 and "No ANTHROPIC_API_KEY: set it, or run with --engine offline." in output
    _assert_nothing_changed(fixture_workspace, before)


def test_auto_prefers_anthropic_then_openai_then_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_sleep.engines.select import choose_engine_name

    assert choose_engine_name("auto") == "anthropic"
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert choose_engine_name("auto") == "openai"
    monkeypatch.delenv("OPENAI_API_KEY")
    assert choose_engine_name("auto") == "offline"


def test_an_offline_run_never_imports_the_sdks(fixture_workspace: Path) -> None:
    probe = (
        "import sys; from memory_sleep.cli.main import main\n"
        "try:\n    main(['run', sys.argv[1], '--engine', 'offline', '--today', '2026-11-25', '-q'])\n"
        "except SystemExit as stop:\n    assert not stop.code, stop.code\n"
        "loaded = sorted(m for m in ('anthropic', 'openai', 'httpx2') if m in sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", probe, str(fixture_workspace)], check=True, timeout=60)
