"""Jupyter widgets (ipywidgets 8) over ``lyt_toolkit.actions``.

Each widget is a thin view: it reads the service through the client it is
given, runs an action plan on a button click, and renders the results as an
HTML table with a progress bar. Sub-widgets are attributes so a notebook (or a
test) can set values and call ``.click()`` on the buttons.
"""

from .benefit_form import BenefitForm
from .bulk_import import BulkBenefitImport
from .danger_zone import DangerZone, confirmation_phrase
from .pending_points import PendingPointsPanel
from .reward_draft import RewardDraftPanel

__all__ = [
    "BenefitForm",
    "BulkBenefitImport",
    "DangerZone",
    "PendingPointsPanel",
    "RewardDraftPanel",
    "confirmation_phrase",
]
