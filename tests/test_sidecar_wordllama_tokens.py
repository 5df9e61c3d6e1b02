"""The tokenizer file read in Python (a recall's few texts) gives `tokenizers`' ids, and so the same
vectors, for any text: notes in several scripts, characters outside the vocabulary, special tokens."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer

from memory_sleep.sidecar import embed_wordllama, wordllama_cache
from memory_sleep.sidecar.wordllama_tokens import BpeTokens


def is_cjk(text: str) -> bool:
    return any("\u4e00" <= char <= "\u9fff" for char in text)


REPO = Path(__file__).resolve().parent.parent
TOKENIZER_FILE = (
    embed_wordllama.package_folder() / "tokenizers" / f"{embed_wordllama.MODEL}_tokenizer_config.json"
)
ODD_TEXTS = [
    "",
    " ",
    "  two  spaces ",
    "where is my car?",
    "会议周四下午 🚀 deploy v0.10.1",
    "日本語のテキスト。カタカナ、한국어 텍스트, Привет мир, مرحبا",
    "tab\there\nnewline\r\nand \x00 \x7f \u200b \ufeff controls",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ☃ ÿ",  # characters outside the vocabulary: their UTF-8 bytes
    "<s>hello</s> <unk><s>",  # the special tokens, split out of the text
    "a<s>b",
    "<s",
    "▁▁▁ already ▁ marked",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "x " * 700,
]


@cache
def both() -> tuple[BpeTokens, Tokenizer]:
    return BpeTokens.from_file(TOKENIZER_FILE), Tokenizer.from_file(str(TOKENIZER_FILE))


def _rust_ids(tokenizer: Tokenizer, texts: list[str]) -> list[list[int]]:
    return [encoding.ids for encoding in tokenizer.encode_batch(texts, add_special_tokens=False)]


def _note_texts() -> list[str]:
    """Every line of the example workspace and of the real Chinese notes, and each file whole."""
    folders = [
        REPO / "fixtures" / "workspace",
        REPO / "benchmarks" / "realnotes" / "autonomous-agent-stack__autonomous-agent-stack",
    ]
    texts: list[str] = []
    for path in sorted(file for folder in folders for file in folder.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        texts += [text, *text.splitlines()]
    return texts


def test_the_ids_are_those_of_tokenizers_on_notes_and_odd_texts() -> None:
    few, rust = both()
    texts = ODD_TEXTS + _note_texts()
    assert len(texts) > 2_000 and sum(is_cjk(text) for text in texts) > 500
    assert [few.ids(text) for text in texts] == _rust_ids(rust, texts)


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        st.one_of(
            st.sampled_from(list("ab ▁<>/sunk\n\t-.,é中文日本한🚀")),
            st.characters(codec="utf-8"),
        ),
        max_size=60,
    )
)
def test_the_ids_are_those_of_tokenizers_on_any_text(text: str) -> None:
    few, rust = both()
    assert few.ids(text) == _rust_ids(rust, [text])[0]


def test_a_process_s_first_texts_and_later_ones_get_the_same_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """One at a time the first ones are read by the Python reader, in a batch past FEW_TEXTS by
    `tokenizers` (all of the batch's texts): bit for bit the same vectors."""
    texts = ODD_TEXTS + _note_texts()[:200]
    monkeypatch.setattr(embed_wordllama, "_loaded", {})
    monkeypatch.setattr(embed_wordllama, "FEW_TEXTS", len(texts))
    model = embed_wordllama.load_model(256)
    one_by_one = np.concatenate([model.embed([text]) for text in texts])
    assert model._many is None
    monkeypatch.setattr(embed_wordllama, "_loaded", {})
    monkeypatch.setattr(embed_wordllama, "FEW_TEXTS", len(texts) - 1)
    model = embed_wordllama.load_model(256)
    batched = model.embed(texts)
    assert model._many is not None
    assert one_by_one.tobytes() == batched.tobytes()


def test_a_night_s_few_hundred_texts_do_not_load_tokenizers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading `tokenizers` (~51 ms) costs more than the Python reader takes for a steady night's new
    lines (~340 texts at 0.09 ms); a process past the break-even loads it."""
    monkeypatch.setattr(embed_wordllama, "_loaded", {})
    model = embed_wordllama.load_model(256)
    model.embed(_note_texts()[:340])
    assert model._many is None
    model.embed(_note_texts()[:400])
    assert model._many is not None


def test_a_tokenizer_file_with_other_settings_is_refused(tmp_path: Path) -> None:
    config = json.loads(TOKENIZER_FILE.read_text(encoding="utf-8"))
    config["pre_tokenizer"] = {"type": "Whitespace"}
    other = tmp_path / "tokenizer.json"
    other.write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ValueError, match="tokenizer settings this reader does not implement"):
        BpeTokens.from_file(other)


def _copied_tokenizer(folder: Path) -> Path:
    copy = folder / "package" / TOKENIZER_FILE.name
    copy.parent.mkdir()
    copy.write_bytes(TOKENIZER_FILE.read_bytes())
    return copy


def test_a_workspace_keeps_the_tables_and_the_next_process_reads_only_what_its_query_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rust = both()[1]
    texts = ODD_TEXTS + _note_texts()[:300]
    made = wordllama_cache.cached_tokens(TOKENIZER_FILE, tmp_path)  # parses the file, keeps the tables
    assert (tmp_path / wordllama_cache.FILE).is_file()

    def unwanted(path: Path) -> None:
        raise AssertionError(f"parsed {path} again")

    monkeypatch.setattr(wordllama_cache, "read_tables", unwanted)
    kept = wordllama_cache.cached_tokens(TOKENIZER_FILE, tmp_path)
    assert isinstance(kept.vocab, wordllama_cache.StoredLookup)
    assert [kept.ids(text) for text in texts] == [made.ids(text) for text in texts] == _rust_ids(rust, texts)
    assert len(kept.vocab._read) < 2_000  # what the texts asked for, not the 32,000 tokens


def test_the_kept_tables_are_made_again_when_the_tokenizer_file_changes_or_they_do_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokenizer = _copied_tokenizer(tmp_path)
    kept = tmp_path / wordllama_cache.FILE
    parsed: list[Path] = []
    read_tables = wordllama_cache.read_tables
    monkeypatch.setattr(wordllama_cache, "read_tables", lambda path: parsed.append(path) or read_tables(path))
    first = wordllama_cache.cached_tokens(tokenizer, tmp_path)
    wordllama_cache.cached_tokens(tokenizer, tmp_path)
    assert len(parsed) == 1

    config = json.loads(tokenizer.read_text(encoding="utf-8"))  # a new version of the model's tokenizer
    config["model"]["merges"] = config["model"]["merges"][:1_000]
    tokenizer.write_text(json.dumps(config), encoding="utf-8")
    changed = wordllama_cache.cached_tokens(tokenizer, tmp_path)
    again = wordllama_cache.cached_tokens(tokenizer, tmp_path)
    assert len(parsed) == 2
    text = "the billing cutover moved to Friday"
    assert changed.ids(text) == again.ids(text) == BpeTokens.from_file(tokenizer).ids(text) != first.ids(text)

    kept.write_bytes(b"not a database")
    assert wordllama_cache.cached_tokens(tokenizer, tmp_path).ids(text) == changed.ids(text)
    assert len(parsed) == 3
    assert wordllama_cache.cached_tokens(tokenizer, tmp_path).ids(text) == changed.ids(text)
    assert len(parsed) == 3


def test_a_folder_that_cannot_be_written_parses_the_tokenizer_file(tmp_path: Path) -> None:
    folder = tmp_path / "sleep"
    folder.write_bytes(b"")  # a file where the folder would be: nothing can be written under it
    tokens = wordllama_cache.cached_tokens(TOKENIZER_FILE, folder)
    assert folder.read_bytes() == b""
    assert tokens.ids("where is my car?") == both()[0].ids("where is my car?")
