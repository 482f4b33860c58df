"""The ways to fill a ``ProgramSnapshot`` over HTTP: a full pull, a sampled one, a refresh by
what is new, the budget check and the estimates of their cost (the paced pull will come here
too).

The snapshot is a record of frames and imports none of this: ``ProgramSnapshot.pull``,
``apull``, ``estimate`` and ``drift`` import it when called, so the snapshot and the
analysis that reads it (``economics``, ``audit``) load no HTTP client.
"""

from .budget import DEFAULT_SAMPLE, PullBudget
from .drift import pull_live
from .estimate import EstimateOptions, estimate_pull
from .pull import ClientSource, Pulled, PullOptions, pull_blocking, pull_frames
from .refresh import RefreshOptions, arefresh, refresh_blocking
from .refresh_probe import refresh_cost

__all__ = [
    "DEFAULT_SAMPLE",
    "ClientSource",
    "EstimateOptions",
    "PullBudget",
    "PullOptions",
    "Pulled",
    "RefreshOptions",
    "arefresh",
    "estimate_pull",
    "pull_blocking",
    "pull_frames",
    "pull_live",
    "refresh_blocking",
    "refresh_cost",
]
