"""Scopes: every entry carries one (a note's front matter, the config's default, or the API), what
came from a scope's notes carries it too, `recall --scope` and `stats` go by it, and the MCP server
forgets one on request."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client

from memory_sleep.cli.main import main
from memory_sleep.cli.mcp_server import build_server
from memory_sleep.errors import WorkspaceError
from memory_sleep.sidecar.recall import open_sidecar
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.remember import remember

from .conftest import FIXTURE_TODAY
from .forget_helpers import ALICE_WORDS, holding
from .test_mcp import payload


def _json(*args: str) -> object:
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_recall_scope_finds_what_came_from_the_scopes_notes(workspace: Path) -> None:
    hits = _json("recall", "Zorbleck ledger audit", str(workspace), "--scope", "alice", "-k", "10")
    assert isinstance(hits, list)
    assert {hit["scope"] for hit in hits} == {"alice"} and "note" in {hit["kind"] for hit in hits}
    # the MEMORY.md entries and weekly lines the run made of her notes are hers too (recall folds the
    # ones that copy a note line into it)
    with open_sidecar(workspace) as sidecar:
        made = [
            row
            for key in sidecar.store.source_keys()
            if not key.startswith("note:")
            for row in sidecar.store.entries_of_source(key)
            if "Zorbleck" in row.text
        ]
    assert {"memory", "weekly"} <= {row.kind for row in made}
    assert {row.scope for row in made} == {"alice"}
    other = _json("recall", "Zorbleck ledger audit", str(workspace), "--scope", "bob", "-k", "10")
    assert isinstance(other, list) and not any("Zorbleck" in hit["text"] for hit in other)


def test_stats_count_each_scope_with_what_came_from_it(workspace: Path) -> None:
    stats = _json("stats", str(workspace))
    assert isinstance(stats, dict)
    alice = stats["by_scope"]["alice"]
    assert alice["live"] >= 10  # 5 note items, and the entries and lines made of them
    assert stats["by_scope"]["bob"] == {"live": 2, "soft_deleted": 0}  # the shared line stays default
    human = CliRunner().invoke(main, ["stats", str(workspace)]).output
    assert f"By scope: alice {alice['live']} live/0 deleted, bob 2 live/0 deleted, default " in human


def test_remember_with_a_scope_writes_that_scopes_note(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n")
    space = Workspace.open(tmp_path)
    done = remember(space, "Carol's locker code is 4411", FIXTURE_TODAY, scope="carol")
    again = remember(space, "Carol is off on Fridays", FIXTURE_TODAY, scope="carol")
    assert (done.path, done.created, again.created) == ("memory/2026-11-25-carol.md", True, False)
    assert (tmp_path / done.path).read_text() == (
        "---\nscope: carol\n---\n# 2026-11-25\n\n- Carol's locker code is 4411\n- Carol is off on Fridays\n"
    )
    with pytest.raises(WorkspaceError, match="use letters, digits"):
        remember(space, "x", FIXTURE_TODAY, scope="../etc")
    (tmp_path / "memory-sleep.toml").write_text('[sidecar]\nembedder = "offline"\n')
    stats = _json("stats", str(tmp_path)) if _json("index", str(tmp_path)) else {}
    assert isinstance(stats, dict) and stats["by_scope"]["carol"]["live"] == 2


def test_the_mcp_tool_says_what_it_would_forget_then_forgets_on_confirm(workspace: Path) -> None:
    async def work() -> None:
        async with Client(build_server(workspace, today=lambda: FIXTURE_TODAY)) as client:
            hits = payload(await client.call_tool("recall", {"query": "Zorbleck", "scope": "alice"}))
            assert hits
            preview = payload(await client.call_tool("forget_scope", {"scope": "alice"}))
            assert preview["dry_run"] is True and preview["removed"]["notes"] == 2
            assert holding(workspace, ALICE_WORDS)
            done = payload(await client.call_tool("forget_scope", {"scope": "alice", "confirm": True}))
            assert done["dry_run"] is False and done["traces"] == []
            after = {"query": "ledger audit", "scope": "alice"}  # logged: so none of alice's words in it
            assert payload(await client.call_tool("recall", after)) == []
            wrong = await client.call_tool("forget_scope", {"scope": "default", "confirm": True})
            assert wrong.is_error and "this workspace's own scope" in wrong.content[0].text

    anyio.run(work)
    assert holding(workspace, ALICE_WORDS) == {}
