"""A snapshot written as a ``lyt-program/1`` program file, for the sandbox to hold.

Every row of the snapshot becomes a record with its real ID, status, settings
and absolute timestamps, and the file's ``now`` is the snapshot's ``pulled_at``.
What the records reference but the interface cannot list (products, SKUs,
campaigns, customers) becomes a placeholder record marked ``"placeholder": true``,
so the sandbox's reference checks answer as the service would; card definitions
that the snapshot found missing stay missing (``deliberately_missing``). Settings
the frames do not hold take the service's defaults. data/README.md, "Programs
from a snapshot", lists which field comes from where.

The sandbox holds programs and reads no snapshot: ``snapshot_program`` turns a snapshot,
or the folder its ``to_csv`` or ``to_parquet`` wrote, into the program it holds
(``lyt sandbox serve --from-snapshot DIR`` goes that way).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from ..models.common import format_timestamp
from ..models.enums import MaterialType, RewardType, TierStructureType
from .record import Frames

__all__ = ["FORMAT", "PLACEHOLDER", "program_as_read", "program_of", "write_program"]

FORMAT = "lyt-program/1"
"""The program file format (data/README.md) that the sandbox's loader reads."""

PLACEHOLDER = "placeholder"
"""The key marking a record that stands in for one the snapshot could not list."""

Record = dict[str, Any]


def write_program(snapshot: Frames, path: str | Path) -> Path:
    """Write ``program_of(snapshot)`` as JSON to ``path``; returns the path."""
    target = Path(path)
    target.write_text(_json_text(program_of(snapshot)), encoding="utf-8")
    return target


def program_as_read(snapshot: Frames) -> dict[str, Any]:
    """``program_of(snapshot)`` as reading the file ``write_program`` writes gives it (its
    instants as text): ``snapshot_program`` (``files.py``) returns it."""
    program: dict[str, Any] = json.loads(_json_text(program_of(snapshot)))
    return program


def _json_text(program: dict[str, Any]) -> str:
    """The program as JSON with one record per line: readable, and written by the C
    encoder (an indented dump goes through the pure-Python one, many times slower)."""
    entries = []
    for key, value in program.items():
        if isinstance(value, list) and value:
            records = ",\n".join(f"  {json.dumps(record)}" for record in value)
            entries.append(f" {json.dumps(key)}: [\n{records}\n ]")
        else:
            entries.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(entries) + "\n}\n"


def program_of(snapshot: Frames) -> dict[str, Any]:
    """The snapshot as a ``lyt-program/1`` program dict (see the module docstring).

    A card held by more than one member raises ``ValueError`` naming it: a
    program file holds each card under one member. So does a sampled snapshot: its
    unsampled members would load without their cards and pending buckets.
    """
    if snapshot.sample is not None:
        raise ValueError(
            f"cannot write a program from a {snapshot.sample}: it holds cards and pending "
            "buckets of the sampled members only, so the program would give every other "
            "member none. Pull the program whole (ProgramSnapshot.pull without sample=) to "
            "write it, or start a sandbox from that"
        )
    s = snapshot
    costs = _costs(s.reward_costs)
    card_types = dict(zip(s.cards["id"].tolist(), _plain(s.cards["card_type"]), strict=True))
    sections: dict[str, list[Record]] = {
        "card_definitions": [_card_definition(r) for r in _rows(s.card_definitions)],
        "tier_structures": [_tier_structure(r) for r in _rows(s.tier_structures)],
        "rewards": [_reward(r, costs.get(r["id"], {})) for r in _rows(s.rewards)],
        "benefits": [_benefit(r) for r in _rows(s.benefits)],
        "programs": [_program(r) for r in _rows(s.programs)],
        "members": [_member(r) for r in _rows(s.members)],
        "cards": _cards(s.cards),
        "pending_buckets": [_bucket(r, card_types) for r in _rows(s.pending_buckets)],
        **_placeholders(s),
    }
    head: dict[str, Any] = {
        "format": FORMAT,
        "description": (
            f"Snapshot of {s.source or 'the service'} pulled at {_time(s.pulled_at)}. Products,"
            ' SKUs, campaigns and customers are placeholders ("placeholder": true).'
        ),
        "now": _time(s.pulled_at),
    }
    missing = _missing_card_definitions(s)
    if missing:
        head["deliberately_missing"] = missing
    return {**head, **sections}


# -- values -----------------------------------------------------------------------


def _rows(frame: pd.DataFrame) -> list[Record]:
    """The frame's rows as plain values: NA as None, instants in the service's spelling.

    Converted a column at a time: per-cell access to pandas' typed arrays is slow.
    """
    names = [str(name) for name in frame.columns]
    columns = [_plain(frame[name]) for name in frame.columns]
    return [dict(zip(names, row, strict=True)) for row in zip(*columns, strict=True)]


def _plain(column: pd.Series) -> list[Any]:
    """One column as plain Python values (see ``_rows``)."""
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        return [None if pd.isna(v) else _time(v) for v in column.tolist()]
    # numpy's own steps: a Series' astype, then its where, cost a millisecond a column
    values = column.to_numpy(dtype=object, copy=True)  # a copy: the frame is not written to
    values[column.isna().to_numpy()] = None
    plain: list[Any] = values.tolist()
    return plain


def _time(value: pd.Timestamp | datetime) -> str:
    moment = value.to_pydatetime() if isinstance(value, pd.Timestamp) else value
    return format_timestamp(moment)


def _fields(**values: Any) -> Record:
    """The given values without those that are None (the model's default applies)."""
    return {k: v for k, v in values.items() if v is not None}


def _typed(kind: Any) -> Record | None:
    """``{type: kind}``, or None when the kind is missing."""
    return None if kind is None else {"type": kind}


def _json(text: str | None, empty: Any) -> Any:
    """Parsed JSON text of a frame (metadata, DAILY windows); ``empty`` when NA."""
    return empty if text is None else json.loads(text)


def _validity(kind: str | None, daily: str | None) -> Record | None:
    if kind is None:
        return None
    return _fields(type=kind, daily=_json(daily, None))


def _material(r: Record) -> Record | None:
    kind, product, sku = r["material_type"], r["material_product_id"], r["material_sku_id"]
    if kind is None:
        return None
    if kind == MaterialType.SKU:
        return {"type": kind, "sku": _fields(product_id=product, id=sku)}
    return {"type": kind, "product": _fields(id=product)}


def _digital_target(r: Record) -> tuple[str, Record] | None:
    """The campaign object of a digital reward or benefit: its key and content."""
    campaign, balance = r["digital_campaign_id"], r["digital_gift_voucher_balance"]
    if r["digital_type"] == "GIFT_VOUCHERS":
        return "gift_vouchers", _fields(campaign_id=campaign, balance=balance)
    if r["digital_type"] == "DISCOUNT_COUPONS":
        return "discount_coupons", _fields(campaign_id=campaign)
    return None


def _same(r: Record, *names: str) -> Record:
    """The row's values of the columns ``names``, each under its own name: the fields a
    record takes from the frame as they are."""
    return {name: r[name] for name in names}


def _created_updated(r: Record) -> Record:
    return _same(r, "created_at", "updated_at")


# -- one builder per section ------------------------------------------------------


def _card_definition(r: Record) -> Record:
    def limits(prefix: str) -> Record:
        return _fields(
            **{"global": _typed(r[f"{prefix}_global_type"])},
            transactions=_typed(r[f"{prefix}_transactions_type"]),
        )

    return _fields(
        **_same(r, "id", "name", "type", "status"),
        code_config=_fields(
            pattern=r["code_pattern"],
            length=r["code_length"],
            prefix=r["code_prefix"],
            postfix=r["code_postfix"],
        ),
        points_expiration=_expiration(r),
        pending_points=_typed(r["pending_points_type"]),
        earning_limits=limits("earning_limits"),
        spending_limits=limits("spending_limits"),
        refunds=_fields(
            spent_points=_typed(r["refunds_spent_points_type"]),
            earned_points=_typed(r["refunds_earned_points_type"]),
        ),
        balance_settings=_fields(allow_negative=r["balance_settings_allow_negative"]),
        pay_with_points=_pay_with_points(r),
        metadata=_json(r["metadata"], {}),
        **_created_updated(r),
    )


def _expiration(r: Record) -> Record | None:
    """``points_expiration`` with the settings of its type that the frame holds."""
    kind = r["points_expiration_type"]
    value, unit = r["points_expiration_period_value"], r["points_expiration_period_unit"]
    period = None if value is None or unit is None else {"value": value, "unit": unit}
    rounding = r["points_expiration_rounding_type"]
    rounding_value = r["points_expiration_rounding_value"]
    dates = r["points_expiration_calendar_dates"]
    settings: Record = {}
    if kind == "ROLLING_EXPIRATION" and period is not None:
        rounded = None if rounding is None else _fields(type=rounding, value=rounding_value)
        settings["rolling_expiration"] = _fields(period=period, rounding=rounded)
    elif kind == "SLIDING_EXPIRATION" and period is not None:
        settings["sliding_expiration"] = {"period": period}
    elif kind == "CALENDAR_EXPIRATION" and dates is not None:
        settings["calendar_expiration"] = {"expiration_dates": _json(dates, [])}
    return None if kind is None else {"type": kind, **settings}


def _pay_with_points(r: Record) -> Record | None:
    formula = r["pay_with_points_exchange_ratio"]
    pay = _typed(r["pay_with_points_type"])
    if pay is not None and formula is not None:
        pay["exchange_ratio"] = {"formula": formula}
    return pay


def _tier_structure(r: Record) -> Record:
    definition = r["card_definition_id"]
    source: Record = {}
    if definition is not None and r["type"] == TierStructureType.POINT_BALANCE:
        source["point_balance"] = {"card_definition_id": definition}
    elif definition is not None and r["type"] == TierStructureType.POINT_EARNED:
        value, unit = r["point_earned_period_value"], r["point_earned_period_unit"]
        period = None if value is None or unit is None else {"value": value, "unit": unit}
        source["point_earned"] = _fields(
            card_definition_id=definition, period=period, type=r["point_earned_type"]
        )
    return _fields(
        **_same(r, "id", "name", "type", "status"),
        **source,
        expiration=_typed(r["expiration_type"]),
        downgrade=_typed(r["downgrade_type"]),
        metadata=_json(r["metadata"], {}),
        **_created_updated(r),
    )


def _costs(frame: pd.DataFrame) -> dict[str, dict[str, Record]]:
    """Reward ID -> cost ID -> cost, rebuilt from the reward x cost x spending rows."""
    costs: dict[str, dict[str, Record]] = {}
    for r in _rows(frame):
        logic = r["cost_rules_logic"]
        cost = costs.setdefault(r["reward_id"], {}).setdefault(
            r["cost_id"],
            _fields(id=r["cost_id"], rules=None if logic is None else {"logic": logic}),
        )
        spending = cost.setdefault("spending", [])
        if r["spending_index"] is not None:
            spending.append(
                _fields(
                    id=r["spending_id"],
                    points=r["points"],
                    card_definition_id=r["card_definition_id"],
                )
            )
    return costs


def _reward(r: Record, costs: dict[str, Record]) -> Record:
    digital = None
    if r["type"] == RewardType.DIGITAL and r["digital_type"] is not None:
        target = _digital_target(r)
        if target is not None:
            digital = {"type": r["digital_type"], target[0]: target[1]}
        elif r["digital_type"] == "LOYALTY_CARD_POINTS":
            points = _fields(
                points=r["digital_points"],
                card_definition_id=r["digital_points_card_definition_id"],
            )
            digital = {"type": r["digital_type"], "loyalty_card_points": points}
        else:
            digital = {"type": r["digital_type"]}
    return _fields(
        **_same(r, "id", "name", "type", "status", "start_date", "end_date"),
        validity_hours=_validity(r["validity_hours_type"], r["validity_daily"]),
        material=_material(r),
        digital=digital,
        refunds=_typed(r["refunds_type"]),
        costs=list(costs.values()),
        metadata=_json(r["metadata"], {}),
        **_created_updated(r),
    )


def _benefit(r: Record) -> Record:
    stock = _typed(r["stock_type"])
    if stock is not None and r["stock_quantity"] is not None:
        stock["limited"] = {"quantity": r["stock_quantity"]}
    target = _digital_target(r)
    digital = None if target is None else {"type": r["digital_type"], target[0]: target[1]}
    points = None
    if r["points_card_definition_id"] is not None:
        points = _fields(value=r["points_value"], card_definition_id=r["points_card_definition_id"])
    proportional = None
    if r["proportional_card_definition_id"] is not None:
        proportional = _fields(
            calculation_type=r["proportional_calculation_type"],
            card_definition_id=r["proportional_card_definition_id"],
        )
        basis = r["proportional_basis"]
        if basis is not None:
            group, name = basis.split(".")
            rate = _fields(
                every=r["proportional_every"],
                value=r["proportional_value"],
                property=r["proportional_property"],
            )
            proportional[group] = {name: rate}
    return _fields(
        **_same(r, "id", "name", "type", "status"),
        stock=stock,
        points=points,
        points_proportional=proportional,
        material=_material(r),
        digital=digital,
        **_created_updated(r),
    )


def _program(r: Record) -> Record:
    return _fields(
        **_same(r, "id", "name", "status", "start_date", "end_date"),
        validity_hours=_validity(r["validity_hours_type"], r["validity_daily"]),
        metadata=_json(r["metadata"], {}),
        **_created_updated(r),
    )


def _member(r: Record) -> Record:
    return _fields(
        **_same(r, "id", "program_id", "customer_id", "status"),
        metadata=_json(r["metadata"], {}),
        **_created_updated(r),
    )


_CARD_FIELDS = (
    "id",
    "member_id",
    "program_id",
    "card_definition_id",
    "card_type",
    "code",
    "member_role",
)
"""The columns a card record takes as they are."""


def _cards(frame: pd.DataFrame) -> list[Record]:
    """One flat card per row; a card shown under two members cannot be written."""
    shared = frame.loc[frame["id"].duplicated(keep=False), ["id", "member_id"]]
    if len(shared):
        first = shared["id"].iloc[0]
        members = ", ".join(shared.loc[shared["id"] == first, "member_id"])
        raise ValueError(
            f"cards: card {first} is held by members {members}; a program file holds"
            " each card under one member, so a snapshot with shared cards cannot be written"
        )
    return [
        _fields(
            **_same(r, *_CARD_FIELDS),
            balance=_fields(points=r["balance_points"], pending_points=r["balance_pending_points"]),
            lifetime_bucket=_lifetime(r.get("lifetime_pending_canceled")),
            created_at=r["created_at"],
        )
        for r in _rows(frame)
    ]


def _lifetime(canceled: Any) -> Record | None:
    """The card's lifetime counters as far as a snapshot holds them: its canceled pending
    points (None when it holds none, or was written before it held them)."""
    return None if not canceled else {"pending_points": {"canceled": canceled}}


def _bucket(r: Record, card_types: dict[str, Any]) -> Record:
    date = r["date"]
    return _fields(
        **_same(r, "id", "card_id", "member_id", "program_id", "card_definition_id"),
        card_type=card_types.get(r["card_id"]),
        points=_fields(total=r["points_total"]),
        date=None if date is None else date[:10],
        **_same(r, "type", "status"),
        **_created_updated(r),
    )


# -- what the snapshot references but cannot hold ----------------------------------------


def _first_seen(frames: tuple[pd.DataFrame, ...], key: str, value: str) -> dict[str, Any]:
    """Each non-NA ``key`` of ``frames`` -> the ``value`` on the first row naming it."""
    found: dict[str, Any] = {}
    for frame in frames:
        rows = frame.loc[frame[key].notna()]
        for k, v in zip(rows[key].tolist(), _plain(rows[value]), strict=True):
            found.setdefault(k, v)
    return found


def _placeholders(s: Frames) -> dict[str, list[Record]]:
    """Placeholder products, SKUs, campaigns and customers for every one referenced."""
    both = (s.rewards, s.benefits)
    products = _first_seen(both, "material_product_id", "material_product_id")
    skus = _first_seen(both, "material_sku_id", "material_product_id")
    campaigns = _first_seen(both, "digital_campaign_id", "digital_type")
    customers = set(s.members["customer_id"].dropna().tolist())

    def marked(**fields: Any) -> Record:
        return {**fields, PLACEHOLDER: True}

    return {
        "products": [marked(id=p) for p in sorted(products)],
        "skus": [marked(id=sku, product_id=skus[sku]) for sku in sorted(skus)],
        "campaigns": [marked(id=c, type=campaigns[c]) for c in sorted(campaigns)],
        "customers": [marked(id=c) for c in sorted(customers)],
    }


_CARD_DEFINITION_REFERENCES = {
    "rewards": "digital_points_card_definition_id",
    "reward_costs": "card_definition_id",
    "benefits": "card_definition_id",
    "tier_structures": "card_definition_id",
    "cards": "card_definition_id",
    "pending_buckets": "card_definition_id",
}
"""Frame -> the column naming a card definition."""


def _missing_card_definitions(s: Frames) -> list[str]:
    """Card definitions referenced that the snapshot could not find: missing in the
    service too, so the program keeps them missing."""
    frames = s.frames()
    referenced = set().union(
        *(
            set(frames[name][column].dropna())
            for name, column in _CARD_DEFINITION_REFERENCES.items()
        )
    )
    return sorted(referenced - set(s.card_definitions["id"]))
