"""The engine decides meaning; the phases apply what it decided, checking structure only.

A model's supersede of an entry it shares no word with, and its choice of the action a note closes,
are applied as given, even where the offline engine would have decided otherwise.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from pydantic import BaseModel

from memory_sleep.config import EngineConfig
from memory_sleep.cycle import close_actions
from memory_sleep.cycle.plan import DocumentEditor
from memory_sleep.engines.llm import llm_engine
from memory_sleep.engines.model import Exchange, Prompt
from memory_sleep.engines.offline.closing import OfflineCloser
from memory_sleep.engines.testing import FunctionModel, ScriptedModel
from memory_sleep.models import KeptItem
from memory_sleep.workspace.memory_doc import MemoryDocument

from .item_helpers import integrate_and_apply, note_item

TODAY = date(2026, 11, 21)


def test_a_models_supersede_with_no_word_in_common_is_applied() -> None:
    document = MemoryDocument.parse("# MEMORY.md\n\n## People\n- Raj owns the billing service (2026-11-01)\n")
    kept = KeptItem(item=note_item("Tom is the new owner"), category="relationship", topic=None)
    answer = {
        "operations": [
            {"item_id": "I1", "op": "supersede", "target": "E1", "text": "Tom: new owner", "reason": "r"}
        ]
    }
    model = ScriptedModel([answer])
    engine = llm_engine(model, EngineConfig())
    result, applied = integrate_and_apply([kept], document, engine.integrator, TODAY, 20)
    assert result.counts()["supersede"] == 1 and engine.usage.calls == 1
    assert "- Tom: new owner (2026-11-20)" in document.render()  # its text as the model gave it
    assert [record.entry for record in applied.archived] == ["- Raj owns the billing service (2026-11-01)"]


ACTIONS = (
    "# MEMORY.md\n\n## Action items\n"
    "- Renew the TLS cert of billing.example.io (2026-11-01)\n"
    "- Send Hooli the revised SOW (2026-11-02)\n"
)


def _closed_by(closer: Any, note: str) -> list[str]:
    document = MemoryDocument.parse(ACTIONS)
    completion = KeptItem(item=note_item(note), category="status", topic=None)
    editor = DocumentEditor(document, TODAY)
    edits, refused = close_actions.close_done_actions(editor, [completion], closer, {})
    assert refused == []
    return [record.entry for record in editor.apply(edits).archived]


def test_a_models_choice_of_the_action_a_note_closes_is_applied() -> None:
    note = "Hooli has it now, signed off this morning"  # no word of either action: offline closes none
    assert _closed_by(OfflineCloser(), note) == []

    def chooses_the_sow(prompt: Prompt, schema: type[BaseModel], history: tuple[Exchange, ...]) -> Any:
        sow = next(a["ref"] for a in prompt.values["actions"] if "SOW" in a["text"])
        note_id = prompt.values["notes"][0]["id"]
        return {"closures": [{"reason": "the SOW was delivered", "item_id": note_id, "target": sow}]}

    engine = llm_engine(FunctionModel(chooses_the_sow), EngineConfig())
    assert _closed_by(engine.closer, note) == ["- Send Hooli the revised SOW (2026-11-02)"]


def test_a_closure_naming_no_open_action_is_refused_and_changes_nothing() -> None:
    document = MemoryDocument.parse(ACTIONS)
    completion = KeptItem(item=note_item("done"), category="status", topic=None)
    editor = DocumentEditor(document, TODAY)

    class Wrong:
        def close(self, completions: Any, actions: Any, projects: Any) -> list[Any]:
            from memory_sleep.models import Closure

            return [Closure(item_id="i1", target="E9"), Closure(item_id="nope", target="E1")]

    edits, refused = close_actions.close_done_actions(editor, [completion], Wrong(), {})
    assert edits == [] and document.render() == ACTIONS
    assert refused == [
        "close E9 by item i1: names no open action item",
        "close E1 by item nope: names no note item of this run",
    ]
