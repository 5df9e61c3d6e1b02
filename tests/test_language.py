"""One tokenizer, one stopword list and one list of lead-in labels, read by the engines, the phases
and the sidecar alike."""

from __future__ import annotations

import re
from dataclasses import asdict
from pathlib import Path

import pytest

from memory_sleep import language
from memory_sleep.engines.offline import cues, matching
from memory_sleep.engines.offline.references import person_names
from memory_sleep.engines.offline.statements import subject_key
from memory_sleep.sidecar.embed import OfflineEmbedder
from memory_sleep.sidecar.tokenize import fts_document, query_terms
from memory_sleep.text import terms, tokens


def test_every_language_file_reads_and_english_has_every_list() -> None:
    files = language.read_languages()
    assert {"en.toml", "de.toml", "es.toml"} <= files.keys()
    english = files["en.toml"]
    assert english.stopwords.split() and english.generic.split() and english.lead_ins.split()
    assert all(label == label.lower() for label in language.LEAD_INS)


def test_every_value_of_every_language_file_is_text_and_an_unknown_key_names_its_file() -> None:
    for name, words in language.read_languages().items():
        data = asdict(words)
        cue_lists = [text for cue in data.pop("cues").values() for text in cue.values()]
        tables = [
            *data.pop("sections").values(),
            *data.pop("changes").values(),
            *data.pop("done_forms").values(),
        ]
        values = [*tables, *cue_lists, *data.values()]
        assert all(isinstance(value, str) for value in values), name
    with pytest.raises(ValueError, match=r"xx\.toml: .*'stopword'"):
        language._language(Path("xx.toml"), {"stopword": "a"})
    with pytest.raises(ValueError, match=r"xx\.toml: .*'negations'"):
        language._language(Path("xx.toml"), {"changes": {"negations": "not"}})
    with pytest.raises(ValueError, match=r"xx\.toml: .*'ending'"):
        language._language(Path("xx.toml"), {"done_forms": {"ending": "- -> -ed"}})
    with pytest.raises(ValueError, match=r"xx\.toml: .*'decisions'"):
        language._language(Path("xx.toml"), {"cues": {"decisions": {"words": "decided"}}})
    with pytest.raises(ValueError, match=r"xx\.toml: .*'phrases'"):
        language._language(Path("xx.toml"), {"cues": {"decision": {"phrases": "decided"}}})


def test_english_has_every_word_cue_and_every_cue_pattern_compiles() -> None:
    english = asdict(language.read_languages()["en.toml"].cues)
    assert all("".join(lists.values()).strip() for lists in english.values()), english.keys()
    for cue in english:
        for pattern in language.cue_words(cue, "patterns"):
            re.compile(pattern)


def test_a_language_files_words_drive_the_cue() -> None:
    german = language.read_languages()["de.toml"].cues
    assert "jetzt (schaue|prüfe)" in german.narration.starts
    assert cues.NARRATION.search("Jetzt prüfe ich die Logs vom Deploy")
    assert not cues.NARRATION.search("Die Logs prüfe ich morgen")
    assert "beschlossen" in german.decision.marks
    assert cues.DECISION.search("Das ist beschlossene Sache: Postgres bleibt")
    assert cues.DONE.search("erledigt: Zertifikat erneuert") and cues.DONE.search("完了：証明書を更新")


def test_how_a_cue_phrase_is_written() -> None:
    """ "(a|b)" one of the alternatives, a lone "*" one word; whole words where an edge is a letter."""
    check = re.compile(cues._phrase("(i'll|ill) (check|look)"), re.I)
    assert check.search("ok I'll check") and check.search("ill look") and not check.search("Bill looked")
    assert re.search(cues._phrase("remind * (to|about)"), "remind Ana to renew")
    assert re.search(cues._phrase("postpone(|s|d)"), "postponed") and not re.search(
        cues._phrase("postpone(|s|d)"), "postponement"
    )
    assert re.search(cues._phrase("(todo|to-do):"), "to-do: x") and re.search(
        cues._phrase("已完成"), "任务已完成了"
    )
    with pytest.raises(ValueError, match="write two lines"):
        cues._phrase("(done|✅)")


def test_the_engine_and_the_search_leave_out_the_same_stopwords() -> None:
    """The engine's list had "done" and the sidecar's did not; the sidecar's had "what", "there"."""
    assert tokens("what is done there") == frozenset()
    assert query_terms("what is done there") == []
    for word in language.STOPWORDS:
        assert not tokens(word) and not query_terms(word), word


def test_the_embedder_skips_the_stopwords_too() -> None:
    embedder = OfflineEmbedder()
    assert embedder.embed(["deploy done"]).tolist() == embedder.embed(["deploy"]).tolist()


def test_one_cjk_range_for_the_engine_and_the_index() -> None:
    """U+FA0E, a compatibility ideograph NFKC keeps, was CJK to the index but a word to the engine."""
    text = "東\ufa0e"
    assert tokens(text) == frozenset(terms(text)) == {text}
    assert fts_document(text) == text


@pytest.mark.parametrize("label", ["Plan", "Reason", "Decided", "Entscheidung", "Decisión", "Heads up"])
def test_every_lead_in_label_is_not_the_subject(label: str) -> None:
    statement = f"{label}: Beacon auth port is 9643"
    assert matching.subject(statement) == {"beacon", "auth", "port"}
    assert subject_key(f"{label}: 9643", frozenset()) is None


@pytest.mark.parametrize("label", ["Status", "Decision", "Plan", "Summary"])
def test_a_lead_in_label_names_no_person(label: str) -> None:
    assert person_names(f"{label}: Nadia moved to Berlin") == ["nadia", "berlin"]
