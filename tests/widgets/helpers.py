"""Helpers of the widget tests: what a grid shows, what a panel's run gave."""

from __future__ import annotations

import pandas as pd
from itables.widget import ITable

from lyt_toolkit.widgets._plan_panel import PlanPanel


def shown(grid: ITable) -> pd.DataFrame:
    """The frame ``grid`` shows (a grid shows none until it is given one)."""
    assert grid.df is not None, "the grid shows no frame"
    return grid.df


def ran(panel: PlanPanel) -> pd.DataFrame:
    """The results of ``panel``'s last run (a panel has none before it runs)."""
    assert panel.results is not None, "the panel has not run"
    return panel.results
