"""An edit read as a snapshot: the edited frames conformed to the base's columns and dtypes
(the plan's own rules, ``actions.edited_frames``), new rows kept, the reward costs' copies of
their reward's name and status following the rewards, and which kinds changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..actions import ProgramEdit
from ..actions.edited_frames import conformed, read_edited
from ..frames.registry import FRAME_NAMES
from ..snapshot import ProgramSnapshot
from ..snapshot.diff import KEYS

__all__ = ["Edit", "changed_frames", "edited_snapshot"]

Edit = ProgramEdit | ProgramSnapshot | Mapping[str, pd.DataFrame]
"""What a what-if takes: an ``actions.edit(snapshot)``, an edited snapshot, or edited frames
by kind (a kind left out is as in the base)."""


def changed_frames(base: ProgramSnapshot, edit: Edit) -> dict[str, pd.DataFrame]:
    """The frames of ``edit`` that differ from ``base``'s (a frame equal to the base's, in
    values and dtypes, is left out: nothing of it changes)."""
    if isinstance(edit, ProgramEdit) and edit.base is not base:
        raise ValueError(
            "edit: an edit of another snapshot; make it with actions.edit(snapshot) of the "
            "snapshot given"
        )
    if isinstance(edit, Mapping):
        frames: Mapping[str, Any] = edit
    elif isinstance(edit, ProgramEdit | ProgramSnapshot):
        frames = edit.frames()
    else:
        raise TypeError(
            "edit: expected actions.edit(snapshot), a ProgramSnapshot or a mapping of frames, "
            f"not {type(edit).__name__}"
        )
    unknown = sorted(set(frames) - set(FRAME_NAMES))
    if unknown:
        raise ValueError(f"edit: unknown frames {unknown}; known: {list(FRAME_NAMES)}")
    return {
        kind: frame
        for kind, frame in frames.items()
        if frame is not getattr(base, kind) and not _equal(frame, getattr(base, kind))
    }


def _equal(frame: Any, base: pd.DataFrame) -> bool:
    return isinstance(frame, pd.DataFrame) and frame.equals(base)


def edited_snapshot(base: ProgramSnapshot, changed: Mapping[str, pd.DataFrame]) -> ProgramSnapshot:
    """``base`` with the ``changed`` frames, each read as the plan reads it (``EditError``
    names the frame, row and column it refuses); a new row (no ID) is kept, as the service
    would create it. A frame with the base's rows (index and keys), only values edited, is
    conformed without lining its rows up again: a parameter's edit of 50,000 reward costs."""
    if not changed:
        return base
    frames: dict[str, Any] = {
        kind: conformed(kind, getattr(base, kind), frame)
        for kind, frame in changed.items()
        if _same_rows(kind, getattr(base, kind), frame)
    }
    others = {kind: frame for kind, frame in changed.items() if kind not in frames}
    if others:
        read = read_edited(base, others)
        for kind in others:
            new = read.new[kind]
            frames[kind] = pd.concat([read.kept[kind], new]) if len(new) else read.kept[kind]
    if "rewards" in frames:
        frames["reward_costs"] = _costs_following(
            frames.get("reward_costs", base.reward_costs), frames["rewards"]
        )
    return dataclasses.replace(base, **frames)


def _same_rows(kind: str, base: pd.DataFrame, frame: Any) -> bool:
    """``frame`` holds ``base``'s rows in its order: the same index, the same keys (of the
    same dtypes), none of them new (no ID)."""
    if not isinstance(frame, pd.DataFrame) or not frame.index.equals(base.index):
        return False
    if any(name not in frame for name in KEYS[kind]):
        return False
    if not all(frame[name].array.equals(base[name].array) for name in KEYS[kind]):
        return False
    return bool(base["reward_id" if kind == "reward_costs" else "id"].notna().all())


_FROM_REWARD = {"reward_name": "name", "reward_status": "status"}
"""The reward costs' columns copied from their reward, as a pull fills them."""


def _costs_following(costs: pd.DataFrame, rewards: pd.DataFrame) -> pd.DataFrame:
    """``costs`` with each reward's edited name and status, as a pull after the edit would
    read them (a cost of a reward not in ``rewards`` keeps its own)."""
    by_id = rewards.drop_duplicates("id").set_index("id")
    out = costs.copy()
    for column, source in _FROM_REWARD.items():
        found = out["reward_id"].map(by_id[source])
        out[column] = found.where(found.notna(), out[column]).astype(out[column].dtype)
    return out
