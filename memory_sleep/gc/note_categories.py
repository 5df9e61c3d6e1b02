"""What NREM decided for each note's items (a category, or why it discarded the item), by line, as
GC reads it from the note-state files. The last GC pass's reading is kept in the sidecar's meta
(`gc_note_categories`) with a digest of each state file's bytes, so a night parses only the state
files that changed since (hashing them all costs a few ms; parsing them, most of a second)."""

from __future__ import annotations

import hashlib
import json

from memory_sleep.workspace.state import StateStore

CACHE_KEY = "gc_note_categories"
_VERSION = 1


class NoteCategories:
    """Each note's {line: category or discard reason}, from `cached` (the meta's JSON) where the
    note's state file is unchanged, else from the file."""

    def __init__(self, store: StateStore, cached: str | None) -> None:
        self.store = store
        self._cached = _parsed(cached)
        self._read: dict[str, tuple[str, dict[int, str]]] = {}

    def of(self, name: str) -> dict[int, str]:
        """The note `name`'s items' categories by line (none without a state file)."""
        if name in self._read:
            return self._read[name][1]
        try:
            digest = hashlib.blake2b(self.store.note_file(name).read_bytes(), digest_size=16).hexdigest()
        except FileNotFoundError:
            return {}
        cached = self._cached.get(name)
        if cached is not None and cached[0] == digest:
            lines = cached[1]
        else:
            state = self.store.load_note(name)
            lines = {
                record.line: str(what)
                for record in (state.items.values() if state else ())
                if (what := record.category or record.discard_reason)
            }
        self._read[name] = (digest, lines)
        return lines

    def dumped(self) -> str:
        """The notes read this pass, as the meta keeps them for the next."""
        notes = {name: [digest, lines] for name, (digest, lines) in sorted(self._read.items())}
        return json.dumps({"version": _VERSION, "notes": notes}, ensure_ascii=False, separators=(",", ":"))


def _parsed(cached: str | None) -> dict[str, tuple[str, dict[int, str]]]:
    """The meta's JSON; anything else (none yet, another version, damaged) is an empty cache."""
    try:
        data = json.loads(cached) if cached else None
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            return {}
        return {
            str(name): (str(digest), {int(line): str(what) for line, what in lines.items()})
            for name, (digest, lines) in data["notes"].items()
        }
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return {}
