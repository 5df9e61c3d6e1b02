"""The figures of issue 15's "Done when" for one workspace, from the labels and what two runs left.

- KEEP recall: durable items that reached MEMORY.md: their state record is a KEEP that REM placed (any
  operation, noop included: memory held it), or a DISCARD that closed an action (archive.md records an
  action done by it: a done report that closed nothing left nothing in MEMORY.md) / durable items. A KEEP
  the engine left in the notes and weekly summaries (not promoted, no operation) is not in MEMORY.md.
- Written entries: entries of the final MEMORY.md the original did not hold. Each is matched to the
  labelled item it restates best (>= 60 % of the tokens of one in the other, "(previously: ...)" left
  out) among the labelled items whose record says they changed memory (add, update, supersede);
  entries from notes outside the sample match none and are left out of the shares. Noise share =
  matched entries whose item is routine noise (heartbeat, routine) / matched entries; not-durable share
  = matched entries whose item is labelled not durable (a DISCARD, or a KEEP that belongs in the notes
  and weekly summaries only) / matched entries: what the promotion policy let in.
- Invented projects: `### Name` under `## Projects` the runs made that match no real project's
  spelling (equal, or one contains the other, case and punctuation aside).
- Wrong supersedes: labelled items the engine superseded with, where the line noting it ("... (previously:
  X)", in MEMORY.md or archive.md) is found, X not restating the labelled earlier item; or no earlier
  item labelled at all.
- Open actions found: items labelled open actions that NREM kept as actions; and, beside it, those
  restated by an entry of `## Action items` after the runs (the stale pass may have archived them).
- Actions that are actions: of the labelled items NREM kept as actions, those labelled an open action or
  an action (the rest fill the Action items and the briefing's priorities with what is no task).
- Closes right / wrong closes: the actions archive.md says a note item closed ("done (memory/FILE:LINE)"),
  judged by labels/closures/<workspace>.json; a closure no label names is unlabelled and listed.
- Category agreement: of the items labelled KEEP that NREM kept, those it gave the labelled category (the
  section of MEMORY.md an entry lands in, and what the briefing reads as decisions and priorities).
- Recall@5: questions with an answer location among the sidecar's top 5 hits: a hit on the answer's
  note within its item's lines, or a MEMORY.md hit restating the answer item.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path

from memory_sleep.sidecar import open_sidecar
from memory_sleep.workspace.layout import Workspace, discover
from memory_sleep.workspace.state import ItemRecord, StateStore

from .closures import ClosureCounts, closed_actions, count_closures, load_closure_labels
from .labels import Labelled, NoteItems, WorkspaceLabels
from .memory import (
    ACTIONS,
    SAME,
    Written,
    best_match,
    invented_projects,
    previous_value,
    read_doc,
    says_same,
    superseded_lines,
    written_entries,
)
from .runs import Run

CHANGED_MEMORY = ("add", "update", "supersede")
TOP = 5


@dataclass(frozen=True)
class Figures:
    workspace: str
    items: int
    durable: int
    durable_kept: int
    written: int  # entries written in MEMORY.md
    written_matched: int  # of them, restating a labelled item
    written_noise: int
    written_discard: int
    written_not_durable: int
    invented: tuple[str, ...]
    supersedes: int  # supersedes of labelled items
    wrong_supersedes: tuple[str, ...]
    open_actions: int
    actions_classified: int  # kept as actions by NREM
    actions_found: int  # restated in MEMORY.md's Action items after the runs
    as_actions: int  # labelled items NREM kept as actions
    as_actions_right: int  # of them, labelled an open action or an action
    both_keep: int  # labelled KEEP and kept by NREM
    same_category: int  # of them, with the labelled category
    closures: ClosureCounts
    questions: int
    recalled: int
    first: Run
    second: Run


def records(folder: Path, labelled: Sequence[Labelled]) -> dict[str, ItemRecord | None]:
    """Each labelled item's state record (by its first line, else the record whose line its span holds)."""
    store = StateStore(Workspace.open(folder).state_dir)
    notes = {note.relative: note for note in discover(Workspace.open(folder)).notes}
    found: dict[str, ItemRecord | None] = {}
    by_file: dict[str, dict[int, ItemRecord]] = {}
    for entry in labelled:
        file = entry.item.file
        if file not in by_file:
            state = store.load_note(notes[file].name) if file in notes else None
            by_file[file] = {record.line: record for record in state.items.values()} if state else {}
        lines = by_file[file]
        record = lines.get(entry.item.line_start) or next(
            (lines[n] for n in range(entry.item.line_start, entry.item.line_end + 1) if n in lines), None
        )
        found[entry.item.source] = record
    return found


def score_workspace(
    labels: WorkspaceLabels,
    labelled: Sequence[Labelled],
    original: Path,
    folder: Path,
    runs: tuple[Run, Run],
    today: date,
) -> Figures:
    record = records(folder, labelled)
    durable = [e for e in labelled if e.label.durable]
    closed = closed_actions(folder / "memory" / "archive.md")
    closing = {c.closed_by for c in closed}  # items that closed an action, not only reported one done
    kept = [
        e
        for e in durable
        if (r := record[e.item.source])
        and (r.integrated or (r.closes_action and f"{e.item.file}:{e.item.line_start}" in closing))
    ]
    final = read_doc(folder / "MEMORY.md")
    written = written_entries(read_doc(original / "MEMORY.md"), final)
    changed = [e for e in labelled if (r := record[e.item.source]) and r.operation in CHANGED_MEMORY]
    matched = [m for m in (_source(w, changed) for w in written) if m is not None]
    superseded = [e for e in labelled if (r := record[e.item.source]) and r.operation == "supersede"]
    lines = superseded_lines(final, folder / "memory" / "archive.md")
    items = NoteItems(folder)
    wrong = tuple(e.item.source for e in superseded if not _right_supersede(e, lines, items))
    opened = [e for e in labelled if e.label.open_action]
    actions = [entry.text for section, entry in final.entries() if section.title == ACTIONS]
    found = [e for e in opened if best_match(e.item.written, actions)[0] >= SAME]
    closure_labels = load_closure_labels(original.parent / "labels" / "closures" / f"{labels.workspace}.json")
    closures = count_closures(closed, closure_labels, items)
    classified = [
        e for e in opened if (r := record[e.item.source]) and r.verdict == "KEEP" and r.category == "action"
    ]
    as_actions = [
        e for e in labelled if (r := record[e.item.source]) and r.verdict == "KEEP" and r.category == "action"
    ]
    both_keep = [
        (e, r)
        for e in labelled
        if e.label.verdict == "KEEP" and (r := record[e.item.source]) and r.verdict == "KEEP"
    ]
    return Figures(
        workspace=labels.workspace,
        items=len(labelled),
        durable=len(durable),
        durable_kept=len(kept),
        written=len(written),
        written_matched=len(matched),
        written_noise=sum(m.label.noise for m in matched),
        written_discard=sum(m.label.verdict == "DISCARD" for m in matched),
        written_not_durable=sum(not m.label.durable for m in matched),
        invented=tuple(invented_projects(read_doc(original / "MEMORY.md"), final, labels.projects.real)),
        supersedes=len(superseded),
        wrong_supersedes=wrong,
        open_actions=len(opened),
        actions_classified=len(classified),
        actions_found=len(found),
        as_actions=len(as_actions),
        as_actions_right=sum(e.label.open_action or e.label.category == "action" for e in as_actions),
        both_keep=len(both_keep),
        same_category=sum(e.label.category == r.category for e, r in both_keep),
        closures=closures,
        questions=len(labels.questions),
        recalled=recalled(labels, folder, items, today),
        first=runs[0],
        second=runs[1],
    )


def _source(entry: Written, changed: Sequence[Labelled]) -> Labelled | None:
    scored = [(says_same(e.item.written, entry.text), e) for e in changed]
    best = max(scored, key=lambda pair: pair[0], default=(0.0, None))
    return best[1] if best[0] >= SAME else None


def _right_supersede(entry: Labelled, lines: Sequence[str], items: NoteItems) -> bool:
    target = entry.label.supersedes
    if target is None:
        return False
    score, line = best_match(entry.item.written, lines)
    if line is None or score < SAME:
        return True  # the note of it is gone (archived away, rewritten): nothing shows it wrong
    earlier = items.find(target.file, target.line, target.prefix)
    return says_same(earlier.written, previous_value(line) or "") >= SAME


def recalled(labels: WorkspaceLabels, folder: Path, items: NoteItems, today: date) -> int:
    """Questions with an answer among the top hits of the sidecar's search, asked on the runs' day."""
    count = 0
    now = datetime.combine(today, time(9), tzinfo=UTC).timestamp()
    with open_sidecar(folder, clock=lambda: now) as sidecar:
        sidecar.index()
        for question in labels.questions:
            answers = [
                items.at(file, int(line)) for file, line in (a.rsplit(":", 1) for a in question.answers)
            ]
            hits = sidecar.search(question.question, k=TOP)
            count += any(
                (hit.source == answer.file and answer.line_start <= hit.line <= answer.line_end)
                or (hit.source == "MEMORY.md" and says_same(answer.written, hit.entry.text) >= SAME)
                for hit in hits
                for answer in answers
            )
    return count
