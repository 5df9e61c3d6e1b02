"""ItemSpec: one note item before layout, and where it landed after."""

from __future__ import annotations

from dataclasses import dataclass, field

KEEP = "KEEP"
DISCARD = "DISCARD"
KEEP_CATEGORIES = ("decision", "fact", "lesson", "action", "relationship", "status")
DISCARD_CATEGORIES = ("routine", "heartbeat", "narration", "debug", "resolved", "duplicate")

# Shapes an item can take on the page.
BULLET = "bullet"
CHECK_OPEN = "check_open"
CHECK_DONE = "check_done"
STAMPED = "stamped"
KEY_VALUE = "key_value"
PARAGRAPH = "paragraph"
RAW = "raw"


@dataclass
class ItemSpec:
    """What an item says and how it may be drawn; the renderer fills `file`, `line`, `lines`."""

    verdict: str
    category: str
    topic: str | None
    body: str
    shapes: tuple[str, ...] = (BULLET, STAMPED, PARAGRAPH)
    key_value: tuple[str, str] | None = None
    children: tuple[str, ...] = ()
    raw: tuple[str, ...] = ()
    fact_key: str | None = None
    minute: int = -1
    section: str = "topic"
    clock_style: str | None = None
    secrets: list[tuple[str, str]] = field(default_factory=list)
    file: str | None = None
    line: int | None = None
    lines: tuple[str, ...] = ()

    @property
    def keep(self) -> bool:
        return self.verdict == KEEP

    def size_estimate(self) -> int:
        """Rough rendered size in bytes, before a shape is chosen."""
        if self.raw:
            return sum(len(line.encode()) + 1 for line in self.raw) + 2
        extra = sum(len(child.encode()) + 5 for child in self.children)
        return len(self.body.encode()) + 9 + extra


def keep(
    category: str,
    topic: str | None,
    body: str,
    *,
    shapes: tuple[str, ...] = (BULLET, STAMPED, PARAGRAPH),
    key_value: tuple[str, str] | None = None,
    children: tuple[str, ...] = (),
    raw: tuple[str, ...] = (),
    fact_key: str | None = None,
    section: str = "topic",
) -> ItemSpec:
    """An item a careful human would carry into long-term memory."""
    if category not in KEEP_CATEGORIES:
        raise ValueError(f"not a KEEP category: {category}")
    return ItemSpec(KEEP, category, topic, body, shapes, key_value, children, raw, fact_key, section=section)


def discard(
    category: str,
    topic: str | None,
    body: str,
    *,
    shapes: tuple[str, ...] = (BULLET, STAMPED, PARAGRAPH),
    key_value: tuple[str, str] | None = None,
    children: tuple[str, ...] = (),
    raw: tuple[str, ...] = (),
    fact_key: str | None = None,
    section: str = "topic",
) -> ItemSpec:
    """Noise: routine, heartbeat, narration, debug output, trivia, repeats."""
    if category not in DISCARD_CATEGORIES:
        raise ValueError(f"not a DISCARD category: {category}")
    return ItemSpec(
        DISCARD, category, topic, body, shapes, key_value, children, raw, fact_key, section=section
    )
