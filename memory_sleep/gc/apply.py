"""The one place GC actions take effect.

Entries of MEMORY.md change through the run's plan: `plan_edits` turns their actions into `Edit`s
(archive, with `ends` when the entry stopped being true; the merged statement as an update of the
newest original), so snapshots, undo, sleep-log.json and the loss guard cover them; the indexer then
follows the file. Every other entry changes in the sidecar (`apply_to_sidecar`): soft-deleted with
reason `gc:<strategy>` and the run's pass id (`memory-sleep restore --pass ID` brings them back),
rated, marked no longer valid with a link to what replaced it, or replaced by a new entry holding the
merged statement or summary; `memory-sleep undo` of the run puts all of it back (sleepgate/undo.py).
Review actions are only listed.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Literal

from memory_sleep.cycle.plan import DocumentEditor, Edit
from memory_sleep.gc.actions import GcAction
from memory_sleep.gc.alike_memo import JUDGED_KEY
from memory_sleep.gc.alike_memo import MEMO_KEY as ALIKE_KEY
from memory_sleep.gc.entries import LAST_RUN_AT, RATED_AT, mark_ended, memory_section, set_importance
from memory_sleep.gc.note_categories import CACHE_KEY as CATEGORIES_KEY
from memory_sleep.gc.run import GcDecision
from memory_sleep.sidecar.recall import Sidecar
from memory_sleep.sidecar.rows import EntryRow, NewEntry, gc_link, text_link
from memory_sleep.sidecar.tokenize import fts_document
from memory_sleep.sleepgate.undo import before_pass, keep_record
from memory_sleep.text import normalize
from memory_sleep.workspace.archive import ArchiveRecord
from memory_sleep.workspace.memory_doc import Entry

ENDS: dict[str, Literal["expired"]] = {
    "ttl": "expired"
}  # what an archive says stopped: an expiry ends the entry's truth


@dataclass
class GcPlan:
    """A decision checked against MEMORY.md: the edits of its entries, and what stays for the sidecar."""

    decision: GcDecision
    edits: list[Edit] = field(default_factory=list)
    in_memory_md: set[int] = field(default_factory=set)  # entries the edits take care of
    archived: list[ArchiveRecord] = field(default_factory=list)  # what the edits moved to archive.md
    reviews: list[GcAction] = field(default_factory=list)


def plan_edits(decision: GcDecision, editor: DocumentEditor, budget: int, today: date) -> GcPlan:
    """MEMORY.md's edits for the decision; actions that would remove more entries than `budget`
    (the loss guard's allowance), or name an entry MEMORY.md no longer holds as indexed, are left
    out of the run and said in `decision.skipped`."""
    plan = GcPlan(decision)
    found: dict[tuple[str | None, str], Entry] = {
        (section, entry.text): entry for _, section, entry in editor.entries()
    }
    kept: list[GcAction] = []
    for action in decision.actions:
        if action.op == "review":
            plan.reviews.append(action)
            kept.append(action)
            continue
        if action.op == "rate":
            kept.append(action)
            continue
        rows = [decision.rows[i] for i in action.ids if i in decision.rows]
        ours = [row for row in rows if memory_section(row) is not None]
        if action.op == "soft_delete" and len(rows) > 1 and ours:
            # one entry at a time, so that the budget stops at an entry, not a whole strategy
            others = [row.id for row in rows if memory_section(row) is None]
            if others:
                kept.append(action.model_copy(update={"ids": others}))
            for row in ours:
                single = action.model_copy(update={"ids": [row.id]})
                if _edits_for(plan, single, [row], found, editor, budget, today):
                    kept.append(single)
            continue
        if not ours or _edits_for(plan, action, ours, found, editor, budget, today):
            kept.append(action)
    decision.actions = kept
    return plan


def _edits_for(
    plan: GcPlan,
    action: GcAction,
    ours: Sequence[EntryRow],
    found: dict[tuple[str | None, str], Entry],
    editor: DocumentEditor,
    budget: int,
    today: date,
) -> bool:
    entries = [found.get((memory_section(row), row.text)) for row in ours]
    if any(entry is None for entry in entries):
        plan.decision.skipped.append(f"{action.strategy}: MEMORY.md changed since it was indexed; next run")
        return False
    present = [entry for entry in entries if entry is not None]
    removed = sum(1 for edit in plan.edits if edit.op == "archive")
    reason = f"gc:{action.strategy}: {action.reason}"
    edits: list[Edit] = []
    if action.op in ("merge", "summarize"):
        order = {id(entry): (ref, position) for position, (ref, _, entry) in enumerate(editor.entries())}
        newest = max(present, key=lambda entry: (entry.day or today, order[id(entry)][1]))  # same day: later
        ref = order[id(newest)][0]
        # each original ends in the entry that now holds the statement, named as a supersede names it
        kept_in = next(row.id for row, entry in zip(ours, present, strict=True) if entry is newest)
        merged_into = text_link(kept_in, action.text or "")
        if normalize(action.text or "") != normalize(newest.text):  # else the newest already says it all
            edits.append(
                Edit(
                    op="update",
                    entry=ref,
                    text=action.text,
                    day=action.day or today,
                    reason=reason,
                    evidence=merged_into,
                )
            )
        edits.extend(
            editor.archive(entry, reason, merged_into, ends="superseded")
            for entry in present
            if entry is not newest
        )
    elif action.op == "supersede":
        into = plan.decision.rows.get(action.into or 0)
        edits.extend(
            editor.archive(entry, reason, text_link(into.id, into.text) if into else None, ends="superseded")
            for entry in present
        )
    else:
        edits.extend(
            editor.archive(entry, reason, ends=ENDS.get(action.strategy)).model_copy(
                update={"day": action.day}
            )
            for entry in present
        )
    if removed + sum(1 for edit in edits if edit.op == "archive") > budget:
        plan.decision.skipped.append(
            f"{action.strategy}: would archive more of MEMORY.md than max_removal_share allows; next run"
        )
        return False
    plan.archived.extend(editor.apply(edits).archived)
    plan.edits.extend(edits)
    plan.in_memory_md.update(row.id for row in ours)
    return True


def apply_to_sidecar(sidecar: Sidecar, plan: GcPlan, now: float, keep: int = 30) -> int:
    """Write the decision's sidecar side in one transaction: nothing of it for entries of MEMORY.md,
    whose plan edits the indexer follows. With it goes the run's undo record (what it changed, the
    values it overwrote), kept for the last `keep` runs. Returns how many entries it soft-deleted."""
    store, decision = sidecar.store, plan.decision
    pass_id, today = decision.pass_id, datetime.fromtimestamp(now, UTC).date()
    ratings: dict[int, float] = {}
    removals: dict[str, list[int]] = defaultdict(list)  # reason: ids, one write per strategy
    with store.transaction():
        changes = before_pass(
            store,
            (
                decision.rows[i]
                for action in decision.actions
                if action.op == "rate"
                for i in action.ids
                if i in decision.rows
            ),
            (
                i
                for action in decision.actions
                if action.op in ("supersede", "merge", "summarize")
                for i in action.ids
                if i not in plan.in_memory_md
            ),
            (RATED_AT, LAST_RUN_AT),
        )
        for action in decision.actions:
            ids = [i for i in action.ids if i not in plan.in_memory_md]
            reason = f"gc:{action.strategy}"
            if action.op == "rate":
                ratings.update((i, action.importance or 0.0) for i in action.ids)
            elif action.op == "soft_delete":
                removals[reason].extend(ids)
            elif action.op == "supersede" and action.into is not None:
                mark_ended(
                    store,
                    ids,
                    (action.day or today).isoformat(),
                    "superseded",
                    gc_link(action.into, action.strategy),
                )
            elif action.op in ("merge", "summarize") and ids:
                into = _kept_in_memory_md(plan, action)
                if into is None:
                    into = _insert(sidecar, action, decision, now, today)
                    changes.inserted.append(into)
                # the sidecar's statuses are the archive's; the link says it was a merge or summary
                mark_ended(
                    store,
                    ids,
                    (action.day or today).isoformat(),
                    "superseded",
                    gc_link(into, action.strategy),
                )
                removals[reason].extend(ids)
        set_importance(store, ratings)
        for reason, ids in removals.items():
            store.soft_delete(ids, reason, now, pass_id)
        written = [decision.rows[i].updated_at for i in ratings if i in decision.rows]
        if written:  # the newest version rated: the clock of the index, not of the run (--today)
            store.set_meta(RATED_AT, repr(max(written)))
        store.set_meta(LAST_RUN_AT, repr(now))
        changes.deleted = [i for ids in removals.values() for i in ids]
        keep_record(store, pass_id, changes, keep)
        if decision.note_categories is not None:
            store.set_meta(CATEGORIES_KEY, decision.note_categories)
        if decision.alike_pairs is not None:
            store.set_meta(ALIKE_KEY, decision.alike_pairs)
        if decision.judged_pairs is not None:
            store.set_meta(JUDGED_KEY, decision.judged_pairs)
    return len(changes.deleted)


def _kept_in_memory_md(plan: GcPlan, action: GcAction) -> int | None:
    """The entry of MEMORY.md that now holds a merge's statement, if one of the originals was there."""
    ours = [i for i in action.ids if i in plan.in_memory_md]
    rows = plan.decision.rows
    return max(ours, key=lambda i: (rows[i].day or "", i)) if ours else None


def _insert(sidecar: Sidecar, action: GcAction, decision: GcDecision, now: float, today: date) -> int:
    """A new entry holding a merge's statement or a summary, in the scope of the originals."""
    text = action.text or ""
    first = decision.rows[action.ids[0]]
    entry = NewEntry(
        source_key=f"gc:{decision.pass_id}",
        source_path=f"gc:{action.strategy}",
        kind="note",  # a statement of its own, like a note's item; source_path says where it came from
        line_start=0,
        line_end=0,
        context="",
        text=text,
        content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest()[:24],
        day=(action.day or today).isoformat(),
        scope=first.scope,
        importance=max(decision.rows[i].importance for i in action.ids if i in decision.rows),
        expires_at=None,
        tokens=fts_document(text),
    )
    vectors = sidecar.embedder.embed([text])
    return sidecar.store.insert_entries([entry], vectors, sidecar.embedder.id, now)[0]
