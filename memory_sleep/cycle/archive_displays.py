"""The entries archive.md's records display, as a run parsed them, kept for the next run in
memory/.sleep/archive-entries.json: every night REM reads the recent records for the dormant entries
an added item may supersede, and cleanup, GC and the index every record for the entries that stopped
being true; archive.md only grows, and parsing its lines again took ~0.1 s a night on a year of
history (7,861 records), reading them back about a third of that. A line's entry
depends on the line alone, so a kept parse is what parsing the line again gives; a line not kept
(appended or changed since) is parsed.

Kept by a digest of each line: the entry's key, its text as where it starts in the line and its
length (the text itself where the line does not hold it as it is), topic and day. A derived cache,
like candidate-vectors.npz: written atomically after a run and only when it holds other lines than
it read, only the last run's lines (it never grows past one run's), read back only by this version
of the parse, dropped by `forget`. One that cannot be read is no cache: every line is parsed.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date
from pathlib import Path

from memory_sleep.workspace.archive import UNKNOWN, Displayed, Unknown, parse_from
from memory_sleep.workspace.atomic import atomic_write

NAME = "archive-entries.json"
_VERSION = 1  # of the parse kept: a change to how a display line reads is a new version


class ArchiveDisplays:
    """The parse kept in `folder`: `start()` before a run reads archive lines, `save()` after it."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / NAME
        self._last: dict[str, object] | None = None
        self._digests: dict[str, str] = {}  # this run's lines asked for, by line
        self._read: set[str] = set()  # the digests of those read from the file
        self._now: dict[str, Displayed] = {}

    def start(self) -> None:
        """This run parses each archive line the file holds from it (read when a line is first asked)."""
        self._now = parse_from(self.earlier)

    def earlier(self, line: str) -> Displayed | Unknown:
        """What parsing `line` gave the last run (UNKNOWN for a line it did not read, or kept damaged)."""
        if self._last is None:
            self._last = _parsed(self.path)
        digest = self._digests[line] = _digest(line)
        kept = self._last.get(digest, UNKNOWN)
        if kept is None:
            self._read.add(digest)
            return None
        if not isinstance(kept, list) or len(kept) != 5:
            return UNKNOWN
        key, start, length, topic, day = kept
        if not (
            isinstance(key, str)
            and isinstance(start, int | str)
            and isinstance(length, int)
            and (topic is None or isinstance(topic, str))
            and (day is None or isinstance(day, str))
        ):
            return UNKNOWN
        try:
            found = date.fromisoformat(day) if day else None
        except ValueError:
            return UNKNOWN
        self._read.add(digest)
        return key, (line[start : start + length] if isinstance(start, int) else start, topic, found)

    def save(self) -> None:
        """Keep this run's lines for the next run (unless they are the ones read). A cache that cannot be
        written is only parsed again next time: never an error."""
        last = self._last or {}
        digests = {line: self._digests.get(line) or _digest(line) for line in self._now}
        if not digests or (len(last) == len(digests) and all(d in self._read for d in digests.values())):
            return
        kept = {
            digest: last[digest] if digest in self._read else _kept(line, self._now[line])
            for line, digest in digests.items()
        }
        data = json.dumps({"version": _VERSION, "lines": kept}, ensure_ascii=False, separators=(",", ":"))
        try:
            atomic_write(self.path, data.encode("utf-8"))
        except OSError:
            return


def _digest(line: str) -> str:
    return hashlib.blake2b(line.encode("utf-8"), digest_size=16).hexdigest()


def _kept(line: str, found: Displayed) -> list[object] | None:
    if found is None:
        return None
    key, (text, topic, day) = found
    start = line.find(text)
    return [key, start if start >= 0 else text, len(text), topic, day.isoformat() if day else None]


def _parsed(path: Path) -> dict[str, object]:
    """The file's lines; anything else (none yet, another version, damaged) is no cache."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    if (
        not isinstance(data, dict)
        or data.get("version") != _VERSION
        or not isinstance(data.get("lines"), dict)
    ):
        return {}
    lines: dict[str, object] = data["lines"]
    return lines
