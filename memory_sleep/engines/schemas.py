"""The shapes a model must answer in, one per decision, and parsing raw answers into them.

Every field is required (nullable where it may be empty) and nothing extra is allowed, which is
what OpenAI's strict JSON schemas demand and what keeps a model from smuggling in keys.
"""

from __future__ import annotations

import copy
import json
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_sleep.engines.model import AnswerT, CallUsage, InvalidAnswer
from memory_sleep.models import Category, DiscardReason, OperationKind, Verdict


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ItemVerdict(Answer):
    id: str = Field(description="the item's id as given, e.g. I3")
    verdict: Verdict
    category: Category | None = Field(description="required for KEEP, null for DISCARD")
    discard_reason: DiscardReason | None = Field(description="required for DISCARD, null for KEEP")
    topic: str | None = Field(description="the project the item is about, or null")
    closes_action: bool = Field(description="the item reports an open action item as done or cancelled")
    deadline: date | None = Field(description="YYYY-MM-DD for an action with a stated deadline, else null")
    reason: str = Field(description="a few words")


class ClassifyAnswer(Answer):
    classifications: list[ItemVerdict]


class EntryOperation(Answer):
    item_id: str = Field(description="the item's id as given, e.g. I3")
    op: OperationKind
    target: str | None = Field(description="the entry id (e.g. E12) for noop/update/supersede, else null")
    text: str | None = Field(description="the entry's one-line text for add/update/supersede, else null")
    reason: str = Field(description="a few words")


class IntegrateAnswer(Answer):
    operations: list[EntryOperation]


class NoteClosure(Answer):
    reason: str = Field(description="a few words: why this note reports that action done or cancelled")
    item_id: str = Field(description="the note's id as given, e.g. I2")
    target: str = Field(description="the open action's id as given, e.g. E7")


class CloseAnswer(Answer):
    closures: list[NoteClosure] = Field(description="only the notes that close one of the actions shown")


class ProjectAnswer(Answer):
    status: str = Field(description="active/blocked/completed/cancelled: what and since when")
    contacts: str = Field(description="people and their role, comma-separated, or —")
    last_event: str = Field(description="the latest event, ending in its date (YYYY-MM-DD)")
    next: str = Field(description="the next step; must carry the most urgent open action item if any")


class TopicLines(Answer):
    topic: str
    lines: list[str]


class WeeklyAnswer(Answer):
    overview: str
    highlights: list[TopicLines]


class BriefingAnswer(Answer):
    priorities: list[str] = Field(description="at most 3, most urgent first")
    actions: list[str]
    context: list[str]
    warnings: list[str]


def json_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The schema as JSON Schema, strict: every property required, no additional properties, no titles."""
    strict: dict[str, Any] = _strict(copy.deepcopy(schema.model_json_schema()))
    return strict


def _strict(node: Any) -> Any:
    if isinstance(node, dict):
        node.pop("title", None)
        node.pop("default", None)
        if node.get("type") == "object" and "properties" in node:
            node["additionalProperties"] = False
            node["required"] = list(node["properties"])
        for value in node.values():
            _strict(value)
    elif isinstance(node, list):
        for value in node:
            _strict(value)
    return node


def parse_answer(raw: str | dict[str, Any], schema: type[AnswerT], usage: CallUsage) -> AnswerT:
    """`raw` (JSON text, possibly fenced, or an already decoded object) validated against `schema`."""
    if isinstance(raw, str):
        text = _unfenced(raw)
        try:
            decoded = json.loads(text)
        except json.JSONDecodeError as error:
            raise InvalidAnswer(f"not valid JSON ({error.msg} at char {error.pos})", usage, raw) from None
    else:
        decoded = raw
    try:
        return schema.model_validate(decoded)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or 'answer'}: {issue['msg']}"
            for issue in error.errors()[:8]
        )
        answer = raw if isinstance(raw, str) else json.dumps(raw)
        raise InvalidAnswer(f"does not match the schema: {problems}", usage, answer) from None


def _unfenced(text: str) -> str:
    """Local models like to wrap JSON in ```json fences even in JSON mode."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    return stripped.strip()
