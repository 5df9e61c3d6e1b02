"""Offline REM decisions on absences, lessons told again, rescheduled decisions and what is no change."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from memory_sleep.engines.offline import absences, repeats, values
from memory_sleep.engines.offline.curate import has_history
from memory_sleep.engines.offline.integrate import OfflineIntegrator
from memory_sleep.models import Category, EntryView, KeptItem, Operation

from .item_helpers import note_item


def _decide(
    entry: str,
    new: str,
    category: Category = "fact",
    section: str = "Facts",
    topic: str | None = None,
    replaced: tuple[str, ...] = (),
) -> Operation:
    item = note_item(new)
    known = EntryView(
        ref="E1", section=section, topic=topic, text=entry, day=date(2026, 11, 1), replaced=replaced
    )
    return OfflineIntegrator().integrate([KeptItem(item=item, category=category, topic=topic)], [known])[0]


def test_the_same_absence_told_again_in_other_words_is_a_repeat() -> None:
    operation = _decide(
        "Lena is out from 2026-12-05 for 4 days",
        "Just confirming: heads-up: Lena on leave 2026-12-05, 4 days",
        "relationship",
        "People",
    )
    assert (operation.op, operation.target) == ("noop", "E1")


def test_a_new_length_of_the_same_absence_supersedes_it_and_names_the_last_day() -> None:
    operation = _decide(
        "heads-up: Felix on leave 2026-12-24, 3 days, ping Yuki instead",
        "Felix's leave from 2026-12-24 is now 14 days (was 3 days)",
        "relationship",
        "People",
    )
    assert (operation.op, operation.target) == ("supersede", "E1")
    assert operation.text == (
        "Felix on leave 2026-12-24 to 2027-01-06 (14 days)"
        " (previously: heads-up: Felix on leave 2026-12-24, 3 days, ping Yuki instead)"
    )  # the engine notes what its supersede replaced


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Ben ist vom 2026-12-01 bis 2026-12-05 im Urlaub.", "ben 2026-12-01 2026-12-05"),
        (
            "Sofia geht vom 2026-11-30 bis 2027-01-08 in Elternzeit; Jonas übernimmt Lumen.",
            "sofia 2026-11-30 2027-01-08",
        ),
        ("Jonas ist ab 2026-12-14 für 2 Wochen im Urlaub", "jonas 2026-12-14 2026-12-27"),
        ("Info: Ana ist krankgeschrieben ab 2026-12-02, 3 Tage", "ana 2026-12-02 2026-12-04"),
        ("heads-up: Lena on leave 2026-12-05, 4 days", "lena 2026-12-05 2026-12-08"),
        ("Ana is out from 2026-11-30 until 2027-01-08; Marco covers reviews", "ana 2026-11-30 2027-01-08"),
        ("Ben 2026-12-01 to 2026-12-05 OOO", "ben 2026-12-01 2026-12-05"),
        ("Lucía estará de vacaciones del 2026-12-01 al 2026-12-10.", "lucía 2026-12-01 2026-12-10"),
        ("Mateo sale de baja el 2026-12-03 por 2 semanas", "mateo 2026-12-03 2026-12-16"),
    ],
)
def test_absence_notices_in_the_languages_of_the_language_files(text: str, read: str) -> None:
    """German puts the dates between the verb and where the person is ("ist vom ... bis ... im Urlaub"):
    the person is then the name the notice opens with. Before, such a notice was no absence, and "bis"
    read as a deadline filed it as an action."""
    person, first, last = read.split()
    assert absences.absence(text) == absences.Absence(
        person, date.fromisoformat(first), date.fromisoformat(last)
    )


@pytest.mark.parametrize(
    "text",
    [
        "Postgres ist seit 2026-12-01 im Einsatz",  # no word for being away
        "Release v2 from 2026-12-01 is out",  # "is out" only right after a name
        "Die Migration läuft vom 2026-12-01 bis 2026-12-05; Ben ist im Urlaub",  # no date in Ben's clause
        "Ben ist im Urlaub",  # no date
    ],
)
def test_no_absence_without_a_person_a_date_and_a_word_for_being_away_in_one_clause(text: str) -> None:
    assert absences.absence(text) is None


def test_absences_of_other_days_or_other_people_are_separate_events() -> None:
    later = _decide(
        "Felix's leave from 2026-12-24 is now 14 days (was 3 days)",
        "Felix is out from 2026-12-02 for 5 days; Diego covers",
        "relationship",
        "People",
    )
    other = _decide(
        "heads-up: Wei on leave 2026-10-22, 7 days, ping Raj instead",
        "heads-up: Nadia on leave 2026-11-21, 7 days, ping Wei instead",
        "relationship",
        "People",
    )
    # what the notice says besides its dates stays with it: who covers is what a reader needs next
    assert (later.op, later.text) == ("add", "Felix on leave 2026-12-02 to 2026-12-06 (5 days); Diego covers")
    assert other.op == "add"


@pytest.mark.parametrize("name", ["Björn", "Lucía", "Łukasz", "Émile"])
def test_an_absence_of_someone_whose_name_is_spelled_past_ascii_is_an_absence(name: str) -> None:
    """A name is as often "Björn" as "Ana": another leave of theirs is another event, not a new date
    of the same one (which a statement with the same words and another date would be)."""
    operation = _decide(
        f"heads-up: {name} on leave 2026-12-02, 5 days, ping Mei instead",
        f"heads-up: {name} on leave 2026-12-11, 5 days, ping Mei instead",
        "relationship",
        "People",
    )
    assert (operation.op, operation.text) == (
        "add",
        f"{name} on leave 2026-12-11 to 2026-12-15 (5 days), ping Mei instead",
    )


def test_a_lesson_learned_again_about_another_part_rewords_the_entry() -> None:
    operation = _decide(
        "Merke: notifier braucht ein eigenes Timeout, das globale ist zu lang",
        "Merke: reports braucht ein eigenes Timeout, das globale ist zu lang.",
        "lesson",
        "Lessons",
        topic="Meridian",
    )
    told_again = _decide(
        "Merke: notifier braucht ein eigenes Timeout, das globale ist zu lang",
        "Merke: notifier braucht ein eigenes Timeout, das globale ist zu lang; context: NIM-931",
        "lesson",
        "Lessons",
    )
    assert (operation.op, operation.target) == ("update", "E1")
    assert told_again.op == "noop"


def test_a_decision_moved_to_another_date_supersedes_it_whatever_the_reason() -> None:
    operation = _decide(
        "Decidimos congelar las features de Meridian hasta el 2026-12-10; the vendor quote came in at $1,200/month",
        "**Decision:** Decidimos congelar las features de Meridian hasta el 2027-01-07; legal wants the data in the EU.",
        "decision",
        "Decisions",
    )
    assert (operation.op, operation.target) == ("supersede", "E1")


def test_not_followed_by_a_plain_word_names_no_old_value() -> None:
    """ "not one of the cert-manager ones" names nothing; "NOT the :443 vhost" names 443, after its article,
    as "not 5432" does: a later "port 8443 (not 443)" says no more than the line that said it first."""
    assert values.replaced_values("Atlas staging is at staging.atlas.internal:8443 — NOT the :443 vhost") == (
        "443",
    )
    assert values.replaced_values("the old cert, not one of the cert-manager ones") == ()
    assert values.replaced_values("Meridian exporter listens on 8000, not 5432") == ("5432",)
    operation = _decide(
        "New: Dana Whitfield — finance controller. Prefers numbers in a spreadsheet (one row per customer)",
        "billing.fernhill.io certificate expires 2026-12-02, not one of the cert-manager ones",
        "fact",
        "People",
    )
    assert operation.op == "add"


def test_an_arrow_to_a_result_or_within_a_chain_names_no_old_value() -> None:
    """An arrow is a change when it replaces a value: a path's HTTP status ("/ → 200") is a result,
    and the words before a chain's last arrow hold its first arrow. Both superseded an unrelated entry."""
    assert (
        values.replaced_values("Verified: / → 200; /api/* without a token → 401 (locally and publicly)") == ()
    )
    assert values.replaced_values("Public path: https://vega.example/app/ → nginx → 127.0.0.1:8080") == ()
    assert values.replaced_values("Rebuilt the bundle, updated /var/www/app, /app/ → 200") == ()
    assert values.replaced_values("Port: 5432 → 6432") == ("5432",)  # the key's label is not the value
    assert values.replaced_values("status 401 → 200") == ("status 401", "401")
    result = _decide(
        "Fix: forecast_days=1 → 2. Verified publicly (https://vega.example/app/ returns forecast_days=2)",
        "Verified: / → 200; /api/* without a token → 401 (locally and publicly)",
    )
    chain = _decide(
        "Cloudflare (DNS + proxy) → nginx (TLS, auto-renewed) → Orion gateway (127.0.0.1:18789)",
        "Public path: https://vega.example/app/ → nginx → 127.0.0.1:8080",
    )
    assert (result.op, chain.op) == ("add", "add")


def test_a_value_said_to_be_gone_is_the_value_alone() -> None:
    text = "New ingest dashboard at https://grafana.example.net/d/d9b/ingest (old one https://grafana.example.net/d/283/ingest is gone)"
    assert values.replaced_values(text) == ("https://grafana.example.net/d/283/ingest",)


@pytest.mark.parametrize(
    ("entry", "new"),
    [
        ("Orion staging server: 10.0.4.17", "new IP is 10.0.9.42 (10.0.4.17 is decommissioned)"),
        (
            "Staging server for Harbor: 10.0.4.17 (ssh as deploy@).",
            "Staging IP: the Harbor staging server moved to a new host, 10.0.8.42. The old box 10.0.4.17 "
            "is being decommissioned on Friday.",
        ),
        ("Harbor DNS: db-primary.harbor.internal", "db-primary.harbor.internal was switched off today"),
        ("Staging-Server: 10.0.4.17", "Der alte Server 10.0.4.17 wurde abgeschaltet; neu ist 10.0.8.42."),
    ],
)
def test_an_address_said_to_be_switched_off_is_gone_and_its_entry_superseded(entry: str, new: str) -> None:
    """An address, host or link said decommissioned, retired or switched off is no longer the value; the
    new one the line gives is (the old one is not a value it states now)."""
    gone = values.replaced_values(new)
    assert len(gone) == 1 and gone[0] in entry
    assert gone[0] not in {value for found in values.typed_values(new).values() for value in found}
    operation = _decide(entry, new)
    assert (operation.op, operation.target) == ("supersede", "E1")


def test_a_plain_word_before_switched_off_names_no_gone_value() -> None:
    """Only a value that names one thing is said gone so: "the heater was switched off" is no old value."""
    assert values.replaced_values("The office heater was switched off at 18:00") == ()


def test_another_link_on_the_same_host_is_no_repeat() -> None:
    operation = _decide(
        "Beacon exporter dashboard: https://grafana.example.net/d/22d4546/beacon-exporter",
        "New Nimbus ingest dashboard at https://grafana.example.net/d/d9be78b/nimbus-ingest",
    )
    assert operation.op == "add"


def test_a_decision_does_not_replace_a_fact_about_another_kind_of_thing() -> None:
    operation = _decide(
        "Correction: Meridian exporter listens on 8000, not 5432 as I noted earlier",
        "Decision: Going with Yuki's proposal for the Meridian exporter retry policy (exponential, max 45 tries)",
        "decision",
        topic="Meridian",
    )
    assert operation.op == "add"


def test_numbers_beside_other_words_measure_other_things() -> None:
    assert _decide("Harbor needs Python 3.13", "Harbor v0.2.4 will ship SSO").op == "add"
    assert _decide("Harbor needs Python 3.13", "Harbor needs Python 3.14").op == "supersede"


def test_a_new_contact_at_the_same_company_is_not_a_new_address_of_another() -> None:
    lucia = _decide(
        "Sofia from Wayne Corp has a new address: sofia.a@waynecorp.example",
        "Wayne Corp contact: Lucía (procurement), luca@waynecorp.example",
        "relationship",
        "People",
    )
    aisha = _decide(
        "Kenji is Wayne Corp's CTO; email kenji@waynecorp-group.example",
        "Wayne Corp contact: Aisha (data protection officer), aisha@waynecorp.example",
        "relationship",
        "People",
    )
    sofia = _decide(
        "Sofia is Wayne Corp's VP engineering; email sofia@waynecorp-mail.example",
        "Sofia from Wayne Corp has a new address: sofia.a@waynecorp.example",
        "relationship",
        "People",
    )
    assert (lucia.op, aisha.op, sofia.op) == ("add", "add", "supersede")


def test_a_hosts_address_is_one_subject_however_it_is_said() -> None:
    operation = _decide("ovh-gra-07 resolves to 10.9.24.84 internally", "ovh-gra-07 IP: 10.9.86.105")
    assert (operation.op, operation.target) == ("supersede", "E1")


def test_a_release_is_what_a_statement_is_about() -> None:
    other_release = _decide(
        "Scope of Harbor v0.15.3: the new export flow plus bugfixes",
        "Scope of Harbor v0.16.7: usage-based billing plus bugfixes",
        topic="Harbor",
    )
    new_scope = _decide(
        "Harbor v0.6.5 will ship audit log v2", "Harbor v0.6.5: the rebuilt dashboard", topic="Harbor"
    )
    assert other_release.op == "add"
    assert (new_scope.op, new_scope.target) == ("supersede", "E1")


def test_statements_naming_different_projects_never_replace_each_other() -> None:
    entries = [
        EntryView(
            ref="E1",
            section="Facts",
            topic="Beacon",
            text="Beacon production region: fsn1",
            day=date(2026, 11, 1),
        ),
        EntryView(
            ref="E2",
            section="Facts",
            topic="Meridian",
            text="Meridian runs Postgres 16",
            day=date(2026, 11, 1),
        ),
    ]
    item = KeptItem(item=note_item("Meridian production region: ams"), category="fact", topic=None)
    assert OfflineIntegrator().integrate([item], entries)[0].op == "add"


def test_a_statement_naming_another_thing_than_the_entry_is_added_beside_it() -> None:
    """A new count for another project's plan, and a key of another project's name under a wrong
    topic, are two things: the entry stays current beside the new one."""
    plan = EntryView(
        ref="E1",
        section="Facts",
        topic=None,
        text="Globex is on the Team (10 seats) plan for Raven",
        day=date(2026, 11, 6),
    )
    item = KeptItem(
        item=note_item("Globex is on the Team (43 seats) plan for Sable"), category="fact", topic="Sable"
    )
    assert OfflineIntegrator().integrate([item], [plan])[0].op == "add"
    operation = _decide(
        "Nimbus frontend: going with Svelte because it unblocks Mateo's work on api",
        "Meridian frontend: going with HTMX + server templates because it unblocks Raj's work on billing",
        "decision",
        "Decisions",
        topic="Meridian",
    )
    assert operation.op == "add"
    changed = _decide(
        "Meridian frontend: going with Svelte because it unblocks Mateo's work",
        "Meridian frontend: going with HTMX because the first month in prod showed fewer incidents",
        "decision",
        "Decisions",
        topic="Meridian",
    )
    assert (changed.op, changed.target) == ("supersede", "E1")


def test_a_lead_in_such_as_recap_is_no_key() -> None:
    recap = _decide(
        "Recap: lena owns Sable scheduler",
        "Recap: Raven releases every two weeks from now on, the old setup fell over twice",
    )
    assert recap.op == "add"


def test_a_change_of_one_job_is_no_change_of_another() -> None:
    other_job = _decide(
        "Sable report job runs daily at 08:30 UTC",
        "Sable vacuum job moved to every 6 h at 21:15 UTC (was every 6 h at 16:00 UTC)",
        topic="Sable",
    )
    same_job = _decide(
        "Sable report job runs daily at 08:30 UTC", "Sable report job moved to 09:30 UTC", topic="Sable"
    )
    assert (other_job.op, same_job.op) == ("add", "supersede")


def test_a_setting_is_what_its_number_measures() -> None:
    other = _decide("Beacon runs Postgres 16", "Beacon runs with `RATE_BURST=2` in prod")
    same = _decide(
        "Beacon runs with `RATE_BURST=2` in prod", "Beacon runs with `RATE_BURST=8` in prod", topic="Beacon"
    )
    assert (other.op, same.op) == ("add", "supersede")


def test_an_old_value_with_a_thousands_comma_or_a_parenthesis_is_one_value() -> None:
    budget = "Tundra budget changed from $4,000/month to €2,050/month"
    plan = "Wonka moved from Enterprise (45 seats) to Starter (42 seats) on Ember"
    assert values.replaced_values(budget) == ("$4,000/month",)
    assert values.replaced_values(plan) == ("Enterprise (45 seats)",)
    assert has_history(budget) and has_history(plan)  # a changed fact is trimmed last


def test_the_same_value_of_the_same_thing_in_other_words_is_a_repeat() -> None:
    slo = _decide(
        "SLO for Ember /v1/invoices: 180 ms p95",
        "Ember /v1/invoices has to stay under 180 ms p95",
        topic="Ember",
    )
    limit = _decide(
        "Ember admin allows 5000 req/min per token",
        "Ember admin rate limit: 5000 req/min per token",
        topic="Ember",
    )
    assert (slo.op, limit.op) == ("noop", "noop")


def test_the_same_value_of_another_component_is_no_repeat() -> None:
    operation = _decide(
        "Ember admin rate limit: 5000 req/min per token",
        "Ember grpc allows 5000 req/min per token",
        topic="Ember",
    )
    assert operation.op == "add"


def test_a_lesson_told_again_under_another_lead_in_is_the_same_lesson() -> None:
    operation = _decide(
        "TIL benchmarks on a laptop on battery are worthless; plug in or use ovh-gra-05",
        "Takeaway: benchmarks on a laptop on battery are worthless; plug in or use ovh-gra-05",
        "lesson",
        "Lessons",
    )
    assert (operation.op, operation.target) == ("noop", "E1")


def test_a_lesson_told_again_with_another_value_is_news_of_it() -> None:
    """The same lesson naming another host updates its entry: the newer wording is no repeat."""
    operation = _decide(
        "TIL benchmarks on a laptop on battery are worthless; plug in or use ovh-gra-06",
        "Takeaway: benchmarks on a laptop on battery are worthless; plug in or use ovh-gra-05",
        "lesson",
        "Lessons",
    )
    assert (operation.op, operation.target) == ("update", "E1")


def test_one_value_of_two_subjects_is_no_restatement() -> None:
    operation = _decide(
        "Ember notifier runs on t3.medium instances",
        "Ember exporter instance type: t3.medium",
        topic="Ember",
    )
    assert operation.op == "add"


def test_a_subject_that_is_one_word_of_a_larger_ones_statement_is_another_thing() -> None:
    """A key held by a larger subject only as the word its number measures ("Python" of "Python 3.12"),
    or as one word of a sentence no verb ended, is another thing: added beside, never superseding."""
    language = _decide("Ember sync stack: Python 3.12", "**Ember Python:** 3.13", topic="Ember")
    reading = _decide(
        "We'll use Sentry + Uptime Kuma for Ember observability; it cuts the monthly bill by roughly 26%",
        "**Uptime:** 48d 7h",
        section="Decisions",
        topic="Ember",
    )
    whole = _decide("Ember runs Python 3.12", "**Ember Python:** 3.13", topic="Ember")
    part = _decide("Ember demo runs on port 8080", "Ember demo env port: 9090", topic="Ember")
    assert (language.op, reading.op) == ("add", "add")
    assert (whole.op, part.op) == ("supersede", "supersede")


def test_a_named_old_value_replaces_the_entry_stating_it_before_a_table_holding_it_in_a_row() -> None:
    """ "... moves from Ines to Pim" changes "Ines owns Ember reports", not the team table that also
    lists Ines (one row of it): the table stays current; a table alone holding it is still replaced."""
    table = (
        "| Ember team | role | ask about |; | Teo | product manager | web |; | Ines | tech lead | reports |"
    )
    entries = [
        EntryView(ref="E1", section="People", topic="Ember", text=table, day=date(2026, 11, 1)),
        EntryView(
            ref="E2", section="People", topic=None, text="Ines owns Ember reports", day=date(2026, 11, 2)
        ),
    ]
    item = KeptItem(
        item=note_item("Ember reports ownership moves from Ines to Pim"), category="decision", topic="Ember"
    )
    (operation,) = OfflineIntegrator().integrate([item], entries)
    assert (operation.op, operation.target) == ("supersede", "E2")


def test_a_change_of_another_subject_replaces_no_entry_holding_its_old_value() -> None:
    # (entry, change, project, what the change does to it); a flag: one project, one old value, but
    # each subject names its own flag, so two things
    for entry, change, topic, expected in [
        (
            "Harbor backups retention changed 90 days → 14 days",
            "Harbor invoices retention changed 14 days → 90 days",
            "Harbor",
            "add",
        ),
        (
            "Harbor backups retention changed 90 days → 14 days",
            "Harbor backups retention changed 14 days → 90 days",
            "Harbor",
            "supersede",
        ),
        (  # a bare amount of another thing of the project
            "Retention for Harbor raw events: 14 days",
            "Harbor metrics retention changed 14 days → 90 days",
            "Harbor",
            "add",
        ),
        (
            "Retention for Harbor raw events: 14 days",
            "Harbor raw events retention changed 14 days → 90 days",
            "Harbor",
            "supersede",
        ),
        (  # a size of another part: many parts run on one size
            "Harbor billing runs on m6i.large instances",
            "Harbor api resized from m6i.large to c7g.xlarge",
            "Harbor",
            "add",
        ),
        (
            "Harbor api instance type: m6i.large",
            "Harbor api resized from m6i.large to c7g.xlarge",
            "Harbor",
            "supersede",
        ),
        (  # an instance type is a name, no amount
            "Harbor notifier instance type: CCX23",
            "Harbor notifier resized from CCX23 to e2-standard-4",
            "Harbor",
            "supersede",
        ),
        (
            "Pavo flag `bulk_export` changed from off to on for everyone",
            "Pavo flag `dark_mode` changed from on for everyone to off",
            "Pavo",
            "add",
        ),
        (
            "Pavo flag `dark_mode` changed from off to on for everyone",
            "Pavo flag `dark_mode` changed from on for everyone to off",
            "Pavo",
            "supersede",
        ),
    ]:
        operation = _decide(entry, change, topic=topic)
        assert (operation.op, operation.target) == (expected, "E1" if expected == "supersede" else None)
    # other words for the same thing are no sibling: only "<this> X" against "<that> X" is
    renewal = _decide(
        "Wonka contract renews on 2026-12-13", "- Wonka renewal pushed to 2026-12-21 (was 2026-12-13)"
    )
    budget = _decide(
        "Beacon /v1/search budget is 40 ms p95",
        "Beacon /v1/search SLO changed to 120 ms p95 (was 40 ms p95)",
        topic="Beacon",
    )
    weekly = _decide(
        "For the record, Nimbus weekly sync is Fridays at 14:10",
        "Nimbus sync moved to Mondays at 08:10 (was Fridays at 14:10)",
        topic="Nimbus",
    )  # a project's name says which project, not which sync
    assert (renewal.op, budget.op, weekly.op) == ("supersede", "supersede", "supersede")


def test_a_new_value_of_a_key_replaces_the_entry_that_took_the_keys_last_value() -> None:
    # "rewritten from Elixir 1.17 to ..." replaced "Pavo billing language: Elixir 1.17": it holds that key now
    def decide(new: str, replaced: tuple[str, ...]) -> Operation:
        entry = "Pavo billing got rewritten from Elixir 1.17 to TypeScript on Node 20"
        return _decide(entry, new, topic="Pavo", replaced=replaced)

    key = ("Pavo billing language: Elixir 1.17",)
    newer = decide("**Pavo billing language:** Go 1.22", key)
    assert (newer.op, newer.target) == ("supersede", "E1")
    assert decide("**Pavo billing language:** Go 1.22", ()).op == "add"  # no key of its own to change
    # what the entry says now, told as the key, changes nothing; nor does another statement of its day
    assert decide("**Pavo billing language:** TypeScript on Node 20", key).op == "add"
    assert decide("**Pavo billing language:** Go 1.22", ("Pavo billing owner: Ines",)).op == "add"
    assert decide("**Pavo billing instance:** CPX41", key).op == "add"
    # the change told again the same night names the old value gone: no newer value of what it just wrote
    scope = note_item("**Pavo v3.7.9:** the new quota flow")
    again = note_item("(repeating) pavo v3.7.9 scope changed: the new quota flow instead of audit log v2")
    items = [
        KeptItem(item=scope, category="fact", topic="Pavo"),
        KeptItem(item=dataclasses.replace(again, id="i2"), category="decision", topic="Pavo"),
    ]
    entry = EntryView(
        ref="E1",
        section="Facts",
        topic="Pavo",
        text="Audit log v2 goes out with Pavo v3.7.9",
        day=date(2026, 11, 18),
    )
    assert [op.op for op in OfflineIntegrator().integrate(items, [entry])] == ["supersede", "add"]


def test_a_person_who_moved_replaces_their_own_entry_not_another_persons_with_the_old_value() -> None:
    entries = [
        EntryView(
            ref="Z",
            section="Decisions",
            topic=None,
            text="Zara moved to Asia/Shanghai (was America/New_York), adjust the standup time",
            day=date(2026, 10, 3),
        ),
        EntryView(
            ref="J",
            section="People",
            topic=None,
            text="Jonas is in Asia/Shanghai, keep that in mind for calls",
            day=date(2026, 11, 7),
        ),
    ]
    item = note_item("21:04 Jonas moved to Asia/Tokyo (was Asia/Shanghai), adjust the standup time")
    (operation,) = OfflineIntegrator().integrate(
        [KeptItem(item=item, category="decision", topic=None)], entries
    )
    assert (operation.op, operation.target) == ("supersede", "J")


def test_what_is_dropped_from_a_release_is_its_old_scope() -> None:
    line = "Beacon v1.11.4 now ships SSO; the rebuilt dashboard was dropped"
    assert values.replaced_values(line) == ("the rebuilt dashboard",)
    assert values.replaced_values("Ember 2.3 ships webhooks, audit log v2 was dropped") == ("audit log v2",)
    same = _decide("Scope of Beacon v1.11.4: the rebuilt dashboard plus bugfixes", line, topic="Beacon")
    other = _decide(
        "Scope of Beacon v1.11.4: the rebuilt dashboard plus bugfixes",
        "Beacon v1.12.0 now ships SSO; the rebuilt dashboard was dropped",
        topic="Beacon",
    )
    assert (same.op, same.target, other.op) == ("supersede", "E1", "add")


def test_a_choice_dropped_in_plain_words_is_superseded_not_restated() -> None:
    """ "Dropping Fly.io, moving Harbor to Render instead" names Fly.io as gone: a new user's trial saw it
    read as restating "We will deploy Harbor on Fly.io" (both name the host), so the reversal was lost
    from MEMORY.md and the old choice stayed current."""
    entry = "We will deploy Harbor on Fly.io"
    operation = _decide(entry, "Dropping Fly.io, moving Harbor to Render instead.", "decision", "Decisions")
    other = _decide(entry, "Dropped the flaky test from the Harbor CI run", "decision", "Decisions")
    assert (operation.op, operation.target, other.op) == ("supersede", "E1", "add")


def test_a_bump_names_the_old_version_by_its_tool_and_number() -> None:
    operation = _decide("Node version for Cobalt: 22.9", "Cobalt bumped Node 22.9 → 20.12", topic="Cobalt")
    other_tool = _decide("Python version for Cobalt: 22.9", "Cobalt bumped Node 22.9 → 20.12", topic="Cobalt")
    assert (operation.op, operation.target, other_tool.op) == ("supersede", "E1", "add")


def test_amounts_with_a_thousands_comma_are_whole_values_not_a_shared_tail() -> None:
    operation = _decide(
        "Meridian may spend up to $3,400/month on infra",
        "**Meridian budget**: $8,400/month",
        "decision",
        "Decisions",
        topic="Meridian",
    )
    assert operation.op != "noop"


def test_two_tasks_of_one_project_due_the_same_day_stay_two() -> None:
    """Sharing the project's name and the due day is no news on the other task."""
    entry = (
        "[Meridian] TODO ask Nadia for the Meridian billing load numbers （11月29日まで） (due 2026-11-29)"
    )
    item = note_item("TODO upgrade Meridian reports to react v0.15.0 before Sunday", date(2026, 11, 26))
    kept = KeptItem(item=item, category="action", topic="Meridian", deadline=date(2026, 11, 29))
    known = EntryView(ref="E1", section="Action items", topic="Meridian", text=entry, day=date(2026, 11, 26))
    (operation,) = OfflineIntegrator().integrate([kept], [known])
    assert operation.op == "add"


@pytest.mark.parametrize(
    ("entry", "new", "op"),
    [
        # another task worded alike: a done-report of one would not close the other
        (
            "send Ana feedback on the dashboard design by 2026-11-13",
            "- [ ] send Wei feedback on the pagination design by 2026-11-13",
            "add",
        ),
        (
            "get Yuki access to the Quokka qa cluster (due 2026-11-13)",
            "get Raj access to the Quokka preview cluster by 2026-11-13",
            "add",
        ),
        (
            "migrate Quokka billing off db-fra-09 by 2026-11-13",
            "- [ ] reply to Noah about the billing question by 2026-11-13",
            "add",
        ),
        # news on the task, written as no task of its own
        (
            "write the Quokka cutover runbook by 2026-11-13",
            "runbook: 80% done (sections 1-7 of 9). Still due 2026-11-13",
            "update",
        ),
    ],
)
def test_a_task_due_the_same_day_is_news_on_an_open_action_only_if_it_is_that_task(
    entry: str, new: str, op: str
) -> None:
    item = note_item(new, date(2026, 11, 10))
    kept = KeptItem(item=item, category="action", topic="Quokka", deadline=date(2026, 11, 13))
    known = EntryView(ref="E1", section="Action items", topic="Quokka", text=entry, day=date(2026, 11, 1))
    (operation,) = OfflineIntegrator().integrate([kept], [known])
    assert operation.op == op


def test_an_item_that_says_it_repeats_is_a_noop_on_the_entry_holding_it() -> None:
    """ "Don't forget", "Recap": the note repeats what memory holds in other words; a new value or
    another thing is no repeat."""
    repeats = [
        (
            "add alerting for Sable web p95 > 1300 ms due Nov 26",
            "Don't forget: add alerting for Sable web p95 > 1300 ms",
        ),
    ]
    for entry, new in repeats:
        assert _decide(entry, new).op == "noop", new
    news = [
        ("Tom works from Europe/Berlin time", "Recap: Tom moved to Europe/Paris"),
        ("Acme quote for Sable (Feb): $7,050", "Recap: we quoted Acme $7,900 for the Feb Sable work"),
        ("add alerting for Sable web p95 > 1300 ms", "Don't forget: add alerting for Sable api p95 > 800 ms"),
        (
            "Wei works from Europe/London time",
            "Recap: Fatima is in Europe/London, keep that in mind",
        ),
    ]
    for entry, new in news:
        assert _decide(entry, new).op != "noop", new


@pytest.mark.parametrize(
    ("new", "op"),
    [
        ("(repeating for the summary) atlas is back on track after the load test at 2x peak.", "noop"),
        ("Again, for the record: Atlas is back on track after the load test at 2x peak.", "noop"),
        # a remark giving the line a category or naming a project, or a new value: more than the entry says
        ("Blocked on legal review: Atlas is back on track after the load test at 2x peak.", "add"),
        ("Vireo team, for the record: Atlas is back on track after the load test at 2x peak.", "add"),
        ("Not anymore, for the record: Atlas is back on track after the load test at 2x peak.", "add"),
        ("For the record, Atlas is back on track after the load test at 3x peak.", "add"),
        # a bold key is a field's label, and code or a list's parts are no remark
        ("**Again for the record:** atlas is back on track after the load test at 2x peak.", "add"),
        ("`again`, for the record: atlas is back on track after the load test at 2x peak.", "add"),
        ("again for the record; atlas is back on track after the load test at 2x peak.", "add"),
    ],
)
def test_an_entry_said_again_after_a_remark_of_its_own_is_a_noop(new: str, op: str) -> None:
    """No word list names the remark: a few words standing ahead of what an entry says."""
    entries = [
        EntryView(
            ref="E1",
            section="Facts",
            topic=None,
            text="Atlas is back on track after the load test at 2x peak; next: Acme onboarding; owner: Wei",
            day=date(2026, 11, 1),
        ),
        EntryView(
            ref="E2", section="Facts", topic="Vireo", text="Vireo ships on Fridays", day=date(2026, 11, 1)
        ),
    ]
    kept = KeptItem(item=note_item(new), category="status", topic=None)
    (operation,) = OfflineIntegrator().integrate([kept], entries)
    assert (operation.op, operation.target) == (op, "E1" if op == "noop" else None)


def test_where_someone_works_from_is_no_old_value() -> None:
    """A bare "from X" names an old value only after a verb of change."""
    assert values.typed_values("Tom works from Europe/Berlin time") == {"zone": frozenset({"europe/berlin"})}
    assert values.typed_values("Billing moved to 10.0.0.2 from 10.0.0.1") == {"ip": frozenset({"10.0.0.2"})}
    assert values.typed_values("we quoted Acme $7,050 for the work") == {"money": frozenset({"$7,050"})}


def test_a_package_at_a_version_is_no_email_address() -> None:
    """An address's domain ends in letters: "bun@1.3.9" is a package at a version (real notes)."""
    assert values.typed_values("包管理器：bun@1.3.9（比yarn快）") == {"version": frozenset({"1.3.9"})}
    assert values.typed_values("write to ana@163.com or mei@acme.example")["email"] == frozenset(
        {"ana@163.com", "mei@acme.example"}
    )


def test_the_same_zone_or_address_of_the_same_subject_is_a_repeat() -> None:
    for entry, new in [
        ("Fatima works from Europe/London time", "Fatima timezone: Europe/London"),
        ("Mateo works from Europe/London time", "Mateo is in Europe/London, keep that in mind for calls"),
        ("Wei is @wei42 on GitHub", "GitHub handle for Wei: @wei42"),
    ]:
        assert _decide(entry, new, "relationship", "People").op == "noop", new
    other_person = _decide(
        "Wei works from Europe/London time", "Fatima works from Europe/London time", "relationship", "People"
    )
    other_service = _decide("Harbor api host: do-fra1-06", "Harbor grpc is on do-fra1-06", topic="Harbor")
    assert other_person.op == "add" and other_service.op != "noop"


def test_a_persons_new_zone_supersedes_and_another_persons_wish_is_no_repeat() -> None:
    moved = _decide(
        "Sofia works from America/Los_Angeles time",
        "**Sofia timezone:** America/Sao_Paulo",
        "relationship",
        "People",
    )
    assert (moved.op, moved.target) == ("supersede", "E1")
    hiro = _decide(
        "Felix (data engineer) wants cost estimates in every proposal",
        "Hiro (Initech) now wants cost estimates in every proposal; before: gets annoyed by @here pings",
        "relationship",
        "People",
    )
    assert hiro.op == "add"


def test_a_handle_with_a_dash_is_its_own_value() -> None:
    renamed = _decide(
        "Felix is @felix-dev on GitHub",
        "Felix renamed their GitHub account to @felix (was @felix-dev)",
        "relationship",
        "People",
    )
    assert (renamed.op, renamed.target) == ("supersede", "E1")


@pytest.mark.parametrize(
    ("old", "new", "noted"),
    [
        ("Alpha runs on port 8080", "Alpha runs on port 9090", "Alpha runs on port 9090 (previously: 8080)"),
        (
            "Alpha needs Postgres 15",
            "Alpha needs Postgres 16",
            "Alpha needs Postgres 16 (previously: Postgres 15)",
        ),
        ("Alpha owner: Maya", "Alpha owner: Tom", "Alpha owner: Tom (previously: Maya)"),
        ("**Owner:** Maya", "**Owner:** Tom", "**Owner:** Tom (previously: Maya)"),  # a bold key
        ("负责人：小王", "负责人：小李", "负责人：小李 (previously: 小王)"),  # a full-width colon
        (
            "Alpha freezes features until 2026-12-10; the vendor quote came in too high",
            "Alpha freezes features until 2027-01-07; legal wants the data in the EU",
            "Alpha freezes features until 2027-01-07; legal wants the data in the EU (previously: 2026-12-10)",
        ),
        (
            "Alpha IP is 10.0.0.1",
            "Alpha IP is 10.0.0.2 (was 10.0.0.1)",
            "Alpha IP is 10.0.0.2 (was 10.0.0.1)",
        ),
        (
            "Scope of Alpha 1.2: the new dashboard",
            "Scope of Alpha 1.3: billing",
            "Scope of Alpha 1.3: billing (previously: Scope of Alpha 1.2: the new dashboard)",
        ),
    ],
)
def test_an_offline_supersede_notes_the_old_value_alone_when_only_a_value_changed(
    old: str, new: str, noted: str
) -> None:
    assert values.noting_change(new, old) == noted


def test_words_alone_never_supersede_a_value_named_or_typed_does() -> None:
    """Offline, a supersede needs structure: an old value named, or a typed value of the same subject.
    A sentence that only sounds like a change is added beside the old entry, both with their dates."""
    worded = _decide(
        "Atlas job queue: RabbitMQ, because the team knows it",
        "Actually switching back: the Atlas job queue goes on Kafka again",
        "decision",
        "Decisions",
    )
    assert worded.op == "add"
    named = _decide(
        "Atlas job queue: RabbitMQ", "Atlas job queue: Kafka (was RabbitMQ)", "decision", "Decisions"
    )
    assert named.op == "supersede"
    typed = _decide("The build box is at 10.0.4.17", "The build box is at 10.0.9.42")
    assert typed.op == "supersede"


def test_a_one_word_key_is_a_field_of_its_section_not_a_subject() -> None:
    """ "Time:" or "项目:" under one session's heading and under another's are two subjects: the new
    line is added beside the old one; "Atlas region:" names whose region it is and supersedes."""
    field = _decide("Time: Significant time investment needed", "Time: 00:29 - 00:34 UTC")
    chinese = _decide("**项目:** agent-memory-graph", "**项目:** openclaw-dashboard")
    qualified = _decide("Atlas region: eu-west-1", "Atlas region: us-east-2", topic="Atlas")
    assert (field.op, chinese.op, qualified.op) == ("add", "add", "supersede")


def test_a_field_every_note_fills_is_no_subject_without_a_name_or_project() -> None:
    """A session report's "Session Duration:" or "Lines of Code:" in two notes are two sessions; the
    same key supersedes when it names one thing (a project, an identifier, a name)."""
    duration = _decide("**Session Duration**: ~45 minutes", "**Session Duration**: ~30 minutes")
    lines = _decide("Lines of Code: ~1,200 (Python)", "Lines of Code: ~400 (Python)")
    measured = _decide(
        "Description: stream test coverage, 15 tests for append and subscribe", "8 new tests (18→26)"
    )
    project = _decide("Meridian reports replicas: 8", "Meridian reports replicas: 4", topic="Meridian")
    setting = _decide("Prod WORKER_CONCURRENCY is 32", "WORKER_CONCURRENCY: 8 for prod")
    assert (duration.op, lines.op, measured.op) == ("add", "add", "add")
    assert (project.op, setting.op) == ("supersede", "supersede")


@pytest.mark.parametrize(
    ("entry", "new"),
    [
        ("79 tests → 84 tests (incremental progress)", "84→94 tests (+10), commit 6ffd60b"),
        (
            "Cycle 1: route_round_robin() + route_least_loaded(), 72→84 tests (+12)",
            "Cycle 2: route_by_capability() + agent_stats(), 84→94 tests (+10)",
        ),
        (
            "Runtime: MLX for development, llama.cpp for deployment",
            'Moves the service from "Development" to "Scaling"',
        ),
        (
            "Kimi K2.5: working at api.moonshot.ai",
            "Fallback: Claude Sonnet 4 → Kimi K2.5 → GPT-4.1 → Llama 3.3",
        ),
        (
            "Manager routing was corrected in production",
            "The project state is an engineering stack, not production: cheaper",
        ),
    ],
)
def test_a_bare_count_a_plain_word_or_a_chain_names_no_old_value_of_another_subject(
    entry: str, new: str
) -> None:
    """An old value names the entry it replaces when it names one thing (an IP, a date, "Postgres 15")
    or the two share a named subject; a count, a plain word or a step of an arrow chain does not."""
    assert _decide(entry, new).op == "add"


def test_a_change_told_of_what_its_subject_acted_on_supersedes_the_entry_naming_it() -> None:
    """ "We moved Harbor from MySQL to PostgreSQL 16" is a change of Harbor's database, though its subject
    is "We": the name said ahead of the old value is what changed. It leaves alone an entry naming
    another thing that holds the old value."""
    entry = "Decision: Harbor will use MySQL 8 as its primary database, because Marco runs it already."
    moved = _decide(entry, "Decision: We moved Harbor from MySQL to PostgreSQL 16.", "decision", "Decisions")
    other = _decide(entry, "Decision: We moved Lumen from MySQL to PostgreSQL 16.", "decision", "Decisions")
    assert (moved.op, moved.target, other.op) == ("supersede", "E1", "add")


def test_an_old_value_that_names_one_thing_still_finds_its_entry() -> None:
    renamed = _decide("Meridian WORKER_CONCURRENCY: 8", "Meridian `WORKER_CONCURRENCY` changed from 8 to 32")
    moved = _decide(
        "mac-mini-10 resolves to 10.0.129.89 internally",
        "mac-mini-10 got a new IP: 10.4.91.88 (was 10.0.129.89)",
    )
    assert (renamed.op, moved.op) == ("supersede", "supersede")


def test_a_new_address_beside_the_old_one_it_retires_is_no_repeat() -> None:
    """Issue 15's example: the note shares the old IP with memory only to say it is gone; memory must not
    keep the old IP as if the note repeated it."""
    operation = _decide(
        "Orion staging server IP is 10.0.4.17",
        "Orion staging: new IP is 10.0.9.42 (10.0.4.17 is decommissioned)",
        "fact",
        "Facts",
    )
    assert operation.op != "noop"
    assert operation.op == "add" or operation.target == "E1"
    assert "10.0.9.42" in (operation.text or "")


def test_a_tables_entry_leaves_out_its_rule_row() -> None:
    from memory_sleep.engines.offline.wording import entry_text

    table = "| Agent | Role |\n|-------|------|\n| AGNI | research |\n| Codex | governance |"
    kept = KeptItem(item=note_item(table, kind="table"), category="relationship", topic=None)
    assert entry_text(kept) == "AGNI (Role: research); Codex (Role: governance)"


def test_an_absence_that_ended_before_the_note_is_left_in_the_note() -> None:
    """The stale pass would archive it as finished the night it came in; a later one is still news."""
    past = _decide(
        "Billing runs on Postgres 16", "Priya is out from 2026-11-02 for 3 days", "relationship", "People"
    )
    coming = _decide(
        "Billing runs on Postgres 16", "Priya is out from 2026-11-23 for 3 days", "relationship", "People"
    )
    assert (past.op, past.target) == ("noop", None)
    assert (coming.op, coming.text) == ("add", "Priya on leave 2026-11-23 to 2026-11-25 (3 days)")


def test_an_ended_absence_still_changes_the_notice_of_the_same_absence() -> None:
    """Memory holds the absence as longer than it was: the note's dates still replace it."""
    operation = _decide(
        "Priya on leave 2026-11-02 to 2026-11-20 (19 days)",
        "Priya is out from 2026-11-02 for 3 days",
        "relationship",
        "People",
    )
    assert (operation.op, operation.target) == ("supersede", "E1")


def test_an_open_actions_task_said_again_with_a_remark_is_a_repeat() -> None:
    entry = "ask Bogdan to rotate the staging certificates (due 2026-11-25)"
    again = _decide(
        entry, "Ask Bogdan to rotate the staging certificates — no answer so far", "action", "Action items"
    )
    assert (again.op, again.target) == ("noop", "E1")


@pytest.mark.parametrize(
    "new",
    [
        "ask Bogdan to renew the production certificates",  # another object
        "ask Mirela to rotate the staging certificates",  # another person
        "ask Bogdan to rotate the staging certificates and renew the wildcard domain",  # more of a task
    ],
)
def test_another_task_sharing_an_open_actions_words_is_new(new: str) -> None:
    entry = "ask Bogdan to rotate the staging certificates (due 2026-11-25)"
    assert _decide(entry, new, "action", "Action items").op == "add"


def test_a_task_in_other_words_or_order_is_not_said_again() -> None:
    task = "ask Bogdan to rotate the staging certificates (due 2026-11-25)"
    assert repeats.task_said_again(
        "Ask Bogdan to rotate the staging certificates, still open", task, frozenset()
    )
    assert not repeats.task_said_again(
        "rotate the staging certificates together with Bogdan", task, frozenset()
    )
    assert not repeats.task_said_again("ask Bogdan about the staging certificates", task, frozenset())


@pytest.mark.parametrize(
    ("entry", "new"),
    [
        (
            "Decided to keep ORB-88 open because the fix costs more than the bug",
            "Decided to keep ORB-412 open because the fix costs more than the bug",
        ),
        (
            "Entscheidung: Quasar invoices bekommt keine eigene Datenbank, weil zwei Stacks zu viel sind",
            "Entscheidung: Quasar exports bekommt keine eigene Datenbank, weil zwei Stacks zu viel sind",
        ),
    ],
)
def test_the_same_decision_of_another_ticket_or_part_is_no_repeat(entry: str, new: str) -> None:
    operation = _decide(entry, new, "decision", "Decisions", "Quasar")
    assert operation.op != "noop"


def test_the_same_decision_with_another_remark_after_it_is_already_in_memory() -> None:
    operation = _decide(
        "Decided to keep ORB-88 open because the fix costs more than the bug; agreed with Omar",
        "Decided to keep ORB-88 open because the fix costs more than the bug; agreed with Ines",
        "decision",
        "Decisions",
    )
    assert (operation.op, operation.target) == ("noop", "E1")


@pytest.mark.parametrize(
    "new",
    [
        "Reminder — renew the Quasar support contract by Fri",
        "Reminder: renew the Quasar support contract",
        "Recordatorio: renew the Quasar support contract by Friday",
    ],
)
def test_a_reminder_of_an_open_action_is_a_noop(new: str) -> None:
    item = note_item(new, date(2026, 11, 18))
    known = EntryView(
        ref="E1",
        section="Action items",
        topic="Quasar",
        text="renew the Quasar support contract (due 2026-11-20)",
        day=date(2026, 11, 10),
    )
    kept = KeptItem(item=item, category="action", topic="Quasar", deadline=date(2026, 11, 20))
    operation = OfflineIntegrator().integrate([kept], [known])[0]
    assert (operation.op, operation.target) == ("noop", "E1")


def test_a_reminder_of_another_task_is_no_repeat() -> None:
    operation = _decide(
        "renew the Quasar support contract (due 2026-11-20)",
        "Reminder: cancel the Vireo staging cluster by Friday",
        "action",
        "Action items",
    )
    assert operation.op == "add"


def test_two_tasks_due_the_same_day_in_a_cjk_date_are_two_tasks() -> None:
    """ "（10月25日まで）" is a date both name, not an identifier the two tasks share."""
    item = note_item(
        "- [ ] TODO get Ines access to the Quasar canary cluster （10月25日まで）", date(2026, 10, 21)
    )
    known = EntryView(
        ref="E1",
        section="Action items",
        topic="Quasar",
        text="TODO rotate the Quasar sandbox TLS cert （10月25日まで） (due 2026-10-25)",
        day=date(2026, 10, 18),
    )
    kept = KeptItem(item=item, category="action", topic="Quasar", deadline=date(2026, 10, 25))
    assert OfflineIntegrator().integrate([kept], [known])[0].op == "add"


def test_a_correction_of_an_absence_that_has_ended_is_kept() -> None:
    """ "Now 3 days (was 4 days)" corrects the record of a leave already over (its entry archived): a
    change, added for the stale pass to file, not a repeat left in the note."""
    item = note_item("Mei's leave from 2026-11-13 is now 3 days (was 4 days)", day=date(2026, 11, 24))
    kept = KeptItem(item=item, category="relationship", topic=None)
    assert OfflineIntegrator().integrate([kept], [])[0].op == "add"


def test_one_link_named_in_two_ways_is_a_restatement() -> None:
    operation = _decide(
        "Ember exporter dashboard: https://grafana.example.io/d/70e6cbd/ember-exporter",
        "For the record, the Ember exporter Grafana board is https://grafana.example.io/d/70e6cbd/ember-exporter",
        topic="Ember",
    )
    assert operation.op == "noop"


def test_one_host_named_in_two_ways_is_a_restatement() -> None:
    operation = _decide(
        "Ember staging database host is db-ember-staging-38.internal",
        "For the record, Ember staging DB: db-ember-staging-38.internal",
        topic="Ember",
    )
    assert operation.op == "noop"


def test_the_same_values_of_a_subject_worded_anew_are_a_restatement() -> None:
    operation = _decide(
        "first cost estimate: streaming runs at about $63/day on the cluster, against about $19/day for "
        "the nightly batch job",
        "cost ~$63/day vs ~$19/day for the nightly batch (≈3.3x)",
        topic="Ember",
    )
    assert operation.op == "noop"


@pytest.mark.parametrize(
    ("entry", "new"),
    [
        (
            "Phase 35 Option A completed: PM Acceptance + v1 Pilot Retrospective for `mini-issue-tracker-v1`",
            "Phase 52 Option A completed: dependency approval packet templates",
        ),
        ("Sprint 14 goal: ship the Orion importer", "Sprint 15 goal: harden the Orion exporter"),
    ],
)
def test_a_numbered_part_of_a_series_supersedes_no_other_part(entry: str, new: str) -> None:
    """The number after the first word says which part ("Phase 52", "Sprint 15"): a new part is
    added beside the one before it, whatever value it states in its place."""
    assert _decide(entry, new, "decision", "Decisions").op == "add"


def test_the_same_numbered_part_with_a_new_value_still_supersedes() -> None:
    changed = _decide("Phase 2 target date: 2026-12-10", "Phase 2 target date: 2026-12-14", topic="Orion")
    assert (changed.op, changed.target) == ("supersede", "E1")


def test_a_changed_value_beside_a_value_both_share_is_no_repeat() -> None:
    """Memory must not keep port 8080 as if the note repeated it: the "2" both say is no sign that the
    port is the same."""
    operation = _decide("Phase 2 runs on port 8080", "Phase 2 runs on port 9090")
    assert operation.op != "noop"
    assert "9090" in (operation.text or "")


def test_a_handle_in_the_sentences_after_a_claim_is_no_new_address() -> None:
    """A person's new address is what a statement says in its first sentence: a handle in the sentences
    that explain it ("The @mention in the text body isn't one") is no one's new address, and two
    statements naming one platform beside two "handles" ("@mentions", "@mention") say two things."""
    operation = _decide(
        "❌ Bot2's @mentions are plain text, not native Telegram mention entities",
        "Bot1's mention-gating checks if the sender is allowed AND if a native Telegram mention entity "
        "exists. The @mention in the text body isn't one.",
    )
    assert operation.op == "add"


def test_an_address_after_a_dash_is_still_the_persons() -> None:
    moved = _decide(
        "Contact: Lucía (VP engineering, Initech) — luca@initech-corp.example",
        "Lucía from Initech has a new address: luca@initech-group.example",
        "relationship",
        "People",
    )
    assert (moved.op, moved.target) == ("supersede", "E1")
