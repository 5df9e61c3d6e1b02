"""What the real-model evaluation prints: a row per night and phase as it ends, then the calls' timing,
the checks that nothing was lost, and the cassettes it keeps."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .client import PHASE_OF, Exchanges, kind_of
from .nights import Night, WorkspaceRun

PHASES = ("nrem", "rem", "cleanup")
USAGE_HEADER = (
    "| workspace | run | phase | calls | tokens in / out | s | first time | repaired | offline |\n"
    "|---|---|---|---|---|---|---|---|---|"
)


def usage_rows(night: Night, phase_seconds: dict[str, float]) -> list[str]:
    """A row per phase that asked the model: batches accepted first time / after repair / decided offline."""
    if night.record is None:
        return [f"| {night.workspace} | {night.name} | crashed: {night.crash} | | | | | | |"]
    rows = []
    for phase in PHASES:
        usage = night.record.llmUsage.get(phase)
        if usage is None or not usage.batches:
            continue
        first = usage.batches - usage.repaired - usage.fallbacks
        rows.append(
            f"| {night.workspace} | {night.name} ({len(night.notes)} notes) | {phase} | {usage.calls} | "
            f"{usage.inputTokens:,} / {usage.outputTokens:,} | {phase_seconds.get(phase, 0.0):.0f} | "
            f"{first}/{usage.batches} | {usage.repaired} | {usage.fallbacks} |"
        )
    return rows or [f"| {night.workspace} | {night.name} | no call | | | {night.seconds:.0f} | | | |"]


def timing(name: str, exchanges: Exchanges) -> str:
    """Seconds per call and tokens per call, per template: what a reader extrapolates from."""
    lines = []
    for template in PHASE_OF:
        calls = [c for c in exchanges.calls if c.get("template") == template and c["status"] == 200]
        if not calls:
            continue
        seconds = [c["seconds"] for c in calls]
        usage = [c["response"].get("usage", {}) if isinstance(c["response"], dict) else {} for c in calls]
        prompt = sum(u.get("prompt_tokens", 0) for u in usage)
        output = sum(u.get("completion_tokens", 0) for u in usage)
        lines.append(
            f"| {name} | {template.split('.')[0]} | {len(calls)} | {sum(seconds) / len(calls):.1f} "
            f"(max {max(seconds):.0f}) | {prompt // len(calls):,} | {output // len(calls):,} |"
        )
    return "\n".join(lines)


TIMING_HEADER = (
    "| workspace | prompt | answered calls | s per call | prompt tokens per call | output tokens per call |\n"
    "|---|---|---|---|---|---|"
)
CHECKS_HEADER = (
    "| workspace | engine | runs ok / refused / failed / crashed | entries lost | notes changed | "
    "second run changed | kept / discarded (window) | operations (window) |\n|---|---|---|---|---|---|---|---|"
)


def checks(run: WorkspaceRun, engine: str) -> str:
    statuses = Counter(n.record.status if n.record else "crashed" for n in run.nights)
    operations: Counter[str] = Counter()
    for night in run.nights[:-1]:
        operations.update(night.record.operations if night.record else {})
    kept = sum(n.record.itemsKept for n in run.nights[:-1] if n.record)
    discarded = sum(n.record.itemsDiscarded for n in run.nights[:-1] if n.record)
    lost = [text for night in run.nights for text in night.lost]
    changed_notes = sorted({name for night in run.nights for name in night.notes_changed})
    return (
        f"| {run.name} | {engine} | {statuses['ok']} / {statuses['refused']} / {statuses['failed']} / "
        f"{statuses['crashed']} | {len(lost)}{': ' + '; '.join(t[:60] for t in lost[:3]) if lost else ''} | "
        f"{len(changed_notes)} | {', '.join(run.second.changed) or 'nothing'} | {kept} / {discarded} | "
        f"{', '.join(f'{op} {n}' for op, n in sorted(operations.items()))} |"
    )


def failures(name: str, exchanges: Exchanges, runs: Sequence[WorkspaceRun]) -> Counter[str]:
    found = Counter({f"{name}: {kind}": n for kind, n in exchanges.failures.items()})
    for run in runs:
        for night in run.nights:
            if night.crash:
                found[f"{name}: run crashed: {night.crash}"] += 1
            for warning in night.record.warnings if night.record else []:
                if "decided offline" in warning or "rejected" in warning or "refus" in warning:
                    found[f"{name}: {warning[:150]}"] += 1
    return found


def record_cassettes(exchanges: Exchanges, folder: Path, workspace: str, limit: int) -> None:
    """The first `limit` exchanges of each prompt and kind (accepted, each problem) as small JSON files."""
    folder.mkdir(parents=True, exist_ok=True)
    seen: Counter[tuple[str, str]] = Counter()
    slug = workspace.split()[0]
    for number, call in enumerate(exchanges.calls):
        kind = kind_of(call["problem"]) if "problem" in call else "answered"
        kind = kind if call["status"] == 200 else f"http-{call['status']}"
        template = call["template"].split(".")[0]
        if seen[template, kind] >= limit:
            continue
        seen[template, kind] += 1
        name = f"{slug}-{template}-{kind.replace(' ', '-')}-{number}.json"
        (folder / name).write_text(json.dumps(call, indent=1, ensure_ascii=False, default=str) + "\n")
