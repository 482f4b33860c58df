"""An edit read as a snapshot: the edited frames conformed to the base's columns and dtypes
(the plan's own rules, ``actions.edited_frames``), new rows kept, the reward costs' copies of
their reward's name and status following the rewards, and which kinds changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..actions import ProgramEdit
from ..actions.edited_frames import EditError, conformed, read_edited, row_label
from ..frames.registry import FRAME_NAMES
from ..snapshot import ProgramSnapshot
from ..snapshot.diff import KEYS

__all__ = ["LIMITS", "Edit", "changed_frames", "check_values", "edited_snapshot"]

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


LIMITS: dict[str, dict[str, float]] = {
    "benefits": {
        "proportional_every": 1,
        "proportional_value": 0,
        "points_value": 0,
        "stock_quantity": 0,
        "digital_gift_voucher_balance": 0,
    },
    "rewards": {"digital_points": 0, "digital_gift_voucher_balance": 0},
    "reward_costs": {"points": 0},
}
"""By kind, the numeric columns an edit may set and the least value each takes: a divisor
(``proportional_every``: the service's ``every``, an integer from 1) is positive; points,
stock and balances are never negative. An edit below is refused (``check_values``)."""


def check_values(base: ProgramSnapshot, after: ProgramSnapshot, changed: Mapping[str, Any]) -> None:
    """Refuse, with an ``EditError`` naming frame, row and column, a value of an edited
    frame (``changed``, read into ``after``) below its least (``LIMITS``) or not finite. A
    value as it is in ``base`` (the same row, by key) is the service's own and let be."""
    for kind in changed:
        limits = LIMITS.get(kind)
        if not limits:
            continue
        frame, before = getattr(after, kind), getattr(base, kind)
        for column, least in limits.items():
            values = frame[column].astype("Float64")
            known = values.notna().to_numpy(bool)
            floats = values.to_numpy(float, na_value=np.nan)
            bad = known & ~(np.isfinite(floats) & (floats >= least))
            if not bad.any():
                continue
            bad &= ~_as_before(kind, frame, before, column, floats)
            for at in np.flatnonzero(bad)[:1]:
                need = "a positive number" if least > 0 else f"a number at least {least:g}"
                raise EditError(
                    f"{row_label(kind, frame.index[at], column)}: must be {need}, "
                    f"not {_shown(floats[at])}"
                )


def _as_before(
    kind: str, frame: pd.DataFrame, before: pd.DataFrame, column: str, floats: np.ndarray
) -> np.ndarray:
    """Per row of ``frame``: its ``column`` holds the value its row (by key) holds in
    ``before`` (False for a new row)."""
    keys = list(KEYS[kind])
    base = before.drop_duplicates(keys).set_index(keys)[column].astype("Float64")
    at = pd.MultiIndex.from_frame(frame[keys]) if len(keys) > 1 else pd.Index(frame[keys[0]])
    old = base.reindex(at).to_numpy(float, na_value=np.nan)
    return np.asarray(old == floats, dtype=bool)


def _shown(value: float) -> str:
    return str(int(value)) if np.isfinite(value) and float(value).is_integer() else str(value)
