"""`memory-sleep mcp`: the workspace as MCP tools (recall, remember, consolidate, status, briefing,
forget_scope) over stdio.

Built on the official MCP Python SDK (`mcp`). Every tool but recall opens what it needs per call and
closes it, so a long-lived server always sees the files as they are now (a nightly cron run, an agent's
edits); recall keeps the sidecar open, whose store a run updates as it writes the files.
Errors a user can act on come back as tool errors carrying the same message as the CLI's.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from memory_sleep.cli.mcp_agent import add_agent_tools
from memory_sleep.config import load_config
from memory_sleep.cycle.outcome import Attempt, recorded_outcome
from memory_sleep.errors import MemorySleepError
from memory_sleep.sidecar import index_failure
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.remember import remember as append_to_note

if TYPE_CHECKING:
    from memory_sleep.sidecar.recall import Sidecar

T = TypeVar("T")
Recall = Callable[[Workspace, str, int, str | None], list[dict[str, object]]]
INSTRUCTIONS = (
    "Long-term memory of one agent workspace. At the start of a session call `briefing`. Before answering "
    "about past decisions, facts or people, call `recall`. Call `remember` for anything worth keeping "
    "(a decision and its reason, a fact with exact values, a lesson, an open action with its deadline). "
    "`consolidate` runs the nightly sleep cycle now; `status` says when it last ran. With no API key "
    "configured, `consolidate_as_agent` lets you make its decisions yourself, with every safeguard kept."
)


class WarmRecall:
    """Recall through the sidecar, logged and counted exactly like `memory-sleep recall`, with one sidecar
    kept open across calls: the vector index stays in memory and is patched when a run (or `index`)
    changes the store, so a question costs the search, not the loading.

    A sidecar that was never built, or built with another embedder, is indexed first, so the first
    question of a new install (or after an upgrade) is answered.
    """

    def __init__(self) -> None:
        self._sidecar: Sidecar | None = None
        self._lock = threading.Lock()  # the SDK may run tools on worker threads

    def __call__(
        self, workspace: Workspace, query: str, k: int, scope: str | None
    ) -> list[dict[str, object]]:
        from memory_sleep.sidecar.recall import open_sidecar

        with self._lock:
            if self._sidecar is None:
                self._sidecar = open_sidecar(workspace.root)
            sidecar = self._sidecar
            if sidecar.store.meta("embedder") != sidecar.embedder.id:
                sidecar.index()
            return [hit.as_dict() for hit in sidecar.recall(query, k=k, scope=scope)]

    def close(self) -> None:
        with self._lock:
            if self._sidecar is not None:
                self._sidecar.close()
                self._sidecar = None


def build_server(
    folder: Path, recall: Recall | None = None, today: Callable[[], date] = date.today
) -> MCPServer:
    """The MCP server for the workspace in `folder` (recall through a `WarmRecall` unless given one);
    `recall` and `today` are replaceable for tests."""
    workspace = Workspace.open(folder)
    answer = recall or WarmRecall()
    server: MCPServer = MCPServer("memory-sleep", instructions=INSTRUCTIONS, version=_version())

    # the function has another name so that it does not shadow the `recall` argument
    @server.tool(name="recall")
    def recall_tool(query: str, k: int = 5, scope: str | None = None) -> list[dict[str, Any]]:
        """Search long-term memory (MEMORY.md entries, weekly summaries, daily-note items) for QUERY.

        Returns ranked results with source file, line, date and text, what is true now first; a result that
        stopped being true carries its status (superseded, done, finished), when and by what. Each recall
        is logged and counts as a use of what it returns, which keeps those entries from being forgotten.
        When the last run could not update the search index, a warning comes first: what changed since is
        missing until `memory-sleep index` succeeds.
        """
        if not 1 <= k <= 100:
            raise ToolError("k must be between 1 and 100.")
        hits = _tool(lambda: answer(workspace, query, k, scope))
        warning = index_failure.recall_warning(workspace.state_dir, workspace.root)
        if warning is None:
            return hits
        # the agent reads the text: the warning first, then each hit as the SDK writes it; the structured
        # result stays the hits alone
        texts = [warning, *(json.dumps(hit, indent=2, ensure_ascii=False) for hit in hits)]
        return CallToolResult(  # type: ignore[return-value]
            content=[TextContent(type="text", text=text) for text in texts],
            structured_content={"result": hits},
        )

    @server.tool()
    def remember(text: str, scope: str | None = None) -> dict[str, Any]:
        """Append TEXT as a bullet to today's daily note (memory/YYYY-MM-DD.md, created if missing).

        Write one item per call: a decision with its reason, a fact with exact values, a lesson, an open
        action with its deadline, or context about a person. The next sleep cycle consolidates it.
        With SCOPE (the user or agent it belongs to), it goes to memory/YYYY-MM-DD-SCOPE.md, whose
        front matter names the scope: `recall` with that scope finds it, and `forget_scope` deletes it.
        """
        done = _tool(lambda: append_to_note(workspace, text, today(), scope))
        return {"path": done.path, "line": done.line, "created": done.created}

    @server.tool()
    def consolidate(dry_run: bool = False, accept_mass_change: bool = False) -> dict[str, Any]:
        """Run the sleep cycle now (NREM, REM, cleanup): update MEMORY.md, weekly summaries and the briefing.

        With dry_run, return the diff of every file it would change and write nothing. `memory-sleep undo`
        reverts a run. A run in which one note would rewrite or archive more of MEMORY.md than
        max_rewrite_share allows (a note of many similar lines) is refused; with accept_mass_change it goes
        on, once: check its plan with dry_run first.
        """
        return _tool(lambda: _consolidate(workspace, today(), dry_run, accept_mass_change))

    @server.tool()
    def status() -> dict[str, Any]:
        """When the sleep cycle last ran (and whether it failed), note counts, and what the next run picks up."""
        from memory_sleep.cli.status import workspace_status

        report = _tool(lambda: workspace_status(workspace, load_config(workspace.config_file), today()))
        return json.loads(json.dumps(report, default=str))  # type: ignore[no-any-return]

    @server.tool()
    def briefing() -> str:
        """The morning briefing (memory/briefing.md): top priorities, open actions and deadlines, key context."""
        try:
            return workspace.briefing.read_text(encoding="utf-8")
        except FileNotFoundError:
            return "No briefing yet: the sleep cycle has not run here. Call `consolidate` to write one."
        except (OSError, UnicodeDecodeError) as error:
            raise ToolError(f"memory/briefing.md: cannot read ({error}).") from None

    @server.tool()
    def forget_scope(scope: str, confirm: bool = False) -> dict[str, Any]:
        """Delete for good everything of SCOPE (a user or agent id): its notes and everything derived
        from them, in the files, the snapshots, the sidecar and the caches. Cannot be undone.

        Without confirm, only says what would be deleted. Call it with confirm=true only when the user
        asked for this scope to be forgotten.
        """
        from memory_sleep.forget import forget_scope as forget_now

        if confirm and isinstance(answer, WarmRecall):
            answer.close()  # its vector index holds the scope's vectors; reopened on the next recall
        report = _tool(lambda: forget_now(workspace.root, scope, dry_run=not confirm))
        return report.as_dict()

    add_agent_tools(server, workspace, today, _tool)
    return server


def _consolidate(
    workspace: Workspace, today: date, dry_run: bool, accept_mass_change: bool
) -> dict[str, Any]:
    from memory_sleep.cycle.runner import RunOptions, run_cycle
    from memory_sleep.engines.select import build_engine

    config = load_config(workspace.config_file)
    with recorded_outcome(Attempt(workspace.root, today, config.engine.name, dry_run=dry_run)):
        engine = build_engine(config.engine, workspace.root)
        options = RunOptions(today=today, dry_run=dry_run, accept_mass_change=accept_mass_change)
        report = run_cycle(workspace, config, engine, options)
    result: dict[str, Any] = {
        "changed": bool(report.changes),
        "record": report.record.model_dump(mode="json"),
    }
    if dry_run:
        result["diff"] = report.diff()
    return result


def _tool(work: Callable[[], T]) -> T:
    """Run a tool's work; an error the user can act on becomes a tool error with the CLI's message."""
    try:
        return work()
    except MemorySleepError as error:
        raise ToolError(str(error)) from None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("memory-sleep")
    except PackageNotFoundError:
        return "0"


def serve(folder: Path) -> None:
    """Serve the workspace over stdio until the client closes the connection."""
    server = build_server(folder)
    if sys.stdin.isatty():  # a person typed the command: say why nothing seems to happen
        print(
            f"memory-sleep mcp: serving {Path(folder).resolve()} over MCP on stdin/stdout. An MCP client "
            "(Claude Code, OpenClaw...) starts this command itself; see README.md. Ctrl-C stops it.",
            file=sys.stderr,
        )
    server.run("stdio")
