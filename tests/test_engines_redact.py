"""Secrets never reach a prompt or a file the tool writes; benign look-alikes are left alone."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from memory_sleep.engines.redact import find_secrets, redact, redact_at, redact_items, redact_prompt

from .conftest import FIXTURE_WORKSPACE, run_offline
from .item_helpers import note_item

PLANTED = {
    "anthropic key": "export ANTHROPIC_API_KEY=sk-ant-api03-" + "Xy7_Qz3-" * 11 + "AA",
    "openai key": "OpenAI key for the eval harness (temporary): sk-proj-"
    + "aB3dE5fG7h" * 8
    + "T3BlbkFJ"
    + "kL9mN1pQ" * 9,
    "aws access key": "aws_access_key_id = AKIAFV9TN8N9ZA6TPJRE",
    "secret": "aws_secret_access_key = GSALtSBzo62GhYHKz5ANSln1ZSEGppdwOSvCPgoO",
    # one AWS secret in 64 starts with '/', which read as a path (the generator's 90-day seed 1 found it)
    "secret led by a slash": "aws_secret_access_key = /92l1BNTL4IJZ4BqOrYhbADUuF14mG+WNpA5ydDa",
    "github token": "`git remote set-url origin https://ghp_8fKq2LmZx9Pw4TrB7nYc1VdE6sHjA0uGiKoQ@github.com/acme/x.git`",
    "connection string": "DATABASE_URL=postgres://app:letmein!1P6D@db-sable-preview.internal:5432/sable",
    "password": "Grafana login — user: admin, password: Sommer2026#kigt",
    "slack token": "bot token xoxb-2048-4096-AbCdEfGhIjKlMnOp for the alerts app",
    # a key with dashes after "sk-", and one labelled "API key" in two words (a new user's trial: both reached
    # MEMORY.md and recall)
    "api key": "Render API key for the deploy hook: sk-live-abc123XYZ789def456ghi012jkl345mno",
    "api key in two words": "Render API key: Zq8vN2mK4pL6xR9tW3yB5cF7",
    "jwt": "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}
PRIVATE_KEY = (
    "```\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACBGVmFrZUtleUZvclRlc3RzT25seU5vdFJlYWwAAAAAAAAAAAAAAAAAAAAA\n-----END OPENSSH PRIVATE KEY-----\n```"
)
BENIGN = [
    "Next I'm going to grep for `refresh_token` usages.",
    "The password reset flow is broken on staging; token: expired after 15 minutes",
    "commit 3f9a1c2e7b4d5f6a8b9c0d1e2f3a4b5c6d7e8f90 fixed the race",
    "trace id 6a6fafb1c9c295d3, request 0b6f2f7e-3c1a-4bd0-9a57-1f6c2e9d8a41",
    "ssh://git@github.com/acme/platform.git is the mirror",
    "secret: none of this is sensitive",
    "api_key: see 1Password, never paste it",
    "private_key: ~/.ssh/id_ed25519_github_deploy on the runner",
    "secret_file = /etc/keycloak/Fernhill-Realm-Export-2026.json",
    "Set password: <your password here> in the .env template",
    "https://grafana.internal/d/abc123/billing?orgId=1&from=now-6h",
    "Keycloak realm `fernhill` uses key rotation every 90 days",
    "[redacted password, see memory/2026-11-03.md:4] was already removed",
    "The API key is rotated every 90 days by the platform team",
    "sk-learn-pipeline-configuration-for-the-training-job",
]


@pytest.mark.parametrize("kind", sorted(PLANTED))
def test_planted_secret_is_found_and_replaced_with_a_marker_naming_the_note(kind: str) -> None:
    line = PLANTED[kind]
    cleaned = redact(line, "memory/2026-11-03.md:12")
    assert "see memory/2026-11-03.md:12]" in cleaned
    for finding in find_secrets(line):
        assert line[finding.start : finding.end] not in cleaned


def test_private_key_block_is_redacted_whole() -> None:
    cleaned = redact(PRIVATE_KEY, "memory/2026-11-04.md:7")
    assert "PRIVATE KEY" not in cleaned.replace("[redacted private key", "")
    assert "b3BlbnNzaC1rZXkt" not in cleaned
    assert cleaned.startswith("```\n[redacted private key, see memory/2026-11-04.md:7]")


@pytest.mark.parametrize("line", BENIGN)
def test_benign_lines_are_left_alone(line: str) -> None:
    assert find_secrets(line) == [], line


def test_fixture_workspace_has_no_false_positives_and_scans_fast() -> None:
    texts = [path.read_text() for path in sorted((FIXTURE_WORKSPACE / "memory").glob("*.md"))]
    started = time.perf_counter()
    found = [finding for text in texts for finding in find_secrets(text)]
    elapsed = time.perf_counter() - started
    assert found == []
    assert elapsed < 0.5


def test_prompt_redaction_catches_secrets_in_hand_written_memory() -> None:
    prompt = "<memory_entries>\n- staging admin password: Tr0ub4dor-x9Q2\n- Sprints are two weeks\n"
    cleaned = redact_prompt(prompt)
    assert "Tr0ub4dor" not in cleaned and "Sprints are two weeks" in cleaned


def test_secret_in_a_note_never_reaches_memory_weekly_or_briefing(fixture_workspace: Path) -> None:
    note = fixture_workspace / "memory" / "2026-11-24.md"
    key = "sk-ant-api03-" + "Q9w_E8r-T7y" * 9 + "AA"
    note.write_text(
        note.read_text()
        + f"\n- Decided: the eval runner uses ANTHROPIC_API_KEY={key} from now on\n"
        + "- Lesson: the staging admin password: Sommer2026#kigt must rotate monthly\n"
    )
    run_offline(fixture_workspace)
    for path in fixture_workspace.rglob("*"):
        if path.is_file() and path != note and path.suffix != ".db":  # the sidecar indexes notes itself
            text = path.read_text(errors="replace")
            assert key not in text and "Sommer2026#kigt" not in text, path
    memory = (fixture_workspace / "MEMORY.md").read_text()
    assert "[redacted anthropic key, see memory/2026-11-24.md:" in memory


def test_a_marker_names_the_line_its_secret_stands_on() -> None:
    """A new user's trial: a key on a paragraph's second line (15) was marked "see ...:14", the
    paragraph's first, while the run's warning said line 15."""
    key = "sk-proj-" + "Xq7Lm2Np9Rt4Vw8Yz3Bc6Df1Gh5Jk0" * 2
    text = (
        f"Configured the eval harness for the schema checks.\nSet OPENAI_API_KEY={key} in the .env for now."
    )
    assert redact_at(text, "memory/2026-11-03.md", 14).endswith(
        "see memory/2026-11-03.md:15] in the .env for now."
    )
    stamped = dataclasses.replace(
        note_item(text), file="memory/2026-11-03.md", line_start=13, stamp="**09:10**\n"
    )
    (item,) = redact_items([stamped])
    assert key not in item.text and "see memory/2026-11-03.md:15]" in item.text
