"""The live program a snapshot's drift is compared with: the same kinds pulled again."""

from __future__ import annotations

import contextlib
import dataclasses

from .._progress import Progress
from ..client import LoyaltyClient
from ..client.budget_read import learn_budget
from ..errors import PullBudgetError, WayForward
from ..frames.registry import FRAME_NAMES
from ..snapshot.again import again_calls
from ..snapshot.cost import tree_depth
from ..snapshot.defaults import DEFAULT_SHARE
from ..snapshot.diff import MEMBER_KINDS
from ..snapshot.model import ProgramSnapshot
from ..snapshot.references import read_by_id
from .budget import PullBudget
from .pull import ClientSource, sync_client, token_for_pull

__all__ = ["pull_live"]


def pull_live(
    snapshot: ProgramSnapshot,
    client: ClientSource = None,
    *,
    progress: Progress = True,
    budget_share: float = DEFAULT_SHARE,
) -> ProgramSnapshot:
    """The kinds ``snapshot`` holds, pulled again from ``client`` within ``budget_share``.

    A sampled snapshot's cards and pending buckets cannot be compared, so they are not
    pulled again (no member is read one by one); a ``ValueError`` when nothing else is left.
    A pull whose share cannot hold the lists and member reads the snapshot shows is refused
    after its token request alone (``_refused_by_base``), whatever ``client`` is: settings
    (a ``ClientConfig``, a mapping, None, an ``AsyncLoyaltyClient``'s) make the one sync
    ``LoyaltyClient`` that both checks and pulls. The token the check fetched is the one
    the pull starts with, so a drift that fits sends what a pull does.
    """
    kinds = set(snapshot.kinds)
    if snapshot.sample is not None:
        kinds -= set(MEMBER_KINDS)
        if not kinds:
            raise ValueError(
                f"no drift to look for: this snapshot is a {snapshot.sample} and holds only "
                "cards and pending buckets, which a sample cannot compare; pull the "
                "program whole (ProgramSnapshot.pull without sample=) to follow them"
            )
    partial = kinds != set(FRAME_NAMES)
    # One client for the check and the pull (the pull reuses the token the check fetched):
    # the one given, or the one the pull would have built from the settings given.
    with sync_client(client) as owned:
        held = owned.holds_token
        refused = _refused_by_base(snapshot, owned, frozenset(kinds), budget_share)
        if refused is not None:
            raise _for_drift(refused)
        fetched = owned.holds_token and not held  # by the check: the pull's start
        try:
            with token_for_pull(owned) if fetched else contextlib.nullcontext():
                return ProgramSnapshot.pull(
                    owned,
                    progress=progress,
                    kinds=kinds if partial else None,
                    budget_share=budget_share,
                )
        except PullBudgetError as stopped:
            raise _for_drift(stopped) from None


def _refused_by_base(
    snapshot: ProgramSnapshot, client: LoyaltyClient, kinds: frozenset[str], share: float
) -> PullBudgetError | None:
    """The pull's refusal before its member reads, sent before any call but the token
    request that tells the budget, when the lists and the member reads of ``snapshot`` (a
    whole one: one read per member it holds; the bucket lists left out) cannot fit in
    ``share`` of the window; None when they may (or the budget stays unknown)."""
    if snapshot.sample is not None or tree_depth(kinds) < 3:
        return None
    listed = kinds - set(MEMBER_KINDS)
    lists = again_calls(dataclasses.replace(snapshot, kinds=listed, calls=None))
    by_id, reads = len(read_by_id(snapshot, listed)), len(snapshot.members)
    quota = client.quota
    with quota.allowance(share) as allowance:
        learn_budget(client)
        left = allowance.left
        rest = lists - client.holds_token  # the lists still to walk, the token held now
        if left is None or rest + reads <= left:
            return None
        budget = PullBudget(allowance, quota, kinds)
        budget.stage, budget.lists_calls, budget.by_id = "member reads", lists - by_id, by_id
        ways = budget.refusal(rest + reads, members=reads).ways
        return allowance.refusal(  # as the pull's refusal after its lists would say it
            "member reads",
            reads + by_id,
            ways,
            limit=quota.limit,
            resets_at=quota.resets_at,
            remaining=max(0, left - (rest - by_id)),
            cost_first=budget.cost_first(None),
            lists_counted=rest - by_id,  # counted from the snapshot, not sent
        )


def _for_drift(refused: PullBudgetError) -> PullBudgetError:
    """``refused`` with the ways forward a drift can take: ``drift`` takes ``budget_share``
    but no ``kinds``, ``sample`` or ``checkpoint``, so those ways pull the live program with
    ``ProgramSnapshot.pull`` and compare it with ``snapshot.diff``; the sample is left out (a
    sample's cards and pending buckets cannot be compared, so it tells no more than the
    lists, for more calls)."""
    return refused.with_ways(
        tuple(_drift_way(way) for way in refused.ways if _name(way) != "sample")
    )


def _name(way: WayForward) -> str | None:
    return None if way.argument is None else way.argument[0]


def _drift_way(way: WayForward) -> WayForward:
    if way.argument is None or _name(way) == "budget_share":
        return way  # a sentence, or an argument drift takes
    name, value = way.argument
    how = f"in Python: live = ProgramSnapshot.pull(client, {name}={value!r}); snapshot.diff(live)"
    if name == "checkpoint":
        how += " (lyt export --out DIR --checkpoint DIR2, then lyt diff SNAPSHOT_DIR DIR)"
    return dataclasses.replace(way, how=how, argument=None)
