"""`--engine agent`: the host agent answers the LLM engine's requests through files, over rounds."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from mcp import Client

from memory_sleep.cli.main import main
from memory_sleep.config import load_config
from memory_sleep.cycle.runner import RunOptions, run_cycle
from memory_sleep.engines.agent import (
    EXIT_WAITING,
    AgentDesk,
    agent_engine,
    engine_as_agent_runs_it,
    waiting_requests,
)
from memory_sleep.engines.testing import answer_pending, deciding_model
from memory_sleep.workspace.layout import Workspace

from .agent_helpers import decide
from .conftest import FIXTURE_TODAY, snapshot_tree
from .test_mcp import payload, with_client

NO_SIDECAR = "[sidecar]\nenabled = false\n"
# what differs between engines or moments in the sleep log; everything else must be equal
VOLATILE = {
    "lastRun",
    "runId",
    "engine",
    "model",
    "llmCalls",
    "inputTokens",
    "outputTokens",
    "llmUsage",
    "durationSeconds",
}


def run_agent(folder: Path, *options: str) -> Result:
    return CliRunner().invoke(
        main, ["run", str(folder), "--engine", "agent", "--today", FIXTURE_TODAY.isoformat(), *options]
    )


def reference_tree(folder: Path) -> dict[str, Any]:
    """The files the same decisions give when a model makes them (the function test double)."""
    (folder / "memory-sleep.toml").write_text(NO_SIDECAR)
    config = load_config(folder / "memory-sleep.toml")
    engine = engine_as_agent_runs_it(deciding_model(decide), config.engine, folder)
    run_cycle(Workspace.open(folder), config, engine, RunOptions(today=FIXTURE_TODAY))
    return comparable(folder)


def comparable(folder: Path) -> dict[str, Any]:
    files: dict[str, Any] = dict(snapshot_tree(folder))
    log = json.loads(files.pop("memory/sleep-log.json"))
    files["sleep-log"] = {key: value for key, value in log.items() if key not in VOLATILE | {"history"}}
    return files


def agent_rounds(folder: Path, answer_first: bool = False) -> list[Result]:
    """Run, answer what waits, run again, until a run applies its plan."""
    if answer_first:
        assert answer_pending(folder, decide)
    results = [run_agent(folder)]
    while results[-1].exit_code == EXIT_WAITING:
        assert answer_pending(folder, decide)
        results.append(run_agent(folder))
        assert len(results) < 20, results[-1].output
    assert results[-1].exit_code == 0, results[-1].output
    return results


@pytest.mark.slow  # whole rounds over the fixture workspace, about 4 s each
def test_the_cli_loop_gives_the_files_the_same_decisions_give_through_a_model(
    fixture_workspace: Path, tmp_path: Path
) -> None:
    reference = tmp_path / "reference"
    shutil.copytree(fixture_workspace, reference)
    expected = reference_tree(reference)
    (fixture_workspace / "memory-sleep.toml").write_text(NO_SIDECAR)
    before = snapshot_tree(fixture_workspace, skip_state=False)

    first = run_agent(fixture_workspace)
    assert first.exit_code == EXIT_WAITING, first.output
    assert "Decisions waiting: 19 requests for the agent; nothing was changed yet." in first.output
    assert "memory/.sleep/agent/pending/nrem-classify-" in first.output
    assert (fixture_workspace / "memory" / ".sleep" / "agent" / "answers").is_dir()  # ready to write into
    written = snapshot_tree(fixture_workspace, skip_state=False)
    tool_state = ("/.sleep/agent/", "/.sleep/lock")
    assert {
        path: data
        for path, data in written.items()
        if not path.endswith(tool_state) and "/.sleep/agent/" not in path
    } == before

    results = [first, *agent_rounds(fixture_workspace, answer_first=True)]
    # NREM's batches, REM's (split by request_max_tokens), then project, weekly and briefing summaries
    assert [_kinds(result.output) for result in results[:-1]] == [
        {"nrem-classify": 19},
        {"rem-integrate": 4},
        {"project-summary": 3},
        {"weekly-summary": 4},
        {"briefing": 1},
    ]
    assert comparable(fixture_workspace) == expected
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert (log["engine"], log["model"]) == ("agent", "host-agent")
    assert AgentDesk(fixture_workspace).pending() == []
    assert not list((fixture_workspace / "memory" / ".sleep" / "agent" / "answers").glob("*.json"))

    files = snapshot_tree(fixture_workspace)
    again = run_agent(fixture_workspace)  # unchanged notes: nothing to ask, the briefing's answer cached
    assert again.exit_code == 0 and "0 LLM calls" in again.output, again.output
    assert snapshot_tree(fixture_workspace) == files  # a second run changes nothing: nothing to undo of it

    undone = CliRunner().invoke(main, ["undo", str(fixture_workspace)])  # the run the agent answered
    assert undone.exit_code == 0, undone.output
    assert snapshot_tree(fixture_workspace) == {p: d for p, d in before.items() if "/.sleep/" not in p}


def _kinds(output: str) -> dict[str, int]:
    names = re.findall(r"pending/([a-z-]+)-[0-9a-f]{12}\.json", output)
    return {name: names.count(name) for name in dict.fromkeys(names)}


@pytest.mark.slow  # whole rounds over the fixture workspace, about 4 s each
def test_invalid_answers_come_back_with_what_to_fix_and_a_second_answer_is_taken(
    fixture_workspace: Path,
) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text(NO_SIDECAR)
    assert run_agent(fixture_workspace).exit_code == EXIT_WAITING
    first, second, third = (request.id for request in AgentDesk(fixture_workspace).pending()[:3])
    answer_pending(fixture_workspace, decide)
    desk = AgentDesk(fixture_workspace)
    unknown = json.loads(desk.answer(first) or "")
    unknown["classifications"][0]["id"] = "I99"
    desk.save_answer(first, unknown)
    desk.answer_path(second).write_text("Sure! I would keep the deploy notes and drop the heartbeats.")
    wrong = json.loads(desk.answer(third) or "")
    wrong["classifications"][0]["verdict"] = "MAYBE"
    desk.save_answer(third, wrong)

    rejected = run_agent(fixture_workspace)
    assert rejected.exit_code == EXIT_WAITING, rejected.output
    assert "Decisions waiting: 3 requests" in rejected.output
    problems = {request.id: request.problems for request in AgentDesk(fixture_workspace).pending()}
    assert set(problems) == {first, second, third}
    assert problems[first][0].startswith("unknown item ids I99 (only I1, I2, ")
    assert "no classification for I1" in problems[first][0]
    assert problems[second][0].startswith("not valid JSON (Expecting value at char 0)")
    assert problems[third][0].startswith(
        "does not match the schema: classifications.0.verdict: Input should be"
    )
    assert f"    rejected: {problems[first][0]}" in rejected.output
    assert AgentDesk(fixture_workspace).request(second).rejected_answer.startswith("Sure!")  # type: ignore[union-attr]

    answer_pending(fixture_workspace, decide)  # the second answers
    assert run_agent(fixture_workspace).exit_code == EXIT_WAITING  # on to REM: NREM's answers were taken
    assert {request.template for request in AgentDesk(fixture_workspace).pending()} == {"rem_integrate.md.j2"}
    answer_pending(fixture_workspace, decide)
    assert run_agent(fixture_workspace).exit_code == EXIT_WAITING
    summaries = AgentDesk(fixture_workspace).pending()
    with_actions = next(
        r for r in summaries if r.template == "project_summary.md.j2" and r.values["open_actions"]
    )
    answer_pending(fixture_workspace, decide)
    dropped = json.loads(desk.answer(with_actions.id) or "")
    dropped["next"] = "—"
    desk.save_answer(with_actions.id, dropped)

    again = run_agent(fixture_workspace)
    assert again.exit_code == EXIT_WAITING
    assert [r.problems for r in AgentDesk(fixture_workspace).pending()] == [
        ["next drops the open action items; carry the most urgent one"]
    ]
    assert agent_rounds(fixture_workspace, answer_first=True)[-1].exit_code == 0
    assert (
        "MEMORY.md"
        in json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())["filesChanged"]
    )


@pytest.mark.slow  # whole rounds over the fixture workspace, about 4 s each
def test_the_mcp_loop_gives_the_same_files(fixture_workspace: Path, tmp_path: Path) -> None:
    reference = tmp_path / "reference"
    shutil.copytree(fixture_workspace, reference)
    expected = reference_tree(reference)
    (fixture_workspace / "memory-sleep.toml").write_text(NO_SIDECAR)
    rounds: list[int] = []

    async def agent(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert listed["answer_decision"].input_schema["required"] == ["id", "answer"]
        while (done := payload(await client.call_tool("consolidate_as_agent", {})))["status"] == "waiting":
            rounds.append(len(done["requests"]))
            for waiting in done["requests"]:
                request = payload(await client.call_tool("decision_request", {"id": waiting["id"]}))
                answer = decide(request["values"], request["answer_schema"])
                taken = payload(
                    await client.call_tool("answer_decision", {"id": waiting["id"], "answer": answer})
                )
                assert taken == {"accepted": True, "problems": []}
        assert done["status"] == "applied" and done["record"]["engine"] == "agent"

    with_client(fixture_workspace, agent)
    assert rounds == [19, 4, 3, 4, 1]
    assert comparable(fixture_workspace) == expected


def test_an_answer_off_its_schema_is_refused_at_once_over_mcp(fixture_workspace: Path) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text(NO_SIDECAR)

    async def agent(client: Client) -> None:
        waiting = payload(await client.call_tool("consolidate_as_agent", {}))["requests"][0]["id"]
        refused = payload(
            await client.call_tool("answer_decision", {"id": waiting, "answer": {"verdicts": []}})
        )
        assert refused["accepted"] is False
        assert refused["problems"][0].startswith("does not match the schema: classifications: Field required")
        unknown = await client.call_tool("decision_request", {"id": "nrem-classify-000000000000"})
        assert unknown.is_error and "call consolidate_as_agent" in unknown.content[0].text

    with_client(fixture_workspace, agent)


def test_status_and_doctor_show_waiting_requests_which_expire(fixture_workspace: Path) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text(NO_SIDECAR)
    assert run_agent(fixture_workspace).exit_code == EXIT_WAITING
    status = CliRunner().invoke(main, ["status", str(fixture_workspace), "--json"])
    report = json.loads(status.output)
    assert len(report["decisions_waiting"]) == 19 and report["decisions_expired"] == 0
    assert report["decisions_waiting"][0]["prompt_tokens"] > 500
    lines = CliRunner().invoke(main, ["status", str(fixture_workspace)]).output
    assert "decisions waiting for the agent: 19 in memory/.sleep/agent/pending (answer them" in lines
    doctor = json.loads(CliRunner().invoke(main, ["doctor", str(fixture_workspace), "--json"]).output)
    agent = [check for check in doctor["checks"] if check["area"] == "agent"]
    assert [check["level"] for check in agent] == ["warn"]
    assert agent[0]["message"].startswith("19 decision requests waiting for the agent")

    later = time.time() + 73 * 3600  # past expire_hours (72)
    assert waiting_requests(fixture_workspace, 72, lambda: later) == ([], 19)
    config = load_config(fixture_workspace / "memory-sleep.toml")
    agent_engine(config.engine, fixture_workspace, lambda: later)  # a run then drops them, to ask afresh
    assert AgentDesk(fixture_workspace).pending() == []


def test_a_request_over_the_token_budget_is_split(fixture_workspace: Path) -> None:
    (fixture_workspace / "memory-sleep.toml").write_text(
        NO_SIDECAR + "[engine.agent]\nrequest_max_tokens = 2500\n"
    )
    assert run_agent(fixture_workspace).exit_code == EXIT_WAITING
    requests = AgentDesk(fixture_workspace).pending()
    # NREM and REM requests carry only their batches' candidate entries (at 2500: the prompts teach by
    # examples now, and say what a lead-in is: 40; 40 also before the candidates' terms held
    # identifiers whole, 37 between)
    assert len(requests) == 40
    over = [request for request in requests if request.prompt_tokens > 2500]
    assert [len(request.values["items"]) for request in over] == [1]  # one item cannot be split
