"""Program economics: earn rates, point values, liability, schedules and history, as frames.

Pure functions over a ``ProgramSnapshot`` (or a ``SnapshotHistory``): no client, no I/O
but reading a history's files. Every frame follows a schema of ``ECONOMICS_SCHEMAS``;
money is in the service's minor units, and an unknown figure is NA, never 0 or infinity.
"""

from .history import economics_over_time, estimate_redemption_rate
from .liability import liability, recognised_revenue
from .schedules import expiry_schedule, pending_schedule
from .schemas import ECONOMICS_SCHEMAS

__all__ = [
    "ECONOMICS_SCHEMAS",
    "economics_over_time",
    "estimate_redemption_rate",
    "expiry_schedule",
    "liability",
    "pending_schedule",
    "recognised_revenue",
]
