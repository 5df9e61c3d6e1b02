"""Compose the files of one day: the daily note and, sometimes, a topic note."""

from __future__ import annotations

import random

from .briefing import PastedBriefing, paste_briefing
from .day import ItemPool
from .filler import Filler
from .layout import LAYOUT_WEIGHTS, LAYOUTS, extra_section, front_matter, header
from .render import Doc
from .spec import ItemSpec
from .storyline import Storyline

TOPIC_PROFILES: dict[str, tuple[str, str, dict[str, str]]] = {
    "incident": (
        "{p}-incident",
        "{P} incident — {day}",
        {
            "status": "Impact",
            "lesson": "Root cause & lessons",
            "decision": "Decisions",
            "action": "Action items",
            "duplicate": "Summary",
            "default": "Timeline",
        },
    ),
    "meeting": (
        "meeting-{p}",
        "Meeting notes: {P} sync",
        {
            "relationship": "Attendees",
            "decision": "Decisions",
            "action": "Action items",
            "status": "Status",
            "default": "Discussion",
        },
    ),
    "retro": (
        "{p}-retro",
        "{P} retro",
        {
            "lesson": "What we learned",
            "status": "What happened",
            "action": "Actions",
            "decision": "Agreed",
            "default": "Notes",
        },
    ),
    "research": (
        "research-{topicword}",
        "Research: {topicword} options for {P}",
        {"fact": "Findings", "decision": "Recommendation", "lesson": "Gotchas", "default": "Scratchpad"},
    ),
}


class DayComposer:
    """Turns the storyline and random fill into the markdown files of each day."""

    def __init__(self, rng: random.Random, filler: Filler, storyline: Storyline, note_kb: float) -> None:
        self.rng = rng
        self.filler = filler
        self.storyline = storyline
        self.note_kb = note_kb
        self.seen: dict[str, None] = {}
        self.briefing: PastedBriefing | None = None
        # Rendered bytes per estimated byte, learned as days are written.
        self.calibration = 1.15

    def target(self) -> float:
        return self.note_kb * 1024 * self.rng.uniform(0.6, 1.4)

    def new_doc(self, path: str) -> Doc:
        style = self.rng.choices(("plain", "bracket", "bold"), weights=(5, 4, 1))[0]
        return Doc(path, self.rng, style)

    def compose(self, pos: int) -> list[Doc]:
        day = self.storyline.days[pos]
        target = self.target()
        pool = ItemPool(self.rng, self.filler, self.storyline, pos, self.rng.uniform(0.18, 0.32), self.seen)
        pool.add(self.storyline.planned(pos))
        pool.heartbeats(target)
        self.fill(pool, target)
        doc = self.new_doc(f"memory/{day.isoformat()}.md")
        header(doc, self.rng, day, pool.primary)
        if pos == self.storyline.briefing_pos:
            self.briefing = paste_briefing(doc, self.storyline, self.filler, pos)
        layout = self.rng.choices(LAYOUTS, weights=LAYOUT_WEIGHTS)[0]
        layout(doc, self.filler, pool.specs)
        self.top_up(doc, pool, target)
        docs = [doc]
        if pos in self.storyline.topic_file_pos:
            docs.append(self.topic_file(pos))
        return docs

    def fill(self, pool: ItemPool, target: float) -> None:
        while pool.estimate() * self.calibration < target:
            pool.grow()

    def top_up(self, doc: Doc, pool: ItemPool, target: float) -> None:
        """Learn the size calibration; append a late section if the note came out short."""
        if pool.size:
            self.calibration = 0.8 * self.calibration + 0.2 * doc.size / pool.size
        for _ in range(8):
            if doc.size >= target * 0.9:
                return
            start, size_before = len(pool.specs), pool.size
            while (pool.size - size_before) * self.calibration < target - doc.size:
                pool.grow()
            batch = pool.specs[start:]
            for spec in batch:
                spec.minute = 21 * 60 + spec.minute % 150
            extra_section(doc, self.filler, batch)

    def topic_file(self, pos: int) -> Doc:
        day = self.storyline.days[pos]
        focus = self.rng.choice(self.filler.active)
        name = self.rng.choice(sorted(TOPIC_PROFILES))
        slug_template, title_template, sections = TOPIC_PROFILES[name]
        fixed = {"P": focus}
        slug = self.filler.fill(slug_template, fixed)
        title = self.filler.fill(title_template.replace("{day}", day.isoformat()), fixed)
        target = self.target()
        pool = ItemPool(
            self.rng, self.filler, self.storyline, pos, self.rng.uniform(0.25, 0.4), self.seen, focus=focus
        )
        self.fill(pool, target)
        doc = self.new_doc(f"memory/{day.isoformat()}-{slug}.md")
        if self.rng.random() < 0.35:
            front_matter(doc, self.rng, day, focus)
        doc.append(f"# {title}")
        doc.append("")
        grouped: dict[str, list[ItemSpec]] = {}
        for spec in sorted(pool.specs, key=lambda s: s.minute):
            heading = sections.get(spec.category, sections["default"])
            if spec.section == "recap":
                heading = "Summary"
            grouped.setdefault(heading, []).append(spec)
        # Summary last: recaps must come after the items they repeat.
        order = [h for h in dict.fromkeys(sections.values()) if h in grouped and h != "Summary"]
        order += ["Summary"] if "Summary" in grouped else []
        for heading in order:
            doc.heading(2, heading)
            doc.section(grouped[heading])
        self.top_up(doc, pool, target)
        return doc
