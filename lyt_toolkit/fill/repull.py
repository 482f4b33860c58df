"""Pulling a snapshot's program again when only some members' trees can have changed.

Reading every member for its cards, and every card holding pending points for its buckets,
is nearly all of a pull's calls. When only some members' trees can have changed since a
snapshot (a rehearsal knows which members its run wrote to), ``repull`` runs the pull
(``fill.pull._Puller``) with two changes:

- every list is walked whole as a pull walks it (rewards, benefits, card definitions, tier
  structures, programs, each program's members), but of the members listed only those
  named, and those the old snapshot does not hold, are read for their cards and buckets;
- the other members' cards and pending buckets are the old snapshot's rows, put in a full
  pull's order and dtypes (``refresh_merge.member_rows``), with their buckets' program and
  member statuses filled from the lists read now, and the card definitions they point at
  read by ID when unlisted, as a pull reads them.

Where nothing but the named members' trees changed since the old snapshot (a rehearsal's
sandbox, started from it), the result equals a full pull of the same moment frame for frame.
A sampled snapshot, or one holding cards or buckets without its members or cards, has no
tree to copy for every member: every member is read, as a pull reads them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pandas as pd

from .._progress import Progress
from ..client.allowance import checked_share
from ..frames.registry import SCHEMAS
from ..frames.schema import ODD_VALUES, OddValue, OddValues, Schema
from ..models import Member
from ..snapshot.cost import tree_depth
from ..snapshot.defaults import DEFAULT_CONCURRENCY, DEFAULT_SHARE, PullOptions
from ..snapshot.diff import MEMBER_KINDS
from ..snapshot.model import ProgramSnapshot
from ..snapshot.references import references_in
from .pull import ClientSource, _async_client, _Puller, blocking, settings_of
from .refresh_merge import member_rows, with_member_statuses

__all__ = ["arepull", "copies_trees", "repull"]


def copies_trees(old: ProgramSnapshot) -> bool:
    """Whether ``repull`` can copy member trees from ``old``: a whole snapshot (no sample)
    holding its members, and its cards when it holds any kind read member by member."""
    needed = {"members", "cards"} if tree_depth(old.kinds) >= 3 else set()
    return old.sample is None and needed <= old.kinds


class _Repuller(_Puller):
    """One pull of ``old``'s kinds, reading again the trees of the members ``changed`` (and
    of members ``old`` does not hold) only; None: every member's."""

    def __init__(
        self,
        client: Any,
        old: ProgramSnapshot,
        changed: Collection[str] | None,
        options: PullOptions,
    ) -> None:
        share = checked_share(options.budget_share)
        super().__init__(client, options.progress, options.concurrency, old.kinds, share)
        self.old = old
        self.changed = None if changed is None or not copies_trees(old) else set(changed)
        self.copied: set[str] = set()
        """The members listed whose trees are the old snapshot's (once they are listed)."""

    def _read(self, members: list[Member]) -> list[Member]:
        listed = super()._read(members)
        if self.changed is None:
            return listed
        held = set(self.old.members["id"].astype(object))
        read = [m for m in listed if m.id in self.changed or m.id not in held]
        self.copied = {m.id for m in listed} - {m.id for m in read}
        return read

    def _kept(self, kind: str) -> pd.DataFrame:
        """The old snapshot's rows of ``kind`` (cards, pending buckets) of copied members."""
        frame: pd.DataFrame = getattr(self.old, kind)
        return frame[frame["member_id"].astype(object).isin(self.copied).to_numpy(bool)]

    def _kept_odd(self, kind: str) -> list[OddValue]:
        """The odd values the old snapshot met in the copied rows of ``kind``."""
        ids = set(self._kept(kind)["id"].astype(object))
        return [o for o in self.old.odd if o.kind == kind and o.id in ids]

    def _unlisted(self, walked: Mapping[Any, Any], tree: tuple[Any, ...]) -> set[str]:
        wanted = super()._unlisted(walked, tree)
        if "card_definitions" not in self.kinds or not self.copied:
            return wanted
        for kind in MEMBER_KINDS:
            if kind in self.kinds:
                wanted |= references_in(kind, self._kept(kind))
        return wanted - {d.id for d in walked.get("card_definitions", [])}

    async def _pull(self, bar: Any, budget: Any) -> dict[str, pd.DataFrame]:
        fresh = await super()._pull(bar, budget)
        if self.changed is None:
            return fresh
        out = dict(fresh)
        members = fresh["members"]["id"]
        kinds = [kind for kind in MEMBER_KINDS if kind in self.kinds]
        for kind in kinds:
            rows = member_rows(self._kept(kind), fresh[kind], members)
            out[kind] = _as_built(rows, SCHEMAS[kind])
        if "pending_buckets" in self.kinds:
            out["pending_buckets"] = with_member_statuses(
                out["pending_buckets"], fresh["programs"], fresh["members"]
            )
        for kind in kinds:  # the odd values met reading the trees, read now or then
            met = OddValues([*fresh[kind].attrs.get(ODD_VALUES, ()), *self._kept_odd(kind)])
            out[kind].attrs[ODD_VALUES] = met
        return out


def _as_built(frame: pd.DataFrame, schema: Schema) -> pd.DataFrame:
    """``frame`` with ``schema``'s columns and dtypes as its builder gives them: each
    category column's categories the declared ones, then those of its other values in
    order of first appearance (joined frames unite theirs in another order)."""
    out = schema.conform(frame)
    for column in schema.columns:
        if column.dtype_name != "category":
            continue
        if list(out[column.name].cat.categories) != list(column.categories):
            out[column.name] = column.array(out[column.name].astype(object).tolist())
    return out


async def arepull(
    old: ProgramSnapshot,
    client: ClientSource,
    changed: Collection[str] | None,
    options: PullOptions = PullOptions(),
) -> ProgramSnapshot:
    """``old``'s kinds pulled again with ``client``, the trees of the members ``changed``
    (None: every member) read again and the others' copied from ``old`` (see the module).
    Of ``options``, ``kinds``, ``sample`` and ``checkpoint`` are not read."""
    async with _async_client(client, options.concurrency) as owned:
        pulled = await _Repuller(owned, old, changed, options).run()
    return ProgramSnapshot.from_frames(
        pulled.frames, source=pulled.source, pulled_at=pulled.pulled_at, calls=pulled.calls
    )


def repull(
    old: ProgramSnapshot,
    client: ClientSource,
    changed: Collection[str] | None,
    *,
    progress: Progress = True,
    concurrency: int = DEFAULT_CONCURRENCY,
    budget_share: float = DEFAULT_SHARE,
) -> ProgramSnapshot:
    """``arepull`` run to its end from sync code (on a loop of its own, in a worker thread
    when one is already running, as in Jupyter)."""
    options = PullOptions(progress=progress, concurrency=concurrency, budget_share=budget_share)
    settings = settings_of(client)
    return blocking(lambda: arepull(old, settings, changed, options))
