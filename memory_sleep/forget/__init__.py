"""Hard deletion on a user's request, the one exception to "nothing is lost": `forget-scope` (all of
one user or agent id) and `purge` (what was soft-deleted long ago)."""

from memory_sleep.forget.purge import purge
from memory_sleep.forget.report import ErasureReport
from memory_sleep.forget.scope import ForgetError, forget_scope

__all__ = ["ErasureReport", "ForgetError", "forget_scope", "purge"]
