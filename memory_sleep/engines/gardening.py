"""Garbage collection's decisions through the model: merges, supersedes and archive summaries.

Each is one call per batch. A merge or a summary that drops a number, date, name, handle or open action
of an original is sent back to the model with what it dropped; a batch still unusable after that is
decided by the offline engine, with a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memory_sleep.engines.base import Gardener, PairJudgement
from memory_sleep.engines.calls import Ask, ModelCalls
from memory_sleep.engines.redact import redact
from memory_sleep.engines.related import entry_data
from memory_sleep.engines.schemas import ArchiveSummaryAnswer, JudgeAnswer, MergeAnswer
from memory_sleep.gc.details import is_open_action, lost_details
from memory_sleep.models import EntryView
from memory_sleep.text import counted, shorten

MERGED_MAX_CHARS = 500


def _one_line(text: str) -> str:
    return redact(" ".join(text.split()), "a garbage-collection answer")


def _problems_with(text: str, entries: Sequence[EntryView], what: str) -> list[str]:
    actions = [entry.text for entry in entries if is_open_action(entry.section, entry.text)]
    lost = lost_details([entry.text for entry in entries], text, actions)
    if not lost:
        return []
    return [f"{what} drops {shorten(', '.join(lost), 200)}: keep each exactly as written"]


def _each_once(seen: Sequence[str], refs: Sequence[str], noun: str) -> list[str]:
    problems = [f"{ref}: no such {noun} (only {', '.join(refs)} exist)" for ref in seen if ref not in refs]
    problems.extend(
        f"{ref} needs exactly one answer (got {seen.count(ref)})" for ref in refs if seen.count(ref) != 1
    )
    return problems


class LLMGardener:
    def __init__(self, calls: ModelCalls, fallback: Gardener) -> None:
        self.calls, self.fallback = calls, fallback

    def merge(self, clusters: Sequence[Sequence[EntryView]]) -> list[str | None]:
        if not clusters:
            return []
        refs = {f"C{number}": cluster for number, cluster in enumerate(clusters, start=1)}
        values: dict[str, Any] = {
            "clusters": [{"id": ref, "entries": entry_data(cluster)} for ref, cluster in refs.items()],
            "entry_max_chars": MERGED_MAX_CHARS,
        }
        if len(clusters) > 1 and self.calls.too_large("gc_merge.md.j2", values):
            half = len(clusters) // 2
            return [*self.merge(clusters[:half]), *self.merge(clusters[half:])]
        answer = self.calls.ask(
            Ask(
                phase="gc",
                template="gc_merge.md.j2",
                values=values,
                schema=MergeAnswer,
                what=f"merging {counted(len(clusters), 'cluster')} of alike entries",
                check=lambda answer: _merge_problems(answer, refs),
            )
        )
        if answer is None:
            return self.fallback.merge(clusters)
        by_ref = {merge.cluster: merge for merge in answer.merges}
        return [_one_line(by_ref[ref].text or "") if by_ref[ref].same else None for ref in refs]

    def judge(self, pairs: Sequence[tuple[EntryView, EntryView]]) -> list[PairJudgement]:
        if not pairs:
            return []
        refs = [f"P{number}" for number in range(1, len(pairs) + 1)]
        views = [
            {"id": ref, "newer": entry_data([newer])[0], "older": entry_data([older])[0]}
            for ref, (newer, older) in zip(refs, pairs, strict=True)
        ]
        values = {"pairs": views}
        if len(pairs) > 1 and self.calls.too_large("gc_judge.md.j2", values):
            half = len(pairs) // 2
            return [*self.judge(pairs[:half]), *self.judge(pairs[half:])]
        answer = self.calls.ask(
            Ask(
                phase="gc",
                template="gc_judge.md.j2",
                values=values,
                schema=JudgeAnswer,
                what=f"judging {counted(len(pairs), 'pair')} of newer and older entries",
                check=lambda answer: _each_once([j.pair for j in answer.judgements], refs, "pair"),
            )
        )
        if answer is None:
            return self.fallback.judge(pairs)
        by_ref = {judgement.pair: judgement for judgement in answer.judgements}
        return [PairJudgement(by_ref[ref].verdict, by_ref[ref].reason[:200]) for ref in refs]

    def summarize(self, entries: Sequence[EntryView]) -> str:
        answer = self.calls.ask(
            Ask(
                phase="gc",
                template="gc_summarize.md.j2",
                values={"entries": entry_data(entries)},
                schema=ArchiveSummaryAnswer,
                what=f"summary of {counted(len(entries), 'archived entry', 'archived entries')}",
                check=lambda answer: _summary_problems(answer, entries),
            )
        )
        if answer is None:
            return self.fallback.summarize(entries)
        return _one_line(answer.text)


def _merge_problems(answer: MergeAnswer, refs: dict[str, Sequence[EntryView]]) -> list[str]:
    problems = _each_once([merge.cluster for merge in answer.merges], list(refs), "cluster")
    for merge in answer.merges:
        if not merge.same or merge.cluster not in refs:
            continue
        text = " ".join((merge.text or "").split())
        if not text:
            problems.append(f"{merge.cluster}: same is true but the text is empty; give the one statement")
        elif len(text) > MERGED_MAX_CHARS:
            problems.append(f"{merge.cluster}: text over {MERGED_MAX_CHARS} characters; one line")
        else:
            problems.extend(_problems_with(text, refs[merge.cluster], f"{merge.cluster}'s statement"))
    return problems


def _summary_problems(answer: ArchiveSummaryAnswer, entries: Sequence[EntryView]) -> list[str]:
    if not answer.text.strip():
        return ["the summary is empty"]
    return _problems_with(answer.text, entries, "the summary")
