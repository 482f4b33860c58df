"""Refreshing a snapshot by what is new, instead of pulling it all again.

``ProgramSnapshot.refresh`` runs the pull (``fill.pull._Puller``) with three changes:

- the lists go through ``refresh_plan``: rewards (and long benefit lists) only since the
  old snapshot's newest ``created_at``, less an overlap; long card definition lists only
  those created or edited since; each program's members only those created since (every
  member for ``members="all"``); card definitions, tier structures, programs and short
  benefit lists whole;
- the members read are those ``members`` asks for: every one, the new ones, none, or a
  ``Sample`` of old and new together;
- the frames are the old snapshot's rows with what was read put in (``refresh_merge``).

With a sync client its member reads and bucket lists go to its threads a level at once, as a
pull's do, through the same filters (``FilteredClient.in_threads``): the same requests.

The snapshot keeps its kinds; its ``pulled_at`` is the refresh's start, and ``read_at``
says, per kind, when its oldest rows were read.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .._progress import Progress, ProgressBar
from ..client.allowance import Allowance, checked_share
from ..frames.members import members_frame
from ..frames.sample import Sample, SampleDraw
from ..models import Member, Program
from ..pull.member_tree import InThreads, TreeWalk
from ..snapshot.defaults import RefreshOptions
from ..snapshot.model import ProgramSnapshot
from ..snapshot.references import listed_definitions, referenced
from .budget import PullBudget
from .pull import (
    ClientSource,
    Pulled,
    _async_client,
    _Puller,
    blocking,
    run_kept,
    settings_of,
)
from .refresh_budget import RefreshBudget
from .refresh_merge import members_in_order, merged_frames
from .refresh_plan import FilteredClient, RefreshPlan, checked_members

__all__ = ["RefreshOptions", "arefresh", "refresh_blocking"]

_WHOLE = frozenset({"tier_structures", "programs"})
"""Kinds always re-read whole."""


def _recording(walk: TreeWalk, programs: list[Program]) -> TreeWalk:
    """``walk`` as it is, noting the programs it lists (its first level) in ``programs``."""
    try:
        step = next(walk)
    except StopIteration as done:
        return done.value
    first = True
    while True:
        found = yield step
        if first:
            programs.extend(found[0])  # the one list of programs
            first = False
        try:
            step = walk.send(found)
        except StopIteration as done:
            return done.value


class _Refresher(_Puller):
    """One refresh of ``plan.old``: the pull of its kinds, by what is new."""

    def __init__(
        self, client: Any, plan: RefreshPlan, progress: Progress, concurrency: int, share: float
    ) -> None:
        sample = plan.members if isinstance(plan.members, Sample) else None
        self.filtered = FilteredClient(client, plan.list_filters())
        seen: Any = self.filtered  # quacks as the client it wraps
        super().__init__(seen, progress, concurrency, plan.old.kinds, share, sample)
        self.plan = plan
        self.programs: list[Program] = []
        self.refresh_budget: RefreshBudget | None = None

    def _budget(self, allowance: Allowance) -> PullBudget:
        plan, quota = self.plan, self.client.quota
        sampled = plan.old.sample is not None
        budget = RefreshBudget(allowance, quota, self.kinds, plan.members, sampled=sampled)
        self.refresh_budget = budget
        return budget

    def _in_threads(self) -> InThreads | None:
        return self.filtered.in_threads  # a sync client's threads, its lists filtered alike

    def _tree_walk(self, depth: int, read: Any) -> TreeWalk:
        return _recording(super()._tree_walk(depth, read), self.programs)

    def _read(self, members: list[Member]) -> list[Member]:
        old_ids = set(self.plan.old.members["id"].astype(object))
        new = [m for m in members if m.id not in old_ids]
        if self.refresh_budget is not None:
            self.refresh_budget.new = len(new)
        choice = self.plan.members
        if choice == "all":
            return super()._read(members)
        self.listed = len(new)
        if choice == "none":
            return []
        if choice == "new":
            return new
        assert isinstance(choice, Sample)
        # A sample of every member, old and new, drawn from the members in a full pull's order.
        combined = members_in_order(
            self.plan.old.members, members_frame(members), [p.id for p in self.programs]
        )
        self.listed = len(combined)
        self.members = combined
        self.draw = SampleDraw(combined, choice)
        self.design = self.draw.first
        # Only a member's program and ID are needed to read it.
        fields = ["id", "program_id", "customer_id", "status", "created_at"]
        rows = combined[fields].astype(object).to_dict("records")
        self._listed_members = [
            Member.model_construct(**{str(k): v for k, v in r.items()}) for r in rows
        ]
        drawn = set(self.design.units["member_id"])
        return [m for m in self._listed_members if m.id in drawn]

    def _unlisted(self, walked: Any, tree: tuple[Any, ...]) -> set[str]:
        wanted = super()._unlisted(walked, tree)
        if "card_definitions" not in self.kinds:
            return wanted
        old, plan = self.plan.old, self.plan
        kept = ["rewards", "reward_costs"]  # old rows kept (deletions are not seen)
        if not plan.whole("benefits"):
            kept.append("benefits")
        if plan.members in ("new", "none"):
            kept += ["cards", "pending_buckets"]
        wanted |= referenced(old, kept)
        definitions: list[Any] = walked.get("card_definitions", [])
        listed = {d.id for d in definitions}
        if not plan.whole("card_definitions"):  # the list gave only those changed
            listed |= listed_definitions(old)
        return wanted - listed

    async def _pull(self, bar: ProgressBar, budget: PullBudget) -> dict[str, pd.DataFrame]:
        fresh = await super()._pull(bar, budget)
        return merged_frames(self.plan, fresh)


def read_times(plan: RefreshPlan, stamp: pd.Timestamp) -> dict[str, pd.Timestamp]:
    """Each kind's ``read_at`` after a refresh starting at ``stamp``: the refresh's start for a
    kind it read whole, the old time for one it only added new rows to."""
    old, choice = plan.old, plan.members
    whole = set(_WHOLE)
    whole |= {kind for kind in ("benefits", "card_definitions") if plan.whole(kind)}
    if choice == "all":
        whole |= {"members", "cards", "pending_buckets"}
    elif isinstance(choice, Sample):
        whole |= {"cards", "pending_buckets"}
    return {
        kind: stamp if kind in whole else old.read_at.get(kind, old.pulled_at) for kind in old.kinds
    }


async def arefresh(
    old: ProgramSnapshot, client: ClientSource, options: RefreshOptions = RefreshOptions()
) -> ProgramSnapshot:
    """``old`` refreshed with ``client`` (see ``ProgramSnapshot.refresh``), paced and
    resumable in ``options.checkpoint`` when one is given."""
    plan = RefreshPlan(old, checked_members(options.members, old), options.overlap)
    share = checked_share(options.budget_share)
    async with _async_client(client, options.concurrency) as owned:
        refresher = _Refresher(owned, plan, options.progress, options.concurrency, share)
        refresh = {
            "refresh_of": old.pulled_at.isoformat(),
            "members": repr(plan.members),
            "overlap": str(options.overlap),
        }
        pulled = await run_kept(refresher, options.checkpoint, refresh)
    return _snapshot(plan, pulled)


def _snapshot(plan: RefreshPlan, pulled: Pulled) -> ProgramSnapshot:
    old = plan.old
    sample = pulled.sample if isinstance(plan.members, Sample) else old.sample
    if plan.members == "all":
        sample = None
    return ProgramSnapshot.from_frames(
        pulled.frames,
        source=pulled.source,
        pulled_at=pulled.pulled_at,
        calls=pulled.calls,
        sample=sample,
        read_at=read_times(plan, pulled.pulled_at),
    )


def refresh_blocking(
    old: ProgramSnapshot, client: ClientSource, options: RefreshOptions = RefreshOptions()
) -> ProgramSnapshot:
    """``arefresh`` run to its end from sync code (on a loop of its own, in a worker thread
    when one is already running, as in Jupyter)."""
    settings = settings_of(client)
    return blocking(lambda: arefresh(old, settings, options))
