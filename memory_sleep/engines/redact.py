"""Secrets redaction: API keys, tokens, private keys, passwords and connection strings become a marker.

Runs on new note items before anything is classified, stored, written or sent to a model, and again
on every prompt as a safety net. detect-secrets was measured first (see "LLM engines" in README.md): on the
generated workspaces its pattern plugins found 3 of 8 planted secret kinds and its entropy plugins
flagged tens of thousands of benign lines in markdown, at about 0.1 MB/s; so the rules below are
our own, in the shape of gitleaks' rules: a known prefix, a credential inside a URL, or a value
assigned to a secret-sounding key that looks like a credential rather than a word.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from memory_sleep.models import NoteItem

# the rules' version: bump it when find_secrets finds more, and the next index pass redacts what the
# sidecar's entries stored before still hold (sidecar/scrub.py)
RULES = "2026-12-07"

_PREFIXED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("anthropic key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai key", re.compile(r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}")),
    # "sk-" then 32 or more letters, digits and dashes, a digit among them ("sk-live-abc123…"): a
    # run of words joined by dashes ("sk-learn-pipeline-…") holds none
    ("api key", re.compile(r"\bsk-(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{32,}")),
    ("aws access key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[A-Z0-9]{16}\b")),
    ("github token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("gitlab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("google api key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("stripe key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}")),
    ("npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("huggingface token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
)
_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.S,
)
_URL_CREDENTIALS = re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@`'\"]+:([^\s@/`'\"]+)@[^\s`'\"]+", re.I)
_ASSIGNED = re.compile(
    r"(?i)\b(?P<key>[a-z0-9_.-]*(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|auth[_-]?key|credentials?|(?:api|access|private|auth)\s+key|client\s+secret))\b[\"'`]?"
    r"(?P<sep>\s*(?:[:=]|=>|\bis\b)\s*)[\"'`]?(?P<value>[^\s\"'`,;]{6,})"
)
_WORDLIKE = re.compile(r"^[a-z]+(?:[-_][a-z]+)*[.!?:]?$")
_PLACEHOLDER = re.compile(
    r"^(?:x{4,}|\*{3,}|<[^>]*>|\$\{?[A-Z_]+\}?|\{\{.*\}\}|redacted|changeme|example\S*)$", re.I
)
_LEADING_MARKUP = re.compile(r"^\s*(?:[-*+]|\d+[.)])?\s*(?:\[[ xX]\]\s*)?(?:\d{1,2}:\d{2}(?::\d{2})?\s*)?")
_LABELLED_MARKER = re.compile(
    r"(?:[\w.-]+[\"'`]?\s*(?:[:=]|=>)\s*)?[\"'`]?\[redacted [a-z ]+(?:, see [^\]]+)?\][\"'`]?"
)
_MARKER_WITH_SOURCE = re.compile(r"\[redacted [a-z ]+, see [^\]]+\]")
_CANDIDATE = re.compile(
    r"[A-Za-z0-9+/=_-]{16,}|://[^\s/@]+:[^\s/@]+@|(?i:pass|pwd|secret|token|key|credential|BEGIN)"
)


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int


def marker(kind: str, source: str | None) -> str:
    """What replaces a secret: its kind and the note it came from (which still holds it); in the note
    itself (`memory-sleep redact`), its kind only."""
    return f"[redacted {kind}, see {source}]" if source else f"[redacted {kind}]"


def holds_secret(text: str) -> bool:
    """Text a run redacted a secret in: it holds a marker naming the note that keeps the secret."""
    return _MARKER_WITH_SOURCE.search(text) is not None


def only_secrets(text: str) -> bool:
    """Redacted text that says nothing but its secrets: "- 14:02 sk-ant-…" or "API_KEY=sk-…" once redacted."""
    if "[redacted " not in text:
        return False
    rest = _LABELLED_MARKER.sub(" ", _LEADING_MARKUP.sub("", text.replace("**", "")))
    return not re.search(r"\w", rest)


def find_secrets(text: str) -> list[Finding]:
    """Secrets in `text`, as non-overlapping spans, first first."""
    if not _CANDIDATE.search(text):
        return []
    found = [Finding("private key", m.start(), m.end()) for m in _PRIVATE_KEY.finditer(text)]
    for line_start, line in _lines(text):
        found.extend(_line_findings(line, line_start))
    return _without_overlaps(found)


def redact(text: str, source: str | None) -> str:
    """`text` with each secret replaced by a marker naming `source`."""
    return _marked(text, lambda _: source)


def redact_at(text: str, file: str, line: int) -> str:
    """`text`, the lines of `file` from `line` on, with each secret replaced by a marker naming the line
    it stands on ("see memory/2026-11-03.md:15" for a key on a paragraph's second line)."""

    def source_at(start: int) -> str:
        at = line + text.count("\n", 0, start)
        return f"{file}:{at}"

    return _marked(text, source_at)


def _marked(text: str, source_at: Callable[[int], str | None]) -> str:
    """`text` with each secret replaced by a marker naming the source `source_at` gives its offset."""
    for finding in reversed(find_secrets(text)):
        text = text[: finding.start] + marker(finding.kind, source_at(finding.start)) + text[finding.end :]
    return text


def redact_items(items: Sequence[NoteItem]) -> list[NoteItem]:
    """New note items with their secrets redacted; ids and positions stay as they were."""
    return [
        dataclasses.replace(item, text=cleaned)
        if (cleaned := redact_at(item.text, item.file, item.line_start + item.stamp.count("\n"))) != item.text
        else item
        for item in items
    ]


def redact_prompt(text: str) -> str:
    """A prompt about to leave the machine, line by line (lines repeat across calls, so they are memoized)."""
    if not _CANDIDATE.search(text):
        return text
    if _PRIVATE_KEY.search(text):
        text = redact(text, "a note")
    return "".join(_redact_line(line) for line in text.splitlines(keepends=True))


@lru_cache(maxsize=8192)
def _redact_line(line: str) -> str:
    return redact(line, "a note")


def _lines(text: str) -> Iterable[tuple[int, str]]:
    position = 0
    for line in text.splitlines(keepends=True):
        yield position, line
        position += len(line)


def _line_findings(line: str, offset: int) -> list[Finding]:
    if not _CANDIDATE.search(line):
        return []
    found = [
        Finding(kind, offset + m.start(), offset + m.end())
        for kind, pattern in _PREFIXED
        for m in pattern.finditer(line)
    ]
    for m in _URL_CREDENTIALS.finditer(line):
        if not _PLACEHOLDER.match(m.group(1)):
            found.append(Finding("connection string", offset + m.start(), offset + m.end()))
    for m in _ASSIGNED.finditer(line):
        value = m.group("value").rstrip(".)]")
        if _looks_like_credential(value, m.group("key")):
            start = offset + m.start("value")
            found.append(Finding(_kind_of(m.group("key")), start, start + len(value)))
    return found


def _looks_like_credential(value: str, key: str) -> bool:
    """A value, not a word: 'password: Sommer2026#kigt' yes, 'token: expired' or 'key: value' no."""
    if _PLACEHOLDER.match(value) or _WORDLIKE.match(value) or "[redacted" in value:
        return False
    if value.startswith(("http://", "https://")) or re.fullmatch(r"[\d.:/-]+", value):
        return False
    if value.startswith(("/", "./", "~")) and not any(map(_random_token, value.split("/"))):
        return False  # a path: '~/.ssh/id_ed25519_deploy', not an AWS secret that starts with '/'
    classes = sum(bool(re.search(pattern, value)) for pattern in (r"[a-z]", r"[A-Z]", r"\d", r"[^A-Za-z0-9]"))
    if "pass" in key.lower() or "pwd" in key.lower():
        return classes >= 2
    return len(value) >= 16 and classes >= 2 and _entropy(value) >= 3.0


def _random_token(segment: str) -> bool:
    """Base64 or hex noise rather than a name: long, with lower and upper case and digits."""
    classes = sum(bool(re.search(pattern, segment)) for pattern in (r"[a-z]", r"[A-Z]", r"\d"))
    return len(segment) >= 16 and classes == 3 and _entropy(segment) >= 3.0


def _kind_of(key: str) -> str:
    lowered = key.lower()
    if "pass" in lowered or "pwd" in lowered:
        return "password"
    if "token" in lowered:
        return "token"
    return "secret" if "secret" in lowered else "api key"


def _entropy(value: str) -> float:
    counts = {ch: value.count(ch) for ch in set(value)}
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _without_overlaps(found: list[Finding]) -> list[Finding]:
    kept: list[Finding] = []
    for finding in sorted(found, key=lambda f: (f.start, -(f.end - f.start))):
        if kept and finding.start < kept[-1].end:
            if finding.end > kept[-1].end:
                kept[-1] = Finding(kept[-1].kind, kept[-1].start, finding.end)
            continue
        kept.append(finding)
    return kept
