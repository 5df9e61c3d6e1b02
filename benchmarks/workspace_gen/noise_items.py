"""DISCARD items: routine logs, heartbeats, narration, trivia that got fixed, recaps."""

from __future__ import annotations

from .filler import Filler
from .spec import BULLET, KEY_VALUE, PARAGRAPH, STAMPED, ItemSpec, discard

ROUTINE: tuple[str, ...] = (
    "deployed {P} {ver} to staging",
    "pulled main and rebased `{branch}`",
    "CI green on #{pr} ({dur})",
    "ran `make test` for {P}: {big} passed, {n} skipped",
    "checked inbox: {n} new, nothing urgent",
    "synced calendar, no changes",
    "restarted {P} {svc} on {host} after the config reload",
    "opened PR #{pr}: {pr_title}",
    "merged #{pr} ({pr_title})",
    "bumped {lib} in {P} to {ver} (patch release, nothing notable)",
    "nightly backup finished: {size}",
    "deleted {n} stale branches in the {P} repo",
    "rotated logs on {host}",
    "dependabot: merged {n} PRs for {P}",
    "reviewed {person}'s PR #{pr}, left {n} comments",
    "standup done, nothing new from me",
    "lunch break {emoji}",
    "coffee ☕ then back to {P}",
    "disk on {host}: {pct}% used",
    "uptime check ok for {P} ({99.9|99.95|100|99.99}%)",
    "pinged {person} on Slack about #{pr}",
    "re-ran the flaky job on #{pr}",
    "updated the {P} changelog for {ver}",
    "tagged {P} {ver}",
    "pushed image {p}-{svc}:{ver} ({size})",
    "cleared the {P} {env} cache",
    "answered {n} support emails",
    "read through yesterday's notes",
    "closed {n} browser tabs, finally",
    "rebuilt the {P} {env} containers",
    "ran the {P} {job} job by hand, took {dur}",
    "generated the weekly {P} usage report ({big} events)",
    "已部署 {P} {ver} 到 staging",
    "Backup erledigt ({size}), alles grün",
    "revisé el PR #{pr} de {person}",
    "{P} のビルドが通った（{dur}）",
    "moved {n} tickets to done in the {P} board",
)
ROUTINE_KEYS: tuple[tuple[str, str], ...] = (
    ("Build", "#{big} green ({dur})"),
    ("Inbox", "{n} unread, none urgent"),
    ("Uptime", "{n}d {0|2|5|7|11|19|23}h"),
    ("Deploy", "{P} {ver} → staging"),
    ("Tests", "{big} passed"),
    ("Backup", "ok, {size}"),
)

HEARTBEATS: tuple[str, ...] = (
    "HEARTBEAT_OK",
    "HEARTBEAT_OK",
    "[heartbeat] no new messages",
    "heartbeat: ok (0 new emails, 0 mentions)",
    "💓 heartbeat — nothing to do",
    "HEARTBEAT_OK — inbox empty, calendar unchanged",
    "heartbeat check: all quiet",
    "[heartbeat] ok · {n} unread (newsletters)",
    "heartbeat: no new messages in #{p}-dev",
)

NARRATION: tuple[str, ...] = (
    "Let me check the logs first.",
    "Now I'll open the PR.",
    "Okay, looking into why {P} {svc} is slow.",
    "I'll start by reading the config for {P}.",
    "Let me re-run the tests to see if it's flaky.",
    "Next I'm going to grep for `{fn}` usages.",
    "Checking whether {host} is reachable…",
    "Hmm, that didn't work. Trying again with --verbose.",
    "Going to look at the {svc} dashboard now.",
    "I think the issue is in the retry loop, let me verify.",
    "Reading through {person}'s comments on #{pr}.",
    "Waiting for CI…",
    "Switching to {P} for a bit.",
    "Let me think about this step by step.",
    "I'll summarize what I found so far below.",
    "Now running the migration locally to be safe.",
    "Let me look at `{file}` again.",
    "First I'll reproduce it, then fix.",
    "Trying the other approach now.",
    "OK, one more attempt with a clean checkout.",
    "ログを確認します。",
    "まずテストを実行してみます。",
    "让我先看看日志。",
    "我现在去开 PR。",
    "Ich schaue mir zuerst die Logs an.",
    "Voy a revisar el despliegue ahora.",
)

RESOLVED: tuple[str, ...] = (
    "fixed a typo in README",
    "fixed the lint error in `{file}`",
    "{P} {env} 502 was just the worker not running; restarted, fine now",
    "the failing test on #{pr} was a stale snapshot, updated it",
    "broken link in the {P} docs fixed",
    "`npm install` failed once (network blip), retry worked",
    "wrong env var name in my local .env, fixed",
    "merge conflict in `{file}` resolved",
    "forgot to push the tag, pushed it",
    "typo in the {P} changelog fixed",
    "import order lint in `{file}` fixed",
    "the {svc} healthcheck flapped once, fine since",
    "local Postgres wasn't running, started it",
    "my SSH agent had no key loaded, `ssh-add` fixed it",
    "Tippfehler im Deploy-Skript behoben",
    "修好了 README 里的拼写错误",
    "se arregló el test roto (era la zona horaria local)",
)

RECAPS: tuple[str, ...] = (
    "Recap: {text}",
    "As noted above, {text}",
    "(repeating for the summary) {text}",
    "EOD summary — {text}",
    "Again for the record: {text}",
    "Reminder of today's call: {text}",
)

RESTATE: tuple[str, ...] = (
    "{text}",
    "(as noted before) {text}",
    "reminder: {text}",
    "{text} — same as before",
    "for the record, {text}",
    "just confirming: {text}",
)


def _topic_fixed(topic: str | None) -> dict[str, str]:
    return {"P": topic} if topic else {}


def routine(filler: Filler, topic: str | None) -> ItemSpec:
    fixed = _topic_fixed(topic)
    if filler.rng.random() < 0.12:
        key, value = filler.choice(ROUTINE_KEYS)
        cache = dict(fixed)
        return discard(
            "routine",
            topic,
            filler.fill(value, cache),
            shapes=(KEY_VALUE,),
            key_value=(key, filler.fill(value, cache)),
        )
    body = filler.fill(filler.template(ROUTINE), fixed)
    children: tuple[str, ...] = ()
    if filler.rng.random() < 0.15:
        children = (filler.fill("took {dur}", fixed), filler.fill("no errors in {svc} logs", fixed))
    return discard(
        "routine",
        topic,
        body,
        shapes=(STAMPED, STAMPED, BULLET, BULLET, PARAGRAPH),
        children=children,
    )


def heartbeat(filler: Filler, minute: int) -> ItemSpec:
    body = filler.fill(filler.template(HEARTBEATS))
    spec = discard("heartbeat", None, body, shapes=(STAMPED, STAMPED, STAMPED, BULLET))
    spec.minute = minute
    spec.section = "heartbeat"
    return spec


def heartbeat_run(count: int) -> ItemSpec:
    """Bare HEARTBEAT_OK lines written back to back: one paragraph item."""
    return discard(
        "heartbeat",
        None,
        "HEARTBEAT_OK",
        raw=tuple(["HEARTBEAT_OK"] * count),
        section="heartbeat",
    )


def narration(filler: Filler, topic: str | None) -> ItemSpec:
    body = filler.fill(filler.template(NARRATION), _topic_fixed(topic))
    return discard("narration", topic, body, shapes=(PARAGRAPH, PARAGRAPH, STAMPED, BULLET))


def resolved(filler: Filler, topic: str | None) -> ItemSpec:
    body = filler.fill(filler.template(RESOLVED), _topic_fixed(topic))
    body = body[:1].upper() + body[1:] if filler.rng.random() < 0.5 else body
    return discard(
        "resolved",
        topic,
        body,
        shapes=(BULLET, BULLET, STAMPED, PARAGRAPH),
    )


def recap(filler: Filler, original: ItemSpec) -> ItemSpec:
    text = original.body
    if filler.rng.random() < 0.5:
        text = text[:1].lower() + text[1:]
    body = filler.template(RECAPS).replace("{text}", text)
    spec = discard(
        "duplicate",
        original.topic,
        body,
        shapes=(BULLET, STAMPED, PARAGRAPH),
        fact_key=original.fact_key,
    )
    spec.section = "recap"
    return spec
