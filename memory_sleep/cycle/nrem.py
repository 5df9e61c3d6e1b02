"""NREM: read the notes that need it, split them into items, classify the items not seen before."""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from memory_sleep.cycle.candidates import Candidates, shown
from memory_sleep.engines.base import Classifier, ClassifyContext
from memory_sleep.engines.cards import card_fields, section_openers
from memory_sleep.engines.dialogue import conversation_items
from memory_sleep.engines.pairs import Pair, pairs, stated
from memory_sleep.engines.recurrence import Recurrence, note_shapes
from memory_sleep.engines.redact import only_secrets, redact_items
from memory_sleep.models import Classification, NoteItem
from memory_sleep.sidecar.sources import NOISE
from memory_sleep.text import counted
from memory_sleep.workspace.layout import NoteFile
from memory_sleep.workspace.note_read import NoteReadError
from memory_sleep.workspace.note_secrets import run_warnings, sightings_in_items
from memory_sleep.workspace.notes import read_note
from memory_sleep.workspace.state import ItemRecord, NoteState

RECORD_TEXT_CHARS = 600
_SECRET_ONLY = Classification(
    item_id="", verdict="DISCARD", discard_reason="other", reason="nothing but a secret, redacted"
)


@dataclass
class NremResult:
    """The notes read, their new state, and the verdicts on items not seen before."""

    note_states: dict[str, NoteState] = field(default_factory=dict)
    # routine noise (heartbeats, readings, debug output) is recorded in note_states and only counted
    # here: a noisy note holds hundreds of thousands of such items, and no later phase reads them
    classified: list[tuple[NoteItem, Classification]] = field(default_factory=list)
    noise: Counter[str] = field(default_factory=Counter)  # noise discarded, by reason
    files_read: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # the notes it could not read, each with its fix
    recurrence: Recurrence = field(default_factory=Recurrence)  # the shapes of the notes read and before


def run_nrem(
    notes: Sequence[tuple[NoteFile, NoteState | None]],
    classifier: Classifier,
    context: ClassifyContext,
    max_note_bytes: int,
    batch_size: int,
    candidates: Candidates,
) -> NremResult:
    """Read `notes` and classify their new items batch by batch; each batch is shown, of
    `context.memory`, only its `candidates` (what its items may already be in memory as)."""
    result = NremResult()
    fresh: list[NoteItem] = []
    states: dict[str, NoteState] = {}
    read_shapes: list[tuple[date, dict[str, int]]] = []
    cards: set[str] = set()
    openers: set[str] = set()
    conversation: set[str] = set()
    paired: dict[str, Pair] = {}
    for note, previous in notes:
        try:
            parsed = read_note(note, max_note_bytes)
        except NoteReadError as error:
            result.warnings.append(str(error))
            if not error.missing:  # gone since it was listed: nothing to fix
                result.unread.append(str(error))
            continue
        if parsed.warning:
            result.warnings.append(parsed.warning)
        result.files_read.append(note.relative)
        raw = note.path.read_bytes()
        stat = note.path.stat()
        shapes = note_shapes(
            (item.text.split("\n", 1)[0] for item in parsed.items),
            (line for item in parsed.items for line in item.text.split("\n")[1:]),
        )
        read_shapes.append((note.day, shapes))
        cards |= card_fields(parsed.items)
        openers |= section_openers(parsed.items)
        conversation |= conversation_items(parsed.items)
        paired |= pairs(parsed.items)
        known = previous.items if previous else {}
        items = {item.id: known[item.id] for item in parsed.items if item.id in known}
        fresh.extend(item for item in parsed.items if item.id not in known)
        del parsed  # the new items live on in `fresh` only until their batch is classified
        result.note_states[note.name] = states[note.relative] = NoteState(
            sha256=hashlib.sha256(raw).hexdigest(),
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
            items=items,
            shapes=shapes,
        )
    context = dataclasses.replace(
        context,
        recurrence=context.recurrence.with_notes(read_shapes),
        cards=frozenset(cards),
        openers=frozenset(openers),
        conversation=frozenset(conversation),
        pairs=paired,
    )
    result.recurrence = context.recurrence
    result.warnings.extend(run_warnings(sightings_in_items(fresh)))
    fresh = redact_items(fresh)  # only new text is scanned; nothing downstream ever sees the secret
    # a line that held nothing but a secret holds nothing once redacted: no engine is asked to keep it
    bare = [item for item in fresh if only_secrets(item.text)]
    result.classified.extend((item, dataclasses.replace(_SECRET_ONLY, item_id=item.id)) for item in bare)
    fresh = [item for item in fresh if not only_secrets(item.text)]
    batches = deque(fresh[start : start + batch_size] for start in range(0, len(fresh), batch_size))
    del fresh  # each batch is let go once classified
    while batches:
        batch = batches.popleft()
        shown_memory = shown(candidates, batch, context.memory) if context.memory else []
        batch_context = dataclasses.replace(context, memory=shown_memory)
        verdicts = validated(batch, classifier.classify(batch, batch_context))
        for item, verdict in zip(batch, verdicts, strict=True):
            if verdict.verdict == "DISCARD" and verdict.discard_reason in NOISE and not verdict.closes_action:
                states[item.file].items[item.id] = record(item, verdict)
                result.noise[verdict.discard_reason] += 1
            else:  # the now line of a pair is kept as what it states: its subject's value, the old one noted
                result.classified.append(
                    (stated(item, paired[item.id]) if item.id in paired else item, verdict)
                )
    return result


def validated(items: Sequence[NoteItem], verdicts: Sequence[Classification]) -> list[Classification]:
    """Exactly one verdict per item, in order; a KEEP without a category is not a valid verdict."""
    by_id = {v.item_id: v for v in verdicts}
    missing = [item.source for item in items if item.id not in by_id]
    if missing or len(by_id) != len(verdicts):
        raise ValueError(
            f"classifier answered for {len(by_id)} of {counted(len(items), 'item')} (missing: {', '.join(missing[:5])})"
        )
    for verdict in verdicts:
        if verdict.verdict == "KEEP" and verdict.category is None:
            raise ValueError(f"KEEP without a category for item {verdict.item_id}")
    return [by_id[item.id] for item in items]


def record(item: NoteItem, verdict: Classification) -> ItemRecord:
    """What the state keeps of a classified item (the text only for kept ones)."""
    keep = verdict.verdict == "KEEP"
    return ItemRecord(
        line=item.line_start,
        verdict=verdict.verdict,
        category=verdict.category,
        discard_reason=verdict.discard_reason,
        topic=verdict.topic,
        text=item.text[:RECORD_TEXT_CHARS] if keep or verdict.closes_action else "",
        lead=item.lead if keep else None,
        deadline=verdict.deadline,
        closes_action=verdict.closes_action,
        promote=verdict.promote,
    )


def dated_ahead(
    read: Iterable[tuple[NoteFile, object]], classified: Iterable[tuple[NoteItem, object]], today: date
) -> list[str]:
    """One line for each note dated after today whose new items this run read: they are kept dated
    then (a typo in the name would put them in the future for good), and the next runs say no more."""
    new = Counter(item.file for item, _ in classified)
    return [
        f"{note.relative}: dated {counted(note.days_ahead(today), 'day')} after today ({today}); "
        f"what it says ({counted(new[note.relative], 'new item')}) was read as written, dated {note.day}. "
        "If the date is a typo, take this run back (`memory-sleep undo`), rename the note to the day it "
        "was written, and run again."
        for note, _ in read
        if note.days_ahead(today) and new[note.relative]
    ]
