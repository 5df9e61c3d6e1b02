"""Recall puts the newer statement of a changed fact first and marks the older: links by a value the
newer says is gone, older values whose project finished, chains of supersedes through compacted lines."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memory_sleep.config import Config
from memory_sleep.sidecar import successors
from memory_sleep.sidecar.restatement import restates
from memory_sleep.sidecar.rows import NewEntry
from memory_sleep.sidecar.search import Hit, rarest_terms
from memory_sleep.sidecar.statement import stated
from memory_sleep.sidecar.successors import SUMMARY, ending_row
from memory_sleep.sidecar.tokenize import fts_document
from memory_sleep.text import ENDING_STATUSES
from memory_sleep.workspace.archive import STATUSES, ArchiveRecord, Ending, append_records
from tests.sidecar_helpers import make_workspace, open_at

pytestmark = pytest.mark.usefixtures("sidecar_store")  # each test on SQLite and on Postgres


def _hit(hits: list[Hit], source: str, words: str = "") -> Hit:
    return next(hit for hit in hits if hit.source == source and words in hit.text)


def _notes(lines: dict[str, str]) -> dict[str, str]:
    return {f"{day}.md": f"# {day}\n\n{line}\n" for day, line in lines.items()}


def _finished(folder: Path, *entries: str) -> None:
    records = [
        ArchiveRecord(
            date(2026, 11, 20),
            "Facts",
            entry,
            "project Orion finished",
            Ending("finished", date(2026, 11, 20)),
        )
        for entry in entries
    ]
    (folder / "memory" / "archive.md").write_text(append_records(None, records), encoding="utf-8")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("- Ask Felix about Orion reports, they own it", "- Orion reports ownership moves from Felix to Wei"),
        (
            "- Vega LLM provider: a local Llama on the GPU box (it fell over twice under load)",
            "- Switching Vega from a local Llama on the GPU box to Mistral Large: fewer incidents",
        ),
        (
            "- Decision (Orion CI): GitLab CI",
            "- Back from GitLab CI to Buildkite for Orion CI, it costs less",
        ),
        # a release named in both: its scope changed
        (
            "- Scope of Orion v0.16.0: audit log v2 plus bugfixes",
            "- Orion v0.16.0 scope changed: SSO instead of audit log v2",
        ),
        # a choice reversed in words of its own: what it is of and what it chose, beside a new name
        (
            "- Orion API style settled: GraphQL, since it is cheaper to run",
            "- Reversed: Orion API goes JSON-RPC rather than GraphQL; the audit rules it out",
        ),
        (
            "- Decided to build the Vega UI with Svelte — it is faster to ship",
            "- Scrapping Svelte for Vega; we rebuild on Solid because Pim asked for it",
        ),
        (
            "- Decided: Vega monitoring goes to Datadog — fewer pages at night",
            "- Vega leaves Datadog for Grafana Cloud; Teo does not want to own it",
        ),
        # the number said gone of what the older keeps, its verb aside
        (
            "- Orion keeps uploads for 90 days",
            "- Orion user uploads retention: 365 days (previously: 90 days)",
        ),
        # its subject written otherwise: "DB-host" is "DB hosts" (session 55's second trial)
        (
            "- 09:30 disk alert threshold for all DB hosts is 80% used (warning), in alertmanager rules",
            "- 07:40 bumped the DB-host disk alert threshold to 85% (from 80%): 80% paged at every rollover",
        ),
    ],
)
def test_a_newer_line_saying_the_old_value_is_gone_ranks_first_and_marks_the_older(
    tmp_path: Path, old: str, new: str
) -> None:
    folder = make_workspace(tmp_path, _notes({"2026-11-10": old, "2026-11-14": new}))
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(old, k=5)
    older = _hit(hits, "memory/2026-11-10.md")
    assert older.status_line() == "older, see memory/2026-11-14.md:3 (2026-11-14)"
    assert hits.index(_hit(hits, "memory/2026-11-14.md")) < hits.index(older)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # one word of the value said gone, and one word beside it
        ("Ask Felix about Orion reports", "Orion on-call moves from Felix to Wei"),
        # Raj's leave changing from 7 days says nothing of Yuki's 7 days: each names someone the other never does
        (
            "heads-up: Yuki on leave 2027-01-01, 7 days, ping Wei instead",
            "Raj's leave from 2026-12-02 is now 5 days (was 7 days)",
        ),
        # the value said gone is the only name both say: another project's choice changed
        (
            "**Decision (Orion hosting):** Render",
            "Vega hosting decision reversed: Cloud Run instead of Render, because Pim is leaving",
        ),
        # a size said gone of another part of the project: many parts run on one size
        ("Orion billing runs on m6i.large instances", "Orion api resized from m6i.large to c7g.xlarge"),
        # a line opening with the key's words may be about another thing: only a change is of them
        ("Contoso renewal call moved to 2026-10-18", "**Contoso renewal:** 2026-12-14"),
        # `invoice_export_v2` is not `ledger_sync_v2`: the words of an identifier name a thing, as capitalised words do
        (
            "`ledger_sync_v2` (Orion): on for 10%",
            "[ ] clean up the `invoice_export_v2` flag in Orion within 10 days",
        ),
        # two releases: each one's subject names a version the other never says
        (
            "Scope of Orion v0.16.0: audit log v2 plus bugfixes",
            "Orion v0.12.2 scope changed: SSO instead of audit log v2",
        ),
        ("**Orion v0.6.8**: audit log v2", "Orion v0.7.2 now ships the new cache flow; audit log v2 slips"),
        # two releases: the release left out is another in the newer
        ("Audit log v2 goes out with Orion v0.13.8", "For the record, Orion v0.13.7 will ship audit log v2"),
        # two keys: a word of one stands where the other has another
        ("Orion exporter stack: Elixir 1.17", "Orion api stack: Elixir 1.17"),
        # two subjects: a word of one stands where the other has another
        (
            "Orion canary database host is db-orion-canary-12.internal",
            "Orion staging database host is db-orion-staging-16.internal",
        ),
        # two leaves: the first day (which leave) and its length are others in the newer
        (
            "Pim is out from 2026-11-19 for 4 days; Teo covers",
            "Pim is out from 2026-12-27 for 14 days; Teo covers",
        ),
        # two leaves: another first day beside the same length
        (
            "Pim is out from 2026-11-23 for 5 days; Teo covers",
            "For the record, Pim is out from 2027-01-01 for 5 days; Teo covers",
        ),
        # two people: a name of the older stands where the newer has another
        (
            "heads-up: Pim on leave 2026-11-19, 14 days, ping Teo instead",
            "heads-up: Ola on leave 2026-11-19, 14 days, ping Teo instead",
        ),
        (
            "Orion: Contoso pays for Starter (32 seats)",
            "For the record, Orion: Fabrikam pays for Starter (32 seats)",
        ),
        # two keys: the newer's key lacks a word of the older's
        (
            "**Owner (Orion ingest):** Pim",
            "status: Orion is back on track after the load test; next: a beta for 24 users; owner: Pim",
        ),
        # a remark ahead of two statements is no key of theirs
        (
            "Again for the record: Ines (Contoso) wants cost estimates in every proposal",
            "Again for the record: Ola (Fabrikam) prefers a quick call over meetings",
        ),
        # another person ahead of the same words, which name nothing else: each says it of their own
        (
            "Ines (Contoso) wants cost estimates in every proposal",
            "Ola (Contoso) wants cost estimates in every proposal",
        ),
        (
            "[09:06] Ines (Contoso) wants cost estimates in every proposal",
            "Working with Ola from Contoso: wants cost estimates in every proposal",
        ),
        # a plain word after a name both say, another in its place: two parts of what the name names
        ("Ines owns Orion webhooks", "Ines owns Orion gateway"),
        ("Ask Ines about Orion ingest, they own it", "Ask Ines about Orion grpc, they own it"),
        # the old value named beside the words saying it is gone, and no other word of the older
        (
            "heads-up: Ines on leave 2026-11-06, 5 days, ping Ola instead",
            "Pim now reports to Ola instead of Ines",
        ),
        # a value and what it is of left out: another thing's value
        ("Orion keeps invoices for 180 days", "Orion keeps exports for 90 days"),
        ("Orion stores audit logs for 7 days", "**Orion access logs retention:** 30 days"),
        # the value left out with nothing in its place: the newer says other things of it
        ("`dark_mode` (Orion): on for everyone", "clean up the `dark_mode` flag in Orion"),
        ("Pim owns Orion exporter", "queue for Orion is NATS; it unblocks Pim's work on exporter"),
        # another leave: the newer's subject names a day the older never says
        (
            "Pim is out from 2026-11-28 for 5 days; Teo covers",
            "Pim's leave from 2026-12-17 is now 3 days (was 5 days)",
        ),
        # another identifier: another flag's value changed from the same value
        (
            "`async_ingest` (Orion): on for internal users",
            "Orion flag `webhooks_v3` changed from on for internal users to on for Acme only",
        ),
        # a value a newer entry's history holds is no value it says is gone
        (
            "Pim's leave from 2026-11-30 is now 3 days (was 5 days)",
            "Pim on leave 2026-11-26 to 2026-11-30 (5 days) (previously: Pim on leave 2026-11-26 to 2026-11-28 (3 days))",
        ),
        # a choice of another thing, its choice named among the newer's alternatives
        (
            "**Decision (Vega API)**: REST + OpenAPI",
            "Reversed: Orion API goes JSON-RPC rather than GraphQL; considered: REST + OpenAPI",
        ),
        # a choice's word inside an identifier, or its thing named without the choice: no word on it
        (
            "Decision: host Orion on Render — one moving part fewer",
            "fix the flaky Orion test `test_render_report`",
        ),
        (
            "Decided Orion uses Claude Haiku for summaries because Pim can't support two stacks",
            "get Pim access to the Orion preview cluster",
        ),
        # a label a line starts with is no name it adds
        ("Decided: Vega queue goes to Kafka", "Update: Vega queue goes to Kafka, confirmed"),
        # a list's number is no value of the line
        (
            "Pim is out from 2026-11-24 for 3 days; Teo covers",
            "3. Pim is out from 2027-01-12 for 4 days; Teo covers",
        ),
        # two attributes: a typed value and what it is left out, no value of its kind in its place
        ("Orion gateway runs on port 8443", "Orion gateway runs on t3.medium instances"),
        ("Orion webhooks runs on c7g.xlarge instances", "Orion webhooks runs on port 8080"),
        # two people's leaves: each one's subject is the other's stand-in
        (
            "heads-up: Pim on leave 2026-12-07, 7 days, ping Teo instead",
            "heads-up: Teo on leave 2026-12-07, 10 days, ping Pim instead",
        ),
        (
            "Pim is out from 2026-12-08 for 5 days; Teo covers",
            "heads-up: Teo on leave 2026-12-08, 3 days, ping Pim instead",
        ),
        # another key after a lead-in: "For the record," is the remark, not "For the record, Orion search:";
        # and a key is in one sentence ("Reason:" is no key of the choice)
        (
            "Vega search: Meilisearch. Reason: it is simpler to run",
            "For the record, Orion search: Meilisearch. Reason: it unblocks Pim",
        ),
        # the old value of a change only mentioned, of another subject: no value taken back
        ("Orion moved from Postgres to MySQL", "Orion Postgres backups: nightly, kept for Postgres"),
        # a number said gone of a subject the keyed older never names, lower case or not
        (
            "Retention for Orion invoices: 365 days",
            "Again for the record: vega audit logs retention changed 365 days → 180 days",
        ),
        # a number said gone of another thing than the one a line with no verb the reader knows keeps
        ("Orion keeps backups for 90 days", "Orion user uploads retention: 365 days (previously: 90 days)"),
        # a value said gone of another person's leave, whom the older names as the stand-in
        (
            "heads-up: Ines on leave 2026-10-29, 14 days, ping Ola instead",
            "Ola's leave from 2026-10-29 is now 3 days (was 14 days)",
        ),
        # a value said gone of the same flag of another project: a name in the other's place in the subject
        (
            "Orion flag `async_ingest` is on for everyone in prod",
            "Vega flag `async_ingest` changed from on for everyone to off",
        ),
    ],
)
def test_a_later_line_about_another_thing_marks_nothing(tmp_path: Path, old: str, new: str) -> None:
    folder = make_workspace(tmp_path, _notes({"2026-11-10": f"- {old}", "2026-11-14": f"- {new}"}))
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(old, k=5)
    assert _hit(hits, "memory/2026-11-10.md").status is None


_PROJECTS = "# MEMORY.md\n\n## Projects\n\n### Orion\n- Status: active\n\n### Vega\n- Status: active"


@pytest.mark.parametrize(
    ("old", "new", "status"),
    [
        # the same lead-in as a key, of two projects: two choices
        (
            "Agreed with Pim: Orion goes on Render, since deploys were flaky",
            "agreed with Pim: Vega goes on Fly.io, since it is cheaper",
            None,
        ),
        # the same flag of two projects, worded as the same line with two values
        ("Orion flag `async_ingest` is on for 10%", "Vega flag `async_ingest` is off", None),
        # a change of the same flag of another project: more than a project in the older's place
        (
            "`async_ingest` (Orion): on for internal users",
            "Vega flag `async_ingest` changed from on for internal users to on for everyone",
            None,
        ),
        # the same line of two projects, one of them in lower case (no name `_other_name` reads)
        (
            "Again for the record: orion flag `x` is off in prod",
            "For the record, Vega flag `x` is off in prod",
            None,
        ),
    ],
)
def test_a_later_line_of_another_project_marks_nothing(
    tmp_path: Path, old: str, new: str, status: str | None
) -> None:
    """The projects are MEMORY.md's `## Projects` blocks: a line naming one and a later line naming
    another are said of two things."""
    notes = _notes({"2026-11-10": f"- {old}", "2026-11-14": f"- {new}"})
    folder = make_workspace(tmp_path, notes, _PROJECTS)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(old, k=5)
    assert _hit(hits, "memory/2026-11-10.md").status == status


@pytest.mark.parametrize(
    ("memory", "notes"),
    [
        # under each project's heading in the notes
        (
            _PROJECTS,
            {
                "2026-11-10": "## Orion\n\n- Deploy window: Tuesdays 10:00",
                "2026-11-14": "## Vega\n\n- Deploy window: Fridays 16:00",
            },
        ),
        # MEMORY.md entries tagged with their projects
        (
            _PROJECTS
            + "\n\n## Facts\n\n- [Orion] Deploy window: Tuesdays 10:00 (2026-11-10)"
            + "\n- [Vega] Deploy window: Fridays 16:00 (2026-11-14)",
            {},
        ),
    ],
)
def test_a_line_filed_under_another_project_marks_nothing(
    tmp_path: Path, memory: str, notes: dict[str, str]
) -> None:
    """A line need not name the project it is filed under, by a heading or an entry's tag: the same key
    with another value, under two projects, is two projects' values."""
    folder = make_workspace(tmp_path, _notes(notes) if notes else {}, memory)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("deploy window", k=5)
    assert [hit.status for hit in hits if "Deploy window" in hit.text] == [None, None]


@pytest.mark.parametrize(
    "filing",
    [
        pytest.param("---\nproject: {}\n---\n# {}\n\n", id="each day's note filed whole"),
        pytest.param("# {1}\n\n## {0}\n\n", id="a heading"),
    ],
)
def test_a_change_naming_the_key_and_its_old_value_marks_it_under_another_project(
    tmp_path: Path, filing: str
) -> None:
    """A line filed under another project (a note's front matter may file a day of many projects'
    lines under one) that says the older's key and that its value is gone ("(was 2026-10-19)") changes
    it: the author named what changed. Two lines that name their projects are still two projects'."""
    old, new = "**Contoso renewal:** 2026-10-19", "Contoso renewal pushed to 2026-10-22 (was 2026-10-19)"
    named_old, named_new = (
        "Orion deploy window: Tuesdays",
        "Vega deploy window moved to Fridays (was Tuesdays)",
    )
    notes = {
        "2026-09-08.md": filing.format("Orion", "2026-09-08") + f"- {old}\n- {named_old}\n",
        "2026-10-04.md": filing.format("Vega", "2026-10-04") + f"- {new}\n- {named_new}\n",
    }
    folder = make_workspace(tmp_path, notes, _PROJECTS)
    with open_at(folder) as sidecar:
        sidecar.index()
        renewal = sidecar.search("Contoso renewal", k=5)
        window = sidecar.search("deploy window", k=5)
    assert renewal[0].source == "memory/2026-10-04.md"
    assert _hit(renewal, "memory/2026-09-08.md", "Contoso").status == "older"
    assert [hit.status for hit in window if "deploy window" in hit.text] == [None, None]


@pytest.mark.parametrize(
    "note",
    [
        "- Orion 1.4 release moves from 2026-11-19 to 2026-11-26\n",
        # the change on a line of its own after a quote: the item's first line names no release
        "Teo: „Das schaffen wir nicht bis zum 19., lass uns auf den 26. gehen.“\n"
        "→ Orion 1.4 release moves from 2026-11-19 to 2026-11-26. Pim agreed at 11:40.\n",
    ],
)
def test_a_change_naming_the_project_an_entry_is_filed_under_marks_it(tmp_path: Path, note: str) -> None:
    """ "Release 1.4 target date is 2026-11-19" under [Orion] is Orion's: a later "Orion 1.4 release
    moves from 2026-11-19 to 2026-11-26" changes it, though the entry never says "Orion"."""
    memory = _PROJECTS + "\n\n## Facts\n\n- [Orion] Release 1.4 target date is 2026-11-19 (2026-11-02)\n"
    folder = make_workspace(tmp_path, {"2026-11-11.md": f"# 2026-11-11\n\n{note}"}, memory)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("release 1.4 target date", k=5)
    assert _hit(hits, "MEMORY.md", "target date").status == "older"
    assert hits[0].source == "memory/2026-11-11.md"


def test_one_word_of_a_project_name_is_no_project(tmp_path: Path) -> None:
    """ "ops" and "bot", each a word of the project "Ops Bot", are no two projects: the alert channel's
    key said with another value changes it."""
    old, new = "**Orion alert channel:** #ops", "**Orion alert channel:** #bot"
    memory = "# MEMORY.md\n\n## Projects\n\n### Ops Bot\n- Status: active\n"
    folder = make_workspace(tmp_path, _notes({"2026-11-10": f"- {old}", "2026-11-14": f"- {new}"}), memory)
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Orion alert channel", k=5)
    assert _hit(hits, "memory/2026-11-10.md").status == "older"


def test_an_older_value_whose_project_finished_ranks_below_the_newer_and_keeps_its_status(
    tmp_path: Path,
) -> None:
    old = "* Schedule of the Orion invoice-run job: hourly at 19:35 UTC"
    new = "22:25 Orion invoice-run job moved to every 6 h at 16:35 UTC (was hourly at 19:35 UTC)"
    folder = make_workspace(tmp_path, _notes({"2026-11-10": old, "2026-11-14": new}))
    _finished(folder, f"- [Orion] {old[2:]} (2026-11-10)", f"- [Orion] {new} (2026-11-14)")
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Schedule of the Orion invoice-run job", k=5)
    older, newer = _hit(hits, "memory/2026-11-10.md"), _hit(hits, "memory/2026-11-14.md")
    assert (older.status, newer.status) == ("finished", "finished")
    assert older.newer is not None and hits.index(newer) < hits.index(older)


def test_a_chain_of_supersedes_goes_on_through_a_line_gc_compacted_away(tmp_path: Path) -> None:
    lines = {
        "2026-11-10": "- Orion sync job runs hourly at 11:55 UTC",
        "2026-11-14": "- Orion sync job moved to hourly at 19:15 UTC (was hourly at 11:55 UTC)",
        "2026-11-16": "- The nightly Orion import now starts at 16:45",  # linked by the archive alone
    }
    notes = _notes(lines)
    notes["2026-11-10.md"] += "".join(f"- Orion sync job runs hourly, check {n}\n" for n in range(12))
    folder = make_workspace(tmp_path, notes)
    records = [
        ArchiveRecord(
            date(2026, 11, day),
            "Facts",
            f"- {lines[old][2:]} ({old})",
            "superseded",
            Ending("superseded", date(2026, 11, day), f"memory/2026-11-{day}.md:3"),
        )
        for old, day in (("2026-11-10", 14), ("2026-11-14", 16))
    ]
    (folder / "memory" / "archive.md").write_text(append_records(None, records), encoding="utf-8")
    with open_at(folder, config=_few_candidates()) as sidecar:
        sidecar.index()
        middle = _hit(sidecar.search("Orion sync job moved", k=20), "memory/2026-11-14.md")
        with sidecar.store.transaction():
            sidecar.store.soft_delete([middle.id], "compacted", 0.0)  # as GC compaction leaves it
        hits = sidecar.search(lines["2026-11-10"][2:], k=2)
    assert hits[0].source == "memory/2026-11-16.md" and (hits[0].vector_rank, hits[0].text_rank) == (
        None,
        None,
    )


def test_a_line_changed_since_still_marks_the_value_it_changed(tmp_path: Path) -> None:
    """The first change of a flag was itself changed since (superseded): it is still the newer word on
    the value it changed, which is marked older, and the last change ranks first."""
    lines = {
        "2026-11-10": "- Orion flag `rate_limit_v2` is on for 10% in prod",
        "2026-11-14": "- Orion flag `rate_limit_v2` changed from on for 10% to off",
        "2026-11-18": "- Orion flag `rate_limit_v2` changed from off to on for everyone",
    }
    folder = make_workspace(tmp_path, _notes(lines))
    record = ArchiveRecord(
        date(2026, 11, 18),
        "Facts",
        f"- {lines['2026-11-14'][2:]} (2026-11-14)",
        "superseded",
        Ending("superseded", date(2026, 11, 18), "memory/2026-11-18.md:3"),
    )
    (folder / "memory" / "archive.md").write_text(append_records(None, [record]), encoding="utf-8")
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(lines["2026-11-10"][2:], k=5)
    assert _hit(hits, "memory/2026-11-10.md").status == "older"
    assert hits[0].source == "memory/2026-11-18.md"


def _few_candidates() -> Config:
    return Config().model_copy(update={"sidecar": Config().sidecar.model_copy(update={"candidates": 1})})


@pytest.mark.parametrize("ending", ["entry {id} (gc:compaction)", "entry {id}: {text}"])
def test_a_chain_of_supersedes_goes_on_through_the_entry_gc_merged_a_line_into(
    tmp_path: Path, ending: str
) -> None:
    """GC's compaction ends a line with the entry it merged it into ("entry 7 (gc:compaction)"), and
    GC's supersede with the entry that replaced it ("entry 7: its text"), not a line: the chain
    stopped there, so the superseded first value had no successor (rank fusion had hidden it by its
    ended weight; fused scores did not)."""
    lines = {
        "2026-11-10": "- Orion sync job runs hourly at 11:55 UTC",
        "2026-11-14": "- Orion sync job moved to hourly at 19:15 UTC (was hourly at 11:55 UTC)",
        "2026-11-16": "- The nightly Orion import now starts at 16:45",
    }
    notes = _notes(lines)
    notes["2026-11-10.md"] += "".join(f"- Orion sync job runs hourly, check {n}\n" for n in range(12))
    folder = make_workspace(tmp_path, notes)
    with open_at(folder, config=_few_candidates()) as sidecar:
        sidecar.index()
        first, middle, merged = (
            _hit(sidecar.search(lines[day][2:], k=20), f"memory/{day}.md") for day in lines
        )
        with sidecar.store.transaction():
            sidecar.store.set_validity(
                {
                    first.id: ("2026-11-14", "superseded", "memory/2026-11-14.md:3"),
                    middle.id: (
                        "2026-11-16",
                        "superseded",
                        ending.format(id=merged.id, text=merged.text),
                    ),
                }
            )
            sidecar.store.soft_delete([middle.id], "compacted", 0.0)
        hits = sidecar.search(lines["2026-11-10"][2:], k=2)
    assert hits[0].id == merged.id and (hits[0].vector_rank, hits[0].text_rank) == (None, None)


def test_a_later_change_worded_unlike_the_question_is_looked_up_and_ranks_first(tmp_path: Path) -> None:
    """The later line is no candidate of the question (one candidate a list here, as when hundreds
    of lines share its words), but it shares the result's rarest words: one full-text lookup for
    the top results finds it."""
    notes = {
        f"2026-11-0{day}.md": f"# 2026-11-0{day}\n\n- Orion gateway port 8080 check ok on node {day}\n"
        for day in range(1, 8)
    }
    notes |= _notes(
        {
            "2026-11-10": "- Orion gateway port: 8080",
            "2026-11-14": "- after the cutover review with infra and a long talk about the load balancers, "
            "the Orion gateway port is now 9090 (was 8080) for everyone",
        }
    )
    folder = make_workspace(tmp_path, notes)
    with open_at(folder, config=_few_candidates()) as sidecar:
        sidecar.index()
        hits = sidecar.search("Orion gateway port: 8080", k=2)
    assert hits[0].source == "memory/2026-11-14.md"
    assert (
        _hit(hits, "memory/2026-11-10.md").status_line() == "older, see memory/2026-11-14.md:3 (2026-11-14)"
    )


def test_a_reversed_choice_naming_a_name_in_lower_case_first_marks_the_older(tmp_path: Path) -> None:
    """ "gRPC" is a name as "REST" is: the reversal names what the choice is of and a new name."""
    old = "Orion API style settled: REST + OpenAPI, since it unblocks Pim's work"
    new = "Reversed: Orion API goes gRPC with a REST gateway rather than REST + OpenAPI; Pim does not want to own it"
    folder = make_workspace(tmp_path, _notes({"2026-11-10": f"- {old}", "2026-11-14": f"- {new}"}))
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Orion API style settled: , since it unblocks Pim's work", k=5)
    assert hits[0].source == "memory/2026-11-14.md"
    assert _hit(hits, "memory/2026-11-10.md").status == "older"


def test_a_value_changed_and_changed_back_ends_on_its_last_word(tmp_path: Path) -> None:
    """Only the first choice is worded like the question; its change is looked up by its words, and
    the change of that change, which is no change of the first (it chose the same), by the change's
    own words: the last ranks first, the others marked older."""
    notes = {
        f"2026-11-0{day}.md": f"# 2026-11-0{day}\n\n- Orion UI review {day}: the current setup fell over "
        "twice under the Hooli load test\n"
        for day in range(1, 10)
    }
    notes |= _notes(
        {
            "2026-11-10": "- Decided to build the Orion UI with Vue — the current setup fell over twice under "
            "the Hooli load test",
            "2026-11-14": "- Scrapping Vue for Orion; we rebuild on Solid because the first month in prod showed "
            "10% more incidents than before",
            "2026-11-18": "- Scrapping Solid for Orion; we rebuild on Vue because the first month in prod showed "
            "61% more incidents than before",
        }
    )
    folder = make_workspace(tmp_path, notes)
    with open_at(folder, config=_few_candidates()) as sidecar:
        sidecar.index()
        hits = sidecar.search(
            "Decided to build the Orion UI with — the current setup fell over twice under the Hooli load test",
            k=2,
        )
    assert hits[0].source == "memory/2026-11-18.md"
    assert hits[1].status == "older"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # every typed value of the older said again, none said gone
        ("Orion keeps invoices for 180 days", "Retention for Orion audit logs: 180 days"),
        ("Orion ingest listens on 6001", "Again for the record: Orion ingest listens on port 6001"),
        # the same key and value
        ("**Orion plan (Contoso):** Enterprise (20 seats)", "Orion plan (Contoso): Enterprise (20 seats)"),
        # every word said again, after a remark
        ("Pim reports to Teo", "For the record, Pim reports to Teo"),
        (
            "`dark_mode` (Orion): on for Contoso only",
            "(repeating for the summary) Orion flag `dark_mode` is on for Contoso only",
        ),
        # the key's value said again, and no other name
        ("**Owner (Orion reports):** Pim", "For the record, Pim owns Orion reports"),
        # a bold key: its value is no version of what it is about
        ("Orion needs Python 3.12", "**Orion notifier language:** Python 3.12"),
        # the older's value is what the newer changes something to: claimed again, not gone
        ("Orion api stack: Rust 1.79", "Orion notifier got rewritten from Elixir 1.17 to Rust 1.79"),
        # a status board's row saying the same again, or another thing's row
        ("Orion iOS: waiting for review", "iOS review status: checked\n  - Orion iOS: waiting for review"),
        ("Vega iOS: waiting for review", "iOS review status: checked\n  - Orion iOS: REJECTED"),
        # the value said again, and the value the older itself says is not it ("NOT the :443 vhost")
        # said gone again
        (
            "Orion staging is at staging.orion.internal:8443 — NOT the :443 vhost, that one serves the old app",
            "Reminder: Orion staging lives at staging.orion.internal, port 8443 (not 443).",
        ),
        # the key and its whole value said again as its own, beside lines naming other things
        (
            "**Orion v0.13.9:** audit log v2",
            "Orion v0.13.9 is live in prod — ships audit log v2.\n  - next: Vega onboarding\n  - owner: Teo",
        ),
    ],
)
def test_a_later_line_stating_the_same_values_again_marks_nothing(tmp_path: Path, old: str, new: str) -> None:
    """A restatement is no newer value: the older is as true as it, and "older" would hide it."""
    folder = make_workspace(tmp_path, _notes({"2026-11-10": f"- {old}", "2026-11-14": f"- {new}"}))
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(old, k=5)
    assert _hit(hits, "memory/2026-11-10.md").status is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the same key with another untyped value beside the same number
        ("Orion plan (Contoso): Enterprise (20 seats)", "Orion plan (Contoso): Business (20 seats)"),
        # a capitalised word left out before the words both say stands in no one's place
        ("**Owner (Orion exporter):** Pim", "Teo takes over Orion exporter from Pim"),
        # a version alone: the value
        ("Orion is pinned to Python 3.12", "Orion is pinned to Python 3.11"),
        # the key's value read before an arrow with the word before it
        ("Orion production region: ams", "Orion region switched ams → us-west-2"),
        # a day may be the value
        (
            "TLS cert for billing.orion.io expires 2026-12-02 (Raj)",
            "done: Raj renewed the billing.orion.io TLS cert (new expiry 2027-02-17)",
        ),
        # the same first day: the same leave, its end and length changed
        (
            "Pim is out from 2026-11-29 until 2026-12-08, 10 days",
            "Pim is out from 2026-11-29 until 2026-12-12, 14 days",
        ),
        # a plain word after another plain word: the value
        ("Orion backups run weekly at noon", "Orion backups run daily at noon"),
        # no verb ends the subject: the name may be the value
        ("Felix owns Orion notifier", "Wei owns Orion notifier"),
        # a lead-in before the subject changes nothing of what it is about
        (
            "For the record, Orion qa database host is db-orion-qa-17.internal",
            "(repeating for the summary) Orion qa database host is db-orion-qa-21.internal",
        ),
        (
            "For the record, Orion is pinned to Python 3.12",
            "(repeating for the summary) Orion is pinned to Python 3.11",
        ),
        # a sentence's value said again as a key's: only the value stands where the newer has other words
        ("Orion stores audit logs for 7 days", "**Orion audit logs retention:** 30 days"),
        # a change taken back: the old value again as the value of a key naming what it was said of
        ("Orion exporter resized from c7g.xlarge to m6i.large", "**Orion exporter instance:** c7g.xlarge"),
        # a day said gone is an old value, not which event: the renewal moved again
        (
            "Contoso renewal pushed to 2026-10-18 (was 2026-09-13)",
            "Contoso renewal pushed to 2026-12-14 (was 2026-10-18)",
        ),
        # a size said gone of the same part
        ("Orion billing runs on m6i.large instances", "Orion billing resized from m6i.large to c7g.xlarge"),
        # a change of what the key names, told in a sentence opening with the key's words
        ("Contoso renewal pushed to 2026-10-18 (was 2026-09-13)", "**Contoso renewal:** 2026-12-14"),
        # a row of a status board set under another line
        (
            "Orion iOS: 1.0 waiting for review",
            "iOS review status: 2 apps rejected\n  - Orion iOS: REJECTED (privacy popup)\n  - Vega iOS: waiting",
        ),
    ],
)
def test_a_later_line_changing_one_value_marks_the_older(tmp_path: Path, old: str, new: str) -> None:
    folder = make_workspace(tmp_path, _notes({"2026-11-10": f"- {old}", "2026-11-14": f"- {new}"}))
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(old, k=5)
    assert _hit(hits, "memory/2026-11-10.md").status == "older"


def test_the_same_choice_for_another_project_is_no_change_of_it(tmp_path: Path) -> None:
    """A choice read from its first two capitalised words is of the first: "We'll" names nothing it
    is of, so the same tool chosen for another project beside it changes nothing."""
    old = "We'll use self-hosted Prometheus for Orion\nobservability; it is cheaper to run"  # a paragraph
    new = "We'll use self-hosted Prometheus for Vega observability; fewer pages at night"
    folder = make_workspace(tmp_path, _notes({"2026-11-10": old, "2026-11-14": new}))
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search("Which monitoring does Orion use?", k=5)
    assert _hit(hits, "memory/2026-11-10.md").status is None


@pytest.mark.parametrize(
    ("old", "new", "status"),
    [
        ("- Felix reviews the billing export weekly", "- Wei reviews the billing export daily", None),
        (
            "- the billing export review runs weekly at noon",
            "- the billing export review runs daily",
            "older",
        ),
    ],
)
def test_a_later_line_leaving_out_a_name_of_the_older_is_about_another_one(
    tmp_path: Path, old: str, new: str, status: str | None
) -> None:
    """Two words of the older left out: a later word on it, unless one is a name (capitalised)."""
    folder = make_workspace(tmp_path, _notes({"2026-11-10": old, "2026-11-14": new}))
    with open_at(folder) as sidecar:
        sidecar.index()
        hits = sidecar.search(old[2:], k=5)
    assert _hit(hits, "memory/2026-11-10.md").status == status


def test_a_gc_link_to_a_row_that_holds_other_text_now_names_no_successor(tmp_path: Path) -> None:
    """GC's supersede names the entry that replaced a line and its text then ("entry 656: Decision
    for Sable: ..."); a MEMORY.md row is rewritten in place when its line changes, so the same id can
    hold another entry later (a TODO, on a 90-day generated run): that row is no successor."""
    folder = make_workspace(tmp_path, _notes({"2026-11-10": "- Orion sync job runs hourly at 11:55 UTC"}))
    with open_at(folder) as sidecar:
        sidecar.index()
        row = _hit(sidecar.search("Orion sync job", k=5), "memory/2026-11-10.md")
        assert (
            ending_row(sidecar.store, f"entry {row.id}: {row.text}") == sidecar.store.fetch([row.id])[row.id]
        )
        assert ending_row(sidecar.store, f"entry {row.id}: Decision for Sable: bugs only") is None
        assert ending_row(sidecar.store, f"entry {row.id} (gc:compaction)") is not None


def test_a_statement_is_what_a_line_says_now() -> None:
    """A weekly summary's copy of a pending item ends with its place, a MEMORY.md entry with its
    history ("(previously: ...)"), a note line may open with a remark: none is a word it states."""
    said = stated("**Orion exporter port:** 4843", False)
    assert stated("- **Orion exporter port:** 4843 (memory/2026-10-03.md:25)", True).words == said.words
    assert stated("Again for the record: **Orion exporter port:** 4843", False).words == said.words
    remark = stated("21:11 (repeating for the summary) Orion exporter port: 4843", False)  # after a clock
    assert (remark.words, remark.key) == (said.words, said.key)
    changed = stated("Orion exporter port: 4843 (previously: Orion exporter port: 4080)", False)
    assert changed.words == stated("Orion exporter port: 4843", False).words
    assert changed.gone == ("Orion exporter port: 4080",)
    assert (changed.key, changed.value_text) == (said.key, "4843")  # its key's value, not its history's


def test_a_weekly_lines_ending_is_no_word_it_states() -> None:
    """A weekly summary's line ended since carries its ending ("[superseded 2026-11-13 by ...]"), which
    quotes what ended it: its days were read as values the line states, and its own day, no longer at
    the end, too, so a line about Pim's leave from 2026-12-10 read as a newer word on the one from
    2026-11-11 (the day the weekly line was noted) and marked it older."""
    ended = "- relationship: Pim on leave 2026-12-10, 10 days (2026-11-11) [superseded 2026-11-13 by memory/2026-11-13.md:53]"
    assert (
        stated(ended, True).text
        == stated("- relationship: Pim on leave 2026-12-10, 10 days (2026-11-11)", True).text
    )
    assert stated(ended, True).values == frozenset({"10 days"})
    older = stated("**19:34** Pim is out from 2026-11-11 for 3 days; Sam covers", False)
    assert not restates(older, stated(ended, True), frozenset())


def test_a_summary_of_archived_entries_is_no_newer_word(tmp_path: Path) -> None:
    """GC's summary of archived entries says again what left MEMORY.md, old values most of all, dated
    by the last of them: naming a key and its value beside other names, it is no change of it."""
    old = "**Orion billing instance:** e2-standard-4"
    folder = make_workspace(tmp_path, _notes({"2026-11-10": f"- {old}"}))
    summary = (
        "Archived 3 entries, 2026-11-01 to 2026-11-20. Facts: Orion billing instance: e2-standard-4; "
        "Vega port: 8080; Decisions: Vega goes on Render"
    )
    entry = NewEntry(
        "gc:gc-20261121T040000Z",
        SUMMARY,
        "note",
        0,
        0,
        "",
        summary,
        "h",
        "2026-11-20",
        "default",
        0.5,
        None,
        fts_document(summary),
    )
    with open_at(folder) as sidecar:
        sidecar.index()
        sidecar.store.insert_entries([entry], sidecar.embedder.embed([summary]), sidecar.embedder.id, 0.0)
        hits = sidecar.search(old, k=5)
    assert _hit(hits, "memory/2026-11-10.md").status is None


def test_every_later_line_holding_a_results_rarest_words_is_read(tmp_path: Path) -> None:
    """The change shares one rare word with the result ("2026-09-30") and 25 later lines share all
    three of its words: a lookup that read the best 20 by rank (or the best 20 per result of one query
    for all the top results) never read the change. Its rarest words match at most LATER_TERMS
    entries, and all of them are read."""
    notes = _notes({"2026-09-06": "- Cobalt launches on 2026-09-30"})
    again = (f"- Cobalt launches feature {n}, see the 2026-09-30 plan" for n in range(25))
    notes["2026-09-10.md"] = "# 2026-09-10\n\n" + "\n".join(again) + "\n"
    notes |= _notes({"2026-09-23": "- Cobalt GA slipped from 2026-09-30 to 2026-10-31"})
    folder = make_workspace(tmp_path, notes)
    with open_at(folder) as sidecar:
        sidecar.index()
        store = sidecar.store
        first = [row for row in store.entries_of_source("note:2026-09-06.md") if row.kind == "note"]
        lookup = successors.Lookup(
            store,
            "2026-10-01",
            lambda row: True,
            1,
            lambda texts: rarest_terms(store, texts, successors.LATER_TERMS),
            lambda row: 1.0,
        )
        found = successors._with_later_statements(
            lookup,
            [successors.Ranked(1.0, 1.0, row, 1.0) for row in first],
            frozenset(),
            successors.Reading(frozenset()),
        )
    assert [row.text for row in first] == ["- Cobalt launches on 2026-09-30"]
    assert any("slipped" in item.row.text for item in found)


def test_the_ending_pattern_knows_every_status() -> None:
    assert STATUSES == ENDING_STATUSES  # text.py reads the endings archive.py writes


def test_a_lead_in_is_no_result_of_its_own(tmp_path: Path) -> None:
    """ "Atlas:" over a list ranked first for "when is the Atlas launch", a label that answers nothing:
    the items it leads carry it in their context, so it is not indexed alone. A line ending with a
    colon that leads nothing is."""
    notes = {
        "2026-11-12.md": "# 2026-11-12\n\nAtlas:\n- cutover moved to 2026-12-01\n- two shadow runs, 0 diffs\n\n"
        "Open question for Dana:\n\nBeacon ships Friday.\n\nStatus:\n**Owner:** Pim\n**Due:** Friday\n\n"
        "Cutover moved to 2026-12-01, details:\n- rollback tested\n"
    }
    with open_at(make_workspace(tmp_path, notes)) as sidecar:
        sidecar.index()
        texts = [row.text for row in sidecar.store.entries_of_source("note:2026-11-12.md")]
    assert "Atlas:" not in texts and "- cutover moved to 2026-12-01" in texts
    assert "Open question for Dana:" in texts
    assert "**Owner:** Pim" in texts and "**Due:** Friday" in texts  # fields the lead-in leads, one by one
    assert "Status:" not in texts
    assert "Cutover moved to 2026-12-01, details:" in texts  # a lead-in that says more than a label


def test_a_forgotten_change_answers_by_its_weekly_copy(tmp_path: Path) -> None:
    """Forgetting took the line that superseded the first value out of recall (as it takes the entry
    GC merged a line and its repeat into): the chain ends on a row recall does not return. The weekly
    summary still says that line: it ranks above the superseded value, which keeps its status."""
    lines = {
        "2026-11-10": "- Orion staging database host is db-orion-11.internal",
        "2026-11-14": "- Orion staging DB moved to db-orion-37.internal (was db-orion-11.internal)",
    }
    notes = _notes(lines)
    (tmp_path / "memory" / "weekly").mkdir(parents=True)
    (tmp_path / "memory" / "weekly" / "2026-W46.md").write_text(
        "# Week 2026-W46\n\n## Orion\n\n- decision: Orion staging DB moved to db-orion-37.internal"
        " (was db-orion-11.internal) (2026-11-14)\n",
        encoding="utf-8",
    )
    folder = make_workspace(tmp_path, notes)
    with open_at(folder) as sidecar:
        sidecar.index()
        first, change = (_hit(sidecar.search(lines[day][2:], k=5), f"memory/{day}.md") for day in lines)
        with sidecar.store.transaction():
            sidecar.store.set_validity({first.id: ("2026-11-14", "superseded", "memory/2026-11-14.md:3")})
            sidecar.store.soft_delete([change.id], "forgotten", 0.0)
        hits = sidecar.search("Orion staging database host", k=3)
    assert hits[0].source == "memory/weekly/2026-W46.md"
    assert _hit(hits, "memory/2026-11-10.md").status == "superseded"
