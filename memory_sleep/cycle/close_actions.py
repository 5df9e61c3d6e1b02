"""The end of REM: archive the open actions that later notes report done, as the engine decides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memory_sleep.cycle.plan import DocumentEditor, Edit
from memory_sleep.engines.base import Closer
from memory_sleep.models import Closure, EntryView, KeptItem, NoteItem
from memory_sleep.workspace.memory_doc import SECTION_FOR

ACTIONS = SECTION_FOR["action"]


def close_done_actions(
    editor: DocumentEditor,
    completions: Sequence[KeptItem],
    closer: Closer,
    written: Mapping[str, NoteItem],
) -> tuple[list[Edit], list[str]]:
    """Archive edits for the open actions the engine finds closed by `completions`, and the closures
    refused: one naming no open action or no note of this run, a second closure of the same action or
    by the same note, or a note item written before the action it would close. `written`: the items
    this run placed, by id, which tell where the actions this run added were written."""
    if not completions:
        return [], []
    refs = {
        view.ref: (plan_ref, _with_source(plan_ref, view, written))
        for plan_ref, view in editor.views()
        if view.section == ACTIONS
    }
    if not refs:
        return [], []
    by_item = {kept.item.id: kept for kept in completions}
    actions = [view for _, view in refs.values()]
    edits: list[Edit] = []
    refused: list[str] = []
    closed: set[str] = set()
    closing: set[str] = set()
    for closure in closer.close(completions, actions, sorted(editor.document.projects())):
        problem = _problem(closure, by_item, refs, closed, closing)
        if problem:
            refused.append(f"close {closure.target} by item {closure.item_id}: {problem}")
            continue
        kept, (plan_ref, _) = by_item[closure.item_id], refs[closure.target]
        closed.add(closure.target)
        closing.add(closure.item_id)
        source = kept.item.source
        edits.append(
            Edit(
                op="archive",
                entry=plan_ref,
                item=kept.item.id,
                text=refs[closure.target][1].text,
                day=kept.item.day,
                reason=f"done ({source})",
                evidence=source,
                ends="done",
            )
        )
    order = {plan_ref: position for position, (plan_ref, _) in enumerate(refs.values())}
    return sorted(edits, key=lambda edit: order[edit.entry or ""]), refused  # archived in document order


def _with_source(plan_ref: str, view: EntryView, written: Mapping[str, NoteItem]) -> EntryView:
    """The view of an action this run added (plan ref "I:<item id>") says which note line it came from,
    and under which headings."""
    item = written.get(plan_ref.removeprefix("I:")) if plan_ref.startswith("I:") else None
    if item is None:
        return view
    return view.model_copy(
        update={"source": item.source, "source_headings": item.headings, "source_lead": item.lead}
    )


def _problem(
    closure: Closure,
    by_item: dict[str, KeptItem],
    refs: dict[str, tuple[str, EntryView]],
    closed: set[str],
    closing: set[str],
) -> str | None:
    kept = by_item.get(closure.item_id)
    if kept is None:
        return "names no note item of this run"
    if closure.target not in refs:
        return "names no open action item"
    if closure.target in closed:
        return "that action is already closed by another note"
    if closure.item_id in closing:
        return "that note already closed an action"
    if refs[closure.target][1].written_after(kept.item):
        return "the note item was written before the action"
    return None
