"""`--engine agent`: the host agent is the model, answering the LLM engine's requests through files.

Every request is rendered exactly as for a model (same template, schema and ids) and keyed by a hash
of what was rendered. `AgentClient` answers it from memory/.sleep/agent/answers/<id>.json when the agent
wrote one; the LLM engine then validates that answer as it validates a model's (schema, ids, repair).
A request with no answer, or whose answer was rejected, is written to pending/<id>.json (with the
rejection's messages) and the run applies nothing: `AgentGate.waiting()` names them, the runner stops
before writing, and the next run renders the same requests, finds the answers and goes further.
Requests built on one still waiting are not asked (calls.py), so each round asks only what its
answers will still be used for.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_sleep.config import EngineConfig
from memory_sleep.engines.base import Engine
from memory_sleep.engines.cache import ResponseCache
from memory_sleep.engines.model import (
    AnswerPending,
    AnswerT,
    CallUsage,
    Exchange,
    ModelClient,
    Prompt,
    estimate_tokens,
)
from memory_sleep.engines.redact import redact_prompt
from memory_sleep.engines.schemas import json_schema, parse_answer
from memory_sleep.errors import ConfigError
from memory_sleep.workspace.atomic import atomic_write

AGENT_DIR = Path("memory") / ".sleep" / "agent"
MODEL_NAME = "host-agent"
# REM in one call over every kept item, split by request_max_tokens into requests that share its basis
AGENT_INTEGRATE_BATCH = 10_000
EXIT_WAITING = 3


class PendingRequest(BaseModel):
    """One decision waiting for the agent: what to read, the shape to answer in, the ids it may use."""

    model_config = ConfigDict(extra="forbid")

    id: str
    template: str
    schema_name: str
    answer_file: str = Field(description="where the answer goes, relative to the workspace")
    created: float
    expires: float
    prompt_bytes: int
    prompt_tokens: int
    problems: list[str] = Field(description="why the last answer was rejected; empty on a first ask")
    rejected_answer: str | None
    ids: dict[str, list[str]] = Field(description="the ids of each list in `values` an answer may name")
    answer_schema: dict[str, Any]
    prompt: str
    values: dict[str, Any] = Field(description="what the prompt was rendered from, as JSON")

    def summary(self) -> dict[str, Any]:
        """The request without its prompt, values and schema: what a list of waiting requests shows."""
        return self.model_dump(
            include={"id", "template", "answer_file", "prompt_bytes", "prompt_tokens", "problems"}
        )


def request_id(prompt: Prompt, schema: type[BaseModel]) -> str:
    """A stable id for a rendered request: its decision's name and a hash of everything rendered."""
    key = ResponseCache.key(prompt, MODEL_NAME, schema)
    return f"{prompt.template.split('.')[0].replace('_', '-')}-{key[:12]}"


class AgentDesk:
    """The folder the agent and the tool exchange requests and answers through (memory/.sleep/agent)."""

    def __init__(
        self, root: Path, expire_hours: float = 72.0, clock: Callable[[], float] = time.time
    ) -> None:
        self.root = root
        self.folder = root / AGENT_DIR
        self.pending_dir, self.answers_dir = self.folder / "pending", self.folder / "answers"
        self.expire_seconds, self.clock = expire_hours * 3600, clock

    def answer_path(self, batch: str) -> Path:
        return self.answers_dir / f"{batch}.json"

    def answer(self, batch: str) -> str | None:
        try:
            return self.answer_path(batch).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def request(self, batch: str) -> PendingRequest | None:
        try:
            return PendingRequest.model_validate_json((self.pending_dir / f"{batch}.json").read_bytes())
        except (OSError, ValueError, ValidationError):
            return None

    def pending(self) -> list[PendingRequest]:
        """Every readable request, expired ones included (`expired` tells them apart), oldest first."""
        found = (self.request(path.stem) for path in sorted(self.pending_dir.glob("*.json")))
        return sorted((request for request in found if request), key=lambda request: request.created)

    def expired(self, request: PendingRequest) -> bool:
        return request.expires <= self.clock()

    def record(self, request: PendingRequest) -> None:
        self.answers_dir.mkdir(parents=True, exist_ok=True)  # where the agent writes: there, ready
        atomic_write(
            self.pending_dir / f"{request.id}.json", request.model_dump_json(indent=1).encode("utf-8")
        )

    def save_answer(self, batch: str, answer: Any) -> None:
        """Store an answer as the agent would write it (MCP's way in)."""
        atomic_write(
            self.answer_path(batch), json.dumps(answer, ensure_ascii=False, indent=1).encode("utf-8")
        )

    def drop_expired(self) -> None:
        """Requests past `expire_hours`, and answers as old, are deleted: their run asks afresh."""
        cutoff = self.clock() - self.expire_seconds
        for request in self.pending():
            if self.expired(request):
                self._remove(self.pending_dir / f"{request.id}.json")
        for path in self.answers_dir.glob("*.json"):
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < cutoff:
                    path.unlink()

    def keep_only(self, batches: set[str]) -> None:
        """Pending requests this run did not ask (answered, or their notes changed) are no longer waiting."""
        for path in self.pending_dir.glob("*.json"):
            if path.stem not in batches:
                self._remove(path)

    def clear(self) -> None:
        """The plan was applied: every request and answer of it is spent."""
        for folder in (self.pending_dir, self.answers_dir):
            for path in folder.glob("*.json"):
                self._remove(path)

    @staticmethod
    def _remove(path: Path) -> None:
        with contextlib.suppress(OSError):
            path.unlink()


@dataclass
class AgentClient:
    """A ModelClient whose answers are the files the host agent wrote; no answer yet raises AnswerPending."""

    desk: AgentDesk
    provider: str = "agent"
    model: str = MODEL_NAME
    requests_sent: int = 0

    def __post_init__(self) -> None:
        self.asked: dict[str, PendingRequest] = {}

    def complete(
        self,
        prompt: Prompt,
        schema: type[AnswerT],
        *,
        max_output_tokens: int,
        history: tuple[Exchange, ...] = (),
        timeout: float | None = None,
    ) -> tuple[AnswerT, CallUsage]:
        batch = request_id(prompt, schema)
        raw = None if history else self.desk.answer(batch)
        if raw is None:
            self._wait(batch, prompt, schema, history)
        self.requests_sent += 1
        usage = CallUsage(estimate_tokens(prompt.text), estimate_tokens(raw or ""))
        return parse_answer(raw or "", schema, usage), usage

    def _wait(
        self, batch: str, prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...]
    ) -> None:
        earlier = self.desk.request(batch)
        created = earlier.created if earlier and not self.desk.expired(earlier) else self.desk.clock()
        text = prompt.text
        values = _json_values(prompt.values)
        self.asked[batch] = request = PendingRequest(
            id=batch,
            template=prompt.template,
            schema_name=schema.__name__,
            answer_file=self.desk.answer_path(batch).relative_to(self.desk.root).as_posix(),
            created=created,
            expires=created + self.desk.expire_seconds,
            prompt_bytes=len(text.encode("utf-8")),
            prompt_tokens=estimate_tokens(text),
            problems=[exchange.problem for exchange in history[-1:]],
            rejected_answer=history[-1].answer if history else None,
            ids=_ids(values),
            answer_schema=json_schema(schema),
            prompt=text,
            values=values,
        )
        self.desk.record(request)
        raise AnswerPending


class AgentGate:
    """What the runner asks the agent engine: which requests wait, and that the plan was applied."""

    def __init__(self, client: AgentClient) -> None:
        self.client = client

    def waiting(self) -> list[str]:
        self.client.desk.keep_only(set(self.client.asked))
        return list(self.client.asked)

    def settled(self) -> None:
        self.client.desk.clear()


def agent_engine(
    config: EngineConfig, workspace_root: Path | None, clock: Callable[[], float] = time.time
) -> Engine:
    """The LLM engine with the host agent as its model, answering through memory/.sleep/agent."""
    if workspace_root is None:
        raise ConfigError(
            "--engine agent needs a workspace folder: its requests live in memory/.sleep/agent."
        )
    desk = AgentDesk(workspace_root, config.agent.expire_hours, clock)
    desk.drop_expired()
    client = AgentClient(desk)
    engine = engine_as_agent_runs_it(client, config, workspace_root)
    engine.gate = AgentGate(client)
    return engine


def engine_as_agent_runs_it(client: ModelClient, config: EngineConfig, workspace_root: Path) -> Engine:
    """The LLM engine around `client` set up as `--engine agent` sets it up (tests give it a model double).

    Accepted answers go to the response cache, so a later round (or run) finds them without asking.
    """
    from memory_sleep.engines.llm import llm_engine

    # an agent costs nothing per call and answers again when asked: no budget, deadline or breaker
    # may turn a request into a silent offline decision; one repair turn is what records the rejection
    settings = config.model_copy(
        update={
            "max_tokens_per_run": 10**12,
            "breaker_failures": 10**9,
            "deadline_secs": 10**9,
            "repair_attempts": 1,
            "max_retries": 0,
            "cache": True,
        }
    )
    engine = llm_engine(
        client,
        settings,
        workspace_root / "memory" / ".sleep" / "llm-cache",
        request_max_tokens=config.agent.request_max_tokens,
    )
    engine.integrate_batch_size = AGENT_INTEGRATE_BATCH
    return engine


def waiting_requests(
    root: Path, expire_hours: float, clock: Callable[[], float] = time.time
) -> tuple[list[PendingRequest], int]:
    """The requests waiting in a workspace, and how many more have expired (status, doctor, MCP)."""
    desk = AgentDesk(root, expire_hours, clock)
    requests = desk.pending()
    live = [request for request in requests if not desk.expired(request)]
    return live, len(requests) - len(live)


def _json_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """The template values as JSON, redacted like the prompt they were rendered into."""
    decoded: dict[str, Any] = json.loads(json.dumps(dict(values), default=str))
    return _redacted(decoded)  # type: ignore[no-any-return]


def _redacted(node: Any) -> Any:
    if isinstance(node, str):
        return redact_prompt(node)
    if isinstance(node, list):
        return [_redacted(value) for value in node]
    if isinstance(node, dict):
        return {key: _redacted(value) for key, value in node.items()}
    return node


def _ids(values: Mapping[str, Any]) -> dict[str, list[str]]:
    """For each list of the values whose members carry an `id` (items, notes) or `ref` (entries, actions)."""
    found: dict[str, list[str]] = {}
    for name, members in values.items():
        if isinstance(members, list) and members and all(isinstance(m, dict) for m in members):
            key = "id" if "id" in members[0] else "ref" if "ref" in members[0] else None
            if key:
                found[name] = [str(member[key]) for member in members]
    return found


def waiting_text(requests: list[PendingRequest], command: str) -> str:
    """What a run that stopped for the agent prints: each request, its size, and how to answer."""
    lines = [
        f"Decisions waiting: {len(requests)} request{'s' if len(requests) != 1 else ''} for the agent; nothing was changed yet."
    ]
    for request in requests:
        lines.append(
            f"  {AGENT_DIR.as_posix()}/pending/{request.id}.json  "
            f"({request.prompt_bytes:,} bytes, ~{request.prompt_tokens:,} tokens)"
        )
        lines.extend(f"    rejected: {problem}" for problem in request.problems)
    lines.append(
        'Answer each: follow its "prompt" (its data is also in "values", the ids an answer may use in "ids"), '
        'write one JSON object matching its "answer_schema" to its "answer_file", '
        f"then run `{command}` again."
    )
    return "\n".join(lines)
