"""How `memory-sleep gc` reports a GC run, in lines and as JSON."""

from __future__ import annotations

from typing import Any

from memory_sleep.cycle.report import RunReport
from memory_sleep.text import counted


def gc_dict(report: RunReport, strategies: tuple[str, ...], dry_run: bool) -> dict[str, Any]:
    plan = report.gc
    decision = plan.decision if plan else None
    return {
        "dry_run": dry_run,
        "pass_id": decision.pass_id if decision else None,
        "strategies": list(strategies),
        "entries": decision.entries if decision else 0,
        "scopes": decision.scopes if decision else 0,
        "counts": decision.counts() if decision else {},
        "actions": [action.model_dump(mode="json", exclude_none=True) for action in decision.actions]
        if decision
        else [],
        "edits": [edit.model_dump(mode="json", exclude_none=True) for edit in plan.edits] if plan else [],
        "skipped": decision.skipped if decision else [],
        "files_changed": report.record.filesChanged,
    }


def gc_lines(report: RunReport, strategies: tuple[str, ...], dry_run: bool) -> list[str]:
    plan = report.gc
    if plan is None:
        return [
            f"GC ({', '.join(strategies) or 'no strategy enabled'}): nothing to look at (index the workspace first)."
        ]
    decision = plan.decision
    lines = [
        f"{'Dry run: ' if dry_run else ''}GC {decision.pass_id} ({', '.join(strategies)}): {counted(decision.entries, 'live entry', 'live entries')} "
        f"in {counted(decision.scopes, 'scope')}"
    ]
    for action in decision.actions:
        if action.op == "rate":
            continue
        shown = ", ".join(str(i) for i in action.ids[:10]) + (
            f" and {len(action.ids) - 10} more" if len(action.ids) > 10 else ""
        )
        lines.append(f"  {action.strategy} {action.op} {shown}: {action.reason}")
    rated = sum(len(action.ids) for action in decision.actions if action.op == "rate")
    if rated:
        lines.append(f"  importance rated {counted(rated, 'entry', 'entries')}")
    lines.extend(f"  MEMORY.md: {edit.describe()}" for edit in plan.edits)
    lines.extend(f"  left for later: {why}" for why in decision.skipped)
    if not decision.actions:
        lines.append("  nothing to collect")
    elif not dry_run:
        lines.append(
            f"Restore soft-deleted entries with `memory-sleep restore --pass {decision.pass_id}`; `memory-sleep undo` reverts the whole run."
        )
    return lines
