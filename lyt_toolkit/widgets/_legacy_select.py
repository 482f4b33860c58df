"""The ``SelectMultiple`` lists of 0.1.0 as deprecated views of the grids that replaced them.

``DangerZone.tier_structures_select``, ``webhooks_select``,
``RewardDraftPanel.rewards_select`` and ``PendingPointsPanel.buckets_select`` were
``SelectMultiple`` widgets; since 0.2.0 the rows are in itables grids. Until 0.5.0 the old
names give a :class:`LegacySelect` over the grid (``lyt_toolkit._deprecation``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd
from itables.widget import ITable

from ._grid import selected

__all__ = ["LegacySelect"]


class LegacySelect:
    """A grid's rows and selection as a ``SelectMultiple`` had them: ``options`` as
    ``(label, id)`` pairs (the label the row's cells joined by ``" | "``) and ``value`` the
    selected IDs. Setting ``value`` selects those rows; an ID not shown is a ``ValueError``.
    """

    def __init__(self, grid: ITable, frame: Callable[[], pd.DataFrame]) -> None:
        self._grid = grid
        self._frame = frame

    @property
    def options(self) -> list[tuple[str, str]]:
        frame = self._frame()
        return [
            (" | ".join(str(cell) for cell in row), str(row_id))
            for row, row_id in zip(
                frame.itertuples(index=False, name=None), frame["id"], strict=True
            )
        ]

    @property
    def value(self) -> tuple[str, ...]:
        return tuple(str(i) for i in selected(self._grid, self._frame())["id"])

    @value.setter
    def value(self, ids: Sequence[str]) -> None:
        listed = [str(i) for i in self._frame()["id"]]
        wanted = set(ids)
        unknown = sorted(wanted.difference(listed))
        if unknown:
            raise ValueError(f"not among the options: {', '.join(unknown)}")
        self._grid.selected_rows = [p for p, i in enumerate(listed) if i in wanted]
