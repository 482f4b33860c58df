"""Program economics: earn rates, point values, effective return, liability, schedules and
history, as frames.

Pure functions over a ``ProgramSnapshot`` (or a ``SnapshotHistory``): no client, no I/O
but reading a history's files. ``earn_rates`` (points a benefit credits), ``burn_values``
(what a reward's points buy), ``point_values`` (low / median / high value per point per card
definition), ``effective_return`` (share of spend returned), ``liability``, the pending and
expiry schedules and ``economics_over_time``; ``summarise`` gives them all at once. Every
frame follows a schema of ``ECONOMICS_SCHEMAS``; money is in the service's minor units as it
sends them, values per point in minor units per point, and an unknown figure is NA, never 0
or infinity.
"""

from .earn_burn import burn_values, earn_rates
from .history import economics_over_time, estimate_redemption_rate
from .liability import liability, recognised_revenue
from .mispricing import MISPRICED_FACTOR, mispriced
from .schedules import expiry_schedule, pending_schedule
from .schemas import ECONOMICS_SCHEMAS, PointValueSource, ValueSource
from .summary import Economics, summarise
from .value import effective_return, point_values

__all__ = [
    "ECONOMICS_SCHEMAS",
    "MISPRICED_FACTOR",
    "Economics",
    "PointValueSource",
    "ValueSource",
    "burn_values",
    "earn_rates",
    "economics_over_time",
    "effective_return",
    "estimate_redemption_rate",
    "expiry_schedule",
    "liability",
    "mispriced",
    "pending_schedule",
    "point_values",
    "recognised_revenue",
    "summarise",
]
