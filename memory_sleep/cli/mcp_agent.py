"""The MCP tools of `--engine agent`: consolidate with the calling agent as the engine, round by round.

`consolidate_as_agent` runs the cycle; while decisions wait it returns their ids and sizes, and the
agent fetches each (`decision_request`), answers it in its schema (`answer_decision`) and calls
`consolidate_as_agent` again, until the plan is applied (snapshot, undo, sleep-log as for any run).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from memory_sleep.config import load_config
from memory_sleep.workspace.layout import Workspace

RunTool = Callable[[Callable[[], Any]], Any]


def add_agent_tools(
    server: MCPServer, workspace: Workspace, today: Callable[[], date], tool: RunTool
) -> None:
    """Register the agent-as-engine tools on `server`; `tool` turns errors into tool errors."""

    @server.tool()
    def consolidate_as_agent() -> dict[str, Any]:
        """Run the sleep cycle with YOU as the engine (no API key needed): you make the decisions.

        Returns {"status": "waiting", "requests": [...]} while decisions wait: fetch each with
        `decision_request`, answer it with `answer_decision`, then call this again. Later decisions build
        on earlier answers, so a cycle takes a few rounds. Nothing is written until every decision is
        answered; then returns {"status": "applied", "record": ...} (`memory-sleep undo` reverts it).
        """
        return tool(lambda: _consolidate_as_agent(workspace, today()))  # type: ignore[no-any-return]

    @server.tool()
    def decision_request(id: str) -> dict[str, Any]:
        """One waiting decision: its `prompt` (the rules and the data), the `answer_schema` your answer must
        match, the `ids` it may name, the `values` the prompt shows (as JSON), and, when your last answer
        was rejected, `problems` saying what to fix."""
        from memory_sleep.engines.agent import AgentDesk

        request = AgentDesk(workspace.root).request(id)
        if request is None:
            raise ToolError(f"No waiting request {id}: call consolidate_as_agent for the current ones.")
        return request.model_dump(exclude={"created", "expires", "answer_file"})

    @server.tool()
    def answer_decision(id: str, answer: dict[str, Any]) -> dict[str, Any]:
        """Give your answer to request ID: one JSON object matching its answer_schema.

        The schema is checked now ({"accepted": false, "problems": [...]} says what to fix); ids and the rest
        are checked by the next consolidate_as_agent, which asks again with the problems if needed.
        """
        from memory_sleep.engines.agent import AgentDesk

        desk = AgentDesk(workspace.root)
        request = desk.request(id)
        if request is None:
            raise ToolError(f"No waiting request {id}: call consolidate_as_agent for the current ones.")
        problems = _schema_problems(request.schema_name, answer)
        if problems:
            return {"accepted": False, "problems": problems}
        desk.save_answer(id, answer)
        return {"accepted": True, "problems": []}


def _consolidate_as_agent(workspace: Workspace, today: date) -> dict[str, Any]:
    from memory_sleep.cycle.outcome import Attempt, recorded_outcome
    from memory_sleep.cycle.runner import RunOptions, run_cycle
    from memory_sleep.engines.agent import AgentDesk, agent_engine

    config = load_config(workspace.config_file)
    with recorded_outcome(Attempt(workspace.root, today, "agent")):
        engine = agent_engine(config.engine, workspace.root)
        report = run_cycle(workspace, config, engine, RunOptions(today=today))
    if report.waiting:
        desk = AgentDesk(workspace.root)
        requests = [request.summary() for batch in report.waiting if (request := desk.request(batch))]
        return {"status": "waiting", "requests": requests}
    return {
        "status": "applied",
        "changed": bool(report.changes),
        "record": report.record.model_dump(mode="json"),
    }


def _schema_problems(schema_name: str, answer: dict[str, Any]) -> list[str]:
    from memory_sleep.engines import schemas
    from memory_sleep.engines.model import CallUsage, InvalidAnswer

    schema = getattr(schemas, schema_name, None)
    if not (isinstance(schema, type) and issubclass(schema, schemas.Answer)):
        return []  # a request from another version: the next run checks it
    try:
        schemas.parse_answer(answer, schema, CallUsage())
    except InvalidAnswer as invalid:
        return [invalid.problem]
    return []
