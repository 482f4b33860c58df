"""The change row a call makes: a plan shows what it sends, made from what it sends.

``Planner`` makes every supported change row of a plan with ``change_row`` from the items
its parts send, and a plan file's rows are checked against the rows its calls make
(``first_difference``): a plan cannot show one change and send another.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from ..models.enums import PendingBucketStatus, RewardStatus

__all__ = [
    "CALL_KINDS",
    "DELETES",
    "benefit_text",
    "change_fields",
    "change_row",
    "first_difference",
    "refused_keys",
]

_ROWS: dict[str, tuple[str, str, str | None, str | None, str | None]] = {
    "create_benefit": ("benefits", "create", None, None, None),
    "move_reward_to_draft": (
        "rewards",
        "change",
        "status",
        RewardStatus.ACTIVE.value,
        RewardStatus.DRAFT.value,
    ),
    "activate_pending_bucket": (
        "pending_buckets",
        "change",
        "status",
        PendingBucketStatus.PENDING.value,
        PendingBucketStatus.ACTIVATED.value,
    ),
    "delete_tier_structure": ("tier_structures", "delete", None, None, None),
}
"""Call -> the kind it changes, its action, and the column, before and after it shows."""

CALL_KINDS = {call: row[0] for call, row in _ROWS.items()}
"""Call -> the kind of the objects it changes."""
DELETES = frozenset(call for call, row in _ROWS.items() if row[1] == "delete")
"""Calls that delete what they touch: ``allow_destroy`` lets them be sent."""


def change_row(call: str, target: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """The change row of one item ``call`` sends: ``target`` its key, ``record`` the row it
    was built from (a create's line says every field the create sends)."""
    kind, action, column, before, after = _ROWS[call]
    if call == "create_benefit":
        after = benefit_text(record)
    return change_fields(kind, target, action, call, column, before, after)


def change_fields(
    kind: str, key: str, action: str, call: str, column: Any, before: Any, after: Any
) -> dict[str, Any]:
    """A change row's fields (``calls``: the one request it costs)."""
    fields = {"kind": kind, "key": key, "action": action, "column": column}
    return {**fields, "before": before, "after": after, "call": call, "calls": 1}


def first_difference(shown: Mapping[str, Any], made: Mapping[str, Any]) -> str | None:
    """The first column of ``made`` whose value ``shown`` does not hold (missing is None)."""
    return next((c for c, value in made.items() if shown.get(c) != value), None)


def benefit_text(flat: Mapping[str, Any]) -> str:
    """What a created benefit grants, from its flat create form: the plan line's text.

    Every field the create sends besides the name is in it: the grant, then in brackets
    the SKU's product, a gift voucher's balance, the status and the stock when given."""
    card = flat.get("card_definition_id")
    kind = flat.get("type")
    if kind == "POINTS":
        text = f"points {flat.get('points_value')} on {card}"
    elif kind == "POINTS_PROPORTIONAL":
        every, value = flat.get("order_amount_every"), flat.get("order_amount_value")
        text = f"points {value} per {every} of order amount on {card}"
    elif kind == "MATERIAL":
        text = f"material {flat.get('sku_id') or flat.get('product_id')}"
    else:
        text = f"digital {flat.get('digital_type')} of {flat.get('campaign_id')}"
    extra = {
        "product": flat.get("product_id") if flat.get("sku_id") is not None else None,
        "balance": flat.get("balance"),
        "status": flat.get("status"),
        "stock": flat.get("stock_quantity"),
    }
    given = [f"{name} {value}" for name, value in extra.items() if value is not None]
    return f"{text} ({', '.join(given)})" if given else text


def refused_keys(changes: pd.DataFrame) -> dict[str, list[str]]:
    """Call -> the keys of ``changes`` whose write the base shows the service will refuse
    (a ``blocked_reason``): each such write, refused, is read back once (``check_done``:
    done after all?), a call more than the write that a plan's cost counts."""
    blocked = changes["blocked_reason"].notna()
    if not blocked.any():  # the usual case: no frame taken, none grouped
        return {}
    refused = changes[blocked]
    return {
        str(call): rows["key"].astype(str).tolist()
        for call, rows in refused.groupby("call", sort=False)
    }
