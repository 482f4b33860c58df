"""Desired state: edit a snapshot's frames with pandas, and the toolkit derives the plan.

>>> edit = actions.edit(snapshot)                 # deep copies of every frame
>>> edit.rewards.loc[edit.rewards.id == "lrew_…", "status"] = "DRAFT"
>>> plan = edit.plan()                            # nothing sent
>>> print(plan)                                   # Plan: 0 to create, 1 to change, ...
>>> rehearsal = plan.rehearse()                   # on a sandbox started from the snapshot
>>> results = plan.apply(client, log="runs/edit.jsonl")
>>> rehearsal.verify(ProgramSnapshot.pull(client), results=results)

``ChangePlan.from_frames(before, after)`` compares the edited frames with the base
(``SnapshotDiff``, every column, ``updated_at`` included) and maps each change to the
action that makes it: a reward's status ACTIVE -> DRAFT (``move_rewards_to_draft``), a
new benefit row, its ``id`` empty (``create_benefits``), a tier structure dropped or
set to DELETED (``delete_tier_structures``), a pending bucket's status PENDING ->
ACTIVATED (``activate_pending_buckets``). Every other change is listed in
``plan.unsupported`` with its reason, never dropped; ``apply`` refuses such a plan
unless told ``ignore_unsupported=True``, and deletes unless ``allow_destroy=True``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._progress import Progress
from ..errors import LytError
from ..frames.registry import FRAME_NAMES
from ..models.enums import PendingBucketStatus, RewardStatus, TierStructureStatus
from ..snapshot import ProgramSnapshot
from ..snapshot.diff import KEYS, KeyAlignment, align, compare, row_keys
from .benefits import create_benefits
from .cost import PlanCost
from .deletions import delete_tier_structures
from .log import LogSource
from .pending import activate_pending_buckets
from .plan import ActionPlan
from .rehearsal import Rehearsal, rehearse_run
from .rewards import move_rewards_to_draft

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from .plan_file import SavedPlan

__all__ = ["CHANGE_COLUMNS", "ChangePlan", "EditError", "ProgramEdit", "edit"]

CHANGE_COLUMNS = ("kind", "key", "action", "column", "before", "after", "call", "calls")
"""Columns of ``ChangePlan.changes``: ``action`` is create, change or delete, ``call`` the
action plan that sends it, ``calls`` the requests it costs."""

UNSUPPORTED_COLUMNS = ("kind", "key", "column", "before", "after", "reason")
"""Columns of ``ChangePlan.unsupported``."""

SERVER_MANAGED = frozenset({"id", "object", "created_at", "updated_at"})
"""Fields the service sets (with every balance): no call changes them."""

_SIGNS = {"create": "+", "change": "~", "delete": "-"}

# A new benefit row: snapshot column -> column of the flat create form (``FLAT_COLUMNS``).
_BENEFIT_CREATE = {
    "name": "name",
    "type": "type",
    "status": "status",
    "stock_quantity": "stock_quantity",
    "points_value": "points_value",
    "card_definition_id": "card_definition_id",
    "material_product_id": "product_id",
    "material_sku_id": "sku_id",
    "digital_type": "digital_type",
    "digital_campaign_id": "campaign_id",
    "digital_gift_voucher_balance": "balance",
    "proportional_every": "order_amount_every",
    "proportional_value": "order_amount_value",
}
# Columns the frame derives from the create's fields: a new row may fill them or not.
_BENEFIT_DERIVED = frozenset(
    {
        "stock_type",
        "points_card_definition_id",
        "proportional_card_definition_id",
        "proportional_calculation_type",
        "proportional_basis",
        "card_definition_exists",
    }
)
_CARD_DEFINITION_COLUMNS = (
    "card_definition_id",
    "points_card_definition_id",
    "proportional_card_definition_id",
)


class EditError(LytError, ValueError):
    """An edited frame the plan cannot read: one line naming the frame, row and column."""


def _noun(kind: str) -> str:
    """``tier_structures`` -> ``tier structure``."""
    return kind.removesuffix("s").replace("_", " ")


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


@dataclass(frozen=True, eq=False)
class ChangePlan:
    """What turning ``base`` into the edited frames takes: ``changes`` the service can make
    (sent by ``parts``, one action plan per call), ``unsupported`` the ones it cannot."""

    base: ProgramSnapshot
    changes: pd.DataFrame
    unsupported: pd.DataFrame
    parts: tuple[ActionPlan[Any], ...]
    inputs: Mapping[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    """Call -> the rows its part was built from (what ``save`` writes)."""

    @classmethod
    def from_frames(
        cls,
        before: ProgramSnapshot,
        after: ProgramEdit | ProgramSnapshot | Mapping[str, pd.DataFrame],
    ) -> ChangePlan:
        """The plan from the ``before`` snapshot to the frames of ``after`` (a kind it lacks
        is left as it is). ``EditError`` names the frame, row and column of a cell whose
        value does not fit the column's dtype, a repeated key or an ``id`` not in the base."""
        if not isinstance(before, ProgramSnapshot):
            raise TypeError(f"before: expected a ProgramSnapshot, not {type(before).__name__}")
        frames = after.frames() if isinstance(after, ProgramEdit | ProgramSnapshot) else after
        unknown = sorted(set(frames) - set(FRAME_NAMES))
        if unknown:
            raise EditError(f"after: unknown frames {unknown}; known: {list(FRAME_NAMES)}")
        kept, new, aligned = {}, {}, {}
        for kind, frame in frames.items():
            base = getattr(before, kind)
            edited = _conformed(kind, base, frame)
            is_new = edited["reward_id" if kind == "reward_costs" else "id"].isna().to_numpy()
            if is_new.any():
                kept[kind], new[kind] = edited[~is_new], edited[is_new]
            else:  # the usual case: no rows to take
                kept[kind], new[kind] = edited, edited.iloc[:0]
            if len(base) or len(kept[kind]):
                aligned[kind] = align(kind, base, kept[kind])
                _check_keys(kind, kept[kind], aligned[kind])
        target = ProgramSnapshot.from_frames(
            {kind: kept.get(kind, getattr(before, kind)) for kind in FRAME_NAMES},
            source=before.source,
            pulled_at=before.pulled_at,
        )
        # The keys were lined up once, for the check: the diff reuses them.
        diff = compare(before, target, ignore=(), aligned=aligned)
        return _Planner(before, aligned).plan(diff.changes, new)

    def save(self, path: str | Path) -> Path:
        """Write the plan as readable JSON bound to its base: see ``plan_file``."""
        from .plan_file import save_plan

        return save_plan(self, path)

    @classmethod
    def load(cls, path: str | Path) -> SavedPlan:
        """The plan ``save`` wrote; its ``apply`` first checks the touched objects are
        still as in the base (see ``plan_file``)."""
        from .plan_file import load_plan

        return load_plan(path)

    # -- showing ------------------------------------------------------------------------

    def summary(self) -> str:
        """``Plan: N to create, N to change, N to delete; N changes the service cannot make;
        N calls``."""
        counts = self.changes["action"].value_counts()
        made = ", ".join(f"{counts.get(a, 0)} to {a}" for a in _SIGNS)
        calls = int(self.changes["calls"].sum())
        return (
            f"Plan: {made}; {len(self.unsupported)} changes the service cannot make; {calls} calls"
        )

    def __str__(self) -> str:
        lines = [self.summary()]
        for row in self.changes.itertuples(index=False):
            noun = _noun(str(row.kind))
            if row.action == "create":
                lines.append(f'+ {noun} "{row.key}" {row.after}')
            elif row.action == "change":
                lines.append(f"~ {noun} {row.key} {row.column} {row.before} -> {row.after}")
            else:
                lines.append(f"- {noun} {row.key}")
        for row in self.unsupported.itertuples(index=False):
            what = (
                f" {row.column} {row.before} -> {row.after}" if isinstance(row.column, str) else ""
            )
            lines.append(f"! {_noun(str(row.kind))} {row.key}{what}: {row.reason}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ChangePlan {self.summary()}>"

    def __len__(self) -> int:
        return len(self.changes) + len(self.unsupported)

    # -- running ------------------------------------------------------------------------

    def cost(
        self, client: LoyaltyClient | None = None, *, log: LogSource | None = None
    ) -> PlanCost:
        """The calls every part sends together (one token request at most), and with
        ``client`` the budget it last read: see ``ActionPlan.cost``."""
        needed = sum(part.cost(log=log).needed for part in self.parts)
        if client is None:
            return PlanCost(needed)
        if needed and not client.holds_token:
            needed += 1
        quota = client.quota
        return PlanCost(needed, quota.remaining, quota.limit, quota.resets_at)

    def apply(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None = None,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
        concurrency: int = 8,
        progress: Progress = True,
    ) -> pd.DataFrame:
        """Execute every part (creates, then changes, then deletes) with one ``log``; one
        results frame, its ``call`` column naming the part.

        Refused before anything is sent: deletes without ``allow_destroy`` (each row
        named), unsupported changes without ``ignore_unsupported``, and a plan needing more
        calls than the client knows are left (``BudgetExceededError``).
        """
        deletes = self.changes[self.changes["action"] == "delete"]
        if len(deletes) and not allow_destroy:
            rows = ", ".join(f"{_noun(str(k))} {key}" for k, key in deletes[["kind", "key"]].values)
            raise EditError(
                f"the plan deletes {len(deletes)} rows ({rows}): pass allow_destroy=True"
            )
        if len(self.unsupported) and not ignore_unsupported:
            rows = "; ".join(str(self).splitlines()[1 + len(self.changes) :])
            raise EditError(
                f"the plan holds {len(self.unsupported)} changes the service cannot make"
                f" ({rows}): revert them, or pass ignore_unsupported=True"
            )
        cost = self.cost(client, log=log)
        if not cost.fits:
            raise cost.refusal(f"the change plan ({len(self.changes)} changes)")
        return self._execute(client, log=log, concurrency=concurrency, progress=progress)

    def rehearse(
        self,
        snapshot: ProgramSnapshot | str | Path | None = None,
        *,
        log: LogSource | None = None,
        concurrency: int = 8,
        progress: Progress = True,
    ) -> Rehearsal:
        """Run every part on one sandbox started from ``snapshot`` (default: the base);
        ``rehearsal.diff`` shows the result, ``rehearsal.verify(after, results=...)``
        checks production after ``apply``. Deletes and unsupported rows are not refused."""
        return rehearse_run(
            "change_plan",
            self.parts,
            self.base if snapshot is None else snapshot,
            lambda client, copied: self._execute(
                client, log=copied, concurrency=concurrency, progress=progress
            ),
            log=log,
            progress=progress,
        )

    def preview(
        self,
        client: LoyaltyClient | None = None,
        *,
        log: LogSource | None = None,
        concurrency: int = 8,
        progress: Progress = True,
    ) -> pd.DataFrame:
        """Every part's ``preview`` in one frame, its ``call`` column naming the part: with
        ``client``, what the service's state makes of each item (a pending bucket that
        cannot activate shows its ``blocked_reason``). Nothing is written."""
        return _by_call(
            (part.action, part.preview(client, log=log, concurrency=concurrency, progress=progress))
            for part in self.parts
        )

    def _execute(
        self, client: LoyaltyClient, *, log: LogSource | None, concurrency: int, progress: Progress
    ) -> pd.DataFrame:
        return _by_call(
            (part.action, part.execute(client, log=log, concurrency=concurrency, progress=progress))
            for part in self.parts
        )


def _by_call(frames: Iterable[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The parts' frames one after the other, a first column ``call`` naming each row's part."""
    parts = [frame.assign(call=call) for call, frame in frames]
    if not parts:
        return pd.DataFrame({"call": pd.Series(dtype="str"), "target": [], "outcome": []})
    out = pd.concat(parts, ignore_index=True)
    return out[["call", *[c for c in out.columns if c != "call"]]]


# -- reading the edited frames ------------------------------------------------------------


def _row(kind: str, label: Any, column: str) -> str:
    return f"{kind} row {label}, column {column!r}"


def _conformed(kind: str, base: pd.DataFrame, edited: pd.DataFrame) -> pd.DataFrame:
    """``edited`` with the base's columns and dtypes; ``EditError`` names what does not fit."""
    if not isinstance(edited, pd.DataFrame):
        raise EditError(f"{kind}: expected a DataFrame, not {type(edited).__name__}")
    for name in base.columns:
        if name not in edited.columns:
            raise EditError(f"{kind}: column {name!r} is missing from the edited frame")
    for name in edited.columns:
        if name not in base.columns:
            raise EditError(f"{kind}: column {name!r} is not a column of {kind}")
    columns = list(base.columns)
    out = edited if list(edited.columns) == columns else edited[columns]
    unlike = [
        (name, wanted)
        for name, dtype, wanted in zip(columns, out.dtypes, base.dtypes, strict=True)
        if dtype != wanted
    ]
    if unlike:  # a shallow copy (copy-on-write): a converted column replaces the copy's only
        out = out.copy(deep=False)
        for name, wanted in unlike:
            out[name] = _as_dtype(kind, name, out[name], wanted)
    return out


def _as_dtype(kind: str, name: str, column: pd.Series[Any], dtype: Any) -> pd.Series[Any]:
    """``column`` in the base's ``dtype``; ``EditError`` names the first cell that does not fit."""
    if isinstance(dtype, pd.CategoricalDtype):
        unfit = column.notna() & ~column.isin(dtype.categories)
    else:
        try:
            unfit = column.notna() & column.astype(dtype).isna()
        except (TypeError, ValueError):  # some cell does not convert: find it
            unfit = column.map(lambda value: not _fits(value, dtype)).astype(bool)
    if unfit.any():
        at = int(unfit.to_numpy().argmax())
        raise EditError(
            f"{_row(kind, column.index[at], name)}: {column.iloc[at]!r} does not fit the"
            f" column's dtype {dtype} (the edited column is {column.dtype})"
        )
    return column.astype(dtype)


def _fits(value: Any, dtype: Any) -> bool:
    if pd.isna(value):
        return True
    try:
        return bool(pd.Series([value]).astype(dtype).notna().all())
    except (TypeError, ValueError):
        return False


def _check_keys(kind: str, kept: pd.DataFrame, rows: KeyAlignment) -> None:
    """Refuse a repeated key, and an ``id`` the base does not hold, among the ``kept`` rows
    (those with a key; ``rows`` lines them up with the base: the diff's own key index)."""
    key = list(KEYS[kind])
    repeated = rows.repeated_after
    if repeated.any():
        if len(key) > 1:  # a key with a blank part is not refused as a repeat
            repeated = repeated & kept[key].notna().all(axis=1).to_numpy()
        for at in np.flatnonzero(repeated)[:1]:
            values = "/".join(str(v) for v in kept.iloc[at][key])
            raise EditError(
                f"{_row(kind, kept.index[at], '/'.join(key))}: the key {values} repeats a row"
            )
    if key == ["id"]:  # a kept row has an id: it must be the base's
        for at in np.flatnonzero(rows.at_before < 0)[:1]:
            raise EditError(
                f"{_row(kind, kept.index[at], 'id')}: {kept['id'].iloc[at]} is not in the base"
                " snapshot; leave id empty in a new row (the service assigns it)"
            )


# -- from changes to calls ----------------------------------------------------------------


_STATUS_CALLS: dict[str, tuple[Any, Any, str, str]] = {
    "rewards": (
        RewardStatus.ACTIVE,
        RewardStatus.DRAFT,
        "move_reward_to_draft",
        "only ACTIVE -> DRAFT has a call (move to draft)",
    ),
    "pending_buckets": (
        PendingBucketStatus.PENDING,
        PendingBucketStatus.ACTIVATED,
        "activate_pending_bucket",
        "only PENDING -> ACTIVATED has a call (activate)",
    ),
}
"""Kind -> the one status change the service has a call for: from, to, call, and why any
other status change is refused."""


class _Planner:
    """Sorts the diff's change rows into supported ones (by call) and unsupported ones."""

    def __init__(self, base: ProgramSnapshot, aligned: Mapping[str, KeyAlignment]) -> None:
        self.base = base
        self.aligned = aligned
        self.changes: list[dict[str, Any]] = []
        self.unsupported: list[dict[str, Any]] = []
        self.creates: list[tuple[Any, pd.Series[Any]]] = []

    def plan(self, diff: pd.DataFrame, new: Mapping[str, pd.DataFrame]) -> ChangePlan:
        for kind, frame in new.items():
            if len(frame) and kind == "benefits":
                self._new_benefits(frame)
            elif len(frame):
                for label in frame.index:
                    self._unsupported(
                        kind,
                        f"new row {label}",
                        None,
                        None,
                        None,
                        f"the service has no call to create a {_noun(kind)}",
                    )
        columns = ("kind", "key", "change", "column", "before", "after")
        for kind, key, change, column, before, after in zip(
            *(diff[c].astype(object).where(diff[c].notna(), None).tolist() for c in columns),
            strict=True,
        ):
            self._change(str(kind), str(key), str(change), column, before, after)
        return self._built()

    def _unsupported(
        self, kind: str, key: str, column: Any, before: Any, after: Any, reason: str
    ) -> None:
        self.unsupported.append(
            {
                "kind": kind,
                "key": key,
                "column": column,
                "before": before,
                "after": after,
                "reason": reason,
            }
        )

    def _supported(
        self,
        kind: str,
        key: str,
        action: str,
        call: str,
        column: Any = None,
        before: Any = None,
        after: Any = None,
    ) -> None:
        self.changes.append(
            {
                "kind": kind,
                "key": key,
                "action": action,
                "column": column,
                "before": before,
                "after": after,
                "call": call,
                "calls": 1,
            }
        )

    def _change(
        self, kind: str, key: str, change: str, column: Any, before: Any, after: Any
    ) -> None:
        noun = _noun(kind)
        if change == "removed":
            if kind == "tier_structures":
                self._supported(kind, key, "delete", "delete_tier_structure")
            else:
                self._unsupported(
                    kind, key, None, before, None, f"the service has no call to delete a {noun}"
                )
        elif change == "added":
            self._unsupported(
                kind, key, None, None, after, f"the service has no call to create a {noun}"
            )
        elif column in SERVER_MANAGED or ("balance" in str(column) and kind != "benefits"):
            self._unsupported(kind, key, column, before, after, f"{column} is set by the service")
        elif column == "status" and kind in _STATUS_CALLS:
            old, new, call, refusal = _STATUS_CALLS[kind]
            if (before, after) == (old, new):
                self._supported(kind, key, "change", call, column, before, after)
            else:
                self._unsupported(kind, key, column, before, after, refusal)
        elif (
            kind == "tier_structures"
            and column == "status"
            and after == TierStructureStatus.DELETED
        ):
            self._supported(kind, key, "delete", "delete_tier_structure")
        else:
            when = " after creation" if kind == "benefits" else ""
            self._unsupported(
                kind,
                key,
                column,
                before,
                after,
                f"the service has no call to change a {noun}'s {column}{when}",
            )

    def _new_benefits(self, frame: pd.DataFrame) -> None:
        """Each new benefit row: created, or unsupported when the create cannot give it."""
        definitions = set(self.base.card_definitions["id"])
        for label, row in frame.iterrows():
            extra = [
                c
                for c in frame.columns
                if c not in _BENEFIT_CREATE and c not in _BENEFIT_DERIVED and pd.notna(row[c])
            ]
            cards = {str(row[c]) for c in _CARD_DEFINITION_COLUMNS if pd.notna(row[c])}
            key = str(row["name"])
            if extra:
                self._unsupported(
                    "benefits",
                    key,
                    extra[0],
                    None,
                    row[extra[0]],
                    f"a create cannot set {extra[0]}",
                )
            elif "card_definitions" in self.base.kinds and cards - definitions:
                missing = sorted(cards - definitions)[0]
                self._unsupported(
                    "benefits",
                    key,
                    "card_definition_id",
                    None,
                    missing,
                    f"card definition {missing} is not in the base, and the plan cannot create one",
                )
            else:
                self.creates.append((label, row))

    def _built(self) -> ChangePlan:
        parts: list[ActionPlan[Any]] = []
        inputs: dict[str, pd.DataFrame] = {}
        if self.creates:
            records = [_flat_benefit(row) for _, row in self.creates]
            inputs["create_benefit"] = pd.DataFrame(records)
            parts.append(self._benefit_part(records))
        order = {"create": 0, "change": 1, "delete": 2}
        changes = sorted(self.changes, key=lambda change: order[change["action"]])
        base = self.base
        for call, kind, build, columns in (
            ("move_reward_to_draft", "rewards", move_rewards_to_draft, ["id", "name", "status"]),
            (
                "activate_pending_bucket",
                "pending_buckets",
                activate_pending_buckets,
                ["id", "program_id", "member_id", "card_id"],
            ),
            ("delete_tier_structure", "tier_structures", delete_tier_structures, ["id", "name"]),
        ):
            keys = [change["key"] for change in changes if change["call"] == call]
            if keys:
                rows = getattr(base, kind)[columns].iloc[self._positions(kind, keys)]
                if kind == "pending_buckets":
                    rows = rows.rename(columns={"id": "bucket_id"})
                inputs[call] = rows.reset_index(drop=True)
                parts.append(build(inputs[call]))
        return ChangePlan(
            base,
            _text_frame(changes, CHANGE_COLUMNS[:-1]).assign(
                calls=np.array([change["calls"] for change in changes], dtype="int64")
            ),
            _text_frame(self.unsupported, UNSUPPORTED_COLUMNS),
            tuple(parts),
            inputs,
        )

    def _positions(self, kind: str, keys: list[str]) -> list[int]:
        """Where the base holds the rows of ``keys``: one Arrow scan of the diff's keys for
        the few wanted (a hash table of every key, or pandas' ``isin``, costs more)."""
        aligned = self.aligned.get(kind)
        held = aligned.before_keys if aligned else row_keys(kind, getattr(self.base, kind))
        wanted = pc.is_in(pa.array(held), value_set=pa.array(keys, type=pa.string()))
        found = np.flatnonzero(wanted.to_numpy(zero_copy_only=False))
        where = dict(zip(held.iloc[found].tolist(), found.tolist(), strict=True))
        missing = [key for key in keys if key not in where]
        if missing:  # the diff's keys come from the base: never expected
            raise KeyError(f"{kind}: {missing[0]} is not in the base")
        return [where[key] for key in keys]

    def _benefit_part(self, records: list[dict[str, Any]]) -> ActionPlan[Any]:
        """The create of every new benefit row; ``EditError`` names a row the create refuses."""
        part = create_benefits(pd.DataFrame(records))
        back = {flat: column for column, flat in _BENEFIT_CREATE.items()}
        for item, (label, _) in zip(part.items, self.creates, strict=True):
            if item.error:
                column = back.get(str(item.field), item.field)
                raise EditError(f"{_row('benefits', label, str(column))}: {item.error}")
        for record in records:
            self._supported(
                "benefits",
                record["name"],
                "create",
                "create_benefit",
                None,
                None,
                _benefit_text(record),
            )
        return part


def _text_frame(rows: list[dict[str, Any]], columns: Iterable[str]) -> pd.DataFrame:
    """``rows`` as a frame of ``string`` columns (built column by column: no per-cell dtype
    inference)."""
    return pd.DataFrame({c: pd.array([row[c] for row in rows], dtype="string") for c in columns})


def _flat_benefit(row: pd.Series[Any]) -> dict[str, Any]:
    """A new benefit row in the flat create form (blank cells left out)."""
    flat = {f: row[c] for c, f in _BENEFIT_CREATE.items() if pd.notna(row[c])}
    for column in _CARD_DEFINITION_COLUMNS:
        if pd.notna(row[column]):
            flat.setdefault("card_definition_id", row[column])
    return {k: v.item() if hasattr(v, "item") else v for k, v in flat.items()}


def _benefit_text(flat: Mapping[str, Any]) -> str:
    """What a created benefit grants, as a plan line shows it."""
    card = flat.get("card_definition_id")
    if flat["type"] == "POINTS":
        return f"points {flat.get('points_value')} on {card}"
    if flat["type"] == "POINTS_PROPORTIONAL":
        every, value = flat.get("order_amount_every"), flat.get("order_amount_value")
        return f"points {value} per {every} of order amount on {card}"
    if flat["type"] == "MATERIAL":
        return f"material {flat.get('sku_id') or flat.get('product_id')}"
    return f"digital {flat.get('digital_type')} of {flat.get('campaign_id')}"
