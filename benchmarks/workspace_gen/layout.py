"""Page layout: front matter, title, and the sections a day's items are grouped under."""

from __future__ import annotations

import random
from datetime import date

from .dates import title_line
from .filler import Filler
from .render import Doc
from .spec import CHECK_OPEN, KEY_VALUE, PARAGRAPH, STAMPED, ItemSpec
from .vocab import AGENTS, TAGS

SUBHEADINGS: tuple[str, ...] = (
    "Deploy",
    "Meeting with {person}",
    "Infra",
    "Notes",
    "Open questions",
    "{svc}",
    "Follow-ups",
    "Debugging {svc}",
    "Planning",
    "Customer: {cust}",
    "Review",
    "Ops",
)
PROJECT_HEADINGS: tuple[str, ...] = ("{P}", "Project: {P}", "{P} ({svc})", "{emoji} {P}", "{P} — work log")
HEARTBEAT_HEADINGS: tuple[str, ...] = ("Heartbeats", "Heartbeat log", "Pings", "Background checks")
TODO_HEADINGS: tuple[str, ...] = ("TODO", "Open items", "Tasks", "Action items", "待办", "Next")
RECAP_HEADINGS: tuple[str, ...] = ("EOD", "End of day", "Summary", "Wrap-up", "Zusammenfassung", "まとめ")
GENERAL_HEADINGS: tuple[str, ...] = ("Misc", "Infra & admin", "People", "Other", "Notes", "General")
PERIODS: tuple[tuple[str, int], ...] = (("Morning", 12 * 60), ("Afternoon", 17 * 60), ("Evening", 24 * 60))
LOG_PREFER = {STAMPED: 5.0, KEY_VALUE: 1.5, PARAGRAPH: 0.5}
TODO_PREFER = {CHECK_OPEN: 4.0}


def front_matter(doc: Doc, rng: random.Random, day: date, project: str) -> None:
    doc.append("---")
    doc.append(f"project: {project}")
    if rng.random() < 0.6:
        doc.append(f"tags: [{', '.join(rng.sample(TAGS, rng.randint(1, 3)))}]")
    if rng.random() < 0.5:
        doc.append(f"agent: {rng.choice(AGENTS)}")
    if rng.random() < 0.4:
        doc.append(f"date: {day.isoformat()}")
    doc.append("---")
    doc.append("")


def header(doc: Doc, rng: random.Random, day: date, project: str) -> None:
    if rng.random() < 0.12:
        front_matter(doc, rng, day, project)
    if rng.random() < 0.95:
        doc.append(title_line(rng, day))
        doc.append("")


def split_by_section(specs: list[ItemSpec]) -> dict[str, list[ItemSpec]]:
    groups: dict[str, list[ItemSpec]] = {"topic": [], "heartbeat": [], "todo": [], "recap": []}
    for spec in specs:
        groups.get(spec.section, groups["topic"]).append(spec)
    return groups


def by_topic(specs: list[ItemSpec]) -> dict[str | None, list[ItemSpec]]:
    topics: dict[str | None, list[ItemSpec]] = {}
    for spec in sorted(specs, key=lambda s: s.minute):
        topics.setdefault(spec.topic, []).append(spec)
    return topics


def topic_section(doc: Doc, filler: Filler, topic: str | None, specs: list[ItemSpec], level: int) -> None:
    rng = filler.rng
    fixed = {"P": topic} if topic else {}
    if topic is None:
        doc.heading(level, filler.choice(GENERAL_HEADINGS))
    else:
        doc.heading(level, filler.fill(filler.choice(PROJECT_HEADINGS), dict(fixed)))
    if len(specs) > 6 and rng.random() < 0.75:
        chunks = rng.randint(2, min(4, len(specs) // 3))
        size = -(-len(specs) // chunks)
        for start in range(0, len(specs), size):
            sub = filler.fill(
                filler.choice(SUBHEADINGS), dict(fixed) if topic else {"P": filler.choice(filler.active)}
            )
            doc.heading(level + 1, sub)
            doc.section(specs[start : start + size])
    else:
        doc.section(specs)


def tail_sections(doc: Doc, filler: Filler, groups: dict[str, list[ItemSpec]]) -> None:
    if groups["todo"]:
        doc.heading(2, filler.choice(TODO_HEADINGS))
        doc.section(groups["todo"], TODO_PREFER)
    if groups["recap"]:
        doc.heading(2, filler.choice(RECAP_HEADINGS))
        doc.section(groups["recap"])


def layout_projects(doc: Doc, filler: Filler, specs: list[ItemSpec]) -> None:
    groups = split_by_section(specs)
    topics = by_topic(groups["topic"])
    order = [t for t in topics if t is not None] + ([None] if None in topics else [])
    heartbeats_first = filler.rng.random() < 0.3
    if heartbeats_first and groups["heartbeat"]:
        doc.heading(2, filler.choice(HEARTBEAT_HEADINGS))
        doc.section(groups["heartbeat"], LOG_PREFER)
    for topic in order:
        topic_section(doc, filler, topic, topics[topic], 2)
    if not heartbeats_first and groups["heartbeat"]:
        doc.heading(2, filler.choice(HEARTBEAT_HEADINGS))
        doc.section(groups["heartbeat"], LOG_PREFER)
    tail_sections(doc, filler, groups)


def layout_timeline(doc: Doc, filler: Filler, specs: list[ItemSpec]) -> None:
    groups = split_by_section(specs)
    body = sorted(groups["topic"] + groups["heartbeat"], key=lambda s: s.minute)
    start = 0
    for name, until in PERIODS:
        period = [s for s in body[start:] if s.minute < until]
        start += len(period)
        if not period:
            continue
        doc.heading(2, name)
        topics = by_topic([s for s in period if s.section != "heartbeat"])
        beats = [s for s in period if s.section == "heartbeat"]
        if beats:
            doc.section(beats, LOG_PREFER)
        # Loose items first: after a ### heading they would read as part of that topic.
        loose = [s for t, items in topics.items() if t is None or len(items) < 3 for s in items]
        if loose:
            doc.section(loose, LOG_PREFER)
        for topic, items in topics.items():
            if topic is not None and len(items) >= 3:
                topic_section(doc, filler, topic, items, 3)
    tail_sections(doc, filler, groups)


def layout_log(doc: Doc, filler: Filler, specs: list[ItemSpec]) -> None:
    groups = split_by_section(specs)
    body = sorted(groups["topic"] + groups["heartbeat"], key=lambda s: s.minute)
    stamped = [s for s in body if not s.raw]
    pasted = [s for s in body if s.raw]
    doc.heading(2, filler.choice(("Log", "Timeline", "Session log", "Journal")))
    chunk = max(8, len(stamped) // 3)
    for start in range(0, len(stamped), chunk):
        doc.section(stamped[start : start + chunk], LOG_PREFER)
        doc.blank()
    if pasted:
        doc.heading(2, filler.choice(("Pasted output", "Scratch", "Debug", "Raw output")))
        doc.section(pasted)
    tail_sections(doc, filler, groups)


LAYOUTS = (layout_projects, layout_timeline, layout_log)
LAYOUT_WEIGHTS = (5, 3, 2)


def extra_section(doc: Doc, filler: Filler, specs: list[ItemSpec]) -> None:
    """More items appended when a note came out short of its size target."""
    doc.heading(
        2, filler.choice(("Later", "Late session", "Addendum", "Evening", "Night shift", "After hours"))
    )
    doc.section(sorted(specs, key=lambda s: s.minute))
