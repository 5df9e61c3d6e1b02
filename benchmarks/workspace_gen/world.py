"""The cast of a generated workspace: projects, people and customers."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date

from . import vocab


@dataclass
class Person:
    """Someone the agent works with; `org` is a customer name or None for the own team."""

    name: str
    role: str
    org: str | None = None
    projects: list[str] = field(default_factory=list)


@dataclass
class Project:
    """A project with its team, services and hosts; `finished_on` is set by the storyline."""

    name: str
    team: list[Person]
    services: list[str]
    hosts: list[str]
    customer: str
    ticket_prefix: str
    version: tuple[int, int] = (1, 0)
    finished_on: date | None = None
    finish_kind: str | None = None

    @property
    def slug(self) -> str:
        return self.name.lower()


@dataclass
class World:
    """Everything a template may name."""

    projects: list[Project]
    people: list[Person]
    contacts: list[Person]

    def project(self, name: str) -> Project:
        for project in self.projects:
            if project.name == name:
                return project
        raise KeyError(name)

    def active_projects(self, day: date) -> list[Project]:
        return [p for p in self.projects if p.finished_on is None or day <= p.finished_on]

    def person(self, name: str) -> Person:
        for person in self.people + self.contacts:
            if person.name == name:
                return person
        raise KeyError(name)


def build_world(rng: random.Random, project_count: int) -> World:
    """Draw projects, a team of people with roles, and customer contacts."""
    project_count = max(1, min(project_count, len(vocab.PROJECT_NAMES)))
    names = rng.sample(vocab.PROJECT_NAMES, project_count)
    first_names = list(vocab.FIRST_NAMES)
    rng.shuffle(first_names)
    team_size = min(len(first_names) - 6, max(6, project_count * 3))
    people = [
        Person(name=first_names[i], role=vocab.ROLES[rng.randrange(len(vocab.ROLES))])
        for i in range(team_size)
    ]
    contacts: list[Person] = []
    for i, name in enumerate(first_names[team_size:]):
        org = vocab.CUSTOMERS[i % len(vocab.CUSTOMERS)]
        role = vocab.CUSTOMER_ROLES[rng.randrange(len(vocab.CUSTOMER_ROLES))]
        contacts.append(Person(name=name, role=role, org=org))
    projects: list[Project] = []
    for index, name in enumerate(names):
        team = rng.sample(people, min(len(people), rng.randint(3, 5)))
        for person in team:
            person.projects.append(name)
        services = rng.sample(vocab.SERVICES, rng.randint(3, 6))
        hosts = [f"{name.lower()}-{svc}-{rng.randint(1, 4):02d}" for svc in services]
        projects.append(
            Project(
                name=name,
                team=team,
                services=services,
                hosts=hosts,
                customer=contacts[index % len(contacts)].org or "Acme",
                ticket_prefix=name[:3].upper(),
                version=(rng.randint(0, 3), rng.randint(0, 9)),
            )
        )
    return World(projects=projects, people=people, contacts=contacts)
