"""Template filling: `{name}` placeholders drawn from the world, `{a|b|c}` alternatives."""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable, Mapping, Sequence
from datetime import date, timedelta
from typing import TypeVar

from . import vocab
from .halves import Half, templates
from .world import World

T = TypeVar("T")
PLACEHOLDER = re.compile(r"\{([^{}\n]+)\}")
WORD = re.compile(r"^[A-Za-z_]+\d*$")
MAX_DEPTH = 6


class Filler:
    """Fills templates for one day; a placeholder used twice in a template gets one value."""

    def __init__(
        self, rng: random.Random, world: World, pools: Mapping[str, tuple[str, ...]], half: Half = "all"
    ) -> None:
        self.rng = rng
        self.half = half
        self.world = world
        self.pools = pools
        self.today = date(2026, 1, 1)
        self.day_index = 0
        self.active: list[str] = [p.name for p in world.projects]
        self.generators: dict[str, Callable[[dict[str, str]], str]] = {
            "P": lambda c: self.choice(self.active),
            "p": lambda c: self.value("P", c).lower(),
            "person": self._person,
            "role": self._role,
            "crole": lambda c: self.world.person(c.get("contact") or self.value("contact", c)).role,
            "contact": self._contact,
            "cust": lambda c: self._project_attr(c, "customer"),
            "svc": self._service,
            "host": self._host,
            "lib": lambda c: self.choice(vocab.LIBS),
            "ver": self._project_version,
            "port": lambda c: str(self.port()),
            "pr": lambda c: str(self.rng.randint(120, 2400)),
            "ticket": self._ticket,
            "n": lambda c: str(self.rng.randint(2, 48)),
            "big": lambda c: f"{self.rng.randint(120, 9800):,}",
            "pct": lambda c: str(self.rng.randint(3, 97)),
            "ms": lambda c: str(self.rng.choice((40, 85, 120, 180, 240, 350, 420, 800, 1300))),
            "dur": lambda c: f"{self.rng.randint(0, 14)}m{self.rng.randint(1, 59):02d}s",
            "size": lambda c: (
                f"{self.rng.randint(1, 99)}.{self.rng.randint(0, 9)} " + self.choice(("MB", "GB", "GB", "kB"))
            ),
            "flag": lambda c: self.choice(vocab.FLAGS),
            "region": lambda c: self.choice(vocab.REGIONS),
            "weekday": lambda c: self.choice(vocab.WEEKDAYS[:5]),
            "date": lambda c: (self.today + timedelta(days=self.rng.randint(3, 45))).isoformat(),
            "month": lambda c: self.choice(vocab.MONTHS),
            "email": self._email,
            "money": lambda c: self.choice(("$", "€", "$")) + f"{self.rng.randint(2, 180) * 50:,}",
            "branch": lambda c: (
                f"{self.choice(vocab.BRANCH_WORDS)}/{self.choice(vocab.TOPIC_WORDS)}"
                + self.choice(("", f"-{self.rng.randint(2, 99)}", "-v2"))
            ),
            "sha": lambda c: self.hex(7),
            "emoji": lambda c: self.choice(vocab.EMOJI),
            "file": lambda c: self.choice(vocab.FILES),
            "fn": lambda c: self.choice(vocab.FUNCTIONS),
            "err": lambda c: self.choice(vocab.ERRORS),
            "env": lambda c: self.choice(vocab.ENVIRONMENTS),
            "data": lambda c: self.choice(vocab.DATA_KINDS),
            "job": lambda c: self.choice(vocab.JOBS),
            "domain": lambda c: self.choice(vocab.DOMAINS),
            "tz": lambda c: self.choice(vocab.TIMEZONES),
            "channel": lambda c: self.choice(vocab.CHANNELS),
            "q": lambda c: str(self.rng.randint(1, 4)),
            "ip": lambda c: (
                f"10.{self.rng.randint(0, 9)}.{self.rng.randint(0, 255)}.{self.rng.randint(2, 254)}"
            ),
            "topicword": lambda c: self.choice(vocab.TOPIC_WORDS),
            "path": lambda c: self.choice(vocab.API_PATHS),
            "envvar": lambda c: self.choice(vocab.ENV_VARS),
            "dom": lambda c: str(self.rng.randint(1, 28)),
            "handle": self._handle,
            "hhmm": lambda c: f"{self.rng.randint(7, 22):02d}:{self.rng.randrange(0, 60, 5):02d}",
        }

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def template(self, options: tuple[str, ...]) -> str:
        """One of a template list's entries in this filler's half (see halves.py)."""
        return self.choice(templates(options, self.half))

    def hex(self, length: int) -> str:
        return "".join(self.rng.choice("0123456789abcdef") for _ in range(length))

    def token(self, length: int, alphabet: str = string.ascii_letters + string.digits) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(length))

    def version(self) -> str:
        major = self.rng.choice((0, 1, 1, 2, 2, 3, 4))
        return f"v{major}.{self.rng.randint(0, 19)}.{self.rng.randint(0, 12)}"

    def _project_version(self, cache: dict[str, str]) -> str:
        """Versions of one project climb slowly over the run, so they stay believable."""
        if "P" not in cache:
            return self.version()
        major, minor = self.world.project(cache["P"]).version
        minor += self.day_index // 12 + self.rng.choice((-1, 0, 0, 0, 1))
        return f"v{major}.{max(0, minor)}.{self.rng.randint(0, 9)}"

    def port(self) -> int:
        if self.rng.random() < 0.5:
            return self.rng.choice((3000, 5000, 5432, 6379, 8000, 8080, 8081, 8443, 9000, 9090))
        return self.rng.randint(30, 99) * 100 + self.rng.choice((0, 0, 1, 80, 43))

    def fill(self, template: str, fixed: Mapping[str, str] | None = None) -> str:
        """Fill every placeholder of `template`; values in `fixed` win."""
        cache: dict[str, str] = dict(fixed or {})
        return self._fill(template, cache, 0)

    def fill_into(self, template: str, cache: dict[str, str]) -> str:
        """Like `fill`, but the caller sees every value drawn, through `cache`."""
        return self._fill(template, cache, 0)

    def _fill(self, template: str, cache: dict[str, str], depth: int) -> str:
        def replace(match: re.Match[str]) -> str:
            inner = match.group(1)
            if "|" in inner:
                return self._fill(self.choice(inner.split("|")), cache, depth + 1)
            if WORD.match(inner):
                return self.value(inner, cache, depth)
            return match.group(0)

        if depth > MAX_DEPTH:
            return template
        # Inner placeholders first, so `{a|b {cust}}` resolves in a second pass.
        for _ in range(4):
            filled = PLACEHOLDER.sub(replace, template)
            if filled == template:
                break
            template = filled
        return template

    def value(self, name: str, cache: dict[str, str], depth: int = 0) -> str:
        if name in cache:
            return cache[name]
        base = name.rstrip("0123456789")
        result = ""
        for _ in range(6):
            if base in self.generators:
                result = self.generators[base](cache)
            elif base in self.pools:
                result = self._fill(self.template(self.pools[base]), cache, depth + 1)
            else:
                raise KeyError(f"unknown placeholder {{{name}}}")
            if base == name or cache.get(base) != result:
                break
        cache[name] = result
        return result

    def _project_attr(self, cache: dict[str, str], attr: str) -> str:
        project = self.world.project(self.value("P", cache))
        if attr == "customer" and self.rng.random() < 0.5:
            return self.choice(vocab.CUSTOMERS)
        return str(getattr(project, attr))

    def _person(self, cache: dict[str, str]) -> str:
        project_name = cache.get("P")
        if project_name is not None and self.rng.random() < 0.8:
            team = self.world.project(project_name).team
            return self.choice([p.name for p in team])
        return self.choice([p.name for p in self.world.people])

    def _role(self, cache: dict[str, str]) -> str:
        name = cache.get("person") or self.value("person", cache)
        return self.world.person(name).role

    def _contact(self, cache: dict[str, str]) -> str:
        person = self.world.contacts[self.rng.randrange(len(self.world.contacts))]
        if "cust" not in cache and person.org:
            cache["cust"] = person.org
        return person.name

    def _service(self, cache: dict[str, str]) -> str:
        project_name = cache.get("P")
        if project_name is not None:
            return self.choice(self.world.project(project_name).services)
        return self.choice(vocab.SERVICES)

    def _host(self, cache: dict[str, str]) -> str:
        if self.rng.random() < 0.5 and "P" in cache:
            return self.choice(self.world.project(cache["P"]).hosts)
        return f"{self.choice(vocab.HOST_STEMS)}-{self.rng.randint(1, 12):02d}"

    def _ticket(self, cache: dict[str, str]) -> str:
        project_name = cache.get("P") or self.value("P", cache)
        prefix = self.world.project(project_name).ticket_prefix
        return f"{prefix}-{self.rng.randint(40, 1900)}"

    def _handle(self, cache: dict[str, str]) -> str:
        name = cache.get("person") or self.value("person", cache)
        stem = name.lower().encode("ascii", "ignore").decode() or "dev"
        return stem + self.choice(("", "-dev", "_", "-" + self.hex(2), str(self.rng.randint(7, 99))))

    def _email(self, cache: dict[str, str]) -> str:
        name = cache.get("contact") or cache.get("person") or self.value("person", cache)
        ascii_name = name.lower().encode("ascii", "ignore").decode() or "someone"
        org = cache.get("cust", "example")
        org_slug = "".join(ch for ch in org.lower() if ch.isalnum()) or "example"
        pattern = self.rng.randrange(3)
        if pattern == 1:
            ascii_name += "." + self.choice(tuple(string.ascii_lowercase))
        elif pattern == 2:
            org_slug += "-" + self.choice(("corp", "group", "hq", "mail"))
        return f"{ascii_name}@{org_slug}.example"
