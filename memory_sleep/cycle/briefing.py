"""Cleanup, part two: the morning briefing, cut by priority to briefing_max_bytes, whole lines only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from memory_sleep.cycle.plan import Edit
from memory_sleep.engines.base import ActionView, Briefer, BriefingContext
from memory_sleep.models import Briefing, KeptItem, ProjectFields
from memory_sleep.text import counted, deadline_in, shorten, without_history
from memory_sleep.workspace.memory_doc import MemoryDocument

LINE_CHARS = 200
UNREAD_LISTED = 2  # daily notes not read that the briefing names one by one; more are counted
BRIEFING = "memory/briefing.md"


def briefing_context(
    document: MemoryDocument,
    projects: dict[str, ProjectFields],
    recent: Sequence[KeptItem],
    today: date,
    wrote: Mapping[str, str],
) -> BriefingContext:
    """What the briefing is written from: the open actions, the projects, and the recent kept items
    whose word still stands. `wrote` gives, by item id, the text REM gave the MEMORY.md entry the item
    added or changed: once no entry says it (a later note superseded it, or it was archived), the item
    is no longer current and is left out; an item that wrote none (a repeat, or not placed yet) stays."""
    standing = {without_history(entry.text) for _, entry in document.entries()}
    current = [kept for kept in recent if without_history(wrote.get(kept.item.id, "")) in ("", *standing)]
    actions = [
        ActionView(
            text=entry.text,
            topic=entry.topic,
            deadline=deadline_in(entry.text, entry.day or today),
            day=entry.day,
        )
        for section, entry in document.entries()
        if section.title == "Action items"
    ]
    return BriefingContext(today=today, open_actions=actions, projects=projects, recent=current)


def brief_edit(
    briefer: Briefer, context: BriefingContext, max_bytes: int, reviews: int = 0, unread: Sequence[str] = ()
) -> Edit:
    """The `brief` edit: memory/briefing.md, rewritten whole from the engine's briefing, with the
    warnings of the run that the agent must act on: the daily notes it could not read (`unread`, each
    with its fix; the agent reads the briefing, not the run's stderr), and one counting the `reviews`
    GC judgements waiting for a person (`review` lists them). Past UNREAD_LISTED notes, one line counts
    them, as one counts the reviews: a line each, dozens of them, would leave no room in 2 KB for the
    open actions."""
    written = briefer.brief(context)
    added = (
        list(unread)
        if len(unread) <= UNREAD_LISTED
        else [
            f"{counted(len(unread), 'daily note')} not read, so not in memory: `memory-sleep doctor` lists "
            "each with its fix"
        ]
    )
    if reviews:
        added.append(
            f"{counted(reviews, 'garbage-collection judgement')} left for you to review, not applied: "
            "`memory-sleep review` lists and dismisses them"
        )
    if added:
        written = written.model_copy(update={"warnings": [*written.warnings, *added]})
    text = render_briefing(written, context.today, max_bytes)
    return Edit(op="brief", path=BRIEFING, text=text, reason=f"within briefing_max_bytes ({max_bytes:,})")


def render_briefing(briefing: Briefing, today: date, max_bytes: int) -> str:
    """Markdown within `max_bytes` UTF-8 bytes; lower-priority lines go first when it does not fit."""
    sections = [
        (
            "Top priorities",
            [f"{n}. {shorten(line, LINE_CHARS)}" for n, line in enumerate(briefing.priorities[:3], 1)],
        ),
        ("Warnings", [f"- {shorten(line, LINE_CHARS)}" for line in briefing.warnings]),
        ("Open action items", [f"- {shorten(line, LINE_CHARS)}" for line in briefing.actions]),
        ("Key context", [f"- {shorten(line, LINE_CHARS)}" for line in briefing.context]),
    ]
    title = f"# Morning briefing {today.isoformat()}\n"
    order = ["Top priorities", "Open action items", "Key context", "Warnings"]
    kept = {name: list(lines) for name, lines in sections}
    cut = 0

    def render() -> str:
        parts = [title]
        for name in order:
            if kept[name]:
                parts.append(f"\n## {name}\n" + "".join(line + "\n" for line in kept[name]))
        if cut:
            parts.append(f"\n({cut} more lines left out to stay under {max_bytes} bytes; see MEMORY.md)\n")
        return "".join(parts)

    text = render()
    for name, _ in reversed(sections):
        while kept[name] and len(text.encode("utf-8")) > max_bytes:
            kept[name].pop()
            cut += 1
            text = render()
    while len(text.encode("utf-8")) > max_bytes:
        text = text[: text.rstrip("\n").rfind("\n") + 1]
    return text
