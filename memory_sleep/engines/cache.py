"""Response cache in memory/.sleep/llm-cache: rerunning over the same notes costs no call and no token.

Keyed by template and its version, model, answer schema and the exact rendered input; one small JSON file per
answer, written atomically. Entries not used for `max_age_days` are pruned.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from memory_sleep.engines.model import AnswerT, Prompt
from memory_sleep.engines.schemas import json_schema
from memory_sleep.workspace.atomic import atomic_write

CACHE_VERSION = "1"


class ResponseCache:
    """Validated answers by key; a corrupt or outdated file is a miss, never an error."""

    def __init__(self, folder: Path, max_age_days: int = 60) -> None:
        self.folder = folder
        self.max_age_seconds = max_age_days * 86_400
        self.hits = 0
        self._pruned = False

    @staticmethod
    def key(prompt: Prompt, model: str, schema: type[BaseModel]) -> str:
        parts = [
            CACHE_VERSION,
            prompt.template,
            prompt.version,
            model,
            json.dumps(json_schema(schema), sort_keys=True),
            prompt.instructions,
            prompt.data,
        ]
        return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()

    def get(self, key: str, schema: type[AnswerT]) -> AnswerT | None:
        path = self._path(key)
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            answer = schema.model_validate(stored["answer"])
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            return None
        self.hits += 1
        with contextlib.suppress(OSError):
            os.utime(path, (time.time(), time.time()))  # last use, on the same clock as prune()
        return answer

    def put(self, key: str, answer: BaseModel) -> None:
        self._write(key, {"answer": answer.model_dump(mode="json"), "saved": time.time()})

    def _write(self, key: str, payload: dict[str, Any]) -> None:
        path = self._path(key)
        try:
            atomic_write(path, json.dumps(payload).encode("utf-8"))
            os.utime(path, (payload["saved"], payload["saved"]))
        except OSError:
            return  # a cache that cannot be written only costs a call next time
        if not self._pruned:
            self._pruned = True
            self.prune()

    def put_unusable(self, key: str, problem: str) -> None:
        """Remember that the model's answers to this prompt were unusable after every repair: the same
        prompt to the same model is decided offline without asking again (a second run calls no model)."""
        self._write(key, {"unusable": problem, "saved": time.time()})

    def unusable(self, key: str) -> str | None:
        """Why the answers to this prompt were unusable last time, or None when they were not (or unknown)."""
        try:
            stored = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        problem = stored.get("unusable") if isinstance(stored, dict) else None
        return problem if isinstance(problem, str) else None

    def prune(self) -> int:
        """Delete answers not used for max_age_days; returns how many."""
        cutoff = time.time() - self.max_age_seconds
        removed = 0
        for path in self.folder.glob("*/*.json"):
            try:
                if path.stat().st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except OSError:
                continue
        return removed

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"
