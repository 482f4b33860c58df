"""Program economics: what the program gives back per unit of spend, as frames.

Pure functions over a ``ProgramSnapshot`` (no I/O): ``earn_rates`` (points a benefit
credits), ``burn_values`` (what a reward's points buy), ``point_values`` (low / median /
high value per point per card definition) and ``effective_return`` (share of spend
returned). Every frame follows a declared schema of ``ECONOMICS_SCHEMAS``. Money is in
the service's minor units as it sends them; values per point in minor units per point.
"""

from .earn_burn import burn_values, earn_rates
from .schemas import ECONOMICS_SCHEMAS, PointValueSource, ValueSource
from .value import effective_return, point_values

__all__ = [
    "ECONOMICS_SCHEMAS",
    "PointValueSource",
    "ValueSource",
    "burn_values",
    "earn_rates",
    "effective_return",
    "point_values",
]
