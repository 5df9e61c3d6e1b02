"""Which structured-output mode each OpenAI-compatible server accepts, remembered across runs.

llama-cpp-python's server answers `response_format` type `json_schema` with an error ("Input
should be 'text' or 'json_object'"); once a server has said so, later runs ask it in JSON mode
straight away instead of spending a failed request every night. Kept in memory/.sleep/llm-servers.json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from memory_sleep.workspace.atomic import atomic_write

Mode = Literal["json_schema", "json_object"]


class ServerModes:
    """base_url -> the mode that server accepts; a missing or unreadable file knows nothing."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def get(self, base_url: str) -> Mode | None:
        mode = self._read().get(base_url)
        return mode if mode in ("json_schema", "json_object") else None  # type: ignore[return-value]

    def remember(self, base_url: str, mode: Mode) -> None:
        if self.path is None:
            return
        known = {**self._read(), base_url: mode}
        try:
            atomic_write(self.path, (json.dumps(known, indent=2, sort_keys=True) + "\n").encode("utf-8"))
        except OSError:
            return  # not remembering only costs one failed request next run

    def _read(self) -> dict[str, str]:
        if self.path is None:
            return {}
        try:
            known = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in known.items()} if isinstance(known, dict) else {}
