"""Storyline: events that span days — keyed facts and their updates, repeats, actions."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import partial
from itertools import accumulate

from . import keep_items, noise_items
from .dates import deadline_phrase
from .facts import families
from .family import Family
from .filler import Filler
from .keep_items import capitalized
from .spec import (
    BULLET,
    CHECK_DONE,
    CHECK_OPEN,
    KEY_VALUE,
    PARAGRAPH,
    STAMPED,
    ItemSpec,
    discard,
    keep,
)
from .world import World

Event = Callable[[], list[ItemSpec]]


@dataclass
class Statement:
    value: str
    spec: ItemSpec
    day: date


@dataclass
class KeyedTrack:
    """A fact, relationship or decision whose value may change over the run."""

    key: str
    family: Family
    topic: str | None
    key_cache: dict[str, str]
    cache: dict[str, str]
    statements: list[Statement] = field(default_factory=list)

    @property
    def current(self) -> str:
        return self.statements[-1].value


@dataclass
class ActionTrack:
    key: str
    what: str
    topic: str | None
    deadline: date
    opened: ItemSpec
    opened_on: date
    closed: ItemSpec | None = None
    closed_on: date | None = None


class Storyline:
    """Plans cross-day events up front and creates keyed items on demand."""

    def __init__(self, rng: random.Random, world: World, filler: Filler, days: list[date]) -> None:
        self.rng = rng
        self.world = world
        self.filler = filler
        self.days = days
        self.agenda: dict[int, list[Event]] = {}
        self.tracks: dict[str, KeyedTrack] = {}
        self.actions: list[ActionTrack] = []
        self.action_texts: dict[str, None] = {}
        self.secrets: list[tuple[str, str, ItemSpec]] = []
        self.last_pos: dict[str, int] = {p.name: len(days) - 1 for p in world.projects}
        self.briefing_pos: int | None = None
        self.topic_file_pos: list[int] = []
        self.synthetic_keys = 0
        self.reserved: dict[str, None] = {}
        self._candidate_cache: dict[tuple[str, bool, bool], tuple[list[Family], list[float]]] = {}
        self._plan()

    # ---- planning -------------------------------------------------------------------
    def _plan(self) -> None:
        n = len(self.days)
        rng = self.rng
        projects = self.world.projects
        finishes: list[tuple[str, float, float]] = []
        if len(projects) >= 2 and n >= 10:
            finishes.append(("completed", 0.45, 0.8))
        if len(projects) >= 3 and n >= 20:
            finishes.append(("cancelled", 0.3, 0.7))
        for index, (kind, low, high) in enumerate(finishes, start=1):
            project = projects[index]
            pos = rng.randint(int(n * low), int(n * high))
            self.last_pos[project.name] = pos
            project.finished_on = self.days[pos]
            project.finish_kind = kind
            self.schedule(pos, partial(self._finish, project.name, kind))
        for kind in (
            "anthropic_key",
            "openai_key",
            "aws_access_key_id",
            "github_token",
            "postgres_url",
            "ssh_private_key",
            "password",
        ):
            self.schedule(rng.randrange(n), partial(self._secret, kind))
        if n >= 6:
            for _ in range(max(1, n // 45)):
                self._plan_reversal(rng.randrange(max(1, int(n * 0.6))))
        if n >= 3:
            for _ in range(max(2, n // 25)):
                pos = rng.randrange(max(1, int(n * 0.7)))
                self.schedule(pos, partial(self._tracked, pos, "fact", True, False))
            for _ in range(max(2, n // 30)):
                pos = rng.randrange(max(1, int(n * 0.7)))
                self.schedule(pos, partial(self._tracked, pos, "fact", False, True))
            self.briefing_pos = rng.randint(max(2, n // 3), n - 1)
        self.topic_file_pos = [pos for pos in range(n) if rng.random() < 0.07]
        if not self.topic_file_pos and n >= 5:
            self.topic_file_pos = [rng.randrange(n)]
        for project in projects:
            if rng.random() < 0.6:
                self.schedule(
                    rng.randint(0, self.last_pos[project.name]), partial(self._roster, project.name)
                )

    def _plan_reversal(self, pos: int) -> None:
        """Reserve a decision key now, so random decisions cannot use it up before `pos`."""
        projects = [p.name for p in self.world.projects if self.last_pos[p.name] - pos >= 2]
        if not projects:
            return
        project = self.rng.choice(projects)
        options = [
            (family, key)
            for family in families("decision", half=self.filler.half)
            for key in [normalize_key(self.filler.fill(family.key, {"P": project}))]
            if key not in self.reserved
        ]
        if not options:
            return
        family, key = self.rng.choice(options)
        self.reserved[key] = None
        self.schedule(pos, partial(self._tracked, pos, "decision", True, False, family, project))

    def schedule(self, pos: int, event: Event) -> None:
        self.agenda.setdefault(pos, []).append(event)

    def planned(self, pos: int) -> list[ItemSpec]:
        specs: list[ItemSpec] = []
        for event in self.agenda.pop(pos, []):
            specs.extend(event())
        return specs

    def limit(self, topic: str | None) -> int:
        return self.last_pos[topic] if topic else len(self.days) - 1

    def pick_topic(self) -> str:
        return self.filler.choice(self.filler.active)

    def pos_on_or_after(self, day: date) -> int | None:
        for pos, candidate in enumerate(self.days):
            if candidate >= day:
                return pos
        return None

    # ---- keyed facts, relationships, decisions ---------------------------------------
    def _candidates(
        self, category: str, has_topic: bool, needs_updates: bool
    ) -> tuple[list[Family], list[float]]:
        """Families that fit, with cumulative weights; cached, as this runs for every fact."""
        cache_key = (category, has_topic, needs_updates)
        if cache_key not in self._candidate_cache:
            scopes = ("project", "person", "contact") if has_topic else ("global", "person", "contact")
            fitting = [
                f
                for f in families(category, half=self.filler.half)
                if f.scope in scopes and (f.updates or not needs_updates)
            ]
            self._candidate_cache[cache_key] = (fitting, list(accumulate(f.weight for f in fitting)))
        return self._candidate_cache[cache_key]

    def new_keyed(
        self,
        pos: int,
        category: str,
        topic: str | None,
        force_update: bool = False,
        force_repeat: bool = False,
        chosen: Family | None = None,
    ) -> ItemSpec | None:
        if chosen is not None:
            candidates, cumulative = [chosen], [1.0]
        else:
            candidates, cumulative = self._candidates(category, topic is not None, force_update)
        if not candidates:
            return None
        for _ in range(10):
            family = self.rng.choices(candidates, cum_weights=cumulative)[0]
            key_cache: dict[str, str] = {"P": topic} if topic else {}
            key = normalize_key(self.filler.fill_into(family.key, key_cache))
            if key in self.tracks or (chosen is None and key in self.reserved):
                continue
            value = self.filler.fill(family.value, dict(key_cache))
            cache = dict(key_cache)
            cache["v"] = value
            # fill_into: restatements and updates reuse every name the first statement drew.
            body = capitalized(self.filler.fill_into(self.filler.choice(family.states), cache))
            track = KeyedTrack(key, family, topic, key_cache, cache)
            spec = self._statement_spec(track, body, value)
            track.statements.append(Statement(value, spec, self.days[pos]))
            self.tracks[key] = track
            self._maybe_follow_up(track, pos, force_update, force_repeat)
            return spec
        return None

    def _tracked(
        self,
        pos: int,
        category: str,
        update: bool,
        repeat: bool,
        chosen: Family | None = None,
        topic: str | None = None,
    ) -> list[ItemSpec]:
        if topic is None and (category == "decision" or self.rng.random() < 0.85):
            topic = self.pick_topic()
        spec = self.new_keyed(pos, category, topic, update, repeat, chosen)
        return [] if spec is None else [spec]

    def _maybe_follow_up(self, track: KeyedTrack, pos: int, force_update: bool, force_repeat: bool) -> None:
        limit = self.limit(track.topic)
        if limit <= pos:
            return
        busy: list[int] = []
        if force_update or self.rng.random() < 0.05:
            low, high = (7, 40) if track.family.category == "decision" else (5, 30)
            gap = self.rng.randint(low, high)
            if pos + gap > limit:
                gap = self.rng.randint(1, limit - pos)
            self.schedule(pos + gap, partial(self._update, track, pos + gap))
            busy.append(pos + gap)
            if self.rng.random() < 0.25 and pos + gap < limit:
                second = self.rng.randint(pos + gap + 1, limit)
                self.schedule(second, partial(self._update, track, second))
                busy.append(second)
        if force_repeat or self.rng.random() < 0.07:
            count = self.rng.randint(2, 4) if force_repeat else self.rng.randint(1, 3)
            for _ in range(count):
                at = self.rng.randint(pos + 1, min(limit, pos + 45))
                if at not in busy:
                    busy.append(at)
                    self.schedule(at, partial(self._repeat, track))

    def _statement_spec(self, track: KeyedTrack, body: str, value: str) -> ItemSpec:
        family = track.family
        key_value = None
        if family.key_value is not None:
            cache = dict(track.cache)
            cache["v"] = value
            key_value = (
                self.filler.fill(family.key_value[0], cache),
                self.filler.fill(family.key_value[1], cache),
            )
        children: tuple[str, ...] = ()
        if family.category == "decision":
            alternative = self.filler.fill(family.value, dict(track.key_cache))
            if alternative != value:
                children = (f"considered: {alternative}",)
        return keep(
            family.category,
            track.topic,
            body,
            shapes=(BULLET, BULLET, STAMPED, PARAGRAPH, KEY_VALUE),
            key_value=key_value,
            children=children,
            fact_key=track.key,
        )

    def _update(self, track: KeyedTrack, pos: int) -> list[ItemSpec]:
        old = track.current
        for _ in range(12):
            value = self.filler.fill(track.family.value, dict(track.key_cache))
            if value != old and all(value != s.value for s in track.statements[-1:]):
                break
        else:
            return []
        if not track.family.updates:
            return []
        cache = dict(track.cache)
        cache.update({"v": value, "old": old})
        body = capitalized(self.filler.fill(self.filler.choice(track.family.updates), cache))
        spec = self._statement_spec(track, body, value)
        # A bare `**Key:** value` drops the reason a reversed decision needs.
        spec.shapes = (BULLET, BULLET, STAMPED, STAMPED, PARAGRAPH) + (
            (KEY_VALUE,) if track.family.category != "decision" else ()
        )
        track.statements.append(Statement(value, spec, self.days[pos]))
        return [spec]

    def _repeat(self, track: KeyedTrack) -> list[ItemSpec]:
        cache = dict(track.cache)
        cache["v"] = track.current
        text = self.filler.fill(self.filler.choice(track.family.states), cache)
        body = capitalized(self.filler.template(noise_items.RESTATE).replace("{text}", text))
        key_value = None
        if track.family.key_value is not None:
            key_value = (
                self.filler.fill(track.family.key_value[0], cache),
                self.filler.fill(track.family.key_value[1], cache),
            )
        return [
            discard(
                "duplicate",
                track.topic,
                body,
                shapes=(BULLET, STAMPED, PARAGRAPH, KEY_VALUE),
                key_value=key_value,
                fact_key=track.key,
            )
        ]

    # ---- actions --------------------------------------------------------------------
    def new_action(self, pos: int, topic: str | None) -> ItemSpec:
        today = self.days[pos]
        fixed = {"P": topic} if topic else {"P": self.pick_topic()}
        what = ""
        for _ in range(12):
            what = self.filler.fill(self.filler.template(keep_items.ACTION_WHAT), dict(fixed))
            if what not in self.action_texts:
                break
        self.action_texts[what] = None
        if topic is None and fixed["P"] in what:
            topic = fixed["P"]
        gap = self.rng.choices(
            (0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 14, 21, 30), weights=(2, 4, 5, 6, 5, 5, 4, 6, 3, 4, 4, 3, 1)
        )[0]
        deadline = today + timedelta(days=gap)
        when = deadline_phrase(self.rng, today, deadline)
        who = self.filler.fill("{person}", dict(fixed))
        lead = self.filler.template(keep_items.ACTION_LEADS)
        body = lead.replace("{what}", what).replace("{when}", when).replace("{Who}", who)
        body = self.filler.fill(body)
        key = f"action.{len(self.actions) + 1:04d}"
        spec = keep(
            "action",
            topic,
            body,
            shapes=(CHECK_OPEN, CHECK_OPEN, CHECK_OPEN, BULLET, STAMPED, KEY_VALUE),
            key_value=(self.filler.choice(("Next", "TODO", "Action", "Follow-up")), f"{what} {when}"),
            fact_key=key,
        )
        if self.rng.random() < 0.45:
            spec.section = "todo"
        track = ActionTrack(key, what, topic, deadline, spec, today)
        self.actions.append(track)
        self._plan_close(track, pos, when)
        return spec

    def _plan_close(self, track: ActionTrack, pos: int, when: str) -> None:
        limit = self.limit(track.topic)
        project = self.world.project(track.topic) if track.topic else None
        close_pos: int | None = None
        if self.rng.random() < 0.72:
            slack = (track.deadline - track.opened_on).days + self.rng.randint(-1, 5)
            close_pos = self.pos_on_or_after(track.opened_on + timedelta(days=max(1, slack)))
            if close_pos is not None and close_pos > limit:
                completed = project is not None and project.finish_kind == "completed"
                close_pos = limit if completed else None
            if close_pos is not None and close_pos <= pos:
                close_pos = None
        if close_pos is not None:
            self.schedule(close_pos, partial(self._close, track, close_pos))
        end = close_pos if close_pos is not None else min(limit + 1, len(self.days))
        if end - pos >= 3 and self.rng.random() < 0.2:
            at = self.rng.randint(pos + 1, end - 1)
            self.schedule(at, partial(self._remind, track, when))

    def _close(self, track: ActionTrack, pos: int) -> list[ItemSpec]:
        if self.rng.random() < 0.45:
            body = track.opened.body if self.rng.random() < 0.6 else track.what
            shapes: tuple[str, ...] = (CHECK_DONE,)
        else:
            template = self.filler.template(keep_items.CLOSINGS).replace("{what}", track.what)
            body = capitalized(self.filler.fill(template, {"P": track.topic} if track.topic else {}))
            shapes = (BULLET, STAMPED, PARAGRAPH)
        spec = keep("action", track.topic, body, shapes=shapes, fact_key=track.key)
        spec.section = track.opened.section
        track.closed = spec
        track.closed_on = self.days[pos]
        return [spec]

    def _remind(self, track: ActionTrack, when: str) -> list[ItemSpec]:
        if self.rng.random() < 0.4:
            return [
                discard(
                    "duplicate",
                    track.topic,
                    track.opened.body,
                    shapes=(CHECK_OPEN,),
                    fact_key=track.key,
                    section="todo",
                )
            ]
        template = self.filler.template(keep_items.REMINDERS)
        body = capitalized(template.replace("{what}", track.what).replace("{when}", when))
        return [
            discard("duplicate", track.topic, body, shapes=(BULLET, STAMPED, CHECK_OPEN), fact_key=track.key)
        ]

    # ---- one-off events -------------------------------------------------------------
    def _finish(self, topic: str, kind: str) -> list[ItemSpec]:
        return [keep_items.finish(self.filler, topic, kind)]

    def _secret(self, kind: str) -> list[ItemSpec]:
        from .fake_secrets import secret_items

        specs = secret_items(self.filler, kind, self.pick_topic())
        for spec in specs:
            for secret_kind, value in spec.secrets:
                self.secrets.append((secret_kind, value, spec))
        return specs

    def _roster(self, topic: str) -> list[ItemSpec]:
        project = self.world.project(topic)
        rows = [f"| {topic} team | role | ask about |", "|---|---|---|"]
        for person in project.team:
            rows.append(f"| {person.name} | {person.role} | {self.filler.choice(project.services)} |")
        return [keep("relationship", topic, rows[0], raw=tuple(rows), fact_key=f"{topic.lower()}.roster")]

    def synthetic_key(self, topic: str | None) -> str:
        self.synthetic_keys += 1
        return f"{(topic or 'general').lower()}.note.{self.synthetic_keys:04d}"


def normalize_key(key: str) -> str:
    return re.sub(r"[^\w.\-]+", "_", key.lower()).strip("_")
