"""``actions.edit(snapshot)``: a ``ProgramEdit`` holding deep copies of a snapshot's frames,
changed with plain pandas; ``plan()`` derives the ``ChangePlan``."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import pandas as pd

from ..frames.registry import FRAME_NAMES
from ..snapshot import ProgramSnapshot
from .change_plan import ChangePlan

__all__ = ["ProgramEdit", "edit"]


@dataclass(eq=False)
class ProgramEdit:
    """Mutable deep copies of ``base``'s frames: change them with plain pandas, then ``plan()``.

    Assigning a new frame to an attribute (``edit.benefits = pd.concat(...)``) works too.
    """

    base: ProgramSnapshot = field(repr=False)
    rewards: pd.DataFrame = field(repr=False)
    reward_costs: pd.DataFrame = field(repr=False)
    benefits: pd.DataFrame = field(repr=False)
    card_definitions: pd.DataFrame = field(repr=False)
    tier_structures: pd.DataFrame = field(repr=False)
    programs: pd.DataFrame = field(repr=False)
    members: pd.DataFrame = field(repr=False)
    cards: pd.DataFrame = field(repr=False)
    pending_buckets: pd.DataFrame = field(repr=False)

    def frames(self) -> dict[str, pd.DataFrame]:
        """Frame name -> the edited DataFrame, in ``FRAME_NAMES`` order."""
        return {name: getattr(self, name) for name in FRAME_NAMES}

    def plan(self) -> ChangePlan:
        """The plan turning the base into these frames (nothing is sent)."""
        return ChangePlan.from_frames(self.base, self.frames())


def edit(snapshot: ProgramSnapshot) -> ProgramEdit:
    """A ``ProgramEdit`` of ``snapshot``: deep copies of its frames, the snapshot kept as base."""
    if not isinstance(snapshot, ProgramSnapshot):
        raise TypeError(f"snapshot: expected a ProgramSnapshot, not {type(snapshot).__name__}")
    copies = {name: frame.copy(deep=True) for name, frame in snapshot.frames().items()}
    for frame in copies.values():
        frame.attrs = copy.deepcopy(frame.attrs)
    return ProgramEdit(snapshot, **copies)
