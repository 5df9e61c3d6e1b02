"""The index pass reads only the lines appended to archive.md since the last pass, and meets only the
rows holding their content, and leaves exactly the rows a whole read of the file leaves: after appends,
repeats, a hand edit, an undo, a file that does not end a line, a row erased for good, a file gone and
back, and with the kept state missing, of another version, or unreadable."""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from memory_sleep.sidecar import archive_read, sources
from memory_sleep.sidecar.archive_read import STATE_KEY, ArchiveRead
from memory_sleep.sidecar.recall import Sidecar
from tests.sidecar_helpers import open_at
from tests.validity_helpers import run_nights

KEY = "sk-ant-api03-" + "A" * 90  # a secret: redacted with the line it stands on
# under the last heading above it, then a heading of its own, and a repeat of an item above
APPENDED = (
    "- Orion staging IP is 10.0.0.7 (2026-11-11) — from Facts; replaced [superseded 2026-11-18]\n"
    "\n## 2026-11-19\n"
    f"- Orion deploy key is {KEY} — from Facts; replaced [superseded 2026-11-19]\n"
    "- Atlas ships on Mondays — from Decisions; MEMORY.md over memory_max_bytes (4,000)\n"
    "- Atlas ships on Mondays — from Decisions; MEMORY.md over memory_max_bytes (4,000)\n"
)
ROWS = (
    "SELECT id, line_start, context, text, day, content_hash, deleted_at IS NULL, deleted_reason, importance"
    " FROM entries WHERE kind = 'archive' ORDER BY id"
)
Change = Callable[[Path, Sidecar], None]


def _append(text: str) -> Change:
    def change(folder: Path, _: Sidecar) -> None:
        with (folder / "memory" / "archive.md").open("a", encoding="utf-8") as archive:
            archive.write(text)

    return change


def _rewrite(edit: Callable[[str], str]) -> Change:
    def change(folder: Path, _: Sidecar) -> None:
        archive = folder / "memory" / "archive.md"
        archive.write_text(edit(archive.read_text(encoding="utf-8")), encoding="utf-8")

    return change


def _first_line(text: str) -> str:
    return next(line for line in text.splitlines() if line.startswith("- "))


def _erase(folder: Path, sidecar: Sidecar) -> None:
    erased = next(iter(sidecar.store.db.execute("SELECT min(id) FROM entries WHERE kind = 'archive'")))[0]
    sidecar.store.hard_delete([erased], [])


def _gone_and_back(folder: Path, sidecar: Sidecar) -> None:
    archive = folder / "memory" / "archive.md"
    text = archive.read_text(encoding="utf-8")
    archive.unlink()
    sidecar.index()
    archive.write_text(text, encoding="utf-8")


def _state(update: dict[str, object] | None) -> Change:
    def change(_: Path, sidecar: Sidecar) -> None:
        raw = sidecar.store.meta(STATE_KEY)
        assert raw is not None
        value = (
            "{not json" if update is None else ArchiveRead.model_validate_json(raw).model_copy(update=update)
        )
        with sidecar.store.transaction():
            sidecar.store.set_meta(STATE_KEY, value if isinstance(value, str) else value.model_dump_json())

    return change


def _nights_rows(tmp_path: Path, changes: list[Change]) -> list[list[tuple[object, ...]]]:
    """The archive rows after each change and an index pass, read from the kept state and (a copy)
    read whole."""
    folder = run_nights(tmp_path / "nights")
    with open_at(folder) as sidecar:
        sidecar.index()  # with open_at's embedder
    found = []
    for whole in (False, True):
        copy = shutil.copytree(folder, tmp_path / f"whole-{whole}")
        with open_at(copy) as sidecar:
            rows = []
            for change in changes:
                change(copy, sidecar)
                if whole:
                    with sidecar.store.transaction():
                        sidecar.store.delete_meta(STATE_KEY)
                sidecar.index()
                rows.append(list(sidecar.store.db.execute(ROWS)))
            found.append(rows)
    assert found[0] == found[1]
    return found[0]


def test_appended_lines_alone_are_read_and_met_and_the_rows_are_the_whole_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = run_nights(tmp_path)
    with open_at(folder) as sidecar:
        sidecar.index()
        lines = len((folder / "memory" / "archive.md").read_text(encoding="utf-8").splitlines())
        redacted: Counter[str] = Counter()
        real = sources.redact_at

        def counted(text: str, file: str, line: int) -> str:
            redacted[f"{file}:{line}"] += 1
            return real(text, file, line)

        monkeypatch.setattr(sources, "redact_at", counted)
        monkeypatch.setattr(sidecar.store, "entries_of_source", None)  # no file's rows read whole
        _append(APPENDED)(folder, sidecar)
        report = sidecar.index()
    assert set(redacted) == {f"memory/archive.md:{lines + n}" for n in (1, 4, 5, 6)}
    assert report.added == 3  # the repeat of the line above it is one item
    rows = _nights_rows(tmp_path / "again", [_append(APPENDED)])[-1]
    assert any(KEY not in str(row[3]) and "Orion deploy key" in str(row[3]) for row in rows)


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param([_append(APPENDED), _append(APPENDED)], id="appended twice"),
        pytest.param([_rewrite(lambda text: text + _first_line(text) + "\n")], id="a line read before again"),
        pytest.param(
            [
                _rewrite(lambda text: text.replace(_first_line(text) + "\n", "")),
                _rewrite(lambda text: text + APPENDED),
                _rewrite(lambda text: text + "\n## 2026-11-20\n" + _first_line(text) + "\n"),
            ],
            id="a line removed by hand comes back",
        ),
        pytest.param(
            [_rewrite(lambda text: text.replace("Orion", "Orion's")), _append(APPENDED)], id="hand edit"
        ),
        pytest.param(
            [
                _append(APPENDED),
                _rewrite(lambda text: text.replace(APPENDED, "")),
                _append(APPENDED[:120] + "\n"),
            ],
            id="undo",
        ),
        pytest.param(
            [_append(APPENDED.rstrip("\n")), _append("\n" + APPENDED)], id="no final newline, then one"
        ),
        pytest.param([_erase, _append(APPENDED)], id="a row erased for good"),
        pytest.param([_gone_and_back, _append(APPENDED)], id="the file gone and back"),
        pytest.param([_state(None), _append(APPENDED)], id="state unreadable"),
        pytest.param(
            [_state({"version": archive_read.VERSION + 1}), _append(APPENDED)], id="another version"
        ),
        pytest.param([_state({"rows": 1}), _append(APPENDED)], id="another count of rows"),
    ],
)
def test_every_change_leaves_the_rows_a_whole_read_leaves(tmp_path: Path, changes: list[Change]) -> None:
    rows = _nights_rows(tmp_path, changes)
    assert rows[-1]


def test_the_index_keeps_the_archive_rows_a_fresh_index_makes(tmp_path: Path) -> None:
    """Night after night the archive is read from the kept state; its rows are those of a sidecar built
    afresh from the same files."""
    folder = run_nights(tmp_path / "nights")
    fresh = tmp_path / "fresh"
    shutil.copytree(folder, fresh, ignore=shutil.ignore_patterns("sidecar*"))
    rows = []
    for each in (folder, fresh):
        with open_at(each) as sidecar:
            sidecar.index()
            assert sidecar.store.meta(STATE_KEY) is not None
            rows.append(
                sorted(
                    sidecar.store.db.execute(
                        "SELECT line_start, context, text, day, content_hash FROM entries"
                        " WHERE kind = 'archive' AND deleted_at IS NULL"
                    )
                )
            )
    assert rows[0] and rows[0] == rows[1]


def test_an_archive_not_ending_a_line_keeps_no_state(tmp_path: Path) -> None:
    folder = run_nights(tmp_path)
    archive = folder / "memory" / "archive.md"
    text = archive.read_text(encoding="utf-8")
    with open_at(folder) as sidecar:
        sidecar.index()
        assert sidecar.store.meta(STATE_KEY) is not None
        archive.write_text(text.rstrip("\n"), encoding="utf-8")
        sidecar.index()
        assert sidecar.store.meta(STATE_KEY) is None
        archive.write_text(text, encoding="utf-8")
        sidecar.index()
        assert sidecar.store.meta(STATE_KEY) is not None
