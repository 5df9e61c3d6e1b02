"""The MCP server, driven by the official SDK's own client: in process, and over stdio as agents start it."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from memory_sleep.cli.main import main
from memory_sleep.cli.mcp_server import build_server
from memory_sleep.config import Config
from memory_sleep.sidecar import FunctionEmbedder, index_failure, open_sidecar
from memory_sleep.workspace.layout import Workspace

TODAY = date(2026, 11, 25)
TOOLS = {
    "recall",
    "remember",
    "consolidate",
    "status",
    "briefing",
    "consolidate_as_agent",
    "decision_request",
    "answer_decision",
    "forget_scope",
}


def with_client(folder: Path, work: Callable[[Client], Awaitable[None]], **options: Any) -> None:
    async def main() -> None:
        async with Client(build_server(folder, today=lambda: TODAY, **options)) as client:
            await work(client)

    anyio.run(main)


def payload(result: Any) -> Any:
    assert not result.is_error, result.content[0].text
    return (
        result.structured_content["result"]
        if "result" in (result.structured_content or {})
        else result.structured_content
    )


def test_lists_the_five_tools_with_descriptions_and_schemas(fixture_workspace: Path) -> None:
    async def work(client: Client) -> None:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(listed) == TOOLS
        for tool in listed.values():
            assert tool.description and len(tool.description) > 40
        assert listed["recall"].input_schema["required"] == ["query"]
        assert listed["remember"].input_schema["required"] == ["text"]
        assert {"dry_run", "accept_mass_change"} <= set(listed["consolidate"].input_schema["properties"])
        assert "briefing" in (client.instructions or "")
        help_text = CliRunner().invoke(main, ["mcp", "--help"]).output  # it named five of the nine
        assert set(re.findall(r"`(\w+)`", help_text.split("Configure")[0])) == set(listed)

    with_client(fixture_workspace, work)


def test_every_tool_on_the_example_workspace(fixture_workspace: Path) -> None:
    async def work(client: Client) -> None:
        before = await client.call_tool("briefing", {})
        assert "No briefing yet" in before.content[0].text
        added = payload(
            await client.call_tool(
                "remember", {"text": "Decided: the TLS cert moves to ACME (Raj)\nrenews itself"}
            )
        )
        assert added == {"path": "memory/2026-11-25.md", "line": 3, "created": True}
        preview = payload(await client.call_tool("consolidate", {"dry_run": True}))
        assert preview["changed"] and "+++ b/MEMORY.md" in preview["diff"]
        assert not (fixture_workspace / "memory" / "briefing.md").exists()
        done = payload(await client.call_tool("consolidate", {}))
        assert done["changed"] and done["record"]["status"] == "ok" and done["record"]["itemsKept"] > 50
        assert "TLS cert moves to ACME" in (fixture_workspace / "MEMORY.md").read_text()
        briefing = await client.call_tool("briefing", {})
        assert briefing.content[0].text.startswith("# Morning briefing 2026-11-25")
        status = payload(await client.call_tool("status", {}))
        assert status["workspace"] == str(fixture_workspace) and status["last_run"]["status"] == "ok"
        assert status["last_run"]["engine"] == "offline"
        hits = payload(
            await client.call_tool("recall", {"query": "when does the TLS certificate expire?", "k": 3})
        )
        assert [hit["rank"] for hit in hits] == [1, 2, 3]
        assert any("billing.fernhill.io" in hit["text"] for hit in hits)

    with_client(fixture_workspace, work)
    note = (fixture_workspace / "memory" / "2026-11-25.md").read_text()
    assert note == "# 2026-11-25\n\n- Decided: the TLS cert moves to ACME (Raj)\n  renews itself\n"


def test_recall_is_logged_and_counted_like_the_cli(fixture_workspace: Path) -> None:
    async def work(client: Client) -> None:
        hits = payload(await client.call_tool("recall", {"query": "who handles the design?", "k": 2}))
        assert len(hits) == 2

    with_client(fixture_workspace, work)  # the sidecar was never built: recall indexes first
    with open_sidecar(fixture_workspace, Config()) as sidecar:
        assert sidecar.stats()["queries_logged"] == 1
        accessed = sidecar.store.db.execute("SELECT count(*) FROM entries WHERE access_count > 0").fetchone()[
            0
        ]
    assert accessed == 2


def test_recall_warns_when_the_last_run_could_not_update_the_sidecar(fixture_workspace: Path) -> None:
    """An agent reads the tool's text, not stderr: a failed indexing is said there, beside the hits
    (which stay the tool's structured result), until an index succeeds."""
    with open_sidecar(fixture_workspace, Config()) as sidecar:
        sidecar.index()
    index_failure.record(Workspace.open(fixture_workspace).state_dir, "ValueError: boom")

    async def work(client: Client) -> None:
        result = await client.call_tool("recall", {"query": "who handles the design?", "k": 2})
        assert len(payload(result)) == 2
        texts = [block.text for block in result.content]
        assert texts[0] == (
            "Warning: the last run could not update the sidecar (ValueError: boom): recall misses what "
            f"changed since. `memory-sleep index {fixture_workspace}` retries."
        )
        assert [json.loads(text)["rank"] for text in texts[1:]] == [1, 2]

    with_client(fixture_workspace, work)


def test_recall_re_embeds_a_sidecar_built_with_another_embedder(fixture_workspace: Path) -> None:
    other = FunctionEmbedder(lambda text: [1.0, float(len(text))], 2, id="older")
    with open_sidecar(fixture_workspace, Config(), other) as sidecar:
        sidecar.index()

    async def work(client: Client) -> None:
        hits = payload(await client.call_tool("recall", {"query": "who handles the design?", "k": 2}))
        assert len(hits) == 2

    with_client(fixture_workspace, work)
    with open_sidecar(fixture_workspace, Config()) as sidecar:
        assert sidecar.store.meta("embedder") == sidecar.embedder.id


def test_recall_function_is_replaceable(tmp_path: Path) -> None:
    asked: list[tuple[str, int, str | None]] = []

    def fake(workspace: Workspace, query: str, k: int, scope: str | None) -> list[dict[str, object]]:
        asked.append((query, k, scope))
        return [{"rank": 1, "text": "from the fake"}]

    async def work(client: Client) -> None:
        assert payload(await client.call_tool("recall", {"query": "q", "scope": "agent-7"})) == [
            {"rank": 1, "text": "from the fake"}
        ]

    (tmp_path / "MEMORY.md").write_text("")
    with_client(tmp_path, work, recall=fake)
    assert asked == [("q", 5, "agent-7")]


def test_errors_come_back_as_tool_errors_with_the_cli_message(fixture_workspace: Path) -> None:
    memory = fixture_workspace / "MEMORY.md"
    memory.write_bytes(memory.read_bytes() + b"\xff")

    async def work(client: Client) -> None:
        empty = await client.call_tool("remember", {"text": "   "})
        assert empty.is_error and "Nothing to remember: the text is empty." in empty.content[0].text
        failed = await client.call_tool("consolidate", {})
        assert failed.is_error and "MEMORY.md: not valid UTF-8" in failed.content[0].text
        too_many = await client.call_tool("recall", {"query": "x", "k": 1000})
        assert too_many.is_error and "k must be between 1 and 100" in too_many.content[0].text

    with_client(fixture_workspace, work)
    log = json.loads((fixture_workspace / "memory" / "sleep-log.json").read_text())
    assert log["status"] == "failed" and log["error"].startswith("MEMORY.md: not valid UTF-8")


def test_consolidate_refuses_a_mass_change_and_accepts_it_when_asked(tmp_path: Path) -> None:
    """A note of many similar lines is refused through the tool as on the command line; the refusal says
    how to see the plan and go on, and accept_mass_change does, once."""
    (tmp_path / "memory").mkdir()
    lines = "".join(f"- Decided: the retry limit is {n} attempts\n" for n in range(120))
    (tmp_path / "memory" / "2026-11-25.md").write_text(f"# 2026-11-25\n\n{lines}", encoding="utf-8")
    (tmp_path / "memory-sleep.toml").write_text("[sidecar]\nenabled = false\n", encoding="utf-8")

    async def work(client: Client) -> None:
        refused = await client.call_tool("consolidate", {})
        message = " ".join(refused.content[0].text.split())
        assert refused.is_error and "memory/2026-11-25.md would rewrite or archive" in message
        assert "consolidate with dry_run and accept_mass_change" in message
        plan = payload(await client.call_tool("consolidate", {"dry_run": True, "accept_mass_change": True}))
        assert "\n+- Decided: the retry limit is 119 attempts" in plan["diff"]
        assert plan["diff"].count("; superseded by memory/2026-11-25.md:") == 119
        assert not (tmp_path / "MEMORY.md").exists()
        done = payload(await client.call_tool("consolidate", {"accept_mass_change": True}))
        assert done["record"]["status"] == "ok" and done["record"]["operations"]["supersede"] == 119
        again = payload(await client.call_tool("consolidate", {}))  # accepted once: nothing new to change
        assert again["record"]["status"] == "ok" and not again["record"]["operations"].get("supersede")

    with_client(tmp_path, work)
    assert "retry limit is 119 attempts" in (tmp_path / "MEMORY.md").read_text(encoding="utf-8")


def test_remember_appends_to_an_existing_note(tmp_path: Path) -> None:
    note = tmp_path / "memory" / "2026-11-25.md"
    note.parent.mkdir()
    note.write_bytes(b"# Tuesday\r\n09:00 HEARTBEAT_OK")

    async def work(client: Client) -> None:
        added = payload(await client.call_tool("remember", {"text": "Maya prefers async updates"}))
        assert added == {"path": "memory/2026-11-25.md", "line": 3, "created": False}

    with_client(tmp_path, work)
    assert note.read_bytes() == b"# Tuesday\r\n09:00 HEARTBEAT_OK\r\n- Maya prefers async updates\r\n"


@pytest.mark.slow
def test_memory_sleep_mcp_serves_over_stdio(fixture_workspace: Path) -> None:
    """The way an agent starts it: `memory-sleep mcp WORKSPACE` as a subprocess speaking MCP on stdio."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "memory_sleep", "mcp", str(fixture_workspace)]
    )

    async def main() -> None:
        async with Client(server) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == TOOLS
            status = await client.call_tool("status", {})
            assert json.loads(status.content[0].text)["daily_notes"] == 22

    anyio.run(main)
