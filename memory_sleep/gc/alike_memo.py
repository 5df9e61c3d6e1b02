"""Compaction's alike pairs, kept between GC passes in the sidecar's meta (`gc_alike_pairs`), with a
digest of each row's vector: a pass compares only the rows whose vector is new or changed since with
every row, and takes the last pass's pairs among the rest, so its work follows what changed, not the
length of the history. Two rows' similarity depends on their two vectors alone: the pairs found are
the ones comparing every row with every other finds.

With them, the clusters the engine declined to merge (digests of what it was shown, and of which
engine): the same cluster, shown the same way, is declined again without asking. A year of history
holds ~400 clusters the offline engine declines every night (a change, not a repeat), and its
answer depends on what it is shown alone. Only this pass's are kept. Contradiction keeps the pairs
it judged to change nothing the same way, in a memo of its own (`gc_judged_pairs`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from memory_sleep.gc.neighbours import alike_pairs, alike_pairs_with
from memory_sleep.models import EntryView
from memory_sleep.sidecar.rows import Vectors

MEMO_KEY = "gc_alike_pairs"
# contradiction's pairs the engine judged to change nothing, kept the same way: the same pair shown the
# same way to the same engine is not asked again (a steady night asked 342 pairs at 365 days, each
# answered as the night before; 97 with it)
JUDGED_KEY = "gc_judged_pairs"
_VERSION = 2
Pair = tuple[int, int, float]  # (i, j, similarity), i < j
Shown = TypeVar("Shown", bound=Sequence[EntryView])  # a cluster, a (newer, older) pair
Answer = TypeVar("Answer")


@dataclass
class _Group:
    threshold: float
    digests: dict[int, str]  # entry id: digest of its vector
    pairs: list[Pair]  # by entry ids


class AlikeMemo:
    """The last pass's pairs (`cached`, the meta's JSON) and this pass's, by group (a scope's kind)."""

    def __init__(self, cached: str | None) -> None:
        self._last, self._declined_last = _parsed(cached)
        self._now: dict[str, _Group] = {}
        self._declined_now: set[str] = set()

    def declined_before(self, cluster: str) -> bool:
        """Whether the last pass's engine declined the cluster of this digest (then kept for the next)."""
        if cluster in self._declined_last:
            self._declined_now.add(cluster)
            return True
        return False

    def declined(self, cluster: str) -> None:
        """The engine declined the cluster of this digest this pass."""
        self._declined_now.add(cluster)

    def pairs(self, group: str, ids: Sequence[int], matrix: Vectors, threshold: float) -> list[Pair]:
        """`alike_pairs(matrix, threshold)` of the rows of entries `ids`."""
        digests = [hashlib.blake2b(row.tobytes(), digest_size=8).hexdigest() for row in matrix]
        last = self._last.get(group)
        if last is None or last.threshold != threshold:
            found = alike_pairs(matrix, threshold)
        else:
            same = {
                entry_id
                for entry_id, digest in zip(ids, digests, strict=True)
                if last.digests.get(entry_id) == digest
            }
            at = {entry_id: position for position, entry_id in enumerate(ids)}
            kept = [
                (min(at[first], at[second]), max(at[first], at[second]), similarity)
                for first, second, similarity in last.pairs
                if first in same and second in same
            ]
            changed = [position for position, entry_id in enumerate(ids) if entry_id not in same]
            found = sorted(
                [*kept, *alike_pairs_with(matrix, threshold, changed)],
                key=lambda pair: (-pair[2], pair[0], pair[1]),
            )
        self._now[group] = _Group(
            threshold,
            dict(zip(ids, digests, strict=True)),
            [(ids[first], ids[second], similarity) for first, second, similarity in found],
        )
        return found

    def dumped(self) -> str:
        """This pass's groups, as the meta keeps them for the next."""
        groups = {
            name: {"threshold": group.threshold, "digests": group.digests, "pairs": group.pairs}
            for name, group in sorted(self._now.items())
        }
        declined = sorted(self._declined_now)
        return json.dumps(
            {"version": _VERSION, "groups": groups, "declined": declined}, separators=(",", ":")
        )


def asked_once(
    memo: AlikeMemo | None,
    engine: str,
    shown: Sequence[Shown],
    ask: Callable[[list[Shown]], list[Answer]],
    declines: Callable[[Answer], bool],
    declined: Answer,
) -> list[Answer]:
    """`ask(shown)`, each group of entries asked only if `engine` (its name and model) did not decline
    it last pass shown the same way (`declined` stands for its answer then); with no memo, all of them."""
    if memo is None:
        return ask(list(shown))
    keys = [_digest(engine, views) for views in shown]
    asked = [number for number, key in enumerate(keys) if not memo.declined_before(key)]
    answers = dict(zip(asked, ask([shown[n] for n in asked]) if asked else [], strict=True))
    for number in asked:
        if declines(answers[number]):
            memo.declined(keys[number])
    return [answers.get(number, declined) for number in range(len(shown))]


def _digest(engine: str, views: Sequence[EntryView]) -> str:
    shown = "\n".join([engine, *(view.model_dump_json() for view in views)])
    return hashlib.blake2b(shown.encode(), digest_size=12).hexdigest()


def _parsed(cached: str | None) -> tuple[dict[str, _Group], frozenset[str]]:
    """The meta's JSON; anything else (none yet, another version, damaged) is no memo."""
    try:
        data = json.loads(cached) if cached else None
        if not isinstance(data, dict) or data.get("version") != _VERSION:
            return {}, frozenset()
        groups = {
            str(name): _Group(
                float(group["threshold"]),
                {int(entry_id): str(digest) for entry_id, digest in group["digests"].items()},
                [
                    (int(first), int(second), float(similarity))
                    for first, second, similarity in group["pairs"]
                ],
            )
            for name, group in data["groups"].items()
        }
        return groups, frozenset(str(digest) for digest in data["declined"])
    except (ValueError, TypeError, KeyError, AttributeError):
        return {}, frozenset()
