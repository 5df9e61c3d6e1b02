"""What should not be in memory: near-duplicates, stale entries, closed actions, secrets, the pasted
briefing; and what should be in the briefing: open actions due soon."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from memory_sleep.text import normalize
from memory_sleep.workspace.layout import DAILY_NOTE_NAME

from .outputs import MemoryEntry, Outputs
from .simulate import History
from .textmatch import containment, informative_tokens, near_duplicates
from .truthdata import ActionTruth, GroundTruth

ACTION_SECTION = "Action items"
KEPT_AFTER_FINISH = ("Lessons", "People")  # what was learned and who people are outlive a project
ACTION_MATCH = 0.6
BRIEFING_WINDOW_DAYS = 7


@dataclass
class Duplicates:
    entries: int = 0
    duplicated: int = 0
    pairs: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.duplicated / self.entries if self.entries else 0.0


def near_duplicate_rate(
    entries: Sequence[MemoryEntry],
    about: Callable[[MemoryEntry], str | None] | None = None,
    people: Callable[[MemoryEntry], frozenset[str]] | None = None,
) -> Duplicates:
    """Share of entries with a duplicate in the same section: another at token Jaccard >= 0.6 or
    containment >= 0.8, or, when `about` tells what an entry states (the truth's fact or action),
    another about the same thing. Two entries the truth tells apart (two facts, two actions, other
    `people`) are not duplicates however alike their wording ("Wei works from Europe/London time",
    "Fatima works from Europe/London time")."""
    by_section: dict[str, list[MemoryEntry]] = defaultdict(list)
    for entry in entries:
        by_section[entry.section].append(entry)
    result = Duplicates(entries=len(entries))
    for section, members in by_section.items():
        words = [informative_tokens(entry.current) for entry in members]
        subjects = [about(entry) if about else None for entry in members]
        named = [people(entry) if people else frozenset() for entry in members]
        marked: set[int] = set()
        for i in range(len(members)):
            for j in range(i + 1, len(members)):
                alike = near_duplicates(words[i], words[j]) and not (
                    named[i] and named[j] and named[i] != named[j]
                )
                if subjects[i] and subjects[j]:
                    alike = subjects[i] == subjects[j]
                if alike:
                    marked.update((i, j))
                    result.pairs.append((section, members[i].current, members[j].current))
        result.duplicated += len(marked)
    return result


def _mentions(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name.lower())}(?![\w-])", text.lower()) is not None


@dataclass
class StaleProjects:
    total: int = 0
    handled: int = 0
    still_present: list[MemoryEntry] = field(default_factory=list)
    not_archived: list[MemoryEntry] = field(default_factory=list)
    summaries_left: list[str] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.handled / self.total if self.total else 1.0


def finished_project_entries(outputs: Outputs, truth: GroundTruth, history: History) -> StaleProjects:
    """Entries about a finished project (outside Lessons and People) still in MEMORY.md after it
    finished must be gone by the end, and in the archive."""
    finished = {
        p["name"]: date.fromisoformat(p["finished_on"]) for p in truth["projects"] if p["finished_on"]
    }
    present = {(entry.section, normalize(entry.text)) for entry in outputs.entries}
    archive = normalize(outputs.archive)
    result = StaleProjects()
    for seen in history.all_entries():
        entry = seen.entry
        if entry.section in KEPT_AFTER_FINISH:
            continue
        project = _project_of(entry, finished)
        if project is None or seen.last_night <= finished[project]:
            continue
        result.total += 1
        gone = (entry.section, normalize(entry.text)) not in present
        archived = normalize(entry.text) in archive
        if gone and archived:
            result.handled += 1
        if not gone:
            result.still_present.append(entry)
        elif not archived:
            result.not_archived.append(entry)
    result.summaries_left = sorted(name for name in outputs.project_lines if name in finished)
    return result


def _project_of(entry: MemoryEntry, projects: Iterable[str]) -> str | None:
    for name in projects:
        if entry.topic is not None and entry.topic.lower() == name.lower():
            return name
    if entry.topic is None:
        return next((name for name in projects if _mentions(entry.text, name)), None)
    return None


class ActionIndex:
    """Truth actions by their words, to tell which action a line of memory or briefing is about."""

    def __init__(self, actions: Sequence[ActionTruth]) -> None:
        self.actions = list(actions)
        self.words = [informative_tokens(action["text"]) for action in actions]

    def assign(self, line: str, day: date) -> str | None:
        """The action whose words `line` holds best (>= 60%); among equals, the latest opened by `day`."""
        words = informative_tokens(line)
        scored = [(containment(mine, words), index) for index, mine in enumerate(self.words)]
        best = max((score for score, _ in scored), default=0.0)
        if best < ACTION_MATCH:
            return None
        tied = [self.actions[index] for score, index in scored if score == best]
        opened = [a for a in tied if date.fromisoformat(a["opened"]["date"]) <= day]
        pick = max(opened, key=lambda a: a["opened"]["date"]) if opened else tied[0]
        return pick["key"]


@dataclass
class ClosedActions:
    total: int = 0
    handled: int = 0
    still_listed: list[ActionTruth] = field(default_factory=list)
    not_archived: list[ActionTruth] = field(default_factory=list)
    never_in_memory: int = 0

    @property
    def share(self) -> float:
        return self.handled / self.total if self.total else 1.0


def closed_actions(outputs: Outputs, truth: GroundTruth, history: History, last_night: date) -> ClosedActions:
    """Closed actions that were ever in "## Action items": gone from it by the end, and archived."""
    index = ActionIndex(truth["actions"])
    ever = {
        key
        for seen in history.all_entries()
        if seen.entry.section == ACTION_SECTION
        and (key := index.assign(seen.entry.current, seen.entry.day or seen.first_night))
    }
    listed = {
        key
        for entry in outputs.entries
        if entry.section == ACTION_SECTION and (key := index.assign(entry.current, entry.day or last_night))
    }
    archived = {
        key
        for line in outputs.archive.splitlines()
        if line.startswith("-") and (key := index.assign(line.split(" — from ")[0], last_night))
    }
    result = ClosedActions()
    for action in truth["actions"]:
        if action["closed"] is None:
            continue
        if action["key"] not in ever:
            result.never_in_memory += 1
            continue
        result.total += 1
        if action["key"] in listed:
            result.still_listed.append(action)
        elif action["key"] not in archived:
            result.not_archived.append(action)
        else:
            result.handled += 1
    return result


@dataclass
class BriefingActions:
    due: list[ActionTruth] = field(default_factory=list)
    missing: list[ActionTruth] = field(default_factory=list)

    @property
    def share(self) -> float:
        return 1 - len(self.missing) / len(self.due) if self.due else 1.0


def briefing_actions(outputs: Outputs, truth: GroundTruth, last_night: date) -> BriefingActions:
    """Actions still open at the end, due within 7 days either side of the last night, in the briefing."""
    index = ActionIndex(truth["actions"])
    shown = {key for line in outputs.briefing.splitlines() if (key := index.assign(line, last_night))}
    result = BriefingActions()
    for action in truth["actions"]:
        if action["closed"] is not None:
            continue
        if abs((date.fromisoformat(action["deadline"]) - last_night).days) > BRIEFING_WINDOW_DAYS:
            continue
        result.due.append(action)
        if action["key"] not in shown:
            result.missing.append(action)
    return result


def _is_original_note(relative: Path) -> bool:
    parts = relative.parts
    if not DAILY_NOTE_NAME.match(relative.name):
        return False
    return parts[:-1] in (("memory",), ("memory", "archive", "daily"))


def _needles(kind: str, value: str) -> list[bytes]:
    """What would give a secret away: the value, and for a private key each line of its body."""
    if kind == "ssh_private_key":
        return [line.encode() for line in value.splitlines() if len(line) >= 40 and "-----" not in line]
    needles = [value.encode()]
    if kind == "postgres_url" and (match := re.match(r"\w+://[^:/@]+:([^@]{6,})@", value)):
        needles.append(match.group(1).encode())
    return needles


def secret_leaks(run_dir: Path, truth: GroundTruth) -> list[tuple[str, str]]:
    """(kind, file) for every planted secret found in a file that is not an original daily note,
    the tool's state, snapshots and SQLite sidecar (with its -wal/-shm files) included."""
    found: list[tuple[str, str]] = []
    for path in sorted(run_dir.rglob("*")):
        relative = path.relative_to(run_dir)
        if not path.is_file() or _is_original_note(relative):
            continue
        content = path.read_bytes()
        for secret in truth["secrets"]:
            if any(needle in content for needle in _needles(secret["kind"], secret["value"])):
                found.append((secret["kind"], relative.as_posix()))
    return found


def pasted_briefing_relearned(outputs: Outputs, truth: GroundTruth) -> list[tuple[str, str]]:
    """(phrase, file) for each phrase of the pasted old briefing found in MEMORY.md or a weekly summary."""
    pasted = truth["pasted_briefing"]
    if pasted is None:
        return []
    files = {"MEMORY.md": outputs.memory, **{f"memory/weekly/{n}": t for n, t in outputs.weekly.items()}}
    return [
        (phrase, name)
        for phrase in pasted["phrases"]
        for name, text in files.items()
        if phrase.lower() in text.lower()
    ]
