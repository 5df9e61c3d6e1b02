"""NREM keeps routine noise out of its result: recorded in the note's state, counted, then let go."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from memory_sleep.cycle.candidates import HybridCandidates
from memory_sleep.cycle.nrem import run_nrem
from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.offline.classify import OfflineClassifier
from memory_sleep.sidecar.embed import OfflineEmbedder
from memory_sleep.workspace.layout import NoteFile

NOTE_TEXT = (
    "\n".join(
        ["# 2026-11-24", "", "## Log", ""]
        + [f"10:{n:02d}:00 HEARTBEAT_OK" for n in range(40)]
        + ["- Decided: the billing export moves to Postgres 16; Raj signs off the cutover."]
    )
    + "\n"
)


def test_routine_noise_is_recorded_and_counted_not_held(tmp_path: Path) -> None:
    path = tmp_path / "2026-11-24.md"
    path.write_text(NOTE_TEXT, encoding="utf-8")
    note = NoteFile(path=path, name=path.name, day=date(2026, 11, 24), topic=None)
    context = ClassifyContext(projects=[], memory=[])
    result = run_nrem(
        [(note, None)], OfflineClassifier(), context, 2_000_000, 7, HybridCandidates(OfflineEmbedder())
    )
    records = result.note_states[path.name].items
    # forty lines of one shape in one note: routine by recurrence, whatever their words
    heartbeats = [r for r in records.values() if r.discard_reason in ("heartbeat", "routine")]
    assert len(heartbeats) == 40 and result.noise.total() == 40
    assert [(c.verdict, i.line_start) for i, c in result.classified] == [("KEEP", 45)]


def test_the_shape_of_a_pasted_megabyte_line_is_read_from_its_start() -> None:
    """Masking used to backtrack over a long run with no digit in it, quadratically: a 1 MB line held a
    run for many minutes (the slow test_a_one_megabyte_line_is_read_and_bounded). Only the start of a
    line makes its shape."""
    from memory_sleep.engines.recurrence import SHAPE_CHARS, key_shape, line_shape

    long_line = "- Decided: " + "x" * 1_000_000
    assert line_shape(long_line) == line_shape(long_line[:SHAPE_CHARS] + "y" * 10)
    assert key_shape(long_line) is None


def test_a_line_said_again_within_the_items_of_one_note_recurs_as_one_said_in_items_of_its_own(
    tmp_path: Path,
) -> None:
    """One line written again and again, a few times in each of two paragraphs (no blank line
    between its copies): the day's notes say it ROUTINE_IN_ONE_NOTE times and more, counted by every
    line of every item, not by each item's first line only."""
    from memory_sleep.engines.recurrence import ROUTINE_IN_ONE_NOTE

    beat, other = "[ping] queue empty", "looked at the queue, still empty"
    paragraphs = [[beat] * (ROUTINE_IN_ONE_NOTE - 1), [beat] * (ROUTINE_IN_ONE_NOTE - 1) + [other]]
    decision = "- Decided: the billing export moves to Postgres 16; Raj signs off the cutover."
    text = "\n\n".join(["# 2026-11-24", *("\n".join(lines) for lines in paragraphs), decision]) + "\n"
    path = tmp_path / "2026-11-24.md"
    path.write_text(text, encoding="utf-8")
    note = NoteFile(path=path, name=path.name, day=date(2026, 11, 24), topic=None)
    context = ClassifyContext(projects=[], memory=[])
    result = run_nrem(
        [(note, None)], OfflineClassifier(), context, 2_000_000, 7, HybridCandidates(OfflineEmbedder())
    )
    records = result.note_states[path.name].items.values()
    assert sorted((r.line, r.discard_reason) for r in records) == [
        (3, "routine"),
        (3 + ROUTINE_IN_ONE_NOTE, "routine"),
    ]
    assert [(c.verdict, i.line_start) for i, c in result.classified] == [
        ("KEEP", 4 + 2 * ROUTINE_IN_ONE_NOTE)
    ]


def test_a_briefing_the_tool_wrote_pasted_into_a_note_is_recalled_text_whole_and_the_note_goes_on() -> None:
    """The briefing as cycle/briefing.py renders it, every section it writes filled: pasted into a note,
    each of its lines is text the tool wrote, not new memory; the note's own section after it is read
    as any. A section the writer gains that the pasted-briefing detector does not know fails here."""
    from memory_sleep.cycle.briefing import render_briefing
    from memory_sleep.models import Briefing
    from memory_sleep.workspace.notes import parse_note_text

    briefing = Briefing(
        priorities=["[Atlas] renew the TLS cert for api.atlas.example (due 2026-11-25, tomorrow)"],
        actions=["[Atlas] write the migration runbook (due 2026-12-02, in 8 days)"],
        context=["Atlas: blocked on the vendor's API key; last: the exporter moves to Postgres 16"],
        warnings=["Atlas is blocked: waiting on the vendor's API key (due 2026-11-21, 3 days ago)"],
    )
    pasted = render_briefing(briefing, date(2026, 11, 24), 4_000)
    text = f"# 2026-11-25\n\n## Morning\n\nPasted from briefing.md:\n\n{pasted}\n## Afternoon\n\n"
    text += "- Decided: the billing export moves to Postgres 16; Raj signs off the cutover.\n"
    note = NoteFile(path=Path("2026-11-25.md"), name="2026-11-25.md", day=date(2026, 11, 25), topic=None)
    items = parse_note_text(note, text).items
    verdicts = OfflineClassifier().classify(items, ClassifyContext(projects=["Atlas"], memory=[]))
    written = [v for item, v in zip(items, verdicts, strict=True) if item.line_start > 5]
    assert pasted.count("\n## ") == 4  # every section the writer has
    assert [v.discard_reason for v in written[:-1]] == ["recalled"] * 4
    assert (written[-1].verdict, written[-1].category) == ("KEEP", "decision")


def test_a_saved_conversation_is_not_promoted_whichever_batch_its_items_fall_in(tmp_path: Path) -> None:
    """NREM classifies a note's items in batches: the conversation a session log holds is found over
    the whole note, so a batch of the assistant's reply with no turn in it is still of the conversation."""
    reply = [f"- Decided: the Orion export {n} moves to Postgres 16" for n in range(8)]
    opening = [
        "# Session: 2026-11-24 10:00:00 UTC",
        "",
        "## Conversation Summary",
        "",
        "user: what did we settle?",
    ]
    text = "\n".join([*opening, "", "assistant: here is what we settled", *reply, "", "user: thanks"])
    path = tmp_path / "2026-11-24-session.md"
    path.write_text(text + "\n", encoding="utf-8")
    note = NoteFile(path=path, name=path.name, day=date(2026, 11, 24), topic=None)
    context = ClassifyContext(projects=[], memory=[])
    result = run_nrem(
        [(note, None)], OfflineClassifier(), context, 2_000_000, 3, HybridCandidates(OfflineEmbedder())
    )
    kept = [(item.text, verdict.promote) for item, verdict in result.classified if verdict.verdict == "KEEP"]
    assert kept and not any(promote for _, promote in kept), kept
