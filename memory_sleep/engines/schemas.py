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

from memory_sleep.engines.base import PairVerdict
from memory_sleep.engines.model import AnswerT, CallUsage, InvalidAnswer
from memory_sleep.models import Category, DiscardReason, OperationKind, Verdict


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ItemVerdict(Answer):
    reason: str = Field(description="a few words on what the item is, written before the verdict")
    id: str = Field(description="the item's id as given, e.g. I3")
    verdict: Verdict
    category: Category | None = Field(description="required for KEEP, null for DISCARD")
    discard_reason: DiscardReason | None = Field(description="required for DISCARD, null for KEEP")
    topic: str | None = Field(description="the project the item is about, or null")
    closes_action: bool = Field(description="the item reports an open action item as done or cancelled")
    deadline: date | None = Field(description="YYYY-MM-DD for an action with a stated deadline, else null")


class ClassifyAnswer(Answer):
    classifications: list[ItemVerdict]


class EntryOperation(Answer):
    reason: str = Field(description="a few words: which entry says the same or what is new, before the op")
    item_id: str = Field(description="the item's id as given, e.g. I3")
    op: OperationKind
    target: str | None = Field(description="the entry id (e.g. E12) for noop/update/supersede, else null")
    text: str | None = Field(description="the entry's one-line text for add/update/supersede, else null")


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


class ClusterMerge(Answer):
    reason: str = Field(description="a few words, written first: what the entries say, or why they differ")
    cluster: str = Field(description="the cluster's id as given, e.g. C2")
    same: bool = Field(description="the entries say one thing (repeats, rewordings, one with more detail)")
    text: str | None = Field(description="when same: the one statement keeping every detail, else null")


class MergeAnswer(Answer):
    merges: list[ClusterMerge]


class PairVerdictAnswer(Answer):
    reason: str = Field(description="a few words, written first: the subject and attribute each states")
    pair: str = Field(description="the pair's id as given, e.g. P3")
    verdict: PairVerdict


class JudgeAnswer(Answer):
    judgements: list[PairVerdictAnswer]


class ArchiveSummaryAnswer(Answer):
    reason: str = Field(description="a few words, written first: what the archived entries are about")
    text: str = Field(description="the summary entry, keeping every number, date, name and handle")


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
    """`raw` (JSON text, possibly fenced or with prose around it, or an already decoded object)
    validated against `schema`."""
    decoded = _decoded(raw, usage) if isinstance(raw, str) else raw
    try:
        return schema.model_validate(decoded)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or 'answer'}: {issue['msg']}"
            for issue in error.errors()[:8]
        )
        answer = raw if isinstance(raw, str) else json.dumps(raw)
        raise InvalidAnswer(f"does not match the schema: {problems}", usage, answer) from None


def _decoded(raw: str, usage: CallUsage) -> Any:
    """The JSON object in a model's text. Repaired: raw line breaks inside strings (llama.cpp's grammars
    allow them; strict=False reads them) and prose or fences around the object. Anything else, a
    truncated object included, is an InvalidAnswer naming the problem."""
    text = _unfenced(raw)
    decoder = json.JSONDecoder(strict=False)
    try:
        return decoder.decode(text)
    except json.JSONDecodeError as error:
        start = text.find("{")
        if start >= 0:
            try:
                return decoder.raw_decode(text, start)[0]
            except json.JSONDecodeError:
                pass
        cut = error.pos >= len(text) or text.count("{") > text.count("}")
        ending = " (the object is cut off)" if cut else ""
        raise InvalidAnswer(
            f"not valid JSON ({error.msg} at char {error.pos}){ending}", usage, raw, truncated=cut
        ) from None


def _unfenced(text: str) -> str:
    """Local models like to wrap JSON in ```json fences even in JSON mode."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.split("\n", 1)[1] if "\n" in stripped else ""
        stripped = stripped.rsplit("```", 1)[0]
    return stripped.strip()
