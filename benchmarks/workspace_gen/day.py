"""One day's items: the storyline's planned events plus random fill up to a size target."""

from __future__ import annotations

import random
from itertools import accumulate

from . import debug_output, keep_items, noise_items
from .filler import Filler
from .spec import ItemSpec
from .storyline import Storyline

KEEP_KINDS = ("fact", "decision", "lesson", "action", "relationship", "status")
KEEP_WEIGHTS = (26, 16, 9, 16, 13, 20)
# Kinds that never run dry, for when a day asks for more lessons than the pools hold.
FALLBACK_KINDS = ("fact", "status", "decision", "action", "relationship")
NOISE_KINDS = ("routine", "narration", "debug", "resolved", "recap", "table", "log_lines")
NOISE_WEIGHTS = (36, 18, 11, 9, 5, 1.5, 4)
KEEP_CUMULATIVE = list(accumulate(KEEP_WEIGHTS))
NOISE_CUMULATIVE = list(accumulate(NOISE_WEIGHTS))


class ItemPool:
    """Grows a list of specs for one file, holding the KEEP share near `keep_ratio`."""

    def __init__(
        self,
        rng: random.Random,
        filler: Filler,
        storyline: Storyline,
        pos: int,
        keep_ratio: float,
        seen: dict[str, None],
        focus: str | None = None,
    ) -> None:
        self.rng = rng
        self.filler = filler
        self.storyline = storyline
        self.pos = pos
        self.keep_ratio = keep_ratio
        self.seen = seen
        self.focus = focus
        self.specs: list[ItemSpec] = []
        self.primary = focus or rng.choice(filler.active)
        self.keep_count = 0
        self.size = 0

    def estimate(self, start: int = 0) -> int:
        """Estimated bytes of the specs from index `start` on."""
        if start == 0:
            return self.size
        return sum(spec.size_estimate() for spec in self.specs[start:])

    def add(self, specs: list[ItemSpec]) -> list[ItemSpec]:
        for spec in specs:
            if spec.minute < 0:
                spec.minute = self.rng.randint(7 * 60 + 30, 22 * 60 + 30)
            self.keep_count += spec.keep
            self.size += spec.size_estimate()
        self.specs.extend(specs)
        return specs

    def topic(self, allow_none: bool = True) -> str | None:
        if allow_none and self.focus is None and self.rng.random() < 0.12:
            return None
        if self.focus is not None and self.rng.random() < 0.85:
            return self.focus
        if self.rng.random() < 0.5:
            return self.primary
        return self.rng.choice(self.filler.active)

    def grow(self) -> list[ItemSpec]:
        """Add one random item (or a few log lines), KEEP or DISCARD to hold the ratio."""
        total = len(self.specs) + 1
        if self.keep_count < self.keep_ratio * total:
            return self.add([self.random_keep()])
        return self.add(self.random_noise())

    def random_keep(self) -> ItemSpec:
        kind = self.rng.choices(KEEP_KINDS, cum_weights=KEEP_CUMULATIVE)[0]
        spec: ItemSpec | None = None
        for _ in range(4):
            spec = self._keep_of_kind(kind)
            if spec is not None:
                return spec
            kind = self.rng.choice(FALLBACK_KINDS)
        return self.storyline.new_action(self.pos, self.topic(allow_none=False))

    def _keep_of_kind(self, kind: str) -> ItemSpec | None:
        story = self.storyline
        project = self.topic(allow_none=False) or self.primary
        if kind == "fact":
            return story.new_keyed(self.pos, "fact", self.topic())
        if kind == "relationship":
            topic = self.topic() if self.rng.random() < 0.6 else None
            return story.new_keyed(self.pos, "relationship", topic)
        if kind == "decision":
            if self.rng.random() < 0.3:
                return story.new_keyed(self.pos, "decision", project)
            return keep_items.decision(self.filler, project, self.seen)
        if kind == "action":
            return story.new_action(self.pos, self.topic())
        if kind == "lesson":
            return keep_items.lesson(self.filler, self.topic(), self.seen)
        return keep_items.status(self.filler, project, self.seen)

    def random_noise(self) -> list[ItemSpec]:
        kind = self.rng.choices(NOISE_KINDS, cum_weights=NOISE_CUMULATIVE)[0]
        topic = self.topic()
        project = topic or self.primary
        f = self.filler
        if kind == "routine":
            return [noise_items.routine(f, topic)]
        if kind == "narration":
            return [noise_items.narration(f, topic)]
        if kind == "debug":
            return [debug_output.debug_block(f, project)]
        if kind == "resolved":
            return [noise_items.resolved(f, topic)]
        if kind == "table":
            maker = debug_output.bench_table if self.rng.random() < 0.5 else debug_output.ci_table
            return [maker(f, project)]
        if kind == "log_lines":
            return debug_output.log_lines(f, project, self.rng.randint(8 * 60, 21 * 60))
        originals = [
            s
            for s in self.specs
            if s.keep and s.category in ("decision", "fact", "status", "lesson", "relationship") and not s.raw
        ]
        if not originals:
            return [noise_items.routine(f, topic)]
        original = self.rng.choice(originals)
        if original.fact_key is None:
            original.fact_key = self.storyline.synthetic_key(original.topic)
        spec = noise_items.recap(f, original)
        spec.minute = max(original.minute + 20, self.rng.randint(17 * 60, 23 * 60))
        return [spec]

    def heartbeats(self, target: float) -> None:
        """A day's heartbeat lines: hourly, sparse, or runs of bare HEARTBEAT_OK.

        Short notes get fewer, so heartbeats do not crowd out everything else.
        """
        budget = max(2, int(target / 220))
        hourly = 6 if budget >= 16 else 0
        mode = self.rng.choices(("hourly", "sparse", "runs"), weights=(hourly, 2, 2))[0]
        start, end = self.rng.randint(7, 9), self.rng.randint(19, 23)
        if mode == "runs":
            for _ in range(self.rng.randint(1, 3)):
                spec = noise_items.heartbeat_run(self.rng.randint(2, 6))
                spec.minute = self.rng.randint(start * 60, end * 60)
                self.add([spec])
            return
        hours = list(range(start, end + 1))
        if mode == "sparse":
            count = min(len(hours), budget, self.rng.randint(3, 6))
            hours = sorted(self.rng.sample(hours, count))
        for hour in hours:
            self.add([noise_items.heartbeat(self.filler, hour * 60 + self.rng.choice((0, 0, 0, 1, 2)))])
