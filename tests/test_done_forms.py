"""A task reported done in its own verb ("renew the domain", then "example.org renewed") closes it, offline;
the same verb of another instance, a task not done yet, or a question closes nothing."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memory_sleep.engines.offline import done_forms

from .conftest import run_offline

ACTIONS = (
    "- [Ops] TODO: renew the example.org domain before 2026-12-01 (expires 2026-12-03). Owner: Ana. (2026-11-16)\n"
    "- Dana: send the December invoice to Contoso Europe BV by 2026-12-02 (2026-11-16)\n"
    "- rotate the Stripe webhook secret by 2026-11-25 (it was pasted in Slack last week) (2026-11-16)\n"
    "- submit build 42 to Apple with the permission text (2026-11-16)\n"
    "- Deploy 5 subagents with the NIM models (free tier) (2026-11-16)\n"
)


def _workspace(tmp_path: Path, note: str) -> str:
    """MEMORY.md's open actions after one offline run over `note` (2026-11-20)."""
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Facts\n- Contoso pays net 30 (2026-11-02)\n- Ledger API listens on 8443 (2026-11-04)\n"
        f"\n## Action items\n{ACTIONS}"
    )
    (tmp_path / "memory" / "2026-11-20.md").write_text(f"# 2026-11-20\n\n{note}")
    run_offline(tmp_path, today=date(2026, 11, 21))
    text = (tmp_path / "MEMORY.md").read_text()
    return text[text.index("## Action items") :]


@pytest.mark.parametrize(
    ("line", "closed"),
    [
        (
            "- example.org renewed for 2 years by Ana, now expires 2028-12-03.\n",
            "renew the example.org domain",
        ),
        ("- Sent the December invoice to Contoso (INV-2026-031).\n", "send the December invoice"),
        ("- Stripe webhook secret rotated; the old one is revoked.\n", "rotate the Stripe webhook secret"),
        ("- Build 42 submitted to Apple with the permission text.\n", "submit build 42 to Apple"),
    ],
)
def test_a_line_saying_a_task_is_done_in_its_own_verb_closes_that_task_only(
    tmp_path: Path, line: str, closed: str
) -> None:
    """In a new user's trial, "harbor.dev renewed for 2 years by Marco" left "TODO: renew the harbor.dev
    domain" OVERDUE in the briefing: no "done" word, no checkbox, no Done section."""
    left = _workspace(tmp_path, line)
    assert closed not in left
    assert sum(action.split(" (")[0][2:] in left for action in ACTIONS.splitlines()) == 4
    assert "done (memory/2026-11-20.md:3)" in (tmp_path / "memory" / "archive.md").read_text()


@pytest.mark.parametrize(
    "line",
    [
        "- example.org needs to be renewed by Ana before the 1st.\n",  # not done yet
        "- Once the Stripe webhook secret is rotated, tell Dana.\n",
        "- Stripe webhook secret not rotated yet: waiting on Ana.\n",
        "- Is the December invoice to Contoso sent?\n",  # a question
        "- Rotated the Stripe API key after the audit.\n",  # the same verb of another secret
        "- **4 subagents deployed** to audit the gateway.\n",  # of another deployment
    ],
)
def test_a_task_not_done_yet_or_another_instance_of_its_verb_closes_nothing(
    tmp_path: Path, line: str
) -> None:
    left = _workspace(tmp_path, line)
    assert all(action.split(" (")[0][2:] in left for action in ACTIONS.splitlines())


def test_a_task_of_an_earlier_note_of_the_same_run_is_closed_by_a_later_note(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# MEMORY.md\n")
    (tmp_path / "memory" / "2026-11-18.md").write_text(
        "# 2026-11-18\n\n- [ ] rotate the staging TLS certificate\n"
    )
    (tmp_path / "memory" / "2026-11-20.md").write_text(
        "# 2026-11-20\n\n- Staging TLS certificate rotated at 09:10.\n"
    )
    run_offline(tmp_path, today=date(2026, 11, 21))
    assert "rotate the staging TLS certificate" not in (tmp_path / "MEMORY.md").read_text()
    assert "done (memory/2026-11-20.md:3)" in (tmp_path / "memory" / "archive.md").read_text()


def test_each_language_writes_its_done_forms_by_its_own_rules() -> None:
    tasks = done_forms.OpenTasks(frozenset())
    for task in (
        "Lucía: enviar las traducciones",
        "Rechnung an Contoso schicken",
        "write the migration guide",
    ):
        tasks.add(task)
    assert tasks.reported("Lucía envió las traducciones")
    assert tasks.reported("Rechnung an Contoso geschickt")
    assert tasks.reported("Migration guide written and linked from the README")
    assert not tasks.reported("Die Rechnung an Contoso ist noch nicht geschickt")
    assert not tasks.reported("Migration guide rewritten")  # another verb


def test_an_ending_rule_written_otherwise_names_its_line() -> None:
    with pytest.raises(ValueError, match=r"'e -> ed'.*'-e -> -ed'"):
        done_forms._rule("e -> ed")
