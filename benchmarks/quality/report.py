"""The results table for the terminal, and benchmarks/RESULTS.md."""

from __future__ import annotations

from collections.abc import Sequence

from memory_sleep.text import shorten

from .score import Row, Scorecard
from .verdicts import Judged


def _status(row: Row) -> str:
    return "" if row.passed is None else ("pass" if row.passed else "FAIL")


def render_table(rows: Sequence[Row]) -> str:
    """A plain-text table: metric, value, target, pass/fail."""
    header = ("metric", "value", "target", "")
    cells = [header, *((r.metric, r.value, r.target, _status(r)) for r in rows)]
    widths = [max(len(cell[i]) for cell in cells) for i in range(4)]
    lines = ["  ".join(cell[i].ljust(widths[i]) for i in range(4)).rstrip() for cell in cells]
    lines.insert(1, "  ".join("-" * width for width in widths).rstrip())
    return "\n".join(lines)


def _md_row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"


def _number(value: float) -> str:
    return f"{value:,.2f}" if value != int(value) else f"{int(value):,}"


def _example(j: Judged) -> str:
    text = shorten(j.truth["text"], 110).replace("`", "'")
    return f"`{j.truth['file']}:{j.truth['line']}` {j.truth['category']} → {j.label}: {text}"


def render_results(card: Scorecard, command: str, run_date: str, workspace: str, revision: str = "") -> str:
    """benchmarks/RESULTS.md: how it was run, the table, nightly spread, confusion, worst examples."""
    out = [
        "# Consolidation quality: latest results",
        "",
        "Produced by `benchmarks/score_quality.py` (see the definitions in its docstring).",
        "",
        f"- command: `{command}`",
        f"- run on: {run_date}" + (f", code at {revision}" if revision else ""),
        f"- workspace: {workspace}",
        f"- overall: {'all targets met' if card.passed else 'targets missed: ' + ', '.join(r.metric for r in card.rows if r.passed is False)}",
        "",
        "## Results",
        "",
        _md_row(("metric", "value", "target", "pass/fail")),
        _md_row(("---", "---", "---", "---")),
        *(_md_row((r.metric, r.value, r.target, _status(r))) for r in card.rows),
        "",
        "## Per night",
        "",
        _md_row(("", "min", "median", "max")),
        _md_row(("---", "---:", "---:", "---:")),
        *(_md_row((name, _number(lo), _number(mid), _number(hi))) for name, lo, mid, hi in card.nightly),
        "",
        "## Confusion by truth category",
        "",
        "Effective verdict: NREM KEEP whose REM operation is `noop` counts as DISCARD; a DISCARD that",
        "closed an action counts as KEEP.",
        "",
        _md_row(
            (
                "truth",
                "items",
                "kept",
                "NREM kept",
                "noop",
                "discarded",
                "unmatched",
                "commonest tool decisions",
            )
        ),
        _md_row(("---", "---:", "---:", "---:", "---:", "---:", "---:", "---")),
        *(
            _md_row(
                (
                    f"{row.verdict} {row.category}",
                    row.items,
                    row.kept,
                    row.nrem_kept,
                    row.noop,
                    row.discarded,
                    row.unmatched,
                    "; ".join(f"{label} {count}" for label, count in row.top_labels),
                )
            )
            for row in card.confusion
        ),
        "",
        f"## Worst missed KEEPs ({len(card.missed_keeps)})",
        "",
        *(f"{n}. {_example(j)}" for n, j in enumerate(card.missed_keeps, 1)),
        "",
        f"## Worst kept DISCARDs ({len(card.false_keeps)})",
        "",
        *(f"{n}. {_example(j)}" for n, j in enumerate(card.false_keeps, 1)),
        "",
    ]
    for title, lines in card.details.items():
        out += [f"## {title}", "", *(f"- {line}" for line in lines), ""]
    return "\n".join(out)
