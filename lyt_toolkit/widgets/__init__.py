"""Jupyter widgets (ipywidgets 8) over ``lyt_toolkit.actions``.

Each widget is a thin view: it reads the service through the client it is
given (on its first display or a Refresh, never in its constructor), runs an
action plan in a background worker on a button click (progress bar, Cancel,
the call budget next to the button), and shows rows in itables grids whose
selected rows feed the next plan. ``EditPanel`` instead edits a snapshot's frames in
an editable ipydatagrid grid and plans, rehearses and applies the edits. Sub-widgets
are attributes so a notebook (or a test) can set values, call ``.click()`` on the
buttons and ``wait()``.
"""

from .benefit_form import BenefitForm
from .bulk_import import BulkBenefitImport
from .danger_zone import DangerZone, confirmation_phrase
from .edit_panel import EditPanel
from .findings import FINDING_ACTIONS, FindingsPanel
from .pending_points import PendingPointsPanel
from .reward_draft import RewardDraftPanel
from .what_if import WhatIfPanel

__all__ = [
    "FINDING_ACTIONS",
    "BenefitForm",
    "BulkBenefitImport",
    "DangerZone",
    "EditPanel",
    "FindingsPanel",
    "PendingPointsPanel",
    "RewardDraftPanel",
    "WhatIfPanel",
    "confirmation_phrase",
]
