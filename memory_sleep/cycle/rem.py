"""REM: integrate kept items into MEMORY.md, one validated operation per item; newer wins."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from memory_sleep.cycle.candidates import Candidates, shown
from memory_sleep.cycle.plan import DocumentEditor, Edit, EditOp
from memory_sleep.engines.base import Integrator
from memory_sleep.models import EntryView, KeptItem, Operation
from memory_sleep.workspace.archive import ArchiveRecord, displayed_entry
from memory_sleep.workspace.memory_doc import SECTION_FOR, Entry, MemoryDocument

Watch = Callable[[Sequence[Edit], int, int], None]  # a batch's edits, items left to place, items placed


@dataclass
class RemResult:
    """What REM decided: the edit plan, the operation placed for each item, what it could not place."""

    edits: list[Edit] = field(default_factory=list)
    applied: list[tuple[KeptItem, Operation]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    added: list[tuple[KeptItem, str]] = field(default_factory=list)  # with the text it was added with
    # the items that updated or superseded an entry, with its text before and after
    changed: list[tuple[KeptItem, str, str]] = field(default_factory=list)
    left: list[KeptItem] = field(default_factory=list)  # not promoted and new: left in the notes

    def integrated_ids(self) -> set[str]:
        """The items REM placed (any operation, noop included)."""
        return {kept.item.id for kept, _ in self.applied}

    def settled_ids(self) -> set[str]:
        """The items no later run needs to place: placed, or left in the notes."""
        return self.integrated_ids() | {kept.item.id for kept in self.left}

    def counts(self) -> dict[str, int]:
        """Items per operation, and those `left` in the notes (kept, not promoted to MEMORY.md)."""
        counts = {"noop": 0, "update": 0, "add": 0, "supersede": 0}
        for _, operation in self.applied:
            counts[operation.op] += 1
        return counts | {"left": len(self.left)}


def integrate(
    kept: Sequence[KeptItem],
    document: MemoryDocument,
    integrator: Integrator,
    today: date,
    batch_size: int,
    archived: Sequence[ArchiveRecord] = (),
    *,
    candidates: Candidates,
    recent: Sequence[KeptItem] = (),
    watch: Watch | None = None,
    replaced: Mapping[date, tuple[str, ...]] | None = None,
) -> RemResult:
    """The edits that integrate `kept` into `document`, batch by batch, oldest notes first; then show
    the items it added the entries recently `archived` while still true, so a new value for a fact
    trimmed for room still supersedes the old one. `document` is left as it is: each batch is shown
    its `candidates` among the entries of the document with the edits of the batches before it
    applied to a copy (and what the batch itself adds, by item id).

    A project's status changes go to its summary under `## Projects` (written by the projects phase),
    not into entries: they are recorded as an update of that summary, unless the integrator, shown
    no entry, finds one only repeats its echoes (a noop).

    Each item is sent with its echoes: the entries, `recent` kept items (earlier notes' items already
    placed or left in the notes) and earlier items of this run that say much the same by meaning, so an
    engine can tell a repeat of something it no longer shows (trimmed for room, left in the notes).
    Each entry is shown with what its day's note `replaced` (archive.superseded_by_day): a newer value of
    a key it took over ("Pavo billing language: Go 1.22" after the entry "rewritten from Elixir 1.17 to
    TypeScript" replaced "Pavo billing language: Elixir 1.17") is a newer value of the entry.

    `watch`, if given, sees each batch's edits with how many items are left to place and how many
    were placed; it may stop the run (a GuardError), and then no more echoes or batches are computed."""
    result = RemResult()
    every = sorted(kept, key=lambda k: (k.item.day, k.item.file, k.item.line_start))
    echoed = _Echoed(every, [entry.text for _, entry in document.entries()], recent, candidates)
    is_status = [bool(k.category == "status" and k.topic) for k in every]
    statuses = [echoed[number] for number, status in enumerate(is_status) if status]
    result.applied.extend(_project_statuses(statuses, integrator))
    ordered = [number for number, status in enumerate(is_status) if not status]
    editor = DocumentEditor(copy.deepcopy(document), today, replaced)
    for start in range(0, len(ordered), batch_size):
        batch = [echoed[number] for number in ordered[start : start + batch_size]]
        views, by_ref = _views(editor, candidates, batch)
        edits = _edits(batch, integrator.integrate(batch, views), by_ref, editor, result)
        result.edits.extend(edits)
        if watch is not None:
            watch(edits, len(ordered) - start - len(batch), start + len(batch))
    _supersede_archived(editor, archived, integrator, batch_size, today, result, candidates)
    return result


def _project_statuses(
    statuses: Sequence[KeptItem], integrator: Integrator
) -> list[tuple[KeptItem, Operation]]:
    """Each project status as an update of its project's summary, or the integrator's noop for one that
    only repeats an echo (asked only about those with echoes)."""
    echoed = [kept for kept in statuses if kept.echoes]
    repeats = {
        operation.item_id: operation
        for operation in (integrator.integrate(echoed, []) if echoed else [])
        if operation.op == "noop"
    }
    return [
        (
            kept,
            repeats.get(kept.item.id)
            or Operation(
                item_id=kept.item.id, op="update", target=f"project:{kept.topic}", reason="project status"
            ),
        )
        for kept in statuses
    ]


ECHO_FLOOR = 0.7  # cosine of the sidecar's embeddings at which a text may say the same as another
ECHOES = 5  # the nearest echoes an item is sent with
_MARKUP = re.compile(r"^\W*(?:\d{1,2}:\d{2}\W*)?")  # "- [ ] ", "**17:12** ", "[16:38] ": no meaning


class _Echoed:
    """The `ordered` items, each with its echoes among the entries, the recent items and the items before
    it, computed as they are asked for (in order; a run stopped early computes no more)."""

    def __init__(
        self,
        ordered: Sequence[KeptItem],
        entries: Sequence[str],
        recent: Sequence[KeptItem],
        candidates: Candidates,
    ) -> None:
        texts = [*entries, *(kept.item.text for kept in recent), *(kept.item.text for kept in ordered)]
        self._said = {
            _MARKUP.sub("", text, count=1): text for text in reversed(texts)
        }  # the first text of each
        earlier = list(
            dict.fromkeys(_MARKUP.sub("", text, count=1) for text in texts[: len(texts) - len(ordered)])
        )
        own = [_MARKUP.sub("", kept.item.text, count=1) for kept in ordered]
        reach = [
            len(earlier) + number for number in range(len(ordered))
        ]  # an item echoes what came before it
        self._found = iter(candidates.echoes(own, [*earlier, *own], reach, ECHO_FLOOR, ECHOES))
        self._echoes: list[tuple[str, ...]] = []
        self._ordered = ordered

    def __getitem__(self, number: int) -> KeptItem:
        while len(self._echoes) <= number:
            self._echoes.append(tuple(self._said[text] for text in next(self._found)))
        kept, echoes = self._ordered[number], self._echoes[number]
        return kept.model_copy(update={"echoes": echoes}) if echoes else kept


def _views(
    editor: DocumentEditor, candidates: Candidates, batch: Sequence[KeptItem]
) -> tuple[list[EntryView], dict[str, tuple[str, Entry]]]:
    """The candidate entries of a batch as an integrator sees them (refs E1, E7, ...), and each ref's
    plan ref and entry: an operation may name only an entry it was shown."""
    plan_refs = {view.ref: ref for ref, view in editor.views()}
    views = shown(candidates, [kept.item for kept in batch], [view for _, view in editor.views()])
    return views, {view.ref: (plan_refs[view.ref], editor.resolve(plan_refs[view.ref])[1]) for view in views}


def _supersede_archived(
    editor: DocumentEditor,
    archived: Sequence[ArchiveRecord],
    integrator: Integrator,
    batch_size: int,
    today: date,
    result: RemResult,
    candidates: Candidates,
) -> None:
    """Newer wins over an entry that left MEMORY.md while still true, too: an added entry the integrator
    finds superseding one takes the text it gives (the old value noted), and the archive records the old
    one superseded, so it is never offered again. Only added items are shown these, and only their
    candidates among them, so a live entry always comes first."""
    if not result.added:
        return  # nothing to supersede with: no archived entry is parsed
    dormant = _dormant(editor.document, archived)
    if not dormant:
        return
    added = {kept.item.id: (kept, text) for kept, text in result.added}
    for start in range(0, len(result.added), batch_size):
        batch = [kept for kept, _ in result.added[start : start + batch_size]]
        every = [  # re-listed per batch: a batch before may have retired one
            EntryView(
                ref=ref,
                section=record.section,
                topic=old.topic,
                text=old.text,
                day=old.day,
                replaced=editor.replaced_on(old.day),
            )
            for ref, (record, old) in dormant.items()
        ]
        views = shown(candidates, [kept.item for kept in batch], every)
        if not views:
            continue
        for operation in integrator.integrate(batch, views):
            if (
                operation.op != "supersede"
                or operation.target not in dormant
                or operation.item_id not in added
                or not operation.text
            ):
                continue
            kept, text = added[operation.item_id]
            _, entry = editor.resolve(f"I:{kept.item.id}")
            record, old = dormant[operation.target]
            if entry.text != text or (old.day and kept.item.day < old.day):
                continue  # changed again since it was added, or older than the archived entry
            del dormant[operation.target]
            edit = Edit(
                op="supersede",
                entry=f"I:{kept.item.id}",
                item=kept.item.id,
                text=" ".join(operation.text.split()),
                reason=f"superseded by {kept.item.source}",
                evidence=kept.item.source,
                retires=record.entry,
                retires_section=record.section,
            )
            editor.apply([edit])
            result.edits.append(edit)
            result.applied = [(k, operation if k is kept else op) for k, op in result.applied]


def _dormant(
    document: MemoryDocument, archived: Sequence[ArchiveRecord]
) -> dict[str, tuple[ArchiveRecord, Entry]]:
    """Archived entries whose last record moved them out while still true and that are not back in
    MEMORY.md, each under a ref ("A1", ...)."""
    live = {entry.key for _, entry in document.entries()}
    latest: dict[str, tuple[ArchiveRecord, Entry]] = {}
    for record in archived:
        found = displayed_entry(record.entry)
        if found is not None:
            key, entry = found
            latest.pop(key, None)  # keep the records in archive order
            latest[key] = (record, entry)
    kept = [pair for key, pair in latest.items() if pair[0].still_true and key not in live]
    return {f"A{number}": pair for number, pair in enumerate(kept, start=1)}


def _edits(
    batch: Sequence[KeptItem],
    operations: Sequence[Operation],
    by_ref: dict[str, tuple[str, Entry]],
    editor: DocumentEditor,
    result: RemResult,
) -> list[Edit]:
    """The integrator's operations for one batch as edits, each applied to the editor's copy at once
    (a later operation of the batch may name what an earlier one added or changed); an invalid one is
    rejected, its item carried over."""
    by_item = {kept.item.id: kept for kept in batch}
    decided: set[str] = set()
    edits: list[Edit] = []
    for operation in operations:
        kept = by_item.get(operation.item_id)
        problem = _problem(operation, kept, by_ref, decided)
        if problem or kept is None:
            result.rejected.append(f"{operation.op} for item {operation.item_id}: {problem}")
            continue
        decided.add(operation.item_id)
        if operation.op == "add" and not kept.promote:
            result.left.append(kept)  # recallable in the notes and weekly summaries, not in MEMORY.md
            continue
        target = by_ref[operation.target] if operation.target else None
        if target is not None and operation.op != "noop" and target[1].day and kept.item.day < target[1].day:
            operation = operation.model_copy(
                update={"op": "noop", "reason": "older than the entry; newer wins"}
            )
        edit = _edit(kept, operation, target)
        if edit is not None:
            before = target[1].text if target is not None else ""
            editor.apply([edit])
            edits.append(edit)
            if edit.op in ("update", "supersede") and target is not None:
                result.changed.append((kept, before, target[1].text))
        if operation.op == "add":
            by_ref[kept.item.id] = (f"I:{kept.item.id}", editor.resolve(f"I:{kept.item.id}")[1])
            result.added.append((kept, " ".join((operation.text or "").split())))
        result.applied.append((kept, operation))
    for item_id in by_item.keys() - decided:
        result.rejected.append(
            f"no operation for item {item_id} ({by_item[item_id].item.source}); carried over"
        )
    return edits


def _problem(
    operation: Operation,
    kept: KeptItem | None,
    by_ref: dict[str, tuple[str, Entry]],
    decided: set[str],
) -> str | None:
    if kept is None:
        return "names no item of this batch"
    if operation.item_id in decided:
        return "a second operation for the same item"
    if operation.op in ("update", "supersede") and not operation.target:
        return "needs the entry it changes"
    if operation.target and operation.target not in by_ref:
        return f"names entry {operation.target}, which does not exist"
    if operation.op in ("add", "update", "supersede") and not (operation.text and operation.text.strip()):
        return "empty text"
    return None


def _edit(kept: KeptItem, operation: Operation, target: tuple[str, Entry] | None) -> Edit | None:
    """One operation as an edit of the plan (a noop with no entry changes nothing and is not one)."""
    text = " ".join((operation.text or "").split())
    source = kept.item.source
    if operation.op == "noop" and target is None:
        return None
    op: EditOp
    if operation.op == "noop":
        op, reason = "keep", operation.reason or "already in memory"
    elif operation.op == "add":
        op, reason = "add", operation.reason or "new"
    elif operation.op == "supersede":
        op, reason = "supersede", f"superseded by {source}"
    else:
        op, reason = "update", f"updated by {source}"
    return Edit(
        op=op,
        entry=target[0] if target else None,
        item=kept.item.id,
        section=SECTION_FOR.get(kept.category, "Facts") if op == "add" else None,
        topic=kept.topic,
        text=text if op != "keep" else None,
        day=kept.item.day,
        reason=reason,
        evidence=source,
    )
