"""memory/sleep-log.json: the original skill's top-level keys, what users need beside them, and history."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_sleep.text import counted

if TYPE_CHECKING:
    from memory_sleep.engines.base import PhaseUsage


class PhaseUsageRecord(BaseModel):
    """One phase's LLM usage: `batches` asked, `repaired` accepted after sending a problem back,
    `fallbacks` decided offline instead of by the model."""

    model_config = ConfigDict(extra="forbid")

    batches: int = 0
    repaired: int = 0
    calls: int = 0
    inputTokens: int = 0
    outputTokens: int = 0
    cacheHits: int = 0
    fallbacks: int = 0
    estimatedCostUsd: float | None = None


class RunRecord(BaseModel):
    """One run. The first seven keys are the original skill's and keep their names and meaning."""

    model_config = ConfigDict(extra="forbid")

    lastRun: datetime
    dailyFilesProcessed: int
    itemsKept: int
    itemsDiscarded: int
    memoryMdSizeBefore: int
    memoryMdSizeAfter: int
    briefingGenerated: bool
    status: Literal["ok", "refused", "failed"] = "ok"
    today: str
    engine: str
    model: str | None = None
    llmCalls: int = 0
    inputTokens: int = 0
    outputTokens: int = 0
    estimatedCostUsd: float | None = None
    llmUsage: dict[str, PhaseUsageRecord] = Field(default_factory=dict)
    promptVersions: dict[str, str] = Field(default_factory=dict)
    durationSeconds: float = 0.0
    operations: dict[str, int] = Field(default_factory=dict)
    entriesArchived: int = 0
    weeklyFilesWritten: list[str] = Field(default_factory=list)
    filesChanged: list[str] = Field(default_factory=list)
    forgetting: dict[str, int] = Field(default_factory=dict)
    garbageCollection: dict[str, int] = Field(
        default_factory=dict, description="entries each GC strategy removed, marked or rated (strategy_op)"
    )
    sidecarPasses: list[str] = Field(
        default_factory=list,
        description="ids of the SleepGate and GC passes the run made: `undo` reverts them",
    )
    runId: str | None = Field(
        default=None,
        description="the run's id (its snapshot's): how `undo` finds the records of the runs it undoes",
    )
    warnings: list[str] = Field(default_factory=list)
    error: str | None = None


class ErasureRecord(BaseModel):
    """A hard deletion a user asked for (`forget-scope`, `purge`): when, which, and how much of each
    kind went; counts only, never the text."""

    model_config = ConfigDict(extra="forbid")

    at: datetime
    action: Literal["forget-scope", "purge"]
    scope: str | None = None
    olderThanDays: float | None = None
    removed: dict[str, int] = Field(default_factory=dict)
    snapshotsRewritten: list[str] = Field(default_factory=list)


class SleepLog(RunRecord):
    """The file: the latest run at the top level, earlier runs (newest first) in `history`, and
    the hard deletions users asked for (newest first) in `erasures`."""

    history: list[RunRecord] = Field(default_factory=list)
    erasures: list[ErasureRecord] = Field(default_factory=list)


def phase_records(phases: Mapping[str, PhaseUsage]) -> dict[str, PhaseUsageRecord]:
    """An engine's per-phase usage as sleep-log.json keeps it."""
    return {
        phase: PhaseUsageRecord(
            batches=usage.batches,
            repaired=usage.repaired,
            calls=usage.calls,
            inputTokens=usage.input_tokens,
            outputTokens=usage.output_tokens,
            cacheHits=usage.cache_hits,
            fallbacks=usage.fallbacks,
            estimatedCostUsd=usage.estimated_cost_usd,
        )
        for phase, usage in phases.items()
    }


def engine_line(record: RunRecord) -> str:
    """'Engine: anthropic (claude-haiku-4-5), 6 LLM calls, 9,120 input / 1,850 output tokens, about $0.0184'."""
    line = f"Engine: {record.engine}{f' ({record.model})' if record.model else ''}"
    if record.model is None:
        return line
    line += f", {counted(record.llmCalls, 'LLM call')}, {record.inputTokens:,} input / {record.outputTokens:,} output tokens"
    if record.estimatedCostUsd is not None:
        line += f", about ${record.estimatedCostUsd:.4f}"
    cached = sum(usage.cacheHits for usage in record.llmUsage.values())
    offline = sum(usage.fallbacks for usage in record.llmUsage.values())
    if cached:
        line += f"; {cached} answers from the cache"
    if offline:
        line += f"; {counted(offline, 'batch', 'batches')} decided offline (see warnings)"
    return line


def read_sleep_log(raw: bytes | None) -> SleepLog | None:
    """The previous log, or None when missing or in a shape this version does not know."""
    if not raw:
        return None
    try:
        return SleepLog.model_validate_json(raw)
    except ValidationError:
        return None


def with_run(previous: SleepLog | None, run: RunRecord, keep: int) -> SleepLog:
    history: list[RunRecord] = []
    if previous is not None:
        history = [
            RunRecord.model_validate(previous.model_dump(exclude={"history", "erasures"})),
            *previous.history,
        ]
    erasures = previous.erasures if previous is not None else []
    return SleepLog(**run.model_dump(), history=history[:keep], erasures=erasures)


def render(log: SleepLog) -> bytes:
    unused = {"erasures"} if not log.erasures else None  # the file keeps its shape until one happens
    return (log.model_dump_json(indent=2, exclude=unused) + "\n").encode("utf-8")


def snake_case_record(record: RunRecord) -> dict[str, Any]:
    """The record as `run --json` prints it: the file's camelCase keys in snake_case, like every verb's JSON."""
    return {_snake(key): _snake_keys(value) for key, value in record.model_dump(mode="json").items()}


def _snake_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {_snake(key): _snake_keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_snake_keys(item) for item in value]
    return value


def _snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()
