"""Economics what-if: change a program on paper, see the money move, then plan the part the
service can make.

``what_if(snapshot, edit)`` compares the economics of ``snapshot`` and of an edit of it
(``actions.edit(snapshot)`` changed with pandas): the headline figures, each card
definition's earn rate, value per point, effective return and liability, the mispricing
and the audit findings that change, and which edits the service has a call for
(``WhatIf.plan`` plans those). A ``Baseline`` holds a snapshot's economics to try many
edits against; ``sweep`` steps a parameter (``earn_rate``, ``reward_price``) over values,
one row of figures per value, with a chart.
"""

from .compare import Baseline, WhatIf, what_if
from .parameters import EarnRate, Parameter, RewardPrice, earn_rate, reward_price
from .schemas import EDITS, SWEEP, MadeBy
from .sweep import Sweep, sweep

__all__ = [
    "EDITS",
    "SWEEP",
    "Baseline",
    "EarnRate",
    "MadeBy",
    "Parameter",
    "RewardPrice",
    "Sweep",
    "WhatIf",
    "earn_rate",
    "reward_price",
    "sweep",
    "what_if",
]
