"""Offline REM on value changes with structural evidence: an old value the note names reaches the entry
wherever it is filed, and look-alikes about another release or another named subject are never taken
for the same thing."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from memory_sleep.engines.base import ClassifyContext
from memory_sleep.engines.offline import matching, values
from memory_sleep.engines.offline.classify import OfflineClassifier
from memory_sleep.engines.offline.integrate import OfflineIntegrator
from memory_sleep.models import Category, EntryView, KeptItem, Operation

from .item_helpers import note_item


def _decide(
    entries: list[tuple[str, str]],
    new: str,
    category: Category = "fact",
    topic: str | None = None,
    deadline: date | None = None,
) -> Operation:
    known = [
        EntryView(ref=f"E{n}", section=section, topic=topic, text=text, day=date(2026, 11, 1))
        for n, (section, text) in enumerate(entries)
    ]
    kept = KeptItem(item=note_item(new), category=category, topic=topic, deadline=deadline)
    return OfflineIntegrator().integrate([kept], known)[0]


@pytest.mark.parametrize(
    "new",
    [
        "Northwind renewal pushed to 2026-12-15 (was 2026-12-09)",
        "Verlängerung Northwind verschoben auf 2026-12-15 (vorher 2026-12-09)",
    ],
)
def test_an_old_value_the_note_names_changes_the_dated_entry_filed_under_actions(new: str) -> None:
    entries = [
        ("Action items", "Contoso renewal is due 2026-12-09"),
        ("Action items", "Northwind renewal is due 2026-12-09"),
        ("Action items", "Verlängerung Northwind fällig 2026-12-09"),
    ]
    operation = _decide(entries, new)
    assert operation.op == "supersede"
    assert operation.target in ("E1", "E2")


def test_an_old_value_named_for_another_subject_leaves_an_action_alone() -> None:
    operation = _decide(
        [("Action items", "Contoso renewal is due 2026-12-09")],
        "Northwind renewal pushed to 2026-12-15 (was 2026-12-09)",
    )
    assert operation.op == "add"


def test_a_task_of_another_named_subject_due_the_same_day_is_no_news_on_it() -> None:
    operation = _decide(
        [("Action items", "Contoso renewal is due 2026-12-09")],
        "Northwind renewal is due 2026-12-09",
        "action",
        deadline=date(2026, 12, 9),
    )
    assert operation.op == "add"


@pytest.mark.parametrize(
    ("new", "op"),
    [
        ("Follow-up: fix the flaky Orion test `test_sync_users` (ORI-291) before Monday", "add"),
        ("Follow-up: webhooks design feedback for Teo: first draft sent, the rest by 2026-11-30", "update"),
    ],
)
def test_two_tasks_under_one_label_due_the_same_day_are_two_tasks(new: str, op: str) -> None:
    """The label a task is filed under ("Follow-up:", "Next:") is no word of what it says: sharing it
    and the day, two tasks are not one. News on the same task under it still updates the entry."""
    operation = _decide(
        [("Action items", "Follow-up: send Teo feedback on the webhooks design (due 2026-11-30)")],
        new,
        "action",
        topic="Orion",
        deadline=date(2026, 11, 30),
    )
    assert operation.op == op


@pytest.mark.parametrize(
    ("new", "op"),
    [
        ("Pavo keeps session logs for 180 days", "add"),
        ("Pavo now keeps audit logs for 180 days, per the policy", "update"),
    ],
)
def test_the_same_value_said_of_another_subject_is_no_newer_wording(new: str, op: str) -> None:
    """A word of what the older entry is about that the newer line drops ("audit" logs, "session" logs)
    makes it another fact with the same value, added beside it; the same subject in other words
    is still the entry's newer wording."""
    operation = _decide([("Facts", "Pavo keeps audit logs for 180 days")], new, topic="Pavo")
    assert operation.op == op


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Pavo v1.4.0 will ship audit export", "Pavo v1.4.1 will ship audit export"),
        ("Scope of Pavo v1.4.0: audit export plus fixes", "Scope of Pavo v1.6.2: audit export plus fixes"),
        ("Pavo v1.4.0: audit export", "**Pavo v1.3.9:** audit export"),
    ],
)
def test_the_same_words_about_another_release_are_another_fact(old: str, new: str) -> None:
    for section, category in (("Facts", "fact"), ("Decisions", "decision")):
        operation = _decide([(section, old)], new, category, topic="Pavo")  # type: ignore[arg-type]
        assert operation.op == "add", (section, operation)


def test_another_release_with_the_old_value_moved_leaves_the_entry_alone() -> None:
    operation = _decide(
        [("Decisions", "Pavo v1.4.0 will ship the billing export")],
        "Pavo v1.5.0 now ships dark mode; the billing export slips",
        topic="Pavo",
    )
    assert operation.op == "add"


def test_a_statement_with_its_values_moved_between_clauses_is_no_repeat_for_nrem() -> None:
    """The same words, with what the first clause claims swapped for what the second one says: news."""
    known = "Pavo v1.4.0 now ships dark mode; the billing export slips"
    memory = [EntryView(ref="E1", section="Facts", topic="Pavo", text=known, day=date(2026, 11, 1))]
    context = ClassifyContext(projects=["Pavo"], memory=memory)
    swapped = note_item("Pavo v1.4.0 now ships the billing export; dark mode slips", date(2026, 11, 20))
    again = dataclasses.replace(note_item(known, date(2026, 11, 20)), id="again")
    verdicts = OfflineClassifier().classify([swapped], context) + OfflineClassifier().classify(
        [again], context
    )
    assert [v.verdict for v in verdicts] == ["KEEP", "DISCARD"]


def test_two_people_in_each_others_place_is_news_for_nrem_and_rem() -> None:
    """ "**Oskar reports to:** Ines" after "Ines reports to Oskar": the same words, the other way round."""
    known = "Ines reports to Oskar"
    memory = [EntryView(ref="E1", section="People", topic=None, text=known, day=date(2026, 11, 1))]
    context = ClassifyContext(projects=[], memory=memory)
    turned = note_item("**Oskar reports to:** Ines", date(2026, 11, 20))
    again = dataclasses.replace(note_item("- Ines reports to Oskar", date(2026, 11, 20)), id="again")
    verdicts = OfflineClassifier().classify([turned, again], context)
    assert [v.verdict for v in verdicts] == ["KEEP", "DISCARD"]
    kept = KeptItem(item=turned, category="relationship", topic=None)
    assert OfflineIntegrator().integrate([kept], memory)[0].op == "add"  # both stay true: two people


def test_the_same_words_with_the_claim_moved_are_neither_in_memory_nor_an_echo() -> None:
    known = "Pavo v1.4.0 now ships dark mode; the billing export slips"
    swapped = "Pavo v1.4.0 now ships the billing export; dark mode slips"
    entry = EntryView(ref="E0", section="Decisions", topic="Pavo", text=known, day=date(2026, 11, 1))
    for echoes in ((), (known,)):
        kept = KeptItem(item=note_item(swapped), category="action", topic="Pavo", echoes=echoes)
        assert OfflineIntegrator().integrate([kept], [entry])[0].op == "add", echoes


def test_a_sentence_only_broken_across_lines_is_still_a_repeat() -> None:
    operation = _decide(
        [("Facts", "Vega status: Killing Vega: Quill pulled the budget. Repo archived, DNS entries removed")],
        "Killing Vega: Quill; pulled the budget. Repo archived, DNS entries removed",
        "status",
        topic="Vega",
    )
    assert operation.op == "noop"


def _with_projects(topic: str | None, new: str, old: str, category: Category = "fact") -> Operation:
    """`old` filed under no project but naming Kestrel; other entries make Kestrel and Tern projects."""
    known = [
        EntryView(ref="E0", section="Facts", topic=None, text=old, day=date(2026, 9, 1)),
        EntryView(
            ref="E1", section="Facts", topic="Kestrel", text="Kestrel deploys from CI", day=date(2026, 9, 1)
        ),
        EntryView(ref="E2", section="Facts", topic="Tern", text="Tern deploys by hand", day=date(2026, 9, 1)),
    ]
    return OfflineIntegrator().integrate(
        [KeptItem(item=note_item(new), category=category, topic=topic)], known
    )[0]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Vandelay is on the Basic plan (3 seats) for Kestrel", "Vandelay pays for Basic (20 seats)"),
        ("Hooli uses the Kestrel API with a limit of 100 req/s", "Hooli's API limit is 500 req/s"),
        (
            "Vandelay nutzt für Kestrel den Basic-Tarif (3 Plätze)",
            "Vandelay zahlt jetzt 20 Plätze im Basic-Tarif",
        ),
    ],
)
def test_an_item_filed_under_one_project_leaves_an_entry_naming_another_alone(old: str, new: str) -> None:
    operation = _with_projects("Tern", new, old)
    assert operation.op == "add", operation


def test_the_same_item_filed_under_the_project_the_entry_names_still_changes_it() -> None:
    operation = _with_projects(
        "Kestrel", "Vandelay pays for Basic (20 seats)", "Vandelay is on the Basic plan (3 seats) for Kestrel"
    )
    assert (operation.op, operation.target) == ("supersede", "E0")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "Kestrel v2.3.0 will ship offline sync",
            "Kestrel v2.3.0 now ships the CSV importer; offline sync moves to v2.4",
        ),
        (
            "Kestrel v2.3.0 now ships the CSV importer; offline sync moves to v2.4",
            "Kestrel v2.3.0 ships offline sync after all; the CSV importer waits",
        ),
        (
            "Kestrel v2.3.0 liefert Offline-Sync",
            "Kestrel v2.3.0 liefert den CSV-Import; Offline-Sync kommt später",
        ),
        (
            "Kestrel v2.3.0 incluirá la sincronización offline",
            "Kestrel v2.3.0 incluye el importador CSV; la sincronización offline se aplaza",
        ),
    ],
)
def test_a_release_that_names_its_old_scope_after_a_new_claim_changes_it(old: str, new: str) -> None:
    for section, category in (("Facts", "fact"), ("Decisions", "decision")):
        operation = _decide([(section, old)], new, category, topic="Kestrel")  # type: ignore[arg-type]
        assert (operation.op, operation.target) == ("supersede", "E0"), (section, operation)


@pytest.mark.parametrize(
    "new",
    [
        "Kestrel v2.3.0 release notes are drafted; offline sync docs still pending",
        "Kestrel v2.4.0 now ships the CSV importer; offline sync waits",
        "Kestrel v2.3.0 will ship offline sync and the CSV importer",
    ],
)
def test_a_release_statement_with_another_claim_or_release_leaves_the_scope_alone(new: str) -> None:
    operation = _decide([("Decisions", "Kestrel v2.3.0 will ship offline sync")], new, topic="Kestrel")
    assert operation.op != "supersede", operation


def test_a_change_back_to_what_a_recent_note_said_is_no_echo_of_it() -> None:
    """Memory moved on since the note the item repeats: the item changes memory back."""
    first = "Kestrel v2.3.0 will ship offline sync"
    entry = "Kestrel v2.3.0 now ships the CSV importer; offline sync waits (previously: " + first + ")"
    new = "Kestrel v2.3.0 now ships offline sync; the CSV importer waits"
    known = [EntryView(ref="E0", section="Facts", topic="Kestrel", text=entry, day=date(2026, 11, 1))]
    kept = KeptItem(item=note_item(new), category="fact", topic="Kestrel", echoes=(first,))
    operation = OfflineIntegrator().integrate([kept], known)[0]
    assert (operation.op, operation.target) == ("supersede", "E0")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "Validation:; `tests/test_export.py` -> `3 passed`; `make lint` -> clean",
            "Validation:; `tests/test_import.py -k csv` -> `9 passed`; `tests/test_sync.py` -> `4 passed`",
        ),
        ("Checks:; 12 unit tests green; smoke run took 40 s", "Checks:; 31 unit tests green on the importer"),
        ("Prüfung:; 12 Tests grün; Lint sauber", "Prüfung:; 31 Tests grün im Importer"),
        # a full-width colon ends a key too, with no space after it
        (
            "页面链接：; [去重验证脚本](https://www.notion.so/a1b2c3d4); [心智模型数据库](https://www.notion.so/e5f6a7b8)",
            "页面链接：; [语音模式](https://www.notion.so/c9d0e1f2); [浏览器扩展](https://www.notion.so/a3b4c5d6)",
        ),
        ("検証：; テスト 12 件成功; lint 問題なし", "検証：; テスト 31 件成功（インポーター）"),
    ],
)
def test_a_key_before_its_list_is_a_field_each_note_fills_for_its_own_work(old: str, new: str) -> None:
    """ "Validation:" opening a list is no name: two lists under it are two records, not one changed."""
    assert matching.specific_words(new) == frozenset()
    assert _decide([("Facts", old)], new).op == "add"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Kestrel deploy window: Tuesdays 14:00", "Kestrel deploy window is now Thursdays 10:00"),
        ("Team sync for Kestrel: Mondays at 09:30", "Team sync for Kestrel moved to Wednesdays at 09:30"),
        ("Kestrel backups run on Sundays", "Kestrel backups now run on Saturdays"),
    ],
)
def test_a_weekday_is_a_value_of_the_statement_not_a_name(old: str, new: str) -> None:
    """ "Tuesdays" and "Thursdays" are capitalised like names, yet say when, not who."""
    operation = _decide([("Facts", old)], new, topic="Kestrel")
    assert (operation.op, operation.target) == ("supersede", "E0")


def test_people_with_their_own_weekdays_stay_apart() -> None:
    operation = _decide(
        [("People", "Ana works from home on Fridays")], "Bo works from home on Mondays", "relationship"
    )
    assert operation.op == "add"


def test_an_old_value_of_several_words_is_all_gone_from_what_a_change_claims() -> None:
    """ "from on for everyone to off": the whole old value is gone, not its first words only, so the
    change shares no word with another flag that is on for everyone."""
    change = "Kestrel flag `async_ingest` changed from on for everyone to off"
    assert "everyone" not in values.current_claim(change)
    other_flag = ("Facts", "`usage_billing` (Kestrel): on for everyone")
    assert _decide([other_flag], change, topic="Kestrel").op == "add"
    same_flag = ("Facts", "Kestrel flag `async_ingest` is on for everyone in prod")
    operation = _decide([other_flag, same_flag], change, topic="Kestrel")
    assert (operation.op, operation.target) == ("supersede", "E1")


def test_a_long_url_the_note_says_is_gone_is_the_old_value() -> None:
    old = "https://grafana.example.net/d/badd653/kestrel-exporter-overview"
    new = f"New Kestrel exporter dashboard at https://grafana.example.net/d/9ee4050/kestrel (old one {old} is gone)"
    assert values.replaced_values(new) == (old,)
    operation = _decide([("Facts", f"The Kestrel exporter Grafana board is {old}")], new, topic="Kestrel")
    assert (operation.op, operation.target) == ("supersede", "E0")


def test_a_percentage_is_a_value() -> None:
    """ "on for 10%" states a value: a change to it is no echo of a task that names no share."""
    assert values.typed_values("Kestrel flag `sso` is on for 10%")["duration"] == {"10%"}
    assert matching.values_conflict("rollout at 10% of users", "rollout at 50% of users")
    kept = KeptItem(
        item=note_item("Kestrel flag `sso` changed from on for everyone to on for 10%"),
        category="fact",
        topic="Kestrel",
        echoes=("- [ ] clean up the `sso` flag in Kestrel (due 10/21)",),
    )
    assert OfflineIntegrator().integrate([kept], [])[0].op == "add"


@pytest.mark.parametrize(
    ("old", "new", "changed"),
    [
        (
            "Scope of Kestrel v2.3.0: the offline sync flow plus fixes",
            "Kestrel v2.3.0 now ships the CSV import flow; the offline sync flow waits",
            True,
        ),
        (
            "Scope of Kestrel v2.3.0: the offline sync flow plus fixes",
            "Kestrel v2.3.0 release notes are drafted; the offline sync flow docs still pending",
            False,
        ),
    ],
)
def test_a_new_claim_in_the_place_of_the_old_one_changes_a_scope_with_more_in_it(
    old: str, new: str, changed: bool
) -> None:
    """The new claim stands where the entry's stood, between words both have, and the old one is named
    after it: the scope changed, whatever else the entry said of it ("plus fixes")."""
    operation = _decide([("Facts", old)], new, topic="Kestrel")
    assert (operation.op == "supersede") is changed, operation


def test_two_tables_under_one_header_are_two_tables() -> None:
    """A table's first row names its columns, not what it is about: another value in another table with
    the same columns changes nothing."""
    old = "| Parameter | Value | Note |; | starting capital | $1,000 | cautious |; | max drawdown | 30% | hard stop |"
    new = "| Parameter | Value | Note |\n| NOAA confidence | ≥85% | forecast data |\n| stop loss | 5% a day |"
    assert _decide([("Facts", old)], new).op == "add"


@pytest.mark.parametrize(
    "new",
    [
        "Replacing Solr with Vespa for Lyra search — the people who ran it have left",
        "Swapped Solr for Vespa in Lyra search, it was too slow",
        "Suche für Lyra von Solr auf Vespa umgestellt",
    ],
)
def test_the_old_value_framed_by_the_words_of_a_change_is_gone(new: str) -> None:
    """'Replacing X with Y', 'swapped X for Y', 'von X auf Y': the language files' frames around an
    old value name it like 'from X to' does; the entry of the subject holding it changes, not the one
    of another subject with the same value."""
    entries = [
        ("Decisions", "Decision (Vega search): Solr"),
        ("Decisions", "Decision (Lyra search): Solr"),
    ]
    assert values.replaced_values(new) == ("Solr",)
    operation = _decide(entries, new, "decision")
    assert (operation.op, operation.target) == ("supersede", "E1")


def test_a_thing_replaced_that_no_entry_holds_changes_nothing() -> None:
    operation = _decide(
        [("Decisions", "Decision (Lyra search): Solr")],
        "Replacing the flaky login test with a mock",
        "decision",
    )
    assert operation.op == "add"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "Decided Lyra search runs on pgvector, because it unblocks the work",
            "Decision (Lyra search): Solr",
        ),
        (
            "Decision (Lyra search): Solr",
            "Decided Lyra search runs on pgvector, because it unblocks the work",
        ),
        ("Lyra billing owner is Raj since March", "Lyra billing owner: Mei"),
        ("Decision — queue for Lyra is SQS; it is cheap", "Decision (Lyra queue): Kafka — the team knows it"),
        ("Mei reports to Raj", "Mei reports to: Wei"),
    ],
)
def test_a_key_that_names_a_sentence_subject_with_another_name_is_a_new_value(old: str, new: str) -> None:
    """The same key with a new value, told once as a key and once as a sentence's subject."""
    category: Category = "decision" if "Decision" in old + new or "Decided" in old else "fact"
    section = "Decisions" if category == "decision" else "Facts"
    operation = _decide([(section, old)], new, category, topic="Lyra")
    assert (operation.op, operation.target) == ("supersede", "E0")


@pytest.mark.parametrize(
    ("entries", "new"),
    [
        # the key's word is not the sentence's subject: what Lyra uses SQS for, the key may not be
        (["Decided: Lyra uses SQS for the job queue, because it is cheap"], "Decision (Lyra queue): Kafka"),
        # a subject of more words: "public API" is not all of what "API" may name
        (["Decided: Lyra public API is REST — simpler"], "Decision (Lyra API): GraphQL"),
        # two entries fit: nothing says which one the key names
        (
            ["Decided Lyra search runs on pgvector", "Lyra search is run by contractors"],
            "Decision (Lyra search): Solr",
        ),
    ],
)
def test_a_key_line_without_its_subject_alone_in_one_entry_is_added_beside(
    entries: list[str], new: str
) -> None:
    operation = _decide([("Decisions", text) for text in entries], new, "decision", topic="Lyra")
    assert operation.op == "add"


def test_a_fact_key_with_a_name_leaves_a_sentence_that_gives_no_name_alone() -> None:
    operation = _decide(
        [("Facts", "Lyra billing owner is on leave this week")], "Lyra billing owner: Mei", "fact", "Lyra"
    )
    assert operation.op == "add"


def test_a_fact_key_with_a_name_leaves_a_sentence_of_a_state_alone() -> None:
    operation = _decide(
        [("Facts", "Lyra frontend is slow on Safari")], "Lyra frontend: React", "fact", "Lyra"
    )
    assert operation.op == "add"


def test_a_sentence_that_opens_with_the_key_says_a_new_value_only_with_a_name() -> None:
    operation = _decide(
        [("People", "Mei reports to the board on billing matters")], "Mei reports to: Wei", "relationship"
    )
    assert operation.op == "add"


@pytest.mark.parametrize("category", ["decision", "relationship", "fact"])
def test_a_sentence_naming_a_key_and_its_old_value_changes_the_key_line(category: Category) -> None:
    """ "Ines now reports to Tomas instead of Oskar" names the key of "Ines reports to: Oskar" and says its
    value is gone: the same key with a new value, whatever the change is filed as and with no project
    to say both are about one thing."""
    operation = _decide(
        [("People", "Ines reports to: Oskar"), ("People", "Pim reports to: Oskar")],
        "Ines now reports to Tomas instead of Oskar",
        category,
    )
    assert (operation.op, operation.target) == ("supersede", "E0")


@pytest.mark.parametrize(
    ("entry", "new"),
    [
        # a key of one word is a field every note fills: whose owner, "Owner:" does not say
        ("Owner: Oskar", "Owner of billing is now Tomas instead of Oskar"),
        # the sentence does not say every word of the key: another relation of Ines
        ("Ines reports to: Oskar", "Ines now mentors Tomas instead of Oskar"),
        # the key's value is more than the old value
        ("Ines reports to: Oskar and Pim", "Ines now reports to Tomas instead of Oskar"),
    ],
)
def test_a_key_line_is_changed_by_a_sentence_only_with_its_whole_key_and_value(entry: str, new: str) -> None:
    assert _decide([("People", entry)], new, "relationship").op == "add"


def _in_projects(new: str, topic: str, entries: list[tuple[str, str]]) -> Operation:
    known = [
        EntryView(ref=f"E{n}", section="Decisions", topic=project, text=text, day=date(2026, 11, 1))
        for n, (project, text) in enumerate(entries)
    ]
    kept = KeptItem(item=note_item(new), category="decision", topic=topic)
    return OfflineIntegrator().integrate([kept], known)[0]


def test_a_named_version_the_note_says_is_gone_changes_the_entry_of_its_project() -> None:
    """ "GPT-4.1" names one thing, however short its name: the old value of the project's entry, which
    shares no other word with the change."""
    operation = _in_projects(
        "Switching Kestrel from GPT-4.1 to Claude Sonnet: the upstream model reaches end of life",
        "Kestrel",
        [("Kestrel", "Decided Kestrel uses GPT-4.1 for summaries because it unblocks the gateway work")],
    )
    assert (operation.op, operation.target) == ("supersede", "E0")


def test_an_old_value_of_another_projects_entry_is_not_the_one_changed() -> None:
    operation = _in_projects(
        "Switching Kestrel from GPT-4.1 to Claude Sonnet: the upstream model reaches end of life",
        "Kestrel",
        [("Tern", "Decided Tern uses GPT-4.1 for summaries because it unblocks the gateway work")],
    )
    assert operation.op == "add", operation


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        (
            "Decided: backend on Postgres 16 with Django, served from the box at IP 10.0.4.12",
            "Moved the backend today: new IP is 10.0.7.40 (was 10.0.4.12)",
            "Decided: backend on Postgres 16 with Django, served from the box at IP 10.0.7.40"
            " (previously: 10.0.4.12)",
        ),
        (  # a table's row: the other rows are facts of their own; the value's unit is no word of the change
            "Hetzner (Plan: CX32; Price/month: €6.80); DigitalOcean (Plan: 4GB droplet; Price/month: $24)",
            "Hetzner raised CX32 to €7.49/month from December (was €6.80)",
            "Hetzner (Plan: CX32; Price/month: €7.49 (previously: €6.80)); DigitalOcean (Plan: 4GB droplet;"
            " Price/month: $24)",
        ),
        (
            "Pricing agreed with Contoso: Team plan, 30 seats, $4,200/year, invoiced quarterly",
            "Contoso price is now $4,800/year (was $4,200/year)",
            "Pricing agreed with Contoso: Team plan, 30 seats, $4,800/year (previously: $4,200/year),"
            " invoiced quarterly",
        ),
    ],
)
def test_one_typed_value_changed_in_an_entry_that_says_more_is_changed_in_its_place(
    old: str, new: str, kept: str
) -> None:
    """A compound entry keeps what the change does not touch: the supersede writes the entry with the
    one value changed, not the note's line (which would drop "Postgres 16 with Django" from MEMORY.md;
    archive.md keeps the old wording, superseded by the note)."""
    operation = _decide([("Decisions", old)], new)
    assert (operation.op, operation.target, operation.text) == ("supersede", "E0", kept)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Alpha IP is 10.0.0.1", "Alpha IP is 10.0.0.2 (was 10.0.0.1)"),  # says nothing more
        (  # what the entry says besides is its key in other words: the change says all of it
            "The Quokka reports Grafana board is https://grafana.example.dev/d/a1/reports",
            "New Quokka reports dashboard at https://grafana.example.io/d/b2/reports"
            " (old one https://grafana.example.dev/d/a1/reports is gone)",
        ),
        (  # the entry is a change itself: its history and reason go with it
            "Staging API port is now 9090 (was 8080) because 8080 clashes with the Jenkins agent",
            "Staging API port is now 9443 (was 9090)",
        ),
        (  # the change gives a reason of its own, in place of the old one's
            "Alpha freezes features until 2026-12-10; the vendor quote came in too high",
            "Alpha freezes features until 2027-01-07 (was 2026-12-10); legal wants the data in the EU",
        ),
        (  # two new values of the kind: which one took its place is not said
            "Decided: backend on Postgres 16 with Django, served from the box at IP 10.0.4.12",
            "Backend moved: new IPs are 10.0.7.40 and 10.0.7.41 (was 10.0.4.12)",
        ),
    ],
)
def test_a_change_that_says_all_the_entry_says_or_more_or_no_one_new_value_replaces_the_entry(
    old: str, new: str
) -> None:
    operation = _decide([("Facts", old)], new)
    assert (operation.op, operation.target) == ("supersede", "E0")
    assert operation.text is not None and operation.text.startswith(new)


def test_a_change_is_matched_by_what_it_tells_not_by_its_reasons() -> None:
    """A new user's trial: "Dropping Fly.io, moving Harbor to Render. The builder outages cost us two
    afternoons" superseded "Second Fly.io builder outage this week" (the reason shares "builder"), not
    the choice of Fly.io; the outage was marked superseded, the choice stayed current."""
    operation = _decide(
        [
            ("Facts", "Retried, worked the second time. Second Fly.io builder outage this week"),
            ("Decisions", "We'll deploy the Harbor customer portal on Fly.io (two regions, ams + iad)"),
        ],
        "Dropping Fly.io, moving Harbor to Render. The builder outages cost us two afternoons this week",
        "decision",
    )
    assert operation.target != "E0"


@pytest.mark.parametrize(
    ("old", "new", "op"),
    [
        # a new user's trial: the move was a decision ("moved to"), the old address a fact left current
        ("Basalt DB primary is at 10.0.4.12", "The Basalt DB primary moved to 10.0.4.17.", "supersede"),
        (
            "Basalt docs are served from docs.basalt.example",
            "Basalt docs moved to docs2.basalt.example",
            "supersede",
        ),
        (
            "exporter listens on 8000",
            "exporter retry policy (max 45 tries)",
            "add",
        ),  # two counts: a port, a policy
    ],
)
def test_a_decision_changes_a_fact_stating_a_typed_value_of_its_kind(old: str, new: str, op: str) -> None:
    assert _decide([("Facts", old)], new, category="decision").op == op
