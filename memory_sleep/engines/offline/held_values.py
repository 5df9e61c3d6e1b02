"""What an entry's claim holds of a value a change says is gone ("from Postgres 15 to 16", "(was 14
days)"), and how surely that value names one thing: supersede.py finds the entry a change replaces by
them."""

from __future__ import annotations

from memory_sleep.engines.offline import matching, statements, values
from memory_sleep.text import tokens

_NAMING_KINDS = frozenset({*matching.IDENTITY_KINDS, "date", "money", "zone"})  # "22.9" is a bare number


def amount(value: str) -> bool:
    """A count, an amount or a size: a number in it, no capital (a name: "CCX23", "Postgres 15"), and
    no day, address or sum."""
    return (
        any(ch.isdigit() for ch in value)
        and value.lower() == value
        and not values.typed_values(value).keys() & _NAMING_KINDS
    )


def holds(claim: str, value: str) -> bool:
    """`claim` states `value` ("Postgres 15"), or its last word with the words naming it elsewhere: "Node
    version for Corvus: 22.9" holds the "Node 22.9" of "bumped Node 22.9 → 20.12"."""
    if values.mentions_value(claim, value):
        return True
    *name, last = value.split()
    naming = tokens(" ".join(name))  # "and write": no word names the value
    return bool(naming) and values.mentions_value(claim, last) and naming <= tokens(claim)


def only_count(value: str, claim: str) -> bool:
    """A bare number names an old value only in a statement that gives no other number: "384" in
    "13 new tests (371→384), ~120 lines src added" is one count among others, not the value changed."""
    return not value.isdigit() or values.typed_values(claim).get("number", frozenset()) <= {value}


def distinctive(value: str) -> bool:
    """A value that names one thing ("Postgres 15", "GPT-4.1", "s3://raw-events", "2026-12-13",
    "$2,750"), not a bare amount ("14 days", "384", "3.12") nor a plain word ("Development"), which
    any statement may hold. A version with a name ("GPT-4.1", "Go 1.22") names one thing however short
    the name."""
    kinds = values.typed_values(value).keys()
    if kinds & _NAMING_KINDS or ("version" in kinds and any(ch.isalpha() for ch in value)):
        return True
    letters = sum(ch.isalpha() for ch in value)
    spelled = any(not ch.isalpha() and not ch.isspace() for ch in value)
    return letters >= 4 and spelled and not values.VALUE_KINDS["duration"].fullmatch(value)


def whole_value(text: str, claim: str, value: str) -> bool:
    """The entry is a `Key: value` line whose value is `value` and nothing more, of the statement's key:
    the same key ("job queue: RabbitMQ" for "job queue: Kafka (was RabbitMQ)"), or, for a statement
    that is no `Key: value` line, a key of several words its claim says every one of ("Ines reports
    to: Oskar" for "Ines now reports to Tomas instead of Oskar"): the key and its old value named."""
    match, own = statements.KEY_VALUE.match(claim), statements.KEY_VALUE.match(text)
    if match is None or match.group(2).strip(" `*'\".").lower() != value.lower():
        return False
    key = tokens(match.group(1))
    if own is not None:
        return tokens(own.group(1)) == key
    return len(key) >= statements.KEY_WORDS and key <= tokens(values.current_claim(text))
