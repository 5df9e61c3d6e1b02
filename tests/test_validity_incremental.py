"""Each index pass matches again only the archived statements whose matches may have changed, and ends
up with exactly the validity a full derivation gives: night after night, after an undo, a restore, a
deletion for good and a hand-edited archive."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from memory_sleep.sidecar import evidence, validity
from memory_sleep.sidecar.boundary import SidecarStore
from memory_sleep.sidecar.recall import Sidecar
from memory_sleep.sidecar.rows import NewEntry
from memory_sleep.sidecar.store import Store
from memory_sleep.sidecar.tokenize import fts_document
from memory_sleep.sidecar.validity import CANDIDATES, Day, Ended, derive_validity
from memory_sleep.sidecar.validity_state import STATE_KEY, load_state
from memory_sleep.text import tokens
from memory_sleep.workspace.layout import Workspace
from memory_sleep.workspace.writer import SafeWriter
from tests.sidecar_helpers import open_at
from tests.validity_helpers import run_nights

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres


def _nights(tmp_path: Path) -> Path:
    """Each night's index pass starts from the last one's state, and agrees with a full derivation."""
    return run_nights(tmp_path, _index_and_check)


def _stored(store: SidecarStore) -> Ended:
    """The endings the last pass wrote (GC's own supersedes aside: they are not derived)."""
    return {
        int(entry_id): (str(valid_to), str(status), by)
        for entry_id, valid_to, status, by in store.db.execute(
            "SELECT id, valid_to, status, ended_by FROM entries WHERE status IS NOT NULL"
            " AND (ended_by IS NULL OR ended_by NOT LIKE '%(gc:%')"
        )
    }


def _index_and_check(folder: Path) -> Ended:
    """Index, then derive everything afresh: the pass must have written exactly that."""
    with open_at(folder) as sidecar:
        sidecar.index()
        assert load_state(sidecar.store) is not None
        full, state = derive_validity(sidecar.store, Workspace.open(folder))
        assert _stored(sidecar.store) == full
        kept = load_state(sidecar.store)  # its days digested again only where they changed
        assert kept is not None and (kept.days, kept.day_ids) == (state.days, state.day_ids)
    return full


@contextmanager
def _counting_matches(sidecar: Sidecar) -> Iterator[list[str]]:
    asked: list[str] = []
    real = sidecar.store.dated_matches

    def counted(*args: object, **kwargs: object) -> list[tuple[int, str, str]]:
        if (
            args[4] == CANDIDATES
        ):  # a statement matched, not a look for added or edited items holding its terms
            asked.append(f"{args[2]} to {args[3]}")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    sidecar.store.dated_matches = counted  # type: ignore[method-assign]
    try:
        yield asked
    finally:
        del sidecar.store.dated_matches


def test_night_after_night_the_stored_validity_is_the_full_derivation(tmp_path: Path) -> None:
    folder = _nights(tmp_path)
    ended = _index_and_check(folder)
    assert {"superseded", "done"} <= {status for _, status, _ in ended.values()}
    assert len(ended) >= 5


def test_a_new_note_matches_again_only_the_statements_its_days_touch(tmp_path: Path) -> None:
    folder = _nights(tmp_path)
    (folder / "memory" / "2026-11-19.md").write_text(
        "# 2026-11-19\n\n- Orion dashboards now load in 2 seconds\n", encoding="utf-8"
    )
    with open_at(folder) as sidecar:
        statements = len(load_state(sidecar.store).matched)  # type: ignore[union-attr]
        with _counting_matches(sidecar) as asked:
            sidecar.index()
        full, _ = derive_validity(sidecar.store, Workspace.open(folder))
        assert _stored(sidecar.store) == full
    assert statements >= 3 and not asked  # nothing new dated within any statement's days


def test_a_night_digests_again_only_the_days_an_item_joined_or_left(tmp_path: Path) -> None:
    """A year of days is not read every night: the new note's day, a day an item was edited in, and
    a day that lost an item for good are digested again; the others keep the last pass's digests,
    which are what digesting them gives."""
    folder = _nights(tmp_path)
    (folder / "memory" / "2026-11-19.md").write_text("# 2026-11-19\n\n- a quiet day\n", encoding="utf-8")
    _index_and_check(folder)  # after the pass that embedded every item again with open_at's embedder
    (folder / "memory" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n- another quiet day\n", encoding="utf-8"
    )
    note = folder / "memory" / "2026-11-11.md"
    note.write_text(note.read_text(encoding="utf-8").replace("8 GB", "16 GB"), encoding="utf-8")
    with open_at(folder) as sidecar:
        gone = max(
            entry_id
            for (entry_id,) in sidecar.store.db.execute("SELECT id FROM entries WHERE day = '2026-11-10'")
        )
        sidecar.store.hard_delete([gone], [])
        digested: list[set[str] | None] = []
        real = validity.day_digests

        def counted(store: SidecarStore, earlier_id: int, only: set[str] | None = None) -> dict[str, Day]:
            digested.append(only)
            return real(store, earlier_id, only)

        validity.day_digests = counted  # type: ignore[assignment]
        try:
            sidecar.index()
        finally:
            validity.day_digests = real  # type: ignore[assignment]
    assert digested == [{"2026-11-10", "2026-11-11", "2026-11-20"}]
    _index_and_check(folder)


def test_an_ending_names_the_item_it_named_until_its_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The item an ending names is looked up again only when the rows of its note changed: a night
    adding another note asks for none; a line inserted at the top of a named note moves every row of
    it (the rows keep their contents: no day is digested again), and its endings are asked again."""
    folder = _nights(tmp_path)
    (folder / "memory" / "2026-11-19.md").write_text("# 2026-11-19\n\n- a quiet day\n", encoding="utf-8")
    _index_and_check(folder)  # after the pass that embedded every item again with open_at's embedder
    asked: list[str] = []
    real = evidence.evidence_ids

    def counted(store: SidecarStore, endings: Iterable[str]) -> dict[str, int | None]:
        wanted = list(endings)
        asked.extend(wanted)
        return real(store, wanted)

    def index_counting() -> list[str]:
        asked.clear()
        with monkeypatch.context() as patched, open_at(folder) as sidecar:
            patched.setattr(evidence, "evidence_ids", counted)
            sidecar.index()
        _index_and_check(folder)
        return list(asked)

    (folder / "memory" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n- another quiet day\n", encoding="utf-8"
    )
    assert index_counting() == []
    named = folder / "memory" / "2026-11-13.md"
    named.write_text("\n" + named.read_text(encoding="utf-8"), encoding="utf-8")
    again = index_counting()
    assert again and all("2026-11-13.md" in ended_by for ended_by in again)


def test_items_added_or_edited_in_statements_days_match_again_only_the_statements_whose_terms_they_hold(
    tmp_path: Path,
) -> None:
    """What the garbage collector's compaction and the week's summary do every night: items added to,
    and edited in, days long archived statements span. Those holding none of a statement's rarest
    terms leave its matches as they were (the Atlas train's and the Lisbon venue's, which span
    2026-11-11). Added, the item holds no statement's rarest term and nothing is matched again (the TLS
    cert's was, while dates were indexed in parts every item of the day held); edited, the item it was
    is gone from what some statements matched."""
    folder = _nights(tmp_path)
    note = folder / "memory" / "2026-11-11.md"
    text = note.read_text(encoding="utf-8")
    for line in ("- lunch at noon in the park\n", "- lunch at noon by the river\n"):  # added, then edited
        note.write_text(text + line, encoding="utf-8")
        with open_at(folder) as sidecar:
            with _counting_matches(sidecar) as asked:
                sidecar.index()
            full, _ = derive_validity(sidecar.store, Workspace.open(folder))
            assert _stored(sidecar.store) == full and full
        assert bool(asked) == ("river" in line)
        assert not {"2026-11-10 to 2026-11-15", "2026-11-10 to 2026-11-17"} & set(asked)


def test_items_added_or_edited_that_state_an_archived_statement_take_its_ending(tmp_path: Path) -> None:
    """Edited in place, an item comes to state what an archived entry said (or stops stating it); added
    to an old day under a new id, a copy of a matched item takes the same ending; and a night whose
    notes repeat the statements' words moves the counts their rarest terms are chosen by."""
    folder = _nights(tmp_path)
    note = folder / "memory" / "2026-11-11.md"
    text = note.read_text(encoding="utf-8")
    note.write_text(
        text.replace("Orion staging server IP is 10.0.0.5", "Orion staging server IP is 10.0.0.5 (staging)")
        + "- Orion MySQL tuning: buffer pool set to 8 GB for the main database\n",
        encoding="utf-8",
    )
    busy = "".join(f"- Orion MySQL Postgres Atlas Fridays Lisbon note {n}\n" for n in range(CANDIDATES))
    (folder / "memory" / "2026-11-19.md").write_text(f"# 2026-11-19\n\n{busy}", encoding="utf-8")
    before = _index_and_check(folder)
    note.write_text(
        text.replace("Orion staging server IP is 10.0.0.5", "the printer on floor 2 jams"), encoding="utf-8"
    )
    after = _index_and_check(folder)
    assert before != after


def test_a_state_of_another_version_or_unreadable_is_derived_again_in_full(tmp_path: Path) -> None:
    folder = _nights(tmp_path)
    with open_at(folder) as sidecar:
        full, state = derive_validity(sidecar.store, Workspace.open(folder))
        for broken in ("{not json", state.model_copy(update={"version": 0}).model_dump_json()):
            with sidecar.store.transaction():
                sidecar.store.set_meta(STATE_KEY, broken)
            assert load_state(sidecar.store) is None
        with _counting_matches(sidecar) as asked:
            again, _ = derive_validity(sidecar.store, Workspace.open(folder), load_state(sidecar.store))
        assert again == full and asked


def test_after_an_undo_the_validity_is_the_full_derivation(tmp_path: Path) -> None:
    folder = _nights(tmp_path)
    space = Workspace.open(folder)
    SafeWriter(space.root, space.state_dir / "snapshots").undo()
    SafeWriter(space.root, space.state_dir / "snapshots").undo()
    _index_and_check(folder)


def test_after_a_restore_and_a_deletion_for_good_the_validity_is_the_full_derivation(tmp_path: Path) -> None:
    folder = _nights(tmp_path)
    with open_at(folder) as sidecar:
        ended = _stored(sidecar.store)
        first, second = sorted(ended)[:2]
        with sidecar.store.transaction():
            sidecar.store.soft_delete([first], "forgotten", 0.0, pass_id="p1")
            sidecar.store.restore([first])
        sidecar.store.hard_delete([second], [])
    (folder / "memory" / "2026-11-19.md").write_text("# 2026-11-19\n\n- a quiet day\n", encoding="utf-8")
    assert second not in _index_and_check(folder)


def test_after_a_hand_edited_archive_the_validity_is_the_full_derivation(tmp_path: Path) -> None:
    folder = _nights(tmp_path)
    archive = Workspace.open(folder).archive
    lines = archive.read_text(encoding="utf-8").splitlines(keepends=True)
    ending = [number for number, line in enumerate(lines) if "[superseded " in line]
    assert ending
    del lines[ending[0]]  # an ending removed by hand
    edited = [line.replace("[done 2026-11-13", "[done 2026-11-12") for line in lines]  # and one moved
    archive.write_text("".join(edited), encoding="utf-8")
    _index_and_check(folder)


def test_a_note_written_later_for_an_earlier_day_takes_the_ending_of_what_it_states(tmp_path: Path) -> None:
    folder = _nights(tmp_path)
    (folder / "memory" / "2026-11-12-standup.md").write_text(
        "# 2026-11-12\n\n- Orion staging server IP is 10.0.0.5, for the demo\n", encoding="utf-8"
    )
    ended = _index_and_check(folder)
    with open_at(folder) as sidecar:
        (late,) = [row for row in sidecar.store.entries_of_source("note:2026-11-12-standup.md")]
    assert ended[late.id][1] == "superseded"


@pytest.mark.parametrize("stale", ["chosen", "full"])
def test_a_statement_matched_by_other_terms_or_that_filled_the_limit_is_matched_again(
    tmp_path: Path, stale: str
) -> None:
    """Words counted in more items since choose other rarest terms; a full set of matches was chosen
    by a ranking every new item moves: either way the kept matches (here emptied) are not reused."""
    folder = _nights(tmp_path)
    with open_at(folder) as sidecar:
        full, state = derive_validity(sidecar.store, Workspace.open(folder))
        changed = {"chosen": {"chosen": ["zzzz"]}, "full": {"full": True}}[stale]
        emptied = state.model_copy(
            update={
                "matched": {
                    key: found.model_copy(update={**changed, "ids": []})
                    for key, found in state.matched.items()
                }
            }
        )
        again, _ = derive_validity(sidecar.store, Workspace.open(folder), emptied)
    assert full and again == full


def test_the_terms_of_items_added_or_edited_decide_as_matching_them_does(tmp_path: Path) -> None:
    """Where the store reads the terms of the items added since and of the days edited (SQLite), a
    statement keeps its matches exactly when asking the full-text index for those items would."""
    folder = _nights(tmp_path)
    note = folder / "memory" / "2026-11-11.md"
    text = note.read_text(encoding="utf-8")
    note.write_text(
        text.replace("Orion staging server IP is 10.0.0.5", "Orion staging server IP is 10.0.0.5 (staging)")
        + "- lunch at noon in the park, café Müller\n",
        encoding="utf-8",
    )
    with open_at(folder) as sidecar:
        previous = load_state(sidecar.store)
        sidecar.index()
        space = Workspace.open(folder)
        read = derive_validity(sidecar.store, space, previous)
        sidecar.store.dated_terms = lambda *args: None  # type: ignore[method-assign]
        try:
            asked = derive_validity(sidecar.store, space, previous)
        finally:
            del sidecar.store.dated_terms
        full, _ = derive_validity(sidecar.store, space)
    assert read == asked and read[0] == full


def test_the_terms_the_store_reads_are_those_its_full_text_index_matches() -> None:
    """A word with an accent or joined by dots is several terms to the tokenizer, as MATCH reads it."""
    store = Store.open(":memory:")
    vector = np.zeros((1, 4), dtype=np.float32)
    said = "café at 10.0.0.5"
    entry = NewEntry(
        "note:a.md",
        "memory/a.md",
        "note",
        1,
        1,
        "",
        said,
        "h",
        "2026-11-11",
        "default",
        0.5,
        None,
        fts_document(said),
    )
    store.insert_entries([entry], vector, "test", 0.0)
    terms = {term for day, term in store.dated_terms(0, [], ("note",), 1) or [] if day == "2026-11-11"}
    assert {"cafe", "10", "0", "5"} <= terms
    assert store.dated_terms(0, ["2026-11-11"], ("note",), 0) is None  # more items than asked for
    for term in terms:
        assert store.dated_matches([term], ("note",), "2026-11-11", "2026-11-12", 1)


def test_a_day_a_statement_names_is_no_term_it_is_matched_by(tmp_path: Path) -> None:
    """Every summary line states its own day, so a day named in a statement ("renew the Orion TLS cert
    by 2026-11-20"), indexed whole, was its rarest term: matching it found the lines of that day, filled
    the limit, and the statement was matched again every night (1.1 s a night at 365 days)."""
    folder = _nights(tmp_path)
    busy = "".join(f"- standup item {n} for 2026-11-20\n" for n in range(CANDIDATES))
    (folder / "memory" / "2026-11-11.md").write_text(
        "# 2026-11-11\n\n- Orion staging server IP is 10.0.0.5\n" + busy, encoding="utf-8"
    )
    _index_and_check(folder)
    with open_at(folder) as sidecar:
        with _counting_matches(sidecar) as asked:
            sidecar.index()
        assert not any(matched.full for matched in load_state(sidecar.store).matched.values())  # type: ignore[union-attr]
    assert not asked


@pytest.mark.sqlite_only
def test_a_term_not_one_plain_word_decides_without_asking_the_index(tmp_path: Path) -> None:
    """A statement's term that is not one plain word ("10.0.0.5"; "müller", which the full-text index
    reads as "muller") keeps its matches without a look at the index for the items added since: one
    of them matches it only if it holds what the index reads it as. An item that does is matched
    again, and the pass still writes exactly what a full derivation gives."""
    folder = _nights(tmp_path)
    note = folder / "memory" / "2026-11-11.md"
    note.write_text(
        note.read_text(encoding="utf-8") + "- the 10.0.0.5 box reboots at night\n", encoding="utf-8"
    )
    with open_at(folder) as sidecar:
        assert sidecar.store.term_tokens(["10.0.0.5", "müller"]) == {
            "10.0.0.5": ["10.0.0.5"],
            "müller": ["muller"],
        }
        asked: list[object] = []  # the limit of each question to the index
        real = sidecar.store.dated_matches

        def counted(*args: object, **kwargs: object) -> list[tuple[int, str, str]]:
            asked.append(args[4])  # 1: a look for added or edited items holding a statement's terms
            return real(*args, **kwargs)  # type: ignore[arg-type]

        sidecar.store.dated_matches = counted  # type: ignore[method-assign]
        try:
            sidecar.index()
        finally:
            del sidecar.store.dated_matches
        full, _ = derive_validity(sidecar.store, Workspace.open(folder))
        assert _stored(sidecar.store) == full
    assert asked and set(asked) == {CANDIDATES}  # the statement of 10.0.0.5 matched again, no look


def test_a_statement_that_filled_the_limit_keeps_its_items_among_the_same_rows_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked again each pass, a statement whose matches filled the limit and that is found among the
    same rows keeps the same items without a row read again; a state kept before the rows' digest was
    reads back, and its statements' rows are read."""
    folder = _nights(tmp_path)
    busy = "".join(f"- the staging server restarted, check {n}\n" for n in range(CANDIDATES + 20))
    (folder / "memory" / "2026-11-12.md").write_text(f"# 2026-11-12\n\n{busy}", encoding="utf-8")
    _index_and_check(folder)
    read: list[str] = []
    real = validity.says_the_same

    def reading(*args: object, **kwargs: object) -> bool:
        read.append("row")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(validity, "says_the_same", reading)
    with open_at(folder) as sidecar:
        full, _ = derive_validity(sidecar.store, Workspace.open(folder))
        state = load_state(sidecar.store)
        assert state is not None and any(found.full and found.rows for found in state.matched.values())
        read.clear()
        again, _ = derive_validity(sidecar.store, Workspace.open(folder), state)
        assert again == full and not read
        before = json.loads(state.model_dump_json())
        for found in before["matched"].values():
            del found["rows"]
        with sidecar.store.transaction():
            sidecar.store.set_meta(STATE_KEY, json.dumps(before))
        previous = load_state(sidecar.store)
        assert previous is not None
        again, _ = derive_validity(sidecar.store, Workspace.open(folder), previous)
        assert again == full and read


def test_a_statement_matched_again_for_items_added_reads_only_the_rows_it_did_not_read_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An item added to a day an archived statement spans, holding one of its rarest terms, has the
    statement matched again; the rows it was matched among last pass (not the limit: every row holding
    those terms) state it as they did and are not read again: only the added item is."""
    folder = _nights(tmp_path)
    note = folder / "memory" / "2026-11-11.md"
    added = "Orion lunch at noon by the river"
    note.write_text(f"{note.read_text(encoding='utf-8')}- {added}\n", encoding="utf-8")
    read: list[frozenset[str]] = []
    real = validity.says_the_same

    def reading(said: frozenset[str], line: frozenset[str], *, restated: bool) -> bool:
        read.append(line)
        return real(said, line, restated=restated)

    monkeypatch.setattr(validity, "says_the_same", reading)
    with open_at(folder) as sidecar:
        with _counting_matches(sidecar) as asked:
            sidecar.index()
        full, _ = derive_validity(sidecar.store, Workspace.open(folder))
        assert _stored(sidecar.store) == full and full
    assert asked and read[: len(asked)] == [tokens(added)] * len(asked)
    assert len(read) > len(asked)  # deriving afresh reads every row
