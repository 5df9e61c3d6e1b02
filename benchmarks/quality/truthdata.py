"""ground-truth.json and the note text behind each truth item."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workspace_gen.truth import ActionTruth, GroundTruth, ItemTruth

__all__ = ["ActionTruth", "GroundTruth", "ItemTruth", "TruthText", "load_truth"]


def load_truth(path: Path) -> GroundTruth:
    return cast(GroundTruth, json.loads(path.read_text(encoding="utf-8")))


class TruthText:
    """The full text of truth items (ground truth stores only their first line), read from the notes."""

    def __init__(self, source: Path, truth: GroundTruth) -> None:
        self.source = source
        self.items = {(item["file"], item["line"]): item for item in truth["items"]}
        self._lines: dict[str, list[str]] = {}

    def lines(self, file: str) -> list[str]:
        if file not in self._lines:
            self._lines[file] = (self.source / file).read_text(encoding="utf-8").split("\n")
        return self._lines[file]

    def of(self, item: ItemTruth) -> str:
        return "\n".join(self.lines(item["file"])[item["line"] - 1 : item["end_line"]])

    def at(self, file: str, line: int) -> str:
        item = self.items.get((file, line))
        return self.of(item) if item else self.lines(file)[line - 1]
