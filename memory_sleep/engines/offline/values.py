"""The values a statement states, and what it says of them changing: the typed values it claims now
("listens on 8000": a port), the ones it says are gone ("(was 5432)", "from Kafka to Redis", "4 → 16",
"instead of Dev", the `[changes]` words of the language files), and the one value a newer statement
replaces in an older ("Port: 5432" then "Port: 8000": the same key with a new value).
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory_sleep.language import (
    DROPPED,
    DROPPING,
    INSTEAD,
    NEGATIONS,
    OLD_BETWEEN,
    OLD_VALUE_IN_TEXT,
    OLD_VALUE_MARKS,
    RETIRED,
    STOPWORDS,
)
from memory_sleep.text import CLOCK, EMAIL, is_cjk, shorten, tokens, without_history

VALUE_KINDS: dict[str, re.Pattern[str]] = {
    "email": EMAIL,
    "url": re.compile(r"\b(?:https?|s3|gs)://\S+"),
    "ip": re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b"),
    "host": re.compile(
        r"\b(?:[\w-]+\.)+(?:internal|local|com|io|net|org|dev|app|example|cloud)\b|\b[a-z]+-[a-z]+\d*-\d+\b"
    ),
    "date": re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    # a currency sign, any currency's ("¥120,000", "₹500", "$40k"), or an ISO code after the amount
    "money": re.compile(
        r"[$¢£¤¥\u20a0-\u20c0\ufe69\uff04\uffe0\uffe1\uffe5\uffe6]\s?\d(?:[\d,.]*\d)?(?:\s?[kKmM]\b)?"
        r"|\b\d(?:[\d,.]*\d)?\s?(?:USD|EUR|GBP|CNY|JPY|INR)\b"
    ),
    "version": re.compile(r"\bv?\d+\.\d+(?:\.\d+)?\b"),
    "time": CLOCK,
    "duration": re.compile(r"\b\d+(?:\.\d+)?\s?(?:(?:ms|s|sec|min|minutes|h|hours|days|weeks|months)\b|%)"),
    "channel": re.compile(r"(?<![\w/])#[a-z][\w-]+"),
    "handle": re.compile(r"(?<![\w.])@\w+(?:[-.]\w+)*"),  # "@xia-dev" is not "@xia"
    "zone": re.compile(r"\b[A-Z][a-z]+/[A-Z][\w]+\b"),
    "weekday": re.compile(
        r"\b(?:mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?)\b", re.I
    ),
}


def _any_of(phrases: tuple[str, ...]) -> str:
    """A regex alternation of phrases from the language files (longest first), words apart by spaces."""
    return "(?:" + "|".join(r"\s+".join(map(re.escape, phrase.split())) for phrase in phrases) + ")"


# "now ships SSO; the rebuilt dashboard is dropped": what is dropped is no longer the value
_DROPPED_TAIL = r"\s+" + _any_of(DROPPED) + r"\b"
# "(10.0.4.17 is decommissioned)": an address, host or link no longer in use (a plain word so said,
# "the heater was switched off", is no value)
_ADDRESS = (
    "(?:" + "|".join(f"(?:{VALUE_KINDS[kind].pattern})" for kind in ("email", "url", "ip", "host")) + ")"
)
_RETIRED_TAIL = r"\s+" + _any_of(RETIRED) + r"\b"
# "Dropping Fly.io, moving ...", "we ditched the Redis cache; ...": the thing named right after (an
# article, then words up to the first that says no thing: "Moving off Heroku this sprint" drops Heroku)
_WORD = r"[^\s,;()]+"
_NO_THING = r"(?:" + "|".join(sorted(map(re.escape, STOPWORDS), key=len, reverse=True)) + r")(?![^\s,;()])"
_DROPPING_HEAD = r"\b" + _any_of(DROPPING) + r"\s+(?:(?:the|a|an|our)\s+)?"
_DROPPED_THING = rf"(?!{_NO_THING}){_WORD}(?:\s+(?!{_NO_THING}){_WORD}){{0,2}}"
_MARKED = _any_of(OLD_VALUE_MARKS)  # "(was 5432)", "(previously: Kafka)"
_NOT = _any_of(NEGATIONS)  # "not 5432", "no longer on Slack"
_INSTEAD = _any_of(INSTEAD)  # "instead of Dev"
# the old value of "from ... to": "$4,000/month" and "Enterprise (45 seats)" are one value each
_FROM_VALUE = r"(?:[^,;()]|,(?=\d)|\([^()]{1,20}\)){1,40}?"


def _between(value: str) -> str:
    """The frames of the language files around an old value ("from ... to", "replacing ... with"), the
    value as `value` (one group, or none)."""
    return (
        "(?:"
        + "|".join(
            rf"\b{_any_of((before,))}\s+{value}\s+{_any_of((after,))}\b" for before, after in OLD_BETWEEN
        )
        + ")"
    )


# "4 → 16": the word or two before an arrow. Tried at every offset it costs most of a search, and
# finds nothing in a text without an arrow, which each pattern below searches without it (its second
# form: `_arrowless`)
_ARROW_OLD = (r"(?P<arrow>(?:\S+\s+)?\S+)\s*(?:→|->)(?=\s*[^\s\d]*\d)", r"(?P<arrow>(?!))")
_SUPERSEDED_VALUE = [
    re.compile(
        r"\(" + _MARKED + r"\b[^)]*\)"
        r"|"
        + _between(_FROM_VALUE)
        + r"|"
        + arrow
        + r"|[;,]\s*[^;,()]{1,40}?"
        + _DROPPED_TAIL
        + "|"
        + _ADDRESS
        + _RETIRED_TAIL
        + "|"
        + _DROPPING_HEAD
        + _DROPPED_THING
        + r"|\b"
        + _any_of(NEGATIONS + INSTEAD + OLD_VALUE_IN_TEXT)
        + r"\s+(?:on\s+|at\s+|port\s+|the\s+)?(?:[^\s,;)]|,(?=\d))+",
        re.I,
    )
    for arrow in _ARROW_OLD
]
# a bare "from X" names an old value only after a verb of change ("switched the queue to Redis from
# Kafka"); "works from Europe/Berlin" or "deploys from build-box-10" say where, not what was
_FROM_OLD = re.compile(
    r"\b(?:moved|moving|switched|switching|migrated|migrating|changed|changing|bumped|upgraded|downgraded|"
    r"went|renamed|transferred|relocated|ported)\b(?:[^.;]|\.(?=\w))*?\b(from\s+(?:on\s+|at\s+)?(?:[^\s,;)]|,(?=\d))+)",
    re.I,
)
_OLD_VALUE = [
    re.compile(
        r"\(" + _MARKED + r"\s*:?\s+(?P<paren>[^)\s]+[^)]{0,60})\)"  # a URL is one value, however long
        r"|"
        + _between("(" + _FROM_VALUE + ")")
        + r"|"
        + arrow
        + r"|\b"
        + _INSTEAD
        + r"\s+(?P<instead>[^,;.()]{1,40})"
        r"|\b" + _NOT + r"\s+(?:on\s+|at\s+|port\s+|the\s+)?(?P<not>(?:[^\s,;)]|,(?=\d))+)"
        r"|[;,]\s*(?P<dropped>[^;,()]{1,40}?)"
        + _DROPPED_TAIL
        + r"|(?P<retired>"
        + _ADDRESS
        + ")"
        + _RETIRED_TAIL
        + "|"
        + _DROPPING_HEAD
        + "(?P<dropping>"
        + _DROPPED_THING
        + ")"
        + r"|[,;]\s*(?:"
        + _any_of(OLD_VALUE_IN_TEXT)
        + "|"
        + _MARKED
        + r":)\s+(?P<was>[^;()]{1,60}?)(?=,\s|;|\)|$)",
        re.I,
    )
    for arrow in _ARROW_OLD
]
# Of each phrase the patterns above match from, its longest word, and the arrows: every match holds
# one, whatever its case. Tried at every offset, the patterns cost ~20 us a line where an ASCII line
# is looked over for these in ~3 us, and most lines hold none (`_holds_no_cue`). A cue holding
# another ("replaced", "replace") is left out: the shorter is found wherever it is.
_PHRASES = (
    *OLD_VALUE_MARKS,
    *OLD_VALUE_IN_TEXT,
    *NEGATIONS,
    *INSTEAD,
    *DROPPED,
    *DROPPING,
    *RETIRED,
    *(before for before, _ in OLD_BETWEEN),
)
_PHRASE_CUES = {max(phrase.lower().split(), key=len) for phrase in _PHRASES} | {"→", "->"}
_CUES = tuple(sorted(cue for cue in _PHRASE_CUES if not any(o != cue and o in cue for o in _PHRASE_CUES)))

_GONE = re.compile(
    r"\s+(?:is|are|was|were|has been|have been)\s+(?:now\s+)?(?:gone|dead|retired|deprecated|removed|"
    r"decommissioned|shut down|turned off|obsolete)\b.*$",
    re.I,
)
_LOOKS_LIKE_VALUE = re.compile(r"[\dA-Z@#/:]")
_NUMBER = re.compile(r"(?<![\w.:/@#$€£-])\d+(?![\w.:/%-])")
_DIGIT = re.compile(r"\d")


@lru_cache(maxsize=16_384)
def typed_values(text: str) -> dict[str, frozenset[str]]:
    """Values a statement names, by kind; plain numbers are their own kind."""
    found: dict[str, frozenset[str]] = {}
    rest = _without_superseded(text)
    for kind, pattern in VALUE_KINDS.items():
        values = frozenset(v.lower().rstrip(".,;)") for v in pattern.findall(rest))
        if values:
            found[kind] = values
            rest = pattern.sub(" ", rest)
    numbers = frozenset(_NUMBER.findall(rest))
    if numbers:
        found["number"] = numbers
    return found


@lru_cache(maxsize=16_384)
def replaced_values(text: str) -> tuple[str, ...]:
    """Values a statement says are gone: "(was 5432)", "from Kafka to", "4 → 16", "instead of Dev",
    "not 5432", "; before: wants a heads-up". A change names what it changes; these
    find the entry."""
    if _holds_no_cue(text):
        return ()
    found: list[str] = []
    for match in _OLD_VALUE[_arrowless(text)].finditer(text):
        value = next(group for group in match.groups() if group)
        if match.group("not") and not _LOOKS_LIKE_VALUE.search(value.rstrip(".,:;!?")):
            continue  # "not one of the cert-manager ones", "must not change", "not production:": no value named
        if match.group("arrow"):
            value = _before_arrow(text, match)
            if value is None:
                continue
        value = _GONE.sub("", value)  # "(old one https://... is gone)": the value, not its fate
        words = value.strip(" `*'\".:").split()
        # "the `REQUEST_TIMEOUT_S` 4" before an arrow: the value is its last word, the rest may name it
        candidates = [" ".join(words)]
        if match.group("arrow") and len(words) > 1 and any(ch.isdigit() for ch in words[-1]):
            candidates.append(words[-1])
        # "not the :443 vhost", "not in Slack": a word like "the" names no value
        found.extend(c.strip("`*'\".,:") for c in candidates if tokens(c.strip("`*'\".,:")))
    return tuple(dict.fromkeys(found))


_CLAUSE_MARK = re.compile(r"[;,()\n]")
_WHITESPACE = re.compile(r"\s+")
_ARROW = re.compile(r"→|->")


def _holds_no_cue(text: str) -> bool:
    """An ASCII text without any of `_CUES`: neither `_OLD_VALUE`, `_SUPERSEDED_VALUE` nor `_FROM_OLD`
    (whose "from" is a cue) can match it. Other texts are searched: IGNORECASE matches letters such as
    "ſ" and "K" (the Kelvin sign) to a cue's, which lower() leaves apart."""
    if not text.isascii():
        return False
    return not any(map(text.lower().__contains__, _CUES))


def _arrowless(text: str) -> int:
    """Which form of a pattern with `_ARROW_OLD` searches `text`: 1 (without it) when it holds no arrow."""
    return 0 if _ARROW.search(text) else 1


def _before_arrow(text: str, match: re.Match[str]) -> str | None:
    """The old value an arrow changes, or None when the arrow names no change: one of a chain ("Sonnet 4
    → Kimi K2.5 → GPT-4.1", an order of things; the words before the last arrow hold the first), or a
    result rather than a new number ("/api/auth → 200", "wrong secret → 401": a bare number replaces a
    value that holds a digit too; "ams → us-west-2" is a new value). The value is the last clause
    before the arrow ("updated /var/www/app, /app/ → …"), without a key's label ("Port: 5432 → 6432")."""
    words = match.group("arrow")
    if _ARROW.search(words) or _in_chain(text, match.start(), match.end()):
        return None
    clause = _CLAUSE_MARK.split(words)[-1]
    value = keyed[1] if (keyed := key_value(clause)) else clause
    if _BARE_NUMBER.match(text, match.end()) and not _DIGIT.search(value):
        return None
    return value


_BARE_NUMBER = re.compile(r"\s*[`*]*\d[\d.,]*%?(?![\w.-])")  # after an arrow: "200", "100%", not "us-west-2"


def _in_chain(text: str, start: int, end: int) -> bool:
    """The arrow ending at `end` has another arrow in its clause: a chain (A → B → C)."""
    before = _CLAUSE_MARK.split(text[:start])[-1]
    after = _CLAUSE_MARK.split(text[end:], maxsplit=1)[0]
    return bool(_ARROW.search(before) or _ARROW.search(after))


def mentions_value(text: str, value: str) -> bool:
    """`value` stands in `text` as a whole run of words, case aside ("8080" is not in "18080"); in Chinese
    or Japanese, spaces aside ("9 个技能（4个基础 + 5个专业）" is "9个技能（4个基础+5个专业）"): those scripts
    do not part words by spaces, so where one stands is a habit of the writer."""
    if any(is_cjk(character) for character in value):
        text, value = _WHITESPACE.sub("", text), _WHITESPACE.sub("", value)
    return re.search(_whole(value.lower()), text.lower()) is not None


@lru_cache(maxsize=16_384)
def current_claim(text: str) -> str:
    """What a statement claims now: without "(previously: ...)" notes and the values it says are gone."""
    return _without_superseded(without_history(text))


def changes_away(old: str, line: str) -> bool:
    """`line` says a value `old` claims is gone, or claims one `old` says is gone: it is the change, not
    another copy of `old`, however many words they share ("Quokka moved from Python 3.11 to 3.12"
    holds every word of "Quokka moved from Python 3.12 to 3.11")."""
    return _drops(old, line) or _drops(line, old)


def _drops(claimant: str, line: str) -> bool:
    """`line` says gone a value that `claimant` claims now: all of it, or all its words with a digit
    ("from Python 3.12 to 3.11" claims 3.11, which "from Python 3.11 to 3.12" says is gone). A word
    `line` itself still claims is not gone: it names what changed ("v0.15.0 now ships sso (previously:
    v0.15.0 will ship audit log v2)" says the audit log is gone from v0.15.0, not v0.15.0)."""
    claim, kept = current_claim(claimant), current_claim(line)
    for value in replaced_values(line):
        numbered = [word for word in value.split() if _DIGIT.search(word) and not mentions_value(kept, word)]
        if mentions_value(claim, value) or (numbered and all(mentions_value(claim, w) for w in numbered)):
            return True
    return False


def _without_superseded(text: str) -> str:
    """The text with the values it says are gone blanked out: "from ... to" first, whole, so that a bare
    "from X" after a verb of change does not take only the first words of an old value of several
    ("changed from on for everyone to off" keeps no "everyone")."""
    if _holds_no_cue(text):
        return text
    text = _SUPERSEDED_VALUE[_arrowless(text)].sub(" ", text)
    for match in reversed(list(_FROM_OLD.finditer(text))):
        text = text[: match.start(1)] + " " + text[match.end(1) :]
    return text


# "Port: 5432", "**Owner:** Ana", "负责人：小李": a short key, a colon (bold, or full-width with no space
# needed after it), its value
_KEYED = re.compile(r"^\s*([^:：\n]{2,40})(?::(?:\*\*)?\s+|：(?:\*\*)?\s*)(\S.*)", re.DOTALL)
_NAMED_NUMBER = r"(?:(?-i:\b[A-Z][\w.+#-]*)\s+)?"  # "Postgres 15", "Go 1.22"
_SAME_WORDING = 0.5
# content words an entry says besides a value changed, to keep it around the new one; a change saying as
# many of its own is its own statement. Two are a key said otherwise ("Grafana board", then "dashboard")
IN_PLACE_WORDS = 3


def key_value(text: str) -> tuple[str, str] | None:
    """A "Key: value" statement's key and value."""
    keyed = _KEYED.match(text)
    return (keyed.group(1), keyed.group(2)) if keyed else None


def changed_value(new: str, old: str) -> str | None:
    """The value of `old` that `new` replaces, when the change is one of value: the old value of the
    same key ("Port: 5432" then "Port: 8000"), else the old value of the one kind of value that changed
    ("listens on 5432" then "listens on 8000"), a number with the name before it ("Postgres 15").
    None when the two differ in more than one value: then the change is the whole statement."""
    old = without_history(old)
    claim = current_claim(old)
    named = [value for value in replaced_values(new) if mentions_value(claim, value)]
    if named:
        return named[0]  # "got a new IP: 10.6.205.72 (was 10.5.150.121)"
    new_key, old_key = key_value(without_history(new)), key_value(old)
    if new_key and old_key and tokens(new_key[0]) == tokens(old_key[0]):
        return old_key[1].strip() if len(old_key[1]) <= 60 else None
    value = _one_changed_value(current_claim(new), claim)
    if value is None:  # the reasons may differ: "freeze until 2026-12-10; the vendor quote ..."
        value = _one_changed_value(_first_clause(current_claim(new)), _first_clause(claim))
    return value


def noting_change(text: str, old: str) -> str:
    """A superseding text with the change noted: "(previously: 5432)" when one value changed, else the
    old statement, shortened (the archive keeps it whole); nothing more when the text already names
    the old value ("moved to 8000 (was 5432)")."""
    value = changed_value(text, old)
    if value is not None and value in replaced_values(text):
        return text
    return f"{text} (previously: {value or shorten(without_history(old), 80)})"


def changed_in_place(new: str, old: str) -> str | None:
    """`old` with the one typed value `new` says is gone replaced by the one `new` states of its kind:
    "Decided: backend on Postgres 16 with Django, at IP 10.0.7.40 (previously: 10.0.4.12)" after "new
    IP is 10.0.7.40 (was 10.0.4.12)". Only where `old` says more than the change (IN_PLACE_WORDS of its
    own content words besides the value) and `new` fewer of its own: superseded by the note's line,
    "Postgres 16 with Django" would leave MEMORY.md. A change giving its own reason ("until 2027-01-07
    (was 2026-12-10); legal wants the data in the EU") replaces the old one's ("the vendor quote came in
    too high"); so does the next change of an entry that is a change itself ("port is now 9090 (was
    8080) because 8080 clashes with ..."), history and reason. None when the old value is said twice,
    holds no typed value or several, or `new` states no one new value of its kind: which took its
    place is not said."""
    old = without_history(old)
    if replaced_values(old):  # a change itself: what it says besides is that change's history and reason
        return None
    gone = changed_value(new, old)
    if gone is None or gone not in replaced_values(new):
        return None
    spans = list(_mentions(gone).finditer(old))
    held = [(kind, value) for kind, found in typed_values(gone).items() for value in found]
    if len(spans) != 1 or len(held) != 1:
        return None
    kind, value = held[0]
    said = typed_values(old).get(kind, frozenset())
    fresh = typed_values(new).get(kind, frozenset()) - said
    if len(fresh) != 1:
        return None
    at, (replacement,) = spans[0], fresh
    rest = tokens(old[: at.start()] + " " + old[at.end() :])
    named = [re.compile(re.escape(word) + r"(?:\W\S*)?") for word in tokens(gone) | tokens(replacement)]
    theirs = frozenset(  # not the values, nor a value with its unit ("7.49/month")
        word for word in tokens(new) if not any(pattern.fullmatch(word) for pattern in named)
    )
    if _content(rest - theirs) < IN_PLACE_WORDS or _content(theirs - rest) >= IN_PLACE_WORDS:
        return None
    written = re.search(re.escape(replacement), _without_superseded(new), re.IGNORECASE)
    changed = _mentions(value).sub(
        lambda _: written.group(0) if written else replacement, at.group(0), count=1
    )
    return f"{old[: at.start()]}{changed} (previously: {at.group(0)}){old[at.end() :]}"


def _content(words: frozenset[str]) -> int:
    """How many of `words` say something: no stopword, no word of three letters or fewer but in CJK."""
    return sum(1 for word in words - STOPWORDS if len(word) >= 4 or is_cjk(word))


def _mentions(value: str) -> re.Pattern[str]:
    """A value as a whole run of words, case aside (as `mentions_value` reads it)."""
    return re.compile(_whole(value), re.IGNORECASE)


def _whole(value: str) -> str:
    """The pattern of `value` standing as a whole run of words: "8080" is not in "18080" nor "8080.5"."""
    return r"(?<![\w.])" + re.escape(value) + r"(?![\w]|\.\d)"


def _one_changed_value(new: str, old: str) -> str | None:
    """The one value of `old` that `new` states otherwise, the rest of their words mostly alike."""
    old_values, new_values = typed_values(old), typed_values(new)
    changed = [
        kind
        for kind in old_values.keys() & new_values.keys()
        if old_values[kind].isdisjoint(new_values[kind])
    ]
    if len(changed) != 1 or len(old_values[changed[0]]) != 1:
        return None
    (value,) = old_values[changed[0]]
    prefix = _NAMED_NUMBER if changed[0] in ("number", "version") else ""
    found = re.search(prefix + r"(?<![\w.])" + re.escape(value) + r"(?![\w]|\.\d)", old, re.IGNORECASE)
    if found is None:
        return None
    rest_old, rest_new = tokens(old.replace(found.group(0), " ")), tokens(new)
    if len(rest_old & rest_new) < _SAME_WORDING * len(rest_old | rest_new):
        return None  # other words changed too ("Scope of v0.8.4: the dashboard" then "of v0.8.5: billing")
    return found.group(0).strip()


def value_phrase(text: str) -> str | None:
    """The first clause from its first value on, lower case: "180 ms p95", "5000 req/min per token"."""
    clause = _first_clause(text)
    starts = [
        found.start() for pattern in (*VALUE_KINDS.values(), _NUMBER) if (found := pattern.search(clause))
    ]
    return " ".join(clause[min(starts) :].lower().split()).rstrip(" .") if starts else None


def _first_clause(text: str) -> str:
    return re.split(r"(?:(?<!\d)\.|;)\s|\s[—–]\s", text, maxsplit=1)[0]


def says_gone(text: str, other: str) -> bool:
    """`text` says a value `other` still claims is gone ("Wren instead of Lou" after "... Lou",
    "changed from on for internal users to off" after "changed from off to on for internal users")."""
    claim = current_claim(other)
    return any(mentions_value(claim, value) for value in replaced_values(text))
