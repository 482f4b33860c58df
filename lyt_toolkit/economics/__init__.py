"""Program economics: what the program gives back and what it owes, as frames.

Pure functions over a ``ProgramSnapshot`` (no I/O but reading a ``SnapshotHistory``'s
files): ``earn_rates`` (points a benefit credits), ``burn_values`` (what a reward's points
buy), ``point_values`` (low / median / high value per point per card definition),
``effective_return`` (share of spend returned), ``liability`` (points owed, valued, times
an expected redemption rate; ``estimate_redemption_rate`` from a history,
``recognised_revenue`` by IFRS 15), ``pending_schedule`` and ``expiry_schedule`` (points
arriving and leaving by month), ``economics_over_time`` (per stored snapshot), ``mispriced``
(rewards far from their card definition's median value per point) and ``summarise`` (every
frame at once, with headline figures); ``compare_economics`` sets two of them side by side
(``lyt_toolkit.whatif`` builds the second from an edit). Every
frame follows a declared schema of ``ECONOMICS_SCHEMAS``. Of a sampled snapshot
(``ProgramSnapshot.sampled``) the totals are weighted estimates, and ``estimates`` gives
each with its 95 % interval (schema ``ESTIMATES``). Money is in the service's minor
units as it sends them; values per point in minor units per point.
"""

from .change import EconomicsChange, compare_economics
from .earn_burn import burn_values, earn_rates
from .history import economics_over_time, estimate_redemption_rate
from .intervals import estimates
from .liability import liability, recognised_revenue
from .mispricing import MISPRICED_FACTOR, mispriced
from .schedules import expiry_schedule, pending_schedule
from .schemas import (
    DEFINITION_CHANGE,
    ECONOMICS_SCHEMAS,
    ESTIMATES,
    HEADLINE_CHANGE,
    MISPRICING_CHANGE,
    MispricingChange,
    PointValueSource,
    ValueSource,
)
from .summary import Economics, resummarise, summarise
from .value import effective_return, point_values

__all__ = [
    "DEFINITION_CHANGE",
    "ECONOMICS_SCHEMAS",
    "ESTIMATES",
    "HEADLINE_CHANGE",
    "MISPRICED_FACTOR",
    "MISPRICING_CHANGE",
    "Economics",
    "EconomicsChange",
    "MispricingChange",
    "PointValueSource",
    "ValueSource",
    "burn_values",
    "compare_economics",
    "earn_rates",
    "economics_over_time",
    "effective_return",
    "estimate_redemption_rate",
    "estimates",
    "expiry_schedule",
    "liability",
    "mispriced",
    "pending_schedule",
    "point_values",
    "recognised_revenue",
    "resummarise",
    "summarise",
]
