"""Deprecated since 0.5.0, removed in 0.6.0: the budget check lives in
``lyt_toolkit.fill.budget`` (``DEFAULT_SHARE`` in ``lyt_toolkit.snapshot.defaults``).

Importing this module warns; it re-exports what it held from the new homes.
"""

from .._deprecation import deprecation, warn
from ..fill.budget import DEFAULT_SAMPLE, READ_STAGES, PullBudget
from .defaults import DEFAULT_SHARE

__all__ = ["DEFAULT_SAMPLE", "DEFAULT_SHARE", "READ_STAGES", "PullBudget"]

warn(deprecation("lyt_toolkit.snapshot.pull_budget"))
