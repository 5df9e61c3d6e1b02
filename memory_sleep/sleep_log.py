"""memory/sleep-log.json: the original skill's top-level keys, what users need beside them, and history."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError


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
    durationSeconds: float = 0.0
    operations: dict[str, int] = Field(default_factory=dict)
    entriesArchived: int = 0
    weeklyFilesWritten: list[str] = Field(default_factory=list)
    filesChanged: list[str] = Field(default_factory=list)
    forgetting: dict[str, int] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    error: str | None = None


class SleepLog(RunRecord):
    """The file: the latest run at the top level, earlier runs (newest first) in `history`."""

    history: list[RunRecord] = Field(default_factory=list)


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
            RunRecord.model_validate(previous.model_dump(exclude={"history"})),
            *previous.history,
        ]
    return SleepLog(**run.model_dump(), history=history[:keep])


def render(log: SleepLog) -> bytes:
    return (log.model_dump_json(indent=2) + "\n").encode("utf-8")
