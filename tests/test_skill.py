"""SKILL.md: valid Agent Skills front matter, commands that exist, and the same KEEP/DISCARD rules as NREM."""

from __future__ import annotations

import re
import typing

import frontmatter

from memory_sleep.cli.cron import cron_prompt
from memory_sleep.cli.main import main
from memory_sleep.config import Config
from memory_sleep.models import Category, DiscardReason
from memory_sleep.workspace.layout import Workspace

from .cli_helpers import verb_names, verbs
from .conftest import REPO

SKILL = REPO / "SKILL.md"
TRIGGERS = [
    "memory consolidation",
    "sleep cycle",
    "context drift",
    "forgetting problem",
    "clean up memory",
    "consolidate notes",
]
# the Agent Skills format: these keys, at most these lengths
ALLOWED_KEYS = {"name", "description", "license", "compatibility", "metadata", "allowed-tools"}
NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def test_front_matter_follows_the_agent_skills_format() -> None:
    text = SKILL.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    skill = frontmatter.loads(text)
    assert set(skill.metadata) <= ALLOWED_KEYS
    name = skill["name"]
    assert name == "memory-sleep" and len(name) <= 64 and NAME.match(name)
    description = skill["description"]
    assert isinstance(description, str) and 0 < len(description) <= 1024
    for phrase in TRIGGERS:
        assert phrase in description, phrase
    assert len(skill.get("compatibility", "")) <= 500
    # OpenClaw's embedded parser reads single-line keys only
    front = text.split("\n---\n", 1)[0].splitlines()[1:]
    assert all(re.match(r"^[a-z-]+: \S", line) for line in front), front
    assert len(skill.content.splitlines()) < 500


def test_every_command_skill_md_mentions_exists() -> None:
    text = SKILL.read_text(encoding="utf-8")
    mentioned = set(re.findall(r"`memory-sleep ((?:cron )?[a-z]+)", text))
    assert {
        "run",
        "status",
        "undo",
        "recall",
        "doctor",
        "init",
        "cron install",
        "cron prompt",
        "mcp",
    } <= mentioned
    assert mentioned <= verb_names(), mentioned - verb_names()


def test_every_option_skill_md_gives_a_command_exists() -> None:
    commands = dict(verbs())
    for line in re.findall(r"`memory-sleep ([^`]+)`", SKILL.read_text(encoding="utf-8")):
        words = line.split()
        verb = " ".join(words[:2]) if " ".join(words[:2]) in commands else words[0]
        command = main if verb.startswith("-") else commands[verb]  # `memory-sleep --version`
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        given = {word.split("=")[0] for word in words if word.startswith("-")}
        assert given <= options | {"-h", "--help"}, (line, given - options)


def _bullets(section: str) -> list[str]:
    body = SKILL.read_text(encoding="utf-8").split(f"## {section}", 1)[1].split("\n## ", 1)[0]
    return [" ".join(item.split()) for item in body.split("\n- ")[1:]]


def test_an_explicit_request_runs_now_and_if_due_is_for_schedules() -> None:
    bullets = _bullets("Running the sleep cycle")
    now = next(b for b in bullets if b.startswith("`memory-sleep run` "))
    due = next(b for b in bullets if b.startswith("`memory-sleep run --if-due`"))
    assert '"consolidate notes"' in now and "whenever you are asked" in now
    assert "consolidate notes" not in due and "never for an explicit request" in due


def test_the_manual_procedure_redacts_secrets_and_finds_the_notes_not_consolidated() -> None:
    manual = " ".join(SKILL.read_text(encoding="utf-8").split("## By hand", 1)[1].split())
    assert "Never copy a secret" in manual and "`[redacted <kind>, see memory/<note>.md:<line>]`" in manual
    nrem = manual.split("### 1. NREM", 1)[1].split("### 2.", 1)[0]
    assert "`lastRun` in `memory/sleep-log.json`" in nrem and "modified after `lastRun`" in nrem
    assert "`memory-sleep status --pending`" in nrem


def test_skill_md_says_how_to_install_the_unpublished_package() -> None:
    text = " ".join(SKILL.read_text(encoding="utf-8").split())
    assert "pip install memory-sleep" not in text  # not on PyPI yet: it would not resolve
    assert "not on PyPI yet" in text and "pip install /path/to/memory-sleep" in text
    assert "pip install git+URL" in text


def _words(literal: object) -> list[str]:
    return list(typing.get_args(literal))


def test_manual_procedure_uses_the_categories_and_reasons_nrem_uses() -> None:
    body = frontmatter.loads(SKILL.read_text(encoding="utf-8")).content
    manual = body.split("## By hand", 1)[1]
    for word in [*_words(Category), *_words(DiscardReason)]:
        if word != "other":
            assert f"**{word}" in manual, word
    for operation in ("noop", "update", "add", "supersede"):
        assert f"**{operation}**" in manual


def test_cron_prompt_names_the_workspace_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    prompt = cron_prompt(Workspace(tmp_path), Config())
    assert f"memory-sleep run {tmp_path} --if-due --engine agent" in prompt
    assert "Exit code 3 means decisions wait for you" in prompt
    assert f"{tmp_path}/memory/YYYY-MM-DD.md" in prompt and f"{tmp_path}/MEMORY.md" in prompt
    assert "{{" not in prompt and "2048 bytes" in prompt


def test_the_package_ships_skill_md() -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, ["skill"])
    assert result.exit_code == 0 and result.output == SKILL.read_text(encoding="utf-8")
    assert (REPO / "prompts" / "SKILL.md").resolve() == SKILL.resolve()  # a link, so the two never drift


def test_without_a_key_the_skill_teaches_the_agent_engine_and_keeps_the_manual_procedure() -> None:
    text = SKILL.read_text(encoding="utf-8")
    loop = text.split("### No API key: you make the decisions", 1)[1].split("\n## ", 1)[0]
    for needed in (
        "`memory-sleep run --engine agent` exits 3",
        "`answer_schema`",
        "`answer_file`",
        "`problems`",
    ):
        assert needed in loop, needed
    assert "`consolidate_as_agent`" in text and "`answer_decision`" in text
    assert "## By hand, when the tool cannot be installed" in text
