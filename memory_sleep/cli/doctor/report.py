"""What `memory-sleep doctor` reports: one Check per finding, gathered in a Diagnosis."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

from memory_sleep.text import counted

Level = Literal["ok", "warn", "fail"]


@dataclass(frozen=True)
class Check:
    """One finding: what was checked, how it stands, and the next step when it is not ok."""

    area: str
    level: Level
    message: str
    fix: str | None = None


@dataclass
class Diagnosis:
    workspace: str
    checks: list[Check] = field(default_factory=list)

    @property
    def failures(self) -> int:
        return sum(check.level == "fail" for check in self.checks)

    @property
    def warnings(self) -> int:
        return sum(check.level == "warn" for check in self.checks)

    def as_dict(self) -> dict[str, object]:
        return {
            "workspace": self.workspace,
            "ok": self.failures == 0,
            "failures": self.failures,
            "warnings": self.warnings,
            "checks": [asdict(check) for check in self.checks],
        }

    def lines(self) -> list[str]:
        marks = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}
        out = [f"memory-sleep doctor {self.workspace}"]
        for check in self.checks:
            out.append(f"  {marks[check.level]}  {check.area:<9} {check.message}")
            if check.fix:
                out.append(f"{'':18}fix: {check.fix}")
        if self.failures:
            out.append(f"{self.failures} to fix, {counted(self.warnings, 'warning')}.")
        else:
            out.append(f"Healthy ({counted(self.warnings, 'warning')})." if self.warnings else "Healthy.")
        return out
