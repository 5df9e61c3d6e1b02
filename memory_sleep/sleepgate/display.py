"""Plain-text renderings of a forgetting pass and a restore for the command line."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_sleep.sleepgate.forget import PassReport
from memory_sleep.sleepgate.restore import RestoreReport
from memory_sleep.text import counted


def pass_lines(report: PassReport, explain_all: bool = False) -> list[str]:
    verb = "Would forget" if report.dry_run else "Forgot"
    if report.skipped:
        return [f"Forgetting pass skipped: {report.skipped}."]
    total = sum(report.seconds.values())
    lines = [
        f"{'id':>8}  {'source':<34} {'recency':>7} {'freq':>6} {'density':>7} {'score':>6}  verdict",
    ]
    for verdict in report.verdicts:
        where = f"{verdict.source}:{verdict.line}"
        if len(where) > 34:
            where = "…" + where[-33:]
        lines.append(
            f"{verdict.id:>8}  {where:<34} {verdict.recency:>7.3f} {verdict.frequency:>6.3f} "
            f"{verdict.density:>7.3f} {verdict.retention:>6.3f}  {verdict.verdict} ({verdict.reason})"
        )
    if not report.verdicts:
        lines.append("(no entry scored below the threshold)")
    kept = report.entries - report.candidates
    if not explain_all and kept:
        are = "is" if kept == 1 else "are"
        lines.append(
            f"{counted(kept, 'entry', 'entries')} at or above the threshold {are} kept (--all lists them)."
        )
    lines.append(
        f"{verb} {report.forgotten} of {counted(report.entries, 'entry', 'entries')} "
        f"({counted(report.candidates, 'candidate')}, {report.load_bearing} load-bearing; "
        f"{counted(report.queries_replayed, 'query', 'queries')} replayed, "
        f"recall@k after {report.recall_after:.3f}) in {total:.2f} s. Pass {report.pass_id}."
    )
    if report.restored:
        lines.append(
            f"{'Would bring' if report.dry_run else 'Brought'} back "
            f"{counted(report.restored, 'entry', 'entries')} an earlier pass forgot: the latest word on an "
            "entry that ended, which recall shows above it."
        )
    if report.forgotten and not report.dry_run:
        lines.append(
            f"Undo with `memory-sleep undo` (the whole pass) or `memory-sleep restore --pass {report.pass_id}`."
        )
    return lines


def pass_dict(report: PassReport) -> dict[str, object]:
    return {
        "pass_id": report.pass_id,
        "dry_run": report.dry_run,
        "skipped": report.skipped,
        "entries": report.entries,
        "candidates": report.candidates,
        "load_bearing": report.load_bearing,
        "forgotten": report.forgotten,
        "restored": report.restored,
        "queries_replayed": report.queries_replayed,
        "recall_after": round(report.recall_after, 4),
        "density": {"mode": report.density_mode, "progress": round(report.density_progress, 4)},
        "seconds": {key: round(value, 3) for key, value in report.seconds.items()},
        "verdicts": [verdict.as_dict() for verdict in report.verdicts],
    }


def restore_lines(report: RestoreReport, dry_run: bool) -> list[str]:
    verb = "Would restore" if dry_run else "Restored"
    lines = [
        f"{verb} {counted(len(report.restored), 'entry', 'entries')}"
        + (f": {_ids(report.restored)}" if report.restored else ".")
    ]
    lines.extend(f"Left alone: {entry_id}: {why}" for entry_id, why in sorted(report.skipped.items()))
    return lines


def _ids(ids: list[int]) -> str:
    shown = ", ".join(str(i) for i in ids[:20])
    return shown + (f" and {len(ids) - 20} more" if len(ids) > 20 else "")


def status_line(status: dict[str, object]) -> str:
    """One line for `stats`: the last pass and the density counts' state."""
    last = status["last_pass"]
    density = status["density"]
    assert isinstance(density, dict)
    if density["state"] == "building":
        counts = f"density counts being built ({float(density['progress']):.0%} done)"
    elif density["state"] == "counted":
        counts = f"density counted for {counted(int(str(density['entries'])), 'entry', 'entries')}"
    else:
        counts = "density not counted yet"
    if not isinstance(last, dict):
        return f"Forgetting: no pass yet; {counts}"
    when = datetime.fromtimestamp(float(last["started_at"]), UTC).isoformat(timespec="seconds")
    outcome = f"skipped: {last['skipped']}" if last["skipped"] else f"{last['forgotten']} forgotten"
    return f"Forgetting: last pass {last['id']} at {when} ({outcome}); {counts}"
