"""A big MEMORY.md written by a person, as real agents' workspaces hold them (27-31 KB seen): an intro,
many hand-written sections of paragraphs, tables and bullets without dates, some under the tool's own
section names."""

from __future__ import annotations

_INTRO = """# MEMORY.md

Long-term memory for the assistant that helps Ines Duarte run a two-person consultancy. Ines wrote
this file by hand over a year; keep her wording, add below it, never rewrite her sections.

"""
_CLIENT = """## Client: {name}

{name} is a {kind} in {city}. The main contact is {person}, who answers email within a day and
prefers a short call on Mondays to a long thread. Invoices go out on the first working day of the
month, net 30, in euros; they have paid late twice, both times because the PO number was missing.

| Item | Value |
|------|-------|
| Contract | {contract} |
| Rate | {rate} per day |
| Repository | git.example.org/{slug} |
| Staging | https://staging.{slug}.example.org |

- Always put the PO number in the invoice subject line
- {person} does not want status reports longer than one page
- Their office is closed in August; plan nothing that needs them then
- Deploys only on Tuesday or Wednesday mornings, never on Fridays

"""
_JOURNAL = """## Notes from {month}

{month} was mostly {focus}. The thing worth remembering is how long the back and forth took: every
change to the scope went through two rounds of review, and the second round always found something
the first had missed. Next time, ask for the full list of reviewers at the start, and put the
review dates in the plan instead of hoping they fit.

What went well: the weekly summary email, which {person} forwarded to her team every Friday.
What did not: estimating the data migration, which took three weeks instead of one.

"""
_HANDWRITTEN_OWNED = """## Decisions
- Work for at most three clients at a time
- No fixed-price contracts above 20 days of work
- Keep every client's code in their own repository, never in ours
- Use one shared password manager vault per client, shared with nobody else

## People
- Ines Duarte — founder; writes the proposals and does the sales calls
- Marc Olsen — contractor for front-end work, available two days a week
- Priya Nair — accountant; send her the invoices and receipts by the fifth of each month

## Lessons
- Write the acceptance criteria into the contract, not into an email
- A client who asks for a discount in the first call will ask again at every invoice

"""
_CLIENTS = [
    ("Harbor Freight Co", "logistics company", "Rotterdam", "Anna de Vries", "framework, renewed yearly"),
    ("Lumen Clinics", "chain of eye clinics", "Lisbon", "Rui Costa", "fixed term until June"),
    ("Northwind Books", "bookshop chain", "Dublin", "Siobhan Kelly", "time and materials"),
    ("Quarry Labs", "materials research lab", "Ghent", "Pieter Claes", "framework, renewed yearly"),
    ("Saltmarsh Energy", "small energy supplier", "Bristol", "Owen Price", "time and materials"),
    ("Tidewater Games", "indie game studio", "Tallinn", "Kadri Tamm", "fixed term until March"),
    ("Vela Insurance", "insurance broker", "Madrid", "Lucia Ortega", "framework, renewed yearly"),
    ("Willow Schools", "group of primary schools", "Utrecht", "Femke Jansen", "time and materials"),
]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September"]
_FOCUS = ["the Harbor data migration", "onboarding Lumen", "the Northwind catalogue", "proposals"]


def handwritten_memory(size: int = 28_000) -> str:
    """A hand-written MEMORY.md of about `size` bytes (never less), with no tool entry in it."""
    parts = [_INTRO, _HANDWRITTEN_OWNED]
    index = 0
    while len("".join(parts).encode("utf-8")) < size:
        name, kind, city, person, contract = _CLIENTS[index % len(_CLIENTS)]
        round_ = index // len(_CLIENTS)
        shown = name if round_ == 0 else f"{name} ({round_ + 1})"
        slug = name.lower().replace(" ", "-") + (f"-{round_ + 1}" if round_ else "")
        rate = f"€{650 + 25 * index}"
        parts.append(
            _CLIENT.format(
                name=shown, kind=kind, city=city, person=person, contract=contract, rate=rate, slug=slug
            )
        )
        month = _MONTHS[index % len(_MONTHS)]
        parts.append(_JOURNAL.format(month=month, focus=_FOCUS[index % len(_FOCUS)], person=person))
        index += 1
    return "".join(parts)
