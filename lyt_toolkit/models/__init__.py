"""The vocabulary: pydantic models, enums and ID patterns of the service interface.

Import models from here; enums and ID types stay in :mod:`.enums` and :mod:`.ids`.
Each module declares its public names in its ``__all__``; this package re-exports
exactly those, so the list of names is written once.
"""

from __future__ import annotations

from . import (
    auth,
    benefits,
    card_definitions,
    common,
    discounts,
    errors,
    lists,
    management,
    programs,
    promotions,
    rewards,
    tier_structures,
)
from .auth import *  # noqa: F403
from .benefits import *  # noqa: F403
from .card_definitions import *  # noqa: F403
from .common import *  # noqa: F403
from .discounts import *  # noqa: F403
from .errors import *  # noqa: F403
from .lists import *  # noqa: F403
from .management import *  # noqa: F403
from .programs import *  # noqa: F403
from .promotions import *  # noqa: F403
from .rewards import *  # noqa: F403
from .tier_structures import *  # noqa: F403

__all__ = [
    *auth.__all__,
    *benefits.__all__,
    *card_definitions.__all__,
    *common.__all__,
    *discounts.__all__,
    *errors.__all__,
    *lists.__all__,
    *management.__all__,
    *programs.__all__,
    *promotions.__all__,
    *rewards.__all__,
    *tier_structures.__all__,
]
