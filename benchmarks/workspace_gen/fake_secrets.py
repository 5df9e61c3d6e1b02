"""Fake credentials in real-world shapes, planted in notes so redaction can be scored."""

from __future__ import annotations

import base64
import string

from .filler import Filler
from .spec import BULLET, PARAGRAPH, STAMPED, ItemSpec, discard

URL_SAFE = string.ascii_letters + string.digits + "-_"
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
BASE64 = string.ascii_letters + string.digits + "+/"

SECRET_KINDS: tuple[str, ...] = (
    "anthropic_key",
    "openai_key",
    "aws_access_key_id",
    "github_token",
    "postgres_url",
    "ssh_private_key",
    "password",
)


def anthropic_key(f: Filler) -> str:
    return "sk-ant-api03-" + f.token(93, URL_SAFE) + "AA"


def openai_key(f: Filler) -> str:
    return "sk-proj-" + f.token(74, URL_SAFE) + "T3BlbkFJ" + f.token(74, URL_SAFE)


def aws_pair(f: Filler) -> tuple[str, str]:
    return "AKIA" + f.token(16, UPPER_DIGITS), f.token(40, BASE64)


def github_token(f: Filler) -> str:
    return "ghp_" + f.token(36, ALNUM)


def password(f: Filler) -> str:
    stem = f.choice(("hunter2", "Tr0ub4dor", "correct-horse", "Sommer2026", "letmein", "Passw0rd"))
    return f"{stem}{f.choice(('!', '#', '-', '_', '$'))}{f.token(4, ALNUM)}"


def ssh_key_lines(f: Filler) -> list[str]:
    payload = b"openssh-key-v1\x00" + bytes(f.rng.randrange(256) for _ in range(360))
    encoded = base64.b64encode(payload).decode()
    body = [encoded[i : i + 70] for i in range(0, len(encoded), 70)]
    return ["-----BEGIN OPENSSH PRIVATE KEY-----", *body, "-----END OPENSSH PRIVATE KEY-----"]


def secret_items(f: Filler, kind: str, topic: str) -> list[ItemSpec]:
    """Items that carry the secret `kind`; each lists its (kind, exact value) in `secrets`."""
    p = topic.lower()
    raw: tuple[str, ...]
    if kind == "anthropic_key":
        key = anthropic_key(f)
        if f.rng.random() < 0.5:
            raw = (
                "```bash",
                f"export ANTHROPIC_API_KEY={key}",
                f"python -m {p}.eval --model claude-sonnet",
                "```",
            )
            spec = discard("debug", topic, raw[0], raw=raw)
        else:
            body = f"set ANTHROPIC_API_KEY={key} in the {topic} .env for the eval runner"
            spec = discard("routine", topic, body, shapes=(STAMPED, BULLET))
        spec.secrets.append((kind, key))
        return [spec]
    if kind == "openai_key":
        key = openai_key(f)
        body = f"OpenAI key for the {topic} eval harness (temporary): {key}"
        spec = discard("routine", topic, body, shapes=(BULLET, STAMPED, PARAGRAPH))
        spec.secrets.append((kind, key))
        return [spec]
    if kind == "aws_access_key_id":
        key_id, secret = aws_pair(f)
        raw = (
            "```ini",
            "[default]",
            f"aws_access_key_id = {key_id}",
            f"aws_secret_access_key = {secret}",
            f"region = {f.fill('{region}')}",
            "```",
        )
        spec = discard("debug", topic, raw[0], raw=raw)
        spec.secrets += [("aws_access_key_id", key_id), ("aws_secret_access_key", secret)]
        return [spec]
    if kind == "github_token":
        token = github_token(f)
        body = f"`git remote set-url origin https://{token}@github.com/{p}-org/{p}.git` — works now"
        spec = discard("routine", topic, body, shapes=(BULLET, STAMPED))
        spec.secrets.append((kind, token))
        return [spec]
    if kind == "postgres_url":
        user = f.choice((p, "app", "admin", f"{p}_rw"))
        url = f"postgres://{user}:{password(f)}@db-{p}-{f.fill('{env}')}.internal:5432/{p}"
        body = url if f.rng.random() < 0.5 else f"DATABASE_URL={url}"
        spec = discard("debug", topic, body, shapes=(BULLET, STAMPED))
        spec.secrets.append((kind, url))
        return [spec]
    if kind == "ssh_private_key":
        lines = ssh_key_lines(f)
        raw = ("```", *lines, "```")
        spec = discard("debug", topic, raw[0], raw=raw)
        spec.secrets.append((kind, "\n".join(lines)))
        return [spec]
    secret = password(f)
    body = (
        f"{f.choice(('Grafana', 'router', 'staging admin', 'NAS'))} login — user: admin, password: {secret}"
    )
    spec = discard("routine", topic, body, shapes=(BULLET, STAMPED, PARAGRAPH))
    spec.secrets.append(("password", secret))
    return [spec]
