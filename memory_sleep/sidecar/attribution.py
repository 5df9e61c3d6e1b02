"""Which text in the workspace a scope's notes are the source of.

A scope's notes are the notes whose front matter names it; what the tool derived from them (MEMORY.md
entries, archive records, weekly lines, briefing lines, sidecar rows) is found by the words each says:
a line comes from an item when most of the line's words are the item's (a topic, a date, a category
were added), or when it holds nearly all of the item's words (the briefing adds "due in 2 days").
A line that as well comes from another scope's note is that scope's too, and is kept.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from memory_sleep.text import tokens

LINE_SHARE = 0.75  # of the line's words that are the item's
ITEM_SHARE = 0.9  # of the item's words that the line holds
_FEW = 3


class Sources:
    """Token sets of items, with an index from each word to the items that have it."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.items = list(dict.fromkeys(found for text in texts if (found := tokens(text))))
        self._by_word: defaultdict[str, list[int]] = defaultdict(list)
        for number, item in enumerate(self.items):
            for word in item:
                self._by_word[word].append(number)

    def __len__(self) -> int:
        return len(self.items)

    def explain(self, line: frozenset[str]) -> bool:
        """Whether `line` comes from one of the items."""
        if not line:
            return False
        shared = Counter(number for word in line for number in self._by_word.get(word, ()))
        for number, overlap in shared.items():
            item = self.items[number]
            if len(line) < _FEW or len(item) < _FEW:
                if line == item:
                    return True
                continue
            if overlap / len(line) >= LINE_SHARE or (len(item) > _FEW and overlap / len(item) >= ITEM_SHARE):
                return True
        return False


class ScopeText:
    """What one scope wrote (`own`), what the others wrote, and the paths of the scope's notes."""

    def __init__(self, own: Iterable[str], others: Iterable[str], note_paths: Iterable[str]) -> None:
        self.own = Sources(own)
        self.others = Sources(others)
        self.note_paths = frozenset(note_paths)

    def owns(self, text: str) -> bool:
        """Whether `text` (a line, an entry) comes from the scope's notes and from no other scope's."""
        bare = text.strip().removeprefix("- ").removeprefix("* ").strip()
        if bare in self.note_paths:  # a weekly summary's list of the notes it folded
            return True
        words = tokens(text)
        return self.own.explain(words) and not self.others.explain(words)
