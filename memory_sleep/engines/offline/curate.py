"""Which entries are finished business, of little lasting worth, or facts that keep changing, and which
entries later notes still use, offline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from memory_sleep.engines.offline import absences, classify, references, routine, values
from memory_sleep.engines.recurrence import Recurrence
from memory_sleep.models import Classification, EntryJudgement, EntryView, KeptItem, NoteItem, ProjectFields

_FINISHED = ("completed", "cancelled")  # a project's status starts with one of these when it is over
_STILL_OPEN = frozenset({"Action items"})  # an overdue action is still open, not an event that is over
# a decision or lesson is never routine (as when classifying), and an action names a thing to do: the
# same task said of another host or day is another task, not another reading (unless it is an action only
# by the section it stands in, setting no task itself: classify.sets_a_task)
_NEVER_READINGS = ("decision", "lesson", "action")


class OfflineCurator:
    """Absences that are over, stack traces, events whose dates are all past, and entries that name
    the value they replaced; an entry a note restates or whose person it names is still in use; a
    project whose status starts "completed" or "cancelled" is finished; a kept line whose shape later
    notes say with other values is a reading of a series."""

    def judge(self, entries: Sequence[EntryView], today: date) -> list[EntryJudgement]:
        judgements = []
        for entry in entries:
            judgement = _judge(entry, today)
            if judgement is not None:
                judgements.append(judgement)
        return judgements

    def referenced(
        self,
        entries: Sequence[EntryView],
        repeats: Sequence[NoteItem],
        kept: Sequence[NoteItem],
        projects: Sequence[str],
    ) -> list[tuple[str, date]]:
        return [
            *references.restated_entries(entries, repeats),
            *references.people_named(entries, kept, projects),
        ]

    def finished(self, projects: Mapping[str, ProjectFields]) -> list[str]:
        return [name for name, fields in projects.items() if fields.status.lower().startswith(_FINISHED)]

    def readings(self, kept: Sequence[KeptItem], recurrence: Recurrence) -> list[Classification]:
        """A kept line whose shape later notes said with other values (recurrence.series_day): the first
        readings of a series, which no run could tell on their own day."""
        found = []
        for item in kept:
            if item.category in _NEVER_READINGS and (
                item.category != "action" or classify.sets_a_task(item.item.text, item.item.day)
            ):
                continue
            shown = recurrence.series_day(item.item.text.split("\n", 1)[0], item.item.day)
            if shown is not None:
                found.append(
                    Classification(
                        item_id=item.item.id,
                        verdict="DISCARD",
                        discard_reason="routine",
                        topic=item.topic,
                        reason=f"recognised as a series of readings on {shown.isoformat()}",
                        promote=item.promote,
                    )
                )
        return found


def _judge(entry: EntryView, today: date) -> EntryJudgement | None:
    away = absences.ended_before(entry.text, today)
    if away is not None:
        return EntryJudgement(
            ref=entry.ref,
            kind="ended",
            reason=f"finished: the absence it announces ended {away.end.isoformat()}",
        )
    if routine.is_stack_trace(entry.text):
        return EntryJudgement(ref=entry.ref, kind="routine", reason="a pasted stack trace")
    if entry.section not in _STILL_OPEN and _past_event(entry.text, today):
        return EntryJudgement(ref=entry.ref, kind="past", reason="an event whose dates are all past")
    if has_history(entry.text):
        return EntryJudgement(ref=entry.ref, kind="changing", reason="it replaced an older value")
    return None


def has_history(text: str) -> bool:
    """The entry replaced an older value: REM noted it ("(previously: ...)") or the note named it ("(was 5432)")."""
    return "(previously: " in text or bool(values.replaced_values(text))


def _past_event(text: str, today: date) -> bool:
    """Every date the entry names is over: an event that happened, not a fact that holds."""
    days = values.typed_values(values.current_claim(text)).get("date", frozenset())
    return bool(days) and all(day < today.isoformat() for day in days)
