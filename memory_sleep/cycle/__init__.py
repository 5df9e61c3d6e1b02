"""One sleep cycle: the runner, the edit plan, the phases (NREM, REM, cleanup) and the guards."""

PHASES = ("nrem", "rem", "cleanup")
