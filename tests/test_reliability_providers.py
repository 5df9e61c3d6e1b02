"""Provider faults with the LLM engines: down for the whole run, too slow, or answering with destruction
or made-up ids. The run completes offline and says so (or, with --require-llm, changes nothing), and no
entry is ever lost."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from memory_sleep.cli import main
from memory_sleep.config import Config, EngineConfig, SidecarConfig
from memory_sleep.engines.fake_brain import plausible_answer
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.model import Exchange, Prompt
from memory_sleep.engines.testing import FunctionModel
from memory_sleep.memory_doc import MemoryDocument
from memory_sleep.runner import RunOptions, RunReport, run_cycle
from memory_sleep.workspace import Workspace

from .conftest import FIXTURE_TODAY, snapshot_tree
from .fake_api import FakeAPI, Reply, serve

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
    assert log["status"] == "ok" and log["itemsKept"] > 0 and log["llmCalls"] == 0
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
    )
    api.queue.extend([Reply(body={}, delay=1.0)] * 3)  # three slow answers open the circuit breaker
    started = time.monotonic()
    code, output = _run(fixture_workspace, "-v")
    assert code == 0, output
    assert time.monotonic() - started < 30
    assert len(api.requests) == 3
    assert "no answer within 0.3s" in output and "stopped calling for the rest of this run" in output
    assert (fixture_workspace / "memory" / "briefing.md").exists()


def _engine_run(folder: Path, reply: Any) -> tuple[RunReport, FunctionModel]:
    model = FunctionModel(reply, model="claude-haiku-4-5")
    config = Config(engine=EngineConfig(breaker_failures=100), sidecar=SidecarConfig(enabled=False))
    engine = llm_engine(model, config.engine)
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
    return plausible_answer(prompt, schema, history)  # NREM keeps what it should, so REM is asked


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
    answer = plausible_answer(prompt, schema, history)
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
