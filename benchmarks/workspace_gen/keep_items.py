"""Untracked KEEP items: lessons, status changes, one-off decisions; action wording."""

from __future__ import annotations

import re

from .filler import Filler
from .spec import BULLET, KEY_VALUE, PARAGRAPH, STAMPED, ItemSpec, keep

LESSONS: tuple[str, ...] = (
    "Lesson: {lesson_core}.",
    "Note to self: {lesson_core}.",
    "Learned the hard way today: {lesson_core} ({ticket}).",
    "TIL {lesson_core}.",
    "{emoji} lesson from the {svc} incident: {lesson_core}",
    "Takeaway for next time — {lesson_core}.",
    "Remember: {lesson_core}. Cost us {dur} of downtime to find out.",
    "教训：{lesson_zh}。",
    "学んだこと：{lesson_ja}。",
    "Merke: {lesson_de}.",
    "Lección aprendida: {lesson_es}.",
)
LESSON_KEYS: tuple[str, ...] = ("Lesson", "Lesson learned", "Takeaway", "Note to self")

STATUS: tuple[str, ...] = (
    "{P} is blocked on {blocker}.",
    "{P} {svc}: blocked, waiting for {person} to sign off on {blocker}.",
    "Unblocked: {P} can go ahead, {person} cleared {blocker}.",
    "{P} milestone reached: {milestone} ✅",
    "{P} beta is open to {n} users from {cust}.",
    "{P} is at risk for the {date} date: {reason}.",
    "{P} status went green → yellow ({reason}).",
    "{P} {svc} rollout is at {pct}% of traffic, no errors so far.",
    "{P} {ver} is live in prod 🚀 — ships {feature}.",
    "Paused {P} work until {date}; {person} needs me on {P2}.",
    "{P} is back on track after {milestone}.",
    "{P}: {cust} signed the order form, kickoff on {date}.",
    "{P} 进度：{milestone} 已完成，下一步是 {next_step}。",
    "{P}: Blocker — wir warten auf {blocker}.",
    "{P} のステータス：{milestone} が完了、次は {next_step}。",
    "{P}: bloqueado por {blocker}.",
)
STATUS_KEYS: tuple[str, ...] = ("Status ({P})", "{P} status", "Blocker ({P})")

DECISIONS: tuple[str, ...] = (
    "Decided to postpone {P} {ver} by a week — {reason}.",
    "We'll hold the {P} {svc} migration until after the {cust} renewal; {reason}.",
    "Agreed with {person}: PR #{pr} ships behind `{flag}`, not on by default, because {reason}.",
    "Going with {person}'s proposal for the {P} {svc} retry policy (exponential, max {n} tries), since {reason}.",
    "Decision for {P}: bugs only until the {date} release, because {reason}.",
    "Won't fix {ticket}: {reason}.",
    "Decided to {decision_what} for {P}, because {reason}.",
    "{P} decision: {decision_what}. Why: {reason}.",
    "Agreed in the {P} sync to {decision_what}; {reason}.",
    "决定：{P} 的 {svc} 先不拆分，原因是 {person} 没有时间维护两套部署。",
    "Entscheidung: {P} {svc} bekommt keinen eigenen Cluster, weil {reason}.",
    "Decidimos congelar las features de {P} hasta el {date}; {reason}.",
    "{P} の {svc} は来週まで本番に出さないことに決定（{person} と合意）。",
)

ACTION_WHAT: tuple[str, ...] = (
    "send {cust} the revised SOW for {P}",
    "rotate the {P} {env} TLS cert",
    "review {person}'s PR #{pr} ({pr_title})",
    "write the {P} postmortem for {ticket}",
    "renew the {p}.{domain} domain",
    "upgrade {P} {svc} to {lib} {ver}",
    "book the room for the {P} planning day",
    "reply to {contact} about the {topicword} question",
    "migrate {P} {svc} off {host}",
    "draft the Q{q} roadmap for {P}",
    "schedule the {cust} demo of {feature}",
    "add alerting for {P} {svc} p95 > {ms} ms",
    "get {person} access to the {P} {env} cluster",
    "clean up the `{flag}` flag in {P}",
    "ask {person} for the {P} {svc} load numbers",
    "document the {P} {job} runbook",
    "fix the flaky {P} test `test_{fn}` ({ticket})",
    "update the {P} pricing page copy with {person}",
    "file last month's expense report for {P}",
    "send {person} feedback on the {topicword} design",
)
ACTION_LEADS: tuple[str, ...] = (
    "{what} {when}",
    "{what} — {when}",
    "{what} ({when})",
    "{Who}: {what} {when}",
    "TODO {what} {when}",
    "{what}, {when} {emoji}",
    "need to {what} {when}",
)
CLOSINGS: tuple[str, ...] = (
    "done: {what}",
    "✅ {what}",
    "{what} — done",
    "closed: {what} ({person} confirmed)",
    "finished: {what}",
    "erledigt: {what}",
    "完成：{what}",
    "{what}: done, ticking it off",
)
REMINDERS: tuple[str, ...] = (
    "still open: {what} ({when})",
    "reminder — {what} {when}",
    "{what} is still pending",
    "don't forget: {what}",
)

FINISH_COMPLETED: tuple[str, ...] = (
    "{P} is done 🎉 — final release {ver} shipped, cluster shut down, repo archived.",
    "Wrapped up {P}: handed over to {person}'s team, infra torn down, no further work planned.",
    "{P} is complete. {cust} signed off on the final delivery; shutting down the {env} cluster.",
)
FINISH_CANCELLED: tuple[str, ...] = (
    "{P} is cancelled — {cancel_reason}. Shutting the cluster down tomorrow.",
    "Killing {P}: {cancel_reason}. Repo archived, DNS entries removed.",
    "{P} is off: {cancel_reason}. {person} will tell {cust}; all {P} work stops today.",
)


def capitalized(text: str) -> str:
    """Upper-case the first letter, unless the first word is a name like `ovh-gra-07`."""
    first_word = text.split(" ", 1)[0]
    if not text[:1].islower() or re.search(r"[-_./0-9@`]", first_word):
        return text
    return text[:1].upper() + text[1:]


IDENTITY: tuple[str, ...] = ("P", "svc", "host", "job", "cust", "file", "person", "env")
LESSON_POOLS: tuple[str, ...] = ("lesson_core", "lesson_zh", "lesson_ja", "lesson_de", "lesson_es")


def fresh(seen: dict[str, None], key: str) -> bool:
    """Record `key`; False when it was seen before (the item would be a silent duplicate)."""
    if key in seen:
        return False
    seen[key] = None
    return True


def lesson(filler: Filler, topic: str | None, seen: dict[str, None]) -> ItemSpec | None:
    fixed = {"P": topic} if topic else {}
    template = filler.template(LESSONS)
    pool_name = next((name for name in LESSON_POOLS if "{" + name + "}" in template), "lesson_core")
    pool = filler.pools[pool_name]
    for _ in range(8):
        core = filler.template(pool)
        cache = dict(fixed)
        text = filler.fill_into(core, cache)
        # Numbers may differ between two wordings of one lesson; names may not.
        identity = [cache[name] for name in IDENTITY if "{" + name + "}" in core]
        if fresh(seen, "lesson|" + core + "|" + "|".join(identity)):
            break
    else:
        return None
    fixed[pool_name] = text
    body = capitalized(filler.fill(template, fixed))
    key = filler.choice(LESSON_KEYS)
    return keep(
        "lesson",
        topic,
        body,
        shapes=(BULLET, BULLET, STAMPED, PARAGRAPH, KEY_VALUE),
        key_value=(key, fixed[pool_name]),
        children=(
            filler.fill("context: {ticket}, {dur} lost", {"P": topic or filler.choice(filler.active)}),
        ),
    )


def status(filler: Filler, topic: str, seen: dict[str, None]) -> ItemSpec | None:
    fixed = {"P": topic}
    body = capitalized(filler.fill(filler.template(STATUS), fixed))
    if not fresh(seen, f"status|{body}"):
        return None
    key = filler.fill(filler.choice(STATUS_KEYS), fixed)
    return keep(
        "status",
        topic,
        body,
        shapes=(BULLET, BULLET, STAMPED, PARAGRAPH, KEY_VALUE),
        key_value=(key, body),
        children=(filler.fill("next: {next_step}", fixed), filler.fill("owner: {person}", fixed)),
    )


def decision(filler: Filler, topic: str, seen: dict[str, None]) -> ItemSpec | None:
    fixed = {"P": topic}
    template = filler.template(DECISIONS)
    if "{decision_what}" in template:
        what = filler.template(filler.pools["decision_what"])
        if not fresh(seen, f"decision|{what}|{topic}"):
            return None
        fixed["decision_what"] = filler.fill(what, fixed)
    elif "{" not in re.sub(r"\{(?:P|svc|person)\}", "", template) and not fresh(
        seen, f"decision|{template}|{topic}"
    ):
        return None
    body = capitalized(filler.fill(template, fixed))
    return keep(
        "decision",
        topic,
        body,
        shapes=(BULLET, BULLET, STAMPED, PARAGRAPH, KEY_VALUE),
        key_value=("Decision", body),
        children=(filler.fill("agreed with {person}", fixed),),
    )


def finish(filler: Filler, topic: str, kind: str) -> ItemSpec:
    pool = FINISH_COMPLETED if kind == "completed" else FINISH_CANCELLED
    body = filler.fill(filler.template(pool), {"P": topic})
    return keep(
        "status",
        topic,
        body,
        shapes=(BULLET, STAMPED, PARAGRAPH, KEY_VALUE),
        key_value=(f"{topic} status", body),
    )
