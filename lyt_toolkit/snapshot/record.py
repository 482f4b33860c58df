"""What the diff and the program file read of a snapshot, as a ``Protocol``.

``ProgramSnapshot`` (``model.py``) imports the diff and the program-file writer for its
``diff`` and ``to_program``; they read the snapshot through ``Frames`` instead of importing
the model back, so no circle runs between them.
"""

from __future__ import annotations

from typing import Protocol

import pandas as pd

from ..frames.sample import SampleDesign

__all__ = ["Frames"]


class Frames(Protocol):
    """A snapshot's frames and what says how they were read (``ProgramSnapshot`` is one)."""

    @property
    def rewards(self) -> pd.DataFrame: ...
    @property
    def reward_costs(self) -> pd.DataFrame: ...
    @property
    def benefits(self) -> pd.DataFrame: ...
    @property
    def card_definitions(self) -> pd.DataFrame: ...
    @property
    def tier_structures(self) -> pd.DataFrame: ...
    @property
    def programs(self) -> pd.DataFrame: ...
    @property
    def members(self) -> pd.DataFrame: ...
    @property
    def cards(self) -> pd.DataFrame: ...
    @property
    def pending_buckets(self) -> pd.DataFrame: ...
    @property
    def source(self) -> str: ...
    @property
    def pulled_at(self) -> pd.Timestamp: ...
    @property
    def kinds(self) -> frozenset[str]: ...
    @property
    def sample(self) -> SampleDesign | None: ...

    def frames(self) -> dict[str, pd.DataFrame]:
        """Frame name -> DataFrame, in ``FRAME_NAMES`` order."""
        ...
