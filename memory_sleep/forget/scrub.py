"""A file's content without what a scope is the source of: its notes and their state go whole; from
MEMORY.md, the archive, weekly summaries, the briefing and the tool's logs, the entries and lines that
came from them. The same function rewrites the live files and every copy the snapshots keep, so that
no undo brings the text back."""

from __future__ import annotations

import json
from dataclasses import dataclass

from memory_sleep.cycle.memory_loss import LAST_RUN_COPY
from memory_sleep.gc.review import REVIEW_FILE
from memory_sleep.sidecar.attribution import ScopeText
from memory_sleep.workspace import sleep_log
from memory_sleep.workspace.memory_doc import Entry, MemoryDocument, ProjectBlock
from memory_sleep.workspace.state import WorkspaceState, dump

_STATE = "memory/.sleep/"
_LINES = ("memory/archive.md", "memory/briefing.md", f"{_STATE}cron.log")


@dataclass
class Scrubber:
    """Scrubs files by their workspace-relative path."""

    text: ScopeText
    gone: frozenset[str]  # the scope's notes and their state files: removed whole
    note_names: frozenset[str]

    def __call__(self, path: str, data: bytes) -> bytes | None:
        """`data` without the scope's text (the same bytes when it holds none); None: remove the file."""
        return self.scrub(path, data)[0]

    def scrub(self, path: str, data: bytes) -> tuple[bytes | None, int]:
        """The scrubbed content, and how many entries or lines it lost."""
        if path in self.gone:
            return None, 0
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return data, 0  # not a file the tool writes text into
        if path == "MEMORY.md" or path == f"{_STATE}{LAST_RUN_COPY}":
            kept, count = self._memory(text)
        elif path.startswith("memory/weekly/") or path in _LINES:
            kept, count = self._lines(text)
        elif path == "memory/sleep-log.json":
            kept, count = self._sleep_log(text)
        elif path == f"{_STATE}state.json":
            kept, count = self._state(text)
        elif path == f"{_STATE}{REVIEW_FILE}":
            kept, count = self._reviews(text)
        else:
            return data, 0
        return (data, 0) if not count else (kept.encode("utf-8"), count)

    def _memory(self, text: str) -> tuple[str, int]:
        document = MemoryDocument.parse(text)
        count = 0
        for section in document.sections:
            for block in list(section.blocks):
                if isinstance(block, Entry) and section.owned and self.text.owns(block.text):
                    document.remove_entry(block)
                    count += 1
                elif isinstance(block, ProjectBlock):
                    kept = [line for line in block.lines if not self.text.owns(line)]
                    count += len(block.lines) - len(kept)
                    block.lines[:] = kept
        return (document.render(), count) if count else (text, 0)

    def _lines(self, text: str) -> tuple[str, int]:
        lines = text.splitlines(keepends=True)
        kept = [line for line in lines if not (line.strip() and self.text.owns(line))]
        return "".join(kept), len(lines) - len(kept)

    def _sleep_log(self, text: str) -> tuple[str, int]:
        log = sleep_log.read_sleep_log(text.encode("utf-8"))
        if log is None:
            return text, 0
        count = 0
        for record in [log, *log.history]:
            kept = [warning for warning in record.warnings if not self._names_the_scope(warning)]
            count += len(record.warnings) - len(kept)
            record.warnings = kept
        return (sleep_log.render(log).decode("utf-8"), count) if count else (text, 0)

    def _names_the_scope(self, warning: str) -> bool:
        return self.text.owns(warning) or any(name in warning for name in self.note_names)

    def _reviews(self, text: str) -> tuple[str, int]:
        """GC judgements left for a person: those quoting the scope's text go."""
        try:
            reviews = json.loads(text)
        except ValueError:
            return text, 0
        if not isinstance(reviews, list):
            return text, 0
        kept = [
            review
            for review in reviews
            if not (isinstance(review, dict) and any(self.text.owns(str(t)) for t in review.get("texts", [])))
        ]
        count = len(reviews) - len(kept)
        return (json.dumps(kept, ensure_ascii=False, indent=1) + "\n", count) if count else (text, 0)

    def _state(self, text: str) -> tuple[str, int]:
        try:
            state = WorkspaceState.model_validate(json.loads(text))
        except ValueError:
            return text, 0
        count = 0
        for names in (state.folded, state.pending, state.seen):
            for name in self.note_names & set(names):
                del names[name]
                count += 1
        return (dump(state).decode("utf-8"), count) if count else (text, 0)
