"""Putting a refresh's reads together with the old snapshot's rows.

Rows are kept once by ID, the refresh's read winning over the old one, and every frame is
put in the order a full pull gives: the service's default list order (newest ``created_at``
first, ties by ID, newest first), members by program (in the programs' list order), and
a member's cards and buckets after the member's place, in the order they were read. The
card definition columns of the frames that point at definitions are filled again from the
refreshed definitions, as a pull fills them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from ..frames.benefits import BENEFITS
from ..frames.definitions import TIER_STRUCTURES
from ..frames.pending import with_statuses
from ..frames.rewards import REWARD_COSTS
from ..snapshot.references import mark_card_definitions
from .refresh_plan import RefreshPlan

__all__ = ["member_rows", "members_in_order", "merged_frames", "with_member_statuses"]


def _concat(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``parts`` (frames of one kind) one after the other, their dtypes kept (categories
    united in order of appearance, not widened to text)."""
    columns = list(parts[-1].columns)
    out: dict[str, object] = {}
    for name in columns:
        series = [p[name] for p in parts]
        if isinstance(series[-1].dtype, pd.CategoricalDtype):
            out[name] = union_categoricals(
                [pd.Categorical(s) for s in series], sort_categories=False
            )
        else:
            out[name] = pd.concat(series, ignore_index=True).array
    return pd.DataFrame(out, columns=columns)


def _list_order(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` in the service's default list order: newest first, ties by ID (newest)."""
    order = frame.sort_values(["created_at", "id"], ascending=False, kind="stable").index
    return frame.loc[order].reset_index(drop=True)


def _kept(old: pd.DataFrame, read: pd.Series, key: str = "id") -> pd.DataFrame:
    """The old rows whose ``key`` is not one of ``read`` (what the refresh read again)."""
    return old[~old[key].astype(object).isin(set(read.astype(object)))]


def _listed(old: pd.DataFrame, fresh: pd.DataFrame) -> pd.DataFrame:
    """Old and refreshed rows of a list, each ID once (the refreshed row), in list order."""
    return _list_order(_concat([_kept(old, fresh["id"]), fresh]))


def _after(frame: pd.DataFrame, column: str, owners: pd.Series) -> pd.DataFrame:
    """``frame``'s rows whose ``column`` is one of ``owners``, in the owners' order (rows of
    one owner keep theirs)."""
    place = {owner: i for i, owner in enumerate(owners.astype(object))}
    keys = frame[column].astype(object).map(place)
    kept = frame[keys.notna().to_numpy()]
    order = np.argsort(keys.dropna().to_numpy(dtype=np.int64), kind="stable")
    return kept.iloc[order].reset_index(drop=True)


def _members(old: pd.DataFrame, fresh: pd.DataFrame, programs: pd.Series) -> pd.DataFrame:
    """Every member, old and new, once, by program then in list order; members of a program
    no longer listed are left out, as a full pull leaves them."""
    merged = _listed(old, fresh)
    return _after(merged, "program_id", programs)


def members_in_order(
    old: pd.DataFrame, fresh: pd.DataFrame, programs: Sequence[str]
) -> pd.DataFrame:
    """The members frame of a refresh: ``old`` and ``fresh`` members once each, by the
    programs' order."""
    return _members(old, fresh, pd.Series(list(programs), dtype=object))


def _definitions(old: pd.DataFrame, fresh: pd.DataFrame) -> pd.DataFrame:
    """The listed definitions, old ones not read again and those found changed, in list
    order; then those read by ID (``listed`` False), as the refresh read them."""
    listed = fresh["listed"].astype(bool).to_numpy()
    old_listed = old[old["listed"].astype(bool).to_numpy()]
    merged = _list_order(_concat([_kept(old_listed, fresh["id"]), fresh[listed]]))
    return _concat([merged, fresh[~listed]]).reset_index(drop=True)


def _marked(frames: dict[str, pd.DataFrame]) -> None:
    """Fill the card definition columns again from the refreshed card definitions."""
    definitions = frames["card_definitions"]
    status = dict(zip(definitions["id"], definitions["status"].astype(object), strict=True))
    names = dict(zip(definitions["id"], definitions["name"].astype(object), strict=True))
    frames["reward_costs"] = mark_card_definitions(
        frames["reward_costs"].copy(), REWARD_COSTS, status, names
    )
    frames["benefits"] = mark_card_definitions(frames["benefits"].copy(), BENEFITS, status)
    frames["tier_structures"] = mark_card_definitions(
        frames["tier_structures"].copy(), TIER_STRUCTURES, status
    )


def merged_frames(plan: RefreshPlan, fresh: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The refreshed snapshot's frames: ``fresh`` (what the refresh read) with the old
    snapshot's rows it did not read again (see the module)."""
    old, kinds = plan.old, plan.old.kinds
    out = dict(fresh)
    out["rewards"] = _listed(old.rewards, fresh["rewards"])
    costs = _concat(
        [_kept(old.reward_costs, fresh["rewards"]["id"], "reward_id"), fresh["reward_costs"]]
    )
    out["reward_costs"] = _after(costs, "reward_id", out["rewards"]["id"])
    if "benefits" in kinds and not plan.whole("benefits"):
        out["benefits"] = _listed(old.benefits, fresh["benefits"])
    if "card_definitions" in kinds and not plan.whole("card_definitions"):
        out["card_definitions"] = _definitions(old.card_definitions, fresh["card_definitions"])
    if plan.members in ("new", "none") and "members" in kinds:
        programs = fresh["programs"]["id"]
        members = out["members"] = _members(old.members, fresh["members"], programs)
        for kind in ("cards", "pending_buckets"):
            if kind in kinds:
                kept = _kept(old.frames()[kind], fresh[kind]["member_id"], "member_id")
                out[kind] = member_rows(kept, fresh[kind], members["id"])
    if "card_definitions" in kinds:
        _marked(out)
    if "pending_buckets" in kinds:  # the statuses of the members as this snapshot has them
        out["pending_buckets"] = with_member_statuses(
            out["pending_buckets"], out["programs"], out["members"]
        )
    return out


def member_rows(kept: pd.DataFrame, fresh: pd.DataFrame, members: pd.Series) -> pd.DataFrame:
    """Rows of a member tree's kind (cards, pending buckets): ``kept`` (old rows) and ``fresh``
    ones (each member's rows from one of them), by member in the order of ``members`` (a
    full pull's), a member's rows in their order; rows of members not in ``members`` left
    out."""
    return _after(_concat([kept, fresh]), "member_id", members)


def with_member_statuses(
    buckets: pd.DataFrame, programs: pd.DataFrame, members: pd.DataFrame
) -> pd.DataFrame:
    """A copy of ``buckets`` with each one's program and member status filled from the
    ``programs`` and ``members`` frames, as a pull fills them."""
    return with_statuses(
        buckets.copy(),
        dict(zip(programs["id"], programs["status"].astype(object), strict=True)),
        dict(zip(members["id"], members["status"].astype(object), strict=True)),
    )
