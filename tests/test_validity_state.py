"""The validity state a pass leaves: a night writes what changed since the whole state was written,
read back as the last pass's state; the whole state alone (all a version before this reads) still
derives every ending; a state written whole, as that version wrote it, reads back."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_sleep.sidecar import validity_state
from memory_sleep.sidecar.validity import derive_validity
from memory_sleep.sidecar.validity_state import CHANGES_KEY, STATE_KEY, ValidityState, load, load_state
from memory_sleep.workspace.layout import Workspace
from tests.sidecar_helpers import open_at
from tests.validity_helpers import run_nights

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres


def _indexed(folder: Path) -> list[tuple[str | None, str | None]]:
    """Index the night's files; the whole state and the changes then kept."""
    with open_at(folder) as sidecar:
        sidecar.index()
        return [(sidecar.store.meta(STATE_KEY), sidecar.store.meta(CHANGES_KEY))]


def test_a_night_writes_the_changes_to_the_whole_state_and_reads_back_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(validity_state, "REWRITE_SHARE", 1.0)  # every night's changes are few enough
    written: list[tuple[str | None, str | None]] = []
    folder = run_nights(tmp_path, lambda folder: written.extend(_indexed(folder)))
    wholes = [whole for whole, _ in written]
    assert len(set(wholes)) == 1 and all(changes for _, changes in written[1:])
    with open_at(folder) as sidecar:
        full, state = derive_validity(sidecar.store, Workspace.open(folder))
        kept = load(sidecar.store)
        assert kept is not None and kept.state.matched == state.matched and kept.state.days == state.days
        assert kept.base is not None and kept.base != kept.state
        again, _ = derive_validity(sidecar.store, Workspace.open(folder), kept.base)  # the whole alone
        assert again == full


def test_past_the_share_the_whole_state_is_written_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(validity_state, "REWRITE_SHARE", 0.0)
    written: list[tuple[str | None, str | None]] = []
    run_nights(tmp_path, lambda folder: written.extend(_indexed(folder)))
    assert all(changes is None for _, changes in written) and len({whole for whole, _ in written}) > 1


def test_a_state_written_whole_by_the_version_before_reads_back(tmp_path: Path) -> None:
    folder = run_nights(tmp_path, _indexed)
    with open_at(folder) as sidecar:
        _, state = derive_validity(sidecar.store, Workspace.open(folder))
        raw = state.model_dump_json(exclude={"matched": {"__all__": {"rows"}}})
        with sidecar.store.transaction():
            sidecar.store.set_meta(STATE_KEY, raw)  # the changes left were to another whole state
        assert load_state(sidecar.store) == ValidityState.model_validate_json(raw)
