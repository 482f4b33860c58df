"""Counting a refresh's calls before it runs: the old snapshot's list sizes and a probe.

The probe lists the programs, and what the refresh would list by date (each program's new
members, the new rewards, long benefit or card definition lists' changes), within a share
of the calls left in the window; the short lists re-read whole are counted from the old
snapshot's sizes. See ``lyt_toolkit.snapshot.refresh_cost`` for each choice's figures.
"""

from __future__ import annotations

import math

import pandas as pd

from ..client import LoyaltyClient
from ..client.allowance import checked_share
from ..frames.sample import Sample
from ..models.listing import MAX_LIMIT
from ..snapshot.cost import pages, tree_depth
from ..snapshot.defaults import DEFAULT_SHARE, REFRESH_OVERLAP
from ..snapshot.references import listed_definitions, read_by_id
from ..snapshot.refresh_cost import RefreshChoice, RefreshCost
from .refresh_plan import Refreshed, RefreshPlan

__all__ = ["refresh_cost"]


def _walk(group: object, *ids: str, filters: dict[str, object]) -> tuple[int, list[str]]:
    """Pages walked and the IDs found, with ``filters`` (none when empty)."""
    query: dict[str, object] = {"limit": MAX_LIMIT}
    if filters:
        query["filters"] = filters
    calls, found = 0, []
    for page in group.pages(*ids, **query):  # type: ignore[attr-defined]
        calls += 1
        found += [item.id for item in page.data]
    return calls, found


def _holding_rate(old: Refreshed) -> float:
    """Cards holding pending points per member read, as the old snapshot saw them."""
    read = old.cards["member_id"].nunique()
    if not read:
        return 0.0
    holding = int((old.cards["balance_pending_points"].fillna(0) != 0).sum())
    return holding / read


def refresh_cost(
    old: Refreshed,
    client: LoyaltyClient,
    *,
    sample: Sample | None = None,
    overlap: pd.Timedelta = REFRESH_OVERLAP,
    budget_share: float = DEFAULT_SHARE,
) -> RefreshCost:
    """What ``old.refresh(client, members=...)`` costs for ``"all"``, ``"new"``, ``"none"``
    (not for a sampled ``old``, which takes neither) and, when given, ``sample`` (see
    ``lyt_toolkit.snapshot.refresh_cost``)."""
    share = checked_share(budget_share)
    kinds, depth = old.kinds, tree_depth(old.kinds)
    quota = client.quota
    used_before = quota.calls_used
    new = RefreshPlan(old, "new", overlap)
    lists = 1  # the token
    by_program: dict[str, tuple[int, int, int]] = {}  # new-list pages, new, old members
    new_rewards = 0
    with quota.allowance(share) as allowance:
        if "rewards" in kinds or "reward_costs" in kinds:
            calls, found = _walk(client.rewards, filters=new.created_since("rewards"))
            known = set(old.rewards["id"].astype(object))
            lists, new_rewards = lists + calls, len(set(found) - known)
        for kind in ("benefits", "card_definitions"):
            if kind not in kinds:
                continue
            if new.whole(kind):
                frame = getattr(old, kind)
                if kind == "card_definitions":
                    frame = frame[frame["listed"].astype(bool).to_numpy()]
                lists += pages(len(frame), MAX_LIMIT)
            else:
                filters = (
                    new.changed_definitions()
                    if kind == "card_definitions"
                    else new.created_since(kind)
                )
                lists += _walk(getattr(client, kind), filters=filters)[0]
        if "tier_structures" in kinds:
            lists += pages(len(old.tier_structures), MAX_LIMIT)
        if depth >= 1:
            calls, programs = _walk(client.programs, filters={})
            lists += calls
            if depth >= 2:
                known = set(old.members["id"].astype(object))
                counts = old.members["program_id"].astype(object).value_counts()
                for pid in programs:
                    calls, found = _walk(client.members, pid, filters=new.member_filters(pid))
                    fresh = len(set(found) - known)
                    by_program[pid] = (calls, fresh, int(counts.get(pid, 0)))
        lists += len(read_by_id(old, kinds))  # found or not, as the old pull met them
        allowed = allowance.calls
    new_members = sum(n for _, n, _ in by_program.values())
    listed_new = lists + sum(calls for calls, _, _ in by_program.values())
    listed_all = lists + sum(pages(n + o, MAX_LIMIT) for _, n, o in by_program.values())
    everyone = sum(n + o for _, n, o in by_program.values())
    rate = _holding_rate(old) if depth >= 4 else 0.0

    per_member = len(listed_definitions(old)) if depth >= 4 else 0

    def choice(name: str, listed: int, reads: int) -> RefreshChoice:
        reads = reads if depth >= 3 else 0
        return RefreshChoice(name, listed, reads, math.ceil(reads * rate), reads * per_member)

    choices = [choice("all", listed_all, everyone)]
    if old.sample is None:  # a sample is refreshed whole or with a sample (checked_members)
        choices += [choice("new", listed_new, new_members), choice("none", listed_new, 0)]
    if sample is not None:
        choices.append(choice(f"Sample({sample.n})", listed_new, min(sample.n, everyone)))
    return RefreshCost(
        {c.members: c for c in choices},
        new_members=new_members,
        new_rewards=new_rewards,
        spent=quota.calls_used - used_before,
        remaining=quota.remaining,
        limit=quota.limit,
        resets_at=quota.resets_at,
        share=share,
        allowed=allowed,
    )
