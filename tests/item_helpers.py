"""Note items for unit tests of the phases and the offline engine."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date

from memory_sleep.cycle import guards, rem
from memory_sleep.cycle.candidates import Candidates, HybridCandidates
from memory_sleep.cycle.plan import Applied, DocumentEditor, Edit
from memory_sleep.engines.base import Integrator
from memory_sleep.engines.offline.curate import OfflineCurator
from memory_sleep.models import EntryJudgement, EntryView, ItemKind, KeptItem, NoteItem, Operation
from memory_sleep.sidecar.embed import OfflineEmbedder
from memory_sleep.workspace.archive import ArchiveRecord
from memory_sleep.workspace.memory_doc import MemoryDocument
from memory_sleep.workspace.stamps import split_stamps


def note_item(text: str, day: date = date(2026, 11, 20), kind: ItemKind = "line") -> NoteItem:
    """One item of the day's note, at line 3, read as the parser reads it (its leading stamps apart)."""
    stamp, said = split_stamps(text)
    file = f"memory/{day.isoformat()}.md"
    return NoteItem(id="i1", file=file, day=day, line_start=3, line_end=3, kind=kind, text=said, stamp=stamp)


class ScriptedIntegrator:
    """An Integrator that gives one queued answer per call and records the entries each call was shown."""

    def __init__(self, *answers: list[Operation]) -> None:
        self.answers = list(answers)
        self.shown: list[Sequence[EntryView]] = []

    def integrate(self, items: Sequence[KeptItem], entries: Sequence[EntryView]) -> list[Operation]:
        self.shown.append(entries)
        return self.answers.pop(0)


def integrate_and_apply(
    kept: Sequence[KeptItem],
    document: MemoryDocument,
    integrator: Integrator,
    today: date,
    batch_size: int,
    archived: Sequence[ArchiveRecord] = (),
    candidates: Candidates | None = None,
    recent: Sequence[KeptItem] = (),
    replaced: Mapping[date, tuple[str, ...]] | None = None,
) -> tuple[rem.RemResult, Applied]:
    """REM's plan for `kept`, and what applying it to `document` did, as a run applies it (by default
    with a run's candidate step and the offline embedder)."""
    step = candidates or HybridCandidates(OfflineEmbedder())
    result = rem.integrate(
        kept,
        document,
        integrator,
        today,
        batch_size,
        archived,
        candidates=step,
        recent=recent,
        replaced=replaced,
    )
    return result, DocumentEditor(document, today).apply(result.edits)


def archived_by(
    document: MemoryDocument, today: date, plan: Callable[[DocumentEditor], list[Edit]]
) -> list[ArchiveRecord]:
    """Apply the edits a phase plans for `document` (as a run does); what they archived."""
    editor = DocumentEditor(document, today)
    return editor.apply(plan(editor)).archived


def judged(editor: DocumentEditor, today: date) -> dict[str, EntryJudgement]:
    """The offline engine's judgements of the editor's entries, by plan ref, as a run passes them on."""
    return guards.judged(editor, OfflineCurator(), today)
