"""From the diff of the edited frames to calls: each change row is supported (one call of an
existing action: move a reward to draft, activate a pending bucket, delete a tier
structure) or unsupported with its reason; each new benefit row is a create."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..frames.pending import blocked_reasons, bucket_date
from ..models.enums import (
    MemberStatus,
    PendingBucketStatus,
    ProgramStatus,
    RewardStatus,
    TierStructureStatus,
)
from ..snapshot import ProgramSnapshot
from ..snapshot.diff import KeyAlignment, row_keys
from .benefits import create_benefits
from .change_rows import change_fields, change_row
from .deletions import delete_tier_structures
from .edited_frames import EditError, noun, row_label
from .pending import activate_pending_buckets
from .plan import ActionPlan
from .rewards import move_rewards_to_draft

__all__ = ["CHANGE_COLUMNS", "SERVER_MANAGED", "UNSUPPORTED_COLUMNS", "Planned", "Planner"]

CHANGE_COLUMNS = (
    "kind",
    "key",
    "action",
    "column",
    "before",
    "after",
    "call",
    "calls",
    "blocked_reason",
)
"""Columns of ``ChangePlan.changes``: ``action`` is create, change or delete, ``call`` the
action plan that sends it, ``calls`` the requests it costs, ``blocked_reason`` why the
service will refuse it as far as the base snapshot tells (a pending-bucket activation
whose preconditions fail, see ``blocked_activations``; NA otherwise)."""

UNSUPPORTED_COLUMNS = ("kind", "key", "column", "before", "after", "reason")
"""Columns of ``ChangePlan.unsupported``."""

SERVER_MANAGED = frozenset({"id", "object", "created_at", "updated_at"})
"""Fields the service sets (with every balance): no call changes them."""

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


class Planned(NamedTuple):
    """What ``Planner.plan`` found: the frames and parts of a ``ChangePlan``."""

    changes: pd.DataFrame
    unsupported: pd.DataFrame
    parts: tuple[ActionPlan[Any], ...]
    inputs: dict[str, pd.DataFrame]


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


class Planner:
    """Sorts the diff's change rows into supported ones (by call) and unsupported ones;
    ``plan`` returns them with the action plans that send the supported ones."""

    def __init__(self, base: ProgramSnapshot, aligned: Mapping[str, KeyAlignment]) -> None:
        self.base = base
        self.aligned = aligned
        self.changes: list[dict[str, Any]] = []
        self.unsupported: list[dict[str, Any]] = []
        self.creates: list[tuple[Any, pd.Series[Any]]] = []

    def plan(self, diff: pd.DataFrame, new: Mapping[str, pd.DataFrame]) -> Planned:
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
                        f"the service has no call to create a {noun(kind)}",
                    )
        columns = ("kind", "key", "change", "column", "before", "after")
        for kind, key, change, column, before, after in zip(
            *(diff[c].tolist() for c in columns), strict=True
        ):  # a missing value is NaN, as itertuples gives it
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
        row = change_fields(kind, key, action, call, column, before, after)
        self.changes.append({**row, "blocked_reason": None})

    def _change(
        self, kind: str, key: str, change: str, column: Any, before: Any, after: Any
    ) -> None:
        what = noun(kind)
        if change == "removed":
            if kind == "tier_structures":
                self._supported(kind, key, "delete", "delete_tier_structure")
            else:
                self._unsupported(
                    kind, key, None, before, None, f"the service has no call to delete a {what}"
                )
        elif change == "added":
            self._unsupported(
                kind, key, None, None, after, f"the service has no call to create a {what}"
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
                f"the service has no call to change a {what}'s {column}{when}",
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

    def _built(self) -> Planned:
        parts: list[ActionPlan[Any]] = []
        inputs: dict[str, pd.DataFrame] = {}
        if self.creates:
            records = [_flat_benefit(row) for _, row in self.creates]
            inputs["create_benefit"] = pd.DataFrame(records, dtype=object)
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
                positions = self._positions(kind, keys)
                rows = getattr(base, kind)[columns].iloc[positions]
                if kind == "pending_buckets":
                    rows = rows.rename(columns={"id": "bucket_id"})
                    blocked = blocked_activations(base, base.pending_buckets.iloc[positions])
                    for change in changes:
                        if change["call"] == call:
                            change["blocked_reason"] = blocked.get(change["key"])
                inputs[call] = rows.reset_index(drop=True)
                parts.append(build(_with_definitions(base, kind, positions, inputs[call])))
                mine = [change for change in changes if change["call"] == call]
                for change, row in zip(mine, _rows_sent(call, parts[-1]), strict=True):
                    change.update(row)  # the row says what the item sends
        text = [c for c in CHANGE_COLUMNS if c != "calls"]
        return Planned(
            _text_frame(changes, text)
            .assign(calls=np.array([change["calls"] for change in changes], dtype="int64"))
            .reindex(columns=list(CHANGE_COLUMNS)),
            _text_frame(self.unsupported, UNSUPPORTED_COLUMNS),
            tuple(parts),
            inputs,
        )

    def _positions(self, kind: str, keys: list[str]) -> list[int]:
        """Where the base holds the rows of ``keys``: one Arrow scan of the diff's keys for
        the few wanted (a hash table of every key, or pandas' ``isin``, costs more)."""
        aligned = self.aligned.get(kind)
        held = aligned.before_keys if aligned else row_keys(kind, getattr(self.base, kind))
        column = pa.array(held)
        wanted = pc.is_in(column, value_set=pa.array(keys, type=column.type))  # no cast
        found = np.flatnonzero(wanted.to_numpy(zero_copy_only=False))
        where = dict(zip(held.iloc[found].tolist(), found.tolist(), strict=True))
        missing = [key for key in keys if key not in where]
        if missing:  # the diff's keys come from the base: never expected
            raise KeyError(f"{kind}: {missing[0]} is not in the base")
        return [where[key] for key in keys]

    def _benefit_part(self, records: list[dict[str, Any]]) -> ActionPlan[Any]:
        """The create of every new benefit row; ``EditError`` names a row the create refuses."""
        part = create_benefits(pd.DataFrame(records, dtype=object))
        back = {flat: column for column, flat in _BENEFIT_CREATE.items()}
        for item, (label, _) in zip(part.items, self.creates, strict=True):
            if item.error:
                column = back.get(str(item.field), item.field)
                raise EditError(f"{row_label('benefits', label, str(column))}: {item.error}")
        made = _rows_sent("create_benefit", part, records)
        self.changes += [{**row, "blocked_reason": None} for row in made]
        return part


def _with_definitions(
    base: ProgramSnapshot, kind: str, positions: list[int], rows: pd.DataFrame
) -> pd.DataFrame:
    """``rows`` (a part's input, what its file keeps) with, for pending buckets, the card
    definition each names in the base: what counts the reads of the part's preview."""
    if kind != "pending_buckets" or "card_definition_id" not in base.pending_buckets:
        return rows
    named = base.pending_buckets["card_definition_id"].iloc[positions].reset_index(drop=True)
    return rows.assign(card_definition_id=named)


def blocked_activations(base: ProgramSnapshot, buckets: pd.DataFrame) -> dict[str, str]:
    """Bucket ID -> why the service will refuse to activate it, for those of ``buckets``
    (rows of ``base.pending_buckets``) whose preconditions fail by the base alone: the
    ``blocked_reasons`` a preview gives (``lyt_toolkit.frames.pending``), with the base's
    ``pulled_at`` date as today and the statuses and card definitions of its frames. What
    the base does not hold (a kind not pulled, a status not joined) is not held against
    the bucket; ``preview(client)`` reads the live state."""
    today = bucket_date(base.pulled_at)
    assert today is not None  # a snapshot always has its pulled_at
    programs = _statuses(base, "programs")
    members = _statuses(base, "members")
    definitions = (
        {str(row["id"]): row for row in _records(base.card_definitions)}
        if "card_definitions" in base.kinds
        else None
    )
    blocked = {}
    for bucket in _records(buckets):
        program = programs.get(bucket["program_id"]) or bucket.get("program_status")
        member = members.get(bucket["member_id"]) or bucket.get("member_status")
        reference = bucket.get("card_definition_id")
        definition = (definitions or {}).get(str(reference))
        if definition is None and (definitions is None or bucket.get("card_definition_found")):
            definition = {"id": reference}  # exists (or not pulled): its type is not known
        reasons = blocked_reasons(
            bucket,
            today=today,
            program_status=program if program is not None else ProgramStatus.ACTIVE,
            member_status=member if member is not None else MemberStatus.ACTIVE,
            definition=definition,
        )  # an unknown status is not a reason (ACTIVE stands for it)
        if reasons:
            blocked[str(bucket["id"])] = "; ".join(reasons)
    return blocked


def _statuses(base: ProgramSnapshot, kind: str) -> dict[str, str]:
    """ID -> status of the base's ``kind`` rows (empty when the base did not pull it)."""
    if kind not in base.kinds:
        return {}
    frame = getattr(base, kind)
    return dict(zip(frame["id"].astype(str), frame["status"].astype(str), strict=True))


def _rows_sent(
    call: str, part: ActionPlan[Any], records: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The change rows of what ``part`` sends (``records``: a create's flat rows), made as a
    plan file's rows are checked: see ``change_rows``."""
    return [
        change_row(call, item.target, records[n] if records else {})
        for n, item in enumerate(part.items)
    ]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """``frame``'s rows as dicts, missing values ``None``."""
    return frame.astype(object).where(frame.notna(), None).to_dict("records")  # type: ignore[return-value]


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
