"""All statement families, and lookup by category and scope."""

from __future__ import annotations

from .families_decisions import DECISION_FAMILIES
from .families_facts import FACT_FAMILIES
from .families_people import PEOPLE_FAMILIES
from .family import Family

FAMILIES: tuple[Family, ...] = FACT_FAMILIES + PEOPLE_FAMILIES + DECISION_FAMILIES


def families(category: str | None = None, scope: str | None = None) -> list[Family]:
    return [
        family
        for family in FAMILIES
        if (category is None or family.category == category) and (scope is None or family.scope == scope)
    ]
