"""A pasted copy of an earlier morning briefing inside a note: noise that must not be re-learned."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from .filler import Filler
from .render import Doc
from .spec import PARAGRAPH, STAMPED, discard
from .storyline import Storyline


@dataclass
class PastedBriefing:
    file: str = ""
    first: int = 0
    last: int = 0
    phrases: list[str] = field(default_factory=list)


def paste_briefing(doc: Doc, storyline: Storyline, filler: Filler, pos: int) -> PastedBriefing:
    today = storyline.days[pos]
    briefing_day = today - timedelta(days=filler.rng.randint(1, 3))
    lead = discard(
        "narration",
        None,
        filler.choice(
            (
                "pasted from briefing.md:",
                "Pasted from briefing.md for reference:",
                "copy of yesterday's briefing.md, pasted from briefing.md:",
            )
        ),
        shapes=(PARAGRAPH, STAMPED),
    )
    lead.minute = filler.rng.randint(7 * 60, 9 * 60)
    doc.blank()
    doc.section([lead])
    doc.blank()
    first = len(doc.lines) + 1
    doc.append(f"# Morning briefing {briefing_day.isoformat()}")
    doc.append("")
    generated = (
        f"Generated 04:00 by memory-sleep · {filler.rng.randint(1100, 2040)} bytes · "
        f"{filler.rng.randint(4, 30)} items kept overnight"
    )
    doc.place(discard("duplicate", None, generated), [generated])
    doc.append("")
    doc.append("## Open actions")
    open_actions = [
        action
        for action in storyline.actions
        if action.opened_on <= briefing_day and (action.closed_on is None or action.closed_on > briefing_day)
    ][-3:]
    for action in open_actions:
        line = f"- [ ] {action.what} (due {action.deadline.isoformat()})"
        doc.place(discard("duplicate", action.topic, line), [line])
    if not open_actions:
        doc.place(discard("duplicate", None, "- nothing open 🎉"), ["- nothing open 🎉"])
    doc.append("")
    doc.append("## Projects")
    for name in filler.active:
        line = f"- {name}: " + filler.fill("{next_step} next; last touched {n} days ago", {"P": name})
        doc.place(discard("duplicate", name, line), [line])
    doc.append("")
    doc.append("## Focus")
    focus_project = filler.choice(filler.active)
    focus = filler.fill(
        "Focus of the day: unblock the {P} {svc} rollout before {weekday}", {"P": focus_project}
    )
    since = (briefing_day - timedelta(days=filler.rng.randint(3, 20))).isoformat()
    watch = filler.fill("Watch: {P} error budget {pct}% burned since " + since, {"P": focus_project})
    doc.place(discard("duplicate", focus_project, focus), [focus])
    doc.append("")
    doc.place(discard("duplicate", focus_project, "- " + watch), ["- " + watch])
    last = len(doc.lines)
    return PastedBriefing(
        file=doc.path,
        first=first,
        last=last,
        phrases=[f"Morning briefing {briefing_day.isoformat()}", generated.split(" · ")[0], focus, watch],
    )
