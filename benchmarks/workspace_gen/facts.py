"""All statement families, and lookup by category, scope and half."""

from __future__ import annotations

from .families_decisions import DECISION_FAMILIES
from .families_facts import FACT_FAMILIES
from .families_people import PEOPLE_FAMILIES
from .family import Family
from .halves import Half, half_of

FAMILIES: tuple[Family, ...] = FACT_FAMILIES + PEOPLE_FAMILIES + DECISION_FAMILIES


def families(category: str | None = None, scope: str | None = None, half: Half = "all") -> list[Family]:
    """Families of the category and scope; of those, the ones in `half` (all of them when none is)."""
    fitting = [
        family
        for family in FAMILIES
        if (category is None or family.category == category) and (scope is None or family.scope == scope)
    ]
    in_half = [family for family in fitting if half == "all" or half_of(family.name) == half]
    return in_half or fitting
