"""The live program a snapshot's drift is compared with: the same kinds pulled again."""

from __future__ import annotations

import dataclasses

from .._progress import Progress
from ..errors import PullBudgetError, WayForward
from ..frames.registry import FRAME_NAMES
from ..snapshot.defaults import DEFAULT_SHARE
from ..snapshot.diff import MEMBER_KINDS
from ..snapshot.model import ProgramSnapshot
from .pull import ClientSource

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
    try:
        return ProgramSnapshot.pull(
            client,
            progress=progress,
            kinds=kinds if partial else None,
            budget_share=budget_share,
        )
    except PullBudgetError as refused:
        raise _for_drift(refused) from None


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
