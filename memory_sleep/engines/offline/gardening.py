"""Garbage collection's meaning without a model: conservative merges, supersedes on structure only.

A cluster merges into its most recent, most complete statement, with the clauses of the others that
carry a detail it lacks; entries that state one subject with different values do not merge (that is
a change, not a repeat: REM's tests of a change decide it). A newer entry supersedes an older one
only on structural evidence: the same subject or key with one new typed value (an IP, host, port,
version, date, amount, handle...), or the same release's claim named after a new one; the same
subject with values that differ otherwise is `uncertain`, for a person to judge. A key of one word
("Port:", "路径:") is a field of what its section is about: two entries' fields are one thing's only
when both were written in one section of one note. A wrong supersede hides the truth, so everything
else is left standing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_sleep.engines.base import PairJudgement
from memory_sleep.engines.offline.closing import another_task
from memory_sleep.engines.offline.matching import measure_alike, names, people_differ, subject
from memory_sleep.engines.offline.repeats import echoes, remark_ahead
from memory_sleep.engines.offline.statements import (
    demotes,
    first_clause,
    other_releases,
    releases,
    reordered,
    swapped,
)
from memory_sleep.engines.offline.values import (
    changed_value,
    changes_away,
    current_claim,
    key_value,
    replaced_values,
    typed_values,
)
from memory_sleep.engines.offline.wording import LEAD
from memory_sleep.engines.related import covers
from memory_sleep.gc.details import is_open_action, key_details, lost_details, names_in
from memory_sleep.models import EntryView
from memory_sleep.text import counted, similarity, tokens, without_history

_CLAUSE = re.compile(r"(?<=[.;])\s+|,\s+(?=\D)")
_LINE_START = re.compile(r"^\s*(?:[-*+]\s+|\d{1,3}[.)]\s+)?(?:\[[ xX]\]\s+)?(?:\[?\d{1,2}:\d{2}\b\]?\s*)?")
# "Phase 1", "**Step 2 (NOW)**": a key that is a numbered part of a list, one of several
_NUMBERED_PART = re.compile(r"^\W*(?:[^\W\d_]+\s+)+\d{1,3}\W*(?:\([^)]*\)\W*)?$")
_WORD = re.compile(r"[\w.-]*\w")
SHORT_VALUE = 40  # "Proseware contact: Jo": a key's value this short is one value, not a note
SAME_WORDS = 0.6  # of the shorter statement's content words, the share the other must have


class OfflineGardener:
    def merge(self, clusters: Sequence[Sequence[EntryView]]) -> list[str | None]:
        return [merged_statement(cluster) for cluster in clusters]

    def judge(self, pairs: Sequence[tuple[EntryView, EntryView]]) -> list[PairJudgement]:
        return [judge_pair(newer.text, older.text, one_place(newer, older)) for newer, older in pairs]

    def summarize(self, entries: Sequence[EntryView]) -> str:
        return archive_summary(entries)


def merged_statement(cluster: Sequence[EntryView]) -> str | None:
    """The most recent and most complete statement, with the clauses of the others that carry what it
    lacks; None when two of them state one subject with different values (`_a_change`: a change, not
    a repeat), are two open actions, share too few words, or span lines."""
    texts = [without_history(entry.text) for entry in cluster]
    if len(set(texts)) == 1:
        return texts[0]
    if any("\n" in text.strip() for text in texts):
        return None  # lines of a list or a table: parts of a whole, not one statement
    actions = [
        text for entry, text in zip(cluster, texts, strict=True) if is_open_action(entry.section, text)
    ]
    if any(
        not (covers(a, b) and covers(b, a)) or another_task(a, b, frozenset(), boxed=True)
        for a in actions
        for b in actions
        if a is not b
    ):
        return None  # two tasks, however alike their words ("rotate the staging cert", "... sandbox cert")
    pairs = [(a, b) for index, a in enumerate(texts) for b in texts[index + 1 :]]
    if any(_a_change(a, b) or similarity(tokens(a), tokens(b)) < SAME_WORDS for a, b in pairs):
        return None
    known = frozenset().union(*(names_in(text) for text in texts))
    ranked = sorted(
        cluster, key=lambda e: (e.day is not None, e.day, len(key_details(e.text, known)), len(e.text))
    )
    merged = _clause(without_history(ranked[-1].text))
    for entry in reversed(ranked[:-1]):
        text = without_history(entry.text)
        itself = [text] if is_open_action(entry.section, text) else []  # an open action must be restated
        if not lost_details([text], merged, itself):
            continue
        missing = lost_details([text], merged)
        clauses = [_clause(c) for c in _CLAUSE.split(text) if any(_names(c, d) for d in missing)]
        merged = f"{merged}; {'; '.join(clauses)}" if clauses else merged
        if lost_details([text], merged, itself):
            merged = f"{merged}; {_clause(text)}"
    return merged


def _a_change(a: str, b: str) -> bool:
    """The two state one subject with different values, as REM tells a change from a repeat: a
    typed value of one kind differs, one says gone a value the other claims, the same key has
    another value, or one names after a new claim what the other claimed of the same release
    ("v0.15 now ships SSO; audit log v2 slips" after "v0.15 now ships audit log v2"); or the same
    sentence has other words in place of some, or names other people, and neither echoes the other
    ("... the design for the new export flow" and "... for the new migration flow", not "Vela
    search language: Kotlin 2.0" and "Vela search is written in Kotlin 2.0"). Merged, the old value
    would read as current."""
    if _values_differ(a, b):
        return True
    a, b = _said(a), _said(b)
    key_a, key_b = key_value(current_claim(a)), key_value(current_claim(b))
    same_releases = bool(releases(a)) and releases(a) == releases(b)
    if (
        (changes_away(a, b) and replaced_values(a) != replaced_values(b))  # both: one change, said twice
        or (
            key_a is not None
            and key_b is not None
            and tokens(key_a[0]) == tokens(key_b[0])
            and tokens(key_a[1]) != tokens(key_b[1])
            and _short_value(a)
            and _short_value(b)  # a key before a long value labels a statement, not a field
        )
        or (same_releases and (demotes(a, b) or demotes(b, a)))
        or reordered(a, b)
    ):
        return True
    claim_a, claim_b = current_claim(a), current_claim(b)
    # what each claims, before its details: "..., owner Ana" and "...; ask @ana first" add to one claim
    claims = [_CLAUSE.split(claim, maxsplit=1)[0] for claim in (claim_a, claim_b)]
    return (swapped(*claims) or people_differ(first_clause(a), first_clause(b))) and not (
        echoes(claim_a, claim_b, frozenset()) or echoes(claim_b, claim_a, frozenset())
    )


def _said(text: str) -> str:
    """What a line says: without its list marks and time of day (when it was written), and a lead-in
    remark ahead of it ("Again for the record: X" says X; "Android: approved, X" is no remark)."""
    line = _statement(text)
    remark = remark_ahead(line, frozenset(), lead_in=True)
    return remark[1] if remark else line


def _clause(text: str) -> str:
    return text.strip().removeprefix("- ").strip().rstrip(" .:;,")


def _names(clause: str, detail: str) -> bool:
    return detail in (value.lower() for value in key_details(clause, frozenset([detail])))


def _values_differ(a: str, b: str) -> bool:
    values_a, values_b = typed_values(current_claim(a)), typed_values(current_claim(b))
    for kind in values_a.keys() & values_b.keys():
        if values_a[kind].isdisjoint(values_b[kind]) and (kind != "number" or measure_alike(a, b)):
            return True
    return False


def one_place(newer: EntryView, older: EntryView) -> bool:
    """Both were written in one section of one note (a MEMORY.md entry: where its note item stood)."""
    if newer.source is None or older.source is None:
        return False
    same_note = newer.source.rsplit(":", 1)[0] == older.source.rsplit(":", 1)[0]
    return same_note and newer.source_headings == older.source_headings


def judge_pair(newer: str, older: str, one_place: bool = False) -> PairJudgement:
    """Supersedes on one changed typed value of the same subject or key; uncertain when the subject is
    the same and values differ otherwise; else the two stand side by side. A key of one word
    ("Port:", "路径:") is a field of whatever its section is about: it names the same thing in two
    entries only when both were written in `one_place` (one section of one note)."""
    new_claim, old_claim = _statement(current_claim(newer)), _statement(current_claim(older))
    key_new, key_old = _key(new_claim), _key(old_claim)
    if key_new is not None and key_new == key_old and _field(new_claim):
        if not one_place:
            return PairJudgement("unrelated", "the same field, written in two places: of two things")
        if _values_name_two(new_claim, old_claim):  # "dependabot: merged 8 PRs for Pavo", "... for Vela"
            return PairJudgement("same_subject_different_fact", "the same field of two named things")
    # "Lea: build 205 on Monday" and "Lea: „... den 26.“": a key before a long value says who spoke
    same_key = (
        key_new is not None and key_new == key_old and _short_value(new_claim) and _short_value(old_claim)
    )
    if any(_numbered_part(claim) for claim in (new_claim, old_claim)):
        # "Phase 1: Hybrid Search" of a research plan and "Phase 1: Services" of a business plan
        return PairJudgement("unrelated", "a numbered part of a list names no subject of its own")
    if other_releases(new_claim, old_claim):  # "v1.10.2 will ship X" says nothing of v1.9.4
        return PairJudgement("same_subject_different_fact", "the same words about another release")
    said_new, said_old = _statement(without_history(newer)), _statement(without_history(older))
    if releases(said_new) and releases(said_new) == releases(said_old) and demotes(said_new, said_old):
        # as REM: "v0.15 now ships SSO; audit log v2 slips" after "v0.15 now ships audit log v2"
        return PairJudgement("supersedes", "the release's claim is now another, the old one named after it")
    about_new, about_old = subject(new_claim), subject(old_claim)
    keyed = key_new is not None and key_old is not None  # then only the key says what they are about
    # a label may hold whose statement it is ("Decision for Pavo: bugs only until ..."), which the
    # subject leaves out with the label: first clauses that each name someone or something the other
    # does not are about two
    same_subject = same_key or (
        not keyed
        and bool(about_new)
        and about_new == about_old
        and not people_differ(first_clause(new_claim), first_clause(old_claim))
    )
    if not same_subject:
        if about_new & about_old:
            return PairJudgement("same_subject_different_fact", "related subjects, different attributes")
        return PairJudgement("unrelated", "different subjects")
    if not _values_differ(new_claim, old_claim):
        if same_key and tokens(new_claim) != tokens(old_claim):
            return PairJudgement("uncertain", "the same key with another value, of no type to compare")
        return PairJudgement("same_subject_different_fact", "same subject, no value of one kind differs")
    old_value = changed_value(newer, older)
    if old_value is not None and _one_kind_changed(new_claim, old_claim):
        return PairJudgement("supersedes", f"{old_value} is now stated otherwise")
    return PairJudgement("uncertain", "same subject, values differ in more than one way")


def _statement(text: str) -> str:
    """The text without the bullet or list number, checkbox and time of day a note line starts with:
    "09:00 deployed v0.8.3" says when it happened, and a later line's other time changes nothing."""
    return _LINE_START.sub("", text)


def _key(text: str) -> frozenset[str] | None:
    """What a "Key: value" statement's key names, when it names something."""
    keyed = key_value(text)
    named = subject(keyed[0]) if keyed else frozenset()
    return named or None


def _field(text: str) -> bool:
    """Its key is one word ("Port", "访问地址", "dependabot"), which names no subject of its own."""
    keyed = key_value(text)
    return bool(keyed and len(_WORD.findall(keyed[0])) == 1)


def _values_name_two(new: str, old: str) -> bool:
    """Each key's value names a thing (someone, a project, a channel) the other's does not."""
    values = [keyed[1] if (keyed := key_value(text)) else text for text in (new, old)]
    named = [names(value) | typed_values(value).get("channel", frozenset()) for value in values]
    return bool(named[0] - named[1]) and bool(named[1] - named[0])


def _numbered_part(text: str) -> bool:
    """Its key, after the lead-in its list hangs from ("3-phase plan › Phase 1: Services"), numbers a
    part of a list."""
    keyed = key_value(text)
    return bool(keyed and _NUMBERED_PART.match(keyed[0].rpartition(LEAD)[2]))


def _short_value(text: str) -> bool:
    keyed = key_value(text)
    return len((keyed[1] if keyed else text).strip()) <= SHORT_VALUE


def _one_kind_changed(new: str, old: str) -> bool:
    values_new, values_old = typed_values(new), typed_values(old)
    changed = [k for k in values_new.keys() & values_old.keys() if values_new[k].isdisjoint(values_old[k])]
    return len(changed) == 1


def archive_summary(entries: Sequence[EntryView]) -> str:
    """Every entry, grouped by where it stood and in date order, said once: an extractive summary
    that keeps each one's details (offline, nothing is paraphrased)."""
    dated = sorted(entries, key=lambda e: (e.day is None, e.day))
    days = [entry.day for entry in dated if entry.day is not None]
    span = f", {days[0].isoformat()} to {days[-1].isoformat()}" if days else ""
    groups: dict[str, list[str]] = {}
    for entry in dated:
        where = entry.section.removeprefix("Archive · ") or "Archive"
        lines = groups.setdefault(where, [])
        text = without_history(entry.text).rstrip(" .")
        if text not in lines:
            lines.append(text)
    body = " | ".join(f"{where}: {'; '.join(lines)}" for where, lines in groups.items())
    return f"Archived {counted(len(entries), 'entry', 'entries')}{span}. {body}"
