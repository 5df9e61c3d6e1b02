"""Recall finds versions, addresses and joined names whole ("v0.6.5", "10.0.9.42", "node-18"), and a
sidecar whose full-text index held only their parts is rebuilt once, never left half-done."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from memory_sleep.sidecar import Store
from memory_sleep.sidecar import tokenize as tokenize_module
from memory_sleep.sidecar.store import DB_NAME
from memory_sleep.sidecar.tokenize import query_terms, stem
from memory_sleep.text import is_cjk, terms
from tests.sidecar_helpers import make_workspace, open_at

NOTES = {
    "2026-11-20.md": "# 2026-11-20\n\n- Deployed v0.6.4 to staging for the v0 dashboard.\n"
    "- The v0 API keeps answering on node 16.\n",
    "2026-11-21.md": "# 2026-11-21\n\n- Deployed v0.6.5 to prod after the review.\n"
    "- The cache host moved to 10.0.9.42 this morning.\n",
    "2026-11-22.md": "# 2026-11-22\n\n- Builds now run on node-18 in CI.\n- The v0 docs and the v0 CLI were renamed.\n"
    "- Host 10.0.1.7 stays the old cache.\n- 東京の会議は木曜日に移動した。\n",
}


def _top(root: Path, query: str) -> str:
    with open_at(root) as sidecar:
        hits = sidecar.search(query, k=3, mode="text")
    return hits[0].entry.text if hits else ""


def test_versions_addresses_and_joined_names_are_found_whole(tmp_path: Path) -> None:
    root = make_workspace(tmp_path, NOTES)
    with open_at(root) as sidecar:
        sidecar.index()
    assert "v0.6.5" in _top(root, "v0.6.5")
    assert "10.0.9.42" in _top(root, "10.0.9.42")
    assert "node-18" in _top(root, "node-18")
    assert "東京" in _top(root, "東京の会議")  # CJK bigrams as before
    assert "staging" in _top(root, "staging")  # and ordinary words
    assert query_terms("v0.6.5") == ["v0.6.5"]  # whole, not also "v0"
    assert query_terms("node-18 on node 20") == ["node", "20", "node-18"]
    # words, not identifiers
    assert query_terms("fine-tuning db.internal") == ["fine", "tun", "db", "internal"]


def _as_before_whole_words(path: Path) -> None:
    """Make the sidecar at `path` what the version before whole words left: parts only, no m010."""
    db = Store.open(path).db
    db.execute("DROP TABLE entries_fts")
    db.execute(
        "CREATE VIRTUAL TABLE entries_fts USING fts5 (tokens, tokenize = 'unicode61 remove_diacritics 2')"
    )
    db.execute("DELETE FROM fts_terms")
    counts: dict[str, int] = {}
    for entry_id, context, text in db.execute("SELECT id, context, text FROM entries").fetchall():
        old = [
            term if is_cjk(term) else stem(term) for term in terms(f"{context}: {text}" if context else text)
        ]
        db.execute("INSERT INTO entries_fts (rowid, tokens) VALUES (?, ?)", (entry_id, " ".join(old)))
        for term in set(old):
            counts[term] = counts.get(term, 0) + 1
    db.executemany("INSERT INTO fts_terms (term, docs) VALUES (?, ?)", counts.items())
    db.execute("DELETE FROM schema_migrations WHERE name = 'm010_whole_words'")
    db.close()


def _tokenizer(path: Path) -> str:
    """The full-text table's definition, read without migrating the file."""
    raw = sqlite3.connect(path)
    try:
        (sql,) = raw.execute("SELECT sql FROM sqlite_master WHERE name = 'entries_fts'").fetchone()
    finally:
        raw.close()
    return str(sql)


def _old_sidecar(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace indexed, its sidecar then put back as the version before whole words made it."""
    root = make_workspace(tmp_path, NOTES)
    with open_at(root) as sidecar:
        sidecar.index()
    path = root / "memory" / ".sleep" / DB_NAME
    _as_before_whole_words(path)
    return root, path


def test_an_old_sidecar_is_rebuilt_once_on_the_next_recall(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root, path = _old_sidecar(tmp_path)
    assert "tokenchars" not in _tokenizer(path)
    with caplog.at_level(logging.WARNING, logger="memory_sleep"):
        assert "v0.6.5" in _top(root, "v0.6.5")
        assert "10.0.9.42" in _top(root, "10.0.9.42")
    said = [record.getMessage() for record in caplog.records if "full-text index" in record.getMessage()]
    assert len(said) == 1 and "such as v0.6.5" in said[0]
    assert "tokenchars" in _tokenizer(path)


def test_a_rebuild_that_crashes_halfway_is_done_again_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, path = _old_sidecar(tmp_path)
    real = tokenize_module.fts_document
    calls: list[str] = []

    def crashing(text: str) -> str:
        calls.append(text)
        if len(calls) == 3:
            raise KeyboardInterrupt  # the process stops in the middle of the rebuild
        return real(text)

    monkeypatch.setattr(tokenize_module, "fts_document", crashing)
    with pytest.raises(KeyboardInterrupt):
        Store.open(path)
    monkeypatch.setattr(tokenize_module, "fts_document", real)
    assert "tokenchars" not in _tokenizer(path)  # the old index, whole: not half of a new one
    assert "v0.6.5" in _top(root, "v0.6.5")
    assert "tokenchars" in _tokenizer(path)
