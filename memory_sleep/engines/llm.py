"""An engine whose four decisions are made by a model behind `ModelClient`, with the offline engine as net.

Each decision is one call per batch (never one per item), rendered from a template under prompts/,
answered in a schema from schemas.py and checked here beyond the schema: ids the batch does not
have, entries not shown, empty rewrites and dropped action items are sent back to the model with
the problem; a batch still unusable after that is decided by the offline engine, with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memory_sleep.config import EngineConfig
from memory_sleep.engines.base import Classifier, ClassifyContext, Closer, Engine, Integrator, Usage
from memory_sleep.engines.budget import Deadline
from memory_sleep.engines.cache import ResponseCache
from memory_sleep.engines.calls import Ask, ModelCalls, Progress
from memory_sleep.engines.gardening import LLMGardener
from memory_sleep.engines.importance import LLMRater
from memory_sleep.engines.model import ModelClient
from memory_sleep.engines.offline import offline_engine
from memory_sleep.engines.redact import redact
from memory_sleep.engines.related import as_attribute, as_data, entry_data, within_bytes
from memory_sleep.engines.schemas import (
    ClassifyAnswer,
    CloseAnswer,
    EntryOperation,
    IntegrateAnswer,
    ItemVerdict,
)
from memory_sleep.engines.summaries import LLMBriefer, LLMSummarizer
from memory_sleep.models import Classification, Closure, EntryView, KeptItem, NoteItem, Operation
from memory_sleep.text import counted

ENTRY_MAX_CHARS = 300


def llm_engine(
    client: ModelClient,
    config: EngineConfig,
    cache_dir: Path | None = None,
    prompts_dir: Path | None = None,
    progress: Progress | None = None,
    deadline: Deadline | None = None,
    request_max_tokens: int | None = None,
) -> Engine:
    """An Engine for `client`; `cache_dir` (memory/.sleep/llm-cache) enables the response cache,
    `progress` hears what the run is waiting on, and a batch whose request would exceed
    `request_max_tokens` is split in halves until it fits (or is one item)."""
    usage = Usage()
    cache = ResponseCache(cache_dir) if cache_dir is not None and config.cache else None
    calls = ModelCalls(
        client, config, usage, cache, prompts_dir, progress, deadline, request_max_tokens=request_max_tokens
    )
    fallback = offline_engine()
    return Engine(
        name=client.provider,
        model=client.model,
        classifier=LLMClassifier(calls, fallback.classifier, config.context_bytes),
        integrator=LLMIntegrator(calls, fallback.integrator, config.context_bytes),
        closer=LLMCloser(calls, fallback.closer),
        curator=fallback.curator,  # no prompt for it yet: finished business is judged offline
        summarizer=LLMSummarizer(calls, fallback.summarizer),
        briefer=LLMBriefer(calls, fallback.briefer),
        gardener=LLMGardener(calls, fallback.gardener),
        usage=usage,
        integrate_batch_size=config.batch_size,
        rater=LLMRater(calls, fallback.rater),
    )


def _where(items: Sequence[NoteItem]) -> str:
    first = items[0].source if items else "?"
    return f"batch of {counted(len(items), 'item')} from {first}"


class LLMClassifier:
    """NREM through the model, every item of the batch; the offline engine only when the model fails."""

    def __init__(self, calls: ModelCalls, fallback: Classifier, context_bytes: int) -> None:
        self.calls, self.fallback, self.context_bytes = calls, fallback, context_bytes

    def classify(self, items: Sequence[NoteItem], context: ClassifyContext) -> list[Classification]:
        if not items:
            return []
        asked = list(items)
        refs = {f"I{number}": item for number, item in enumerate(asked, start=1)}
        memory = within_bytes(context.memory, self.context_bytes)
        views = [
            {
                "id": ref,
                "day": item.day.isoformat(),
                "source": item.source,
                "headings": [as_attribute(heading) for heading in item.headings],
                "lead": as_attribute(item.lead),
                "text": as_data(item.text),
            }
            for ref, item in refs.items()
        ]
        values = {"projects": list(context.projects), "memory": entry_data(memory), "items": views}
        if len(asked) > 1 and self.calls.too_large("nrem_classify.md.j2", values):
            half = len(asked) // 2
            return [*self.classify(asked[:half], context), *self.classify(asked[half:], context)]
        answer = self.calls.ask(
            Ask(
                phase="nrem",
                template="nrem_classify.md.j2",
                values=values,
                schema=ClassifyAnswer,
                what=f"NREM {_where(asked)}",
                check=lambda answer: _classify_problems(answer, refs),
            )
        )
        if answer is None:
            return list(self.fallback.classify(items, context))
        by_id = {refs[verdict.id].id: verdict for verdict in answer.classifications}
        return [_classification(item, by_id[item.id], context.projects) for item in items]


def _classify_problems(answer: ClassifyAnswer, refs: dict[str, NoteItem]) -> list[str]:
    problems = []
    seen = [verdict.id for verdict in answer.classifications]
    unknown = sorted(set(seen) - refs.keys())
    missing = [ref for ref in refs if ref not in seen]
    doubled = sorted({ref for ref in seen if seen.count(ref) > 1})
    if unknown:
        problems.append(f"unknown item ids {', '.join(unknown)} (only {', '.join(refs)} exist)")
    if missing:
        problems.append(f"no classification for {', '.join(missing)}")
    if doubled:
        problems.append(f"more than one classification for {', '.join(doubled)}")
    no_category = [v.id for v in answer.classifications if v.verdict == "KEEP" and v.category is None]
    if no_category:
        problems.append(f"KEEP without a category for {', '.join(no_category)}")
    return problems


def _classification(item: NoteItem, verdict: ItemVerdict, projects: Sequence[str]) -> Classification:
    keep = verdict.verdict == "KEEP"
    return Classification(
        item_id=item.id,
        verdict=verdict.verdict,
        category=verdict.category if keep else None,
        discard_reason=None if keep else (verdict.discard_reason or "other"),
        topic=_topic(verdict.topic, item, projects),
        reason=verdict.reason[:200],
        closes_action=verdict.closes_action,
        deadline=verdict.deadline if keep and verdict.category == "action" else None,
    )


def _topic(proposed: str | None, item: NoteItem, projects: Sequence[str]) -> str | None:
    """The model's project in its known spelling; a name that is neither a known project nor written
    in the item names nothing (like an id that does not exist) and is dropped."""
    if proposed is None or not proposed.strip():
        return None
    known = {name.lower(): name for name in projects}
    if proposed.strip().lower() in known:
        return known[proposed.strip().lower()]
    written = " ".join((item.text, *item.headings)).lower()
    return proposed.strip() if proposed.strip().lower() in written else None


class LLMIntegrator:
    """REM through the model, shown the batch's candidate entries that fit in `context_bytes`."""

    def __init__(self, calls: ModelCalls, fallback: Integrator, context_bytes: int) -> None:
        self.calls, self.fallback, self.context_bytes = calls, fallback, context_bytes
        self.asked = 0

    def integrate(self, items: Sequence[KeptItem], entries: Sequence[EntryView]) -> list[Operation]:
        self.asked += 1  # a later call is shown the entries this one's answers wrote: its own basis
        return self._integrate(items, entries, f"integrate {self.asked}")

    def _integrate(
        self, items: Sequence[KeptItem], entries: Sequence[EntryView], basis: str
    ) -> list[Operation]:
        if not items:
            return []
        refs = {f"I{number}": kept for number, kept in enumerate(items, start=1)}
        shown = within_bytes(entries, self.context_bytes)
        views = [
            {
                "id": ref,
                "source": kept.item.source,
                "category": kept.category,
                "topic": as_attribute(kept.topic),
                "day": kept.item.day.isoformat(),
                "deadline": kept.deadline.isoformat() if kept.deadline else None,
                "lead": as_attribute(kept.item.lead),
                "text": as_data(kept.item.text),
            }
            for ref, kept in refs.items()
        ]
        by_ref = {entry.ref: entry for entry in shown}
        values = {"entries": entry_data(shown), "items": views, "entry_max_chars": ENTRY_MAX_CHARS}
        if len(items) > 1 and self.calls.too_large("rem_integrate.md.j2", values):
            half = len(items) // 2
            return [
                *self._integrate(items[:half], entries, basis),
                *self._integrate(items[half:], entries, basis),
            ]
        answer = self.calls.ask(
            Ask(
                phase="rem",
                template="rem_integrate.md.j2",
                values=values,
                schema=IntegrateAnswer,
                what=f"REM {_where([kept.item for kept in items])}",
                check=lambda answer: _integrate_problems(answer, refs, by_ref),
                basis=basis,
            )
        )
        if answer is None:
            return list(self.fallback.integrate(items, entries))
        return [_operation(op, refs[op.item_id]) for op in answer.operations]


def _integrate_problems(
    answer: IntegrateAnswer, refs: dict[str, KeptItem], shown: dict[str, EntryView]
) -> list[str]:
    problems = []
    seen = [op.item_id for op in answer.operations]
    for ref in refs:
        if seen.count(ref) != 1:
            problems.append(f"item {ref} needs exactly one operation (got {seen.count(ref)})")
    for op in answer.operations:
        label = f"{op.op} for {op.item_id}"
        if op.item_id not in refs:
            problems.append(f"{label}: no such item (only {', '.join(refs)} exist)")
            continue
        if op.target is not None and op.target not in shown:
            problems.append(f"{label}: entry {op.target} does not exist; use only the entry ids shown")
        if op.op in ("update", "supersede") and op.target is None:
            problems.append(f"{label}: needs the target entry id")
        if op.op != "noop" and not (op.text and op.text.strip()):
            problems.append(f"{label}: empty text; give the entry's full new wording")
        if op.text and len(op.text) > ENTRY_MAX_CHARS:
            problems.append(f"{label}: text over {ENTRY_MAX_CHARS} characters; one line")
    return problems


def _operation(op: EntryOperation, kept: KeptItem) -> Operation:
    text = " ".join(op.text.split()) if op.text else None
    return Operation(
        item_id=kept.item.id,
        op=op.op,
        target=op.target,
        text=redact(text, kept.item.source) if text else text,
        reason=op.reason[:200],
    )


class LLMCloser:
    """Which open action each done note closes, through the model; the offline engine if it fails."""

    def __init__(self, calls: ModelCalls, fallback: Closer) -> None:
        self.calls, self.fallback = calls, fallback

    def close(
        self, completions: Sequence[KeptItem], actions: Sequence[EntryView], projects: Sequence[str]
    ) -> list[Closure]:
        if not completions or not actions:
            return []
        refs = {f"I{number}": kept for number, kept in enumerate(completions, start=1)}
        shown = {action.ref for action in actions}
        notes = [
            {
                "id": ref,
                "source": kept.item.source,
                "day": kept.item.day.isoformat(),
                "topic": as_attribute(kept.topic),
                "text": as_data(kept.item.text),
            }
            for ref, kept in refs.items()
        ]
        values = {
            "projects": [as_attribute(name) for name in projects],
            "actions": entry_data(actions),
            "notes": notes,
        }
        if len(completions) > 1 and self.calls.too_large("rem_close.md.j2", values):
            half = len(completions) // 2
            return [
                *self.close(completions[:half], actions, projects),
                *self.close(completions[half:], actions, projects),
            ]
        answer = self.calls.ask(
            Ask(
                phase="rem",
                template="rem_close.md.j2",
                values=values,
                schema=CloseAnswer,
                what=f"closing actions for {_where([kept.item for kept in completions])}",
                check=lambda answer: _close_problems(answer, refs, shown),
            )
        )
        if answer is None:
            return list(self.fallback.close(completions, actions, projects))
        return [
            Closure(item_id=refs[closure.item_id].item.id, target=closure.target, reason=closure.reason[:200])
            for closure in answer.closures
        ]


def _close_problems(answer: CloseAnswer, refs: dict[str, KeptItem], shown: set[str]) -> list[str]:
    problems = []
    notes = [closure.item_id for closure in answer.closures]
    targets = [closure.target for closure in answer.closures]
    for closure in answer.closures:
        if closure.item_id not in refs:
            problems.append(f"note {closure.item_id} does not exist (only {', '.join(refs)} exist)")
        if closure.target not in shown:
            problems.append(f"action {closure.target} does not exist; use only the action ids shown")
    problems.extend(
        f"note {ref} closes more than one action" for ref in sorted(set(notes)) if notes.count(ref) > 1
    )
    problems.extend(
        f"action {ref} is closed by more than one note"
        for ref in sorted(set(targets))
        if targets.count(ref) > 1
    )
    return problems
