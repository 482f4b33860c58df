"""Economics over time: points, members and liability per snapshot, and a redemption rate
estimated from how card balances moved between snapshots.

Both read a ``SnapshotHistory`` (its cards and pending buckets through DuckDB, every
snapshot in one query) or a sequence of ``ProgramSnapshot`` objects. A history holds full
pulls only; a sampled snapshot of a sequence counts each card and bucket ``weight`` times
(the members of its stratum it stands for), so its figures estimate the program's.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ..models.enums import PendingBucketStatus
from ..snapshot.history import KEY, SnapshotHistory
from ..snapshot.model import ProgramSnapshot
from ._common import sum_by, whole
from .liability import _checked_rate, _checked_values
from .schemas import OVER_TIME
from .value import point_values

__all__ = ["economics_over_time", "estimate_redemption_rate"]

Snapshots = SnapshotHistory | Sequence[ProgramSnapshot]

_COLUMNS = {
    "cards": (
        "id",
        "member_id",
        "card_definition_id",
        "balance_points",
        "lifetime_pending_canceled",
    ),
    "pending_buckets": ("id", "card_id", "card_definition_id", "points_total", "status"),
    "card_definitions": ("id", "name"),
}


def _stacked(source: Snapshots, kind: str) -> pd.DataFrame:
    """The ``kind`` rows of every snapshot (the columns ``_COLUMNS`` names), with ``pulled_at``
    and ``weight``: the members each row stands for (1 but in a sampled snapshot)."""
    columns = _COLUMNS[kind]
    if isinstance(source, SnapshotHistory):  # full pulls only: a history refuses a sample
        listed = ", ".join(f'"{c}"' for c in columns)
        frame = source.query(f"SELECT {KEY}, {listed}, 1.0 AS weight FROM {kind}")
    else:
        parts = [_rows(s, kind, columns) for s in source]
        empty = pd.DataFrame(columns=[KEY, *columns, "weight"])
        frame = pd.concat(parts, ignore_index=True) if parts else empty
    out = pd.DataFrame({KEY: pd.to_datetime(frame[KEY], utc=True).astype("datetime64[ns, UTC]")})
    for c in columns:
        numeric = c in ("balance_points", "points_total", "lifetime_pending_canceled")
        out[c] = frame[c].astype("Int64" if numeric else "string")
    out["weight"] = frame["weight"].astype("float64")
    return out


def _rows(snapshot: ProgramSnapshot, kind: str, columns: Sequence[str]) -> pd.DataFrame:
    """``snapshot``'s ``kind`` rows as ``_stacked`` stacks them."""
    frame = getattr(snapshot, kind)
    sampled = snapshot.sample is not None and "weight" in frame.columns
    weight = frame["weight"].astype("float64") if sampled else 1.0
    return frame.loc[:, list(columns)].assign(**{KEY: snapshot.pulled_at, "weight": weight})


def _weighted_sum(frame: pd.DataFrame, keys: list[str], column: str) -> pd.Series:
    """Per ``keys``: the sum of ``column`` times ``weight``, as whole numbers (exact when every
    weight is 1, an estimate from a sample to the nearest one); NA for a group holding an NA."""
    values = frame[column].astype("Int64")
    if not (frame["weight"] == 1).all():
        values = values.astype("Float64") * frame["weight"]
    return whole(sum_by(values.groupby([frame[k] for k in keys])))


def _latest(source: Snapshots) -> ProgramSnapshot:
    """The most recently pulled snapshot (an empty one when there is none)."""
    if isinstance(source, SnapshotHistory):
        latest = source.latest()
    else:
        latest = max(source, key=lambda s: s.pulled_at, default=None)
    return ProgramSnapshot.from_frames({}) if latest is None else latest


def _canceled_rises(cards: pd.DataFrame) -> pd.Series[int]:
    """Per card and step (``card_id``, ``step``): how far its canceled pending points
    (``lifetime_pending_canceled``) rose since the step before; 0 when either lacks the
    count (a snapshot written before it held it)."""
    column = "lifetime_pending_canceled"
    now = cards[["id", "step", column]].drop_duplicates(["id", "step"])
    then = now.assign(step=now["step"] + 1)
    both = now.merge(then, on=["id", "step"], suffixes=("", "_before"))
    rise = (both[column] - both[f"{column}_before"]).clip(lower=0).fillna(0).astype("int64")
    index = pd.MultiIndex.from_frame(both[["id", "step"]], names=["card_id", "step"])
    return pd.Series(rise.to_numpy(), index=index)


def _stamps(source: Snapshots) -> list[pd.Timestamp]:
    """The snapshots' ``pulled_at``, oldest first."""
    if isinstance(source, SnapshotHistory):
        return sorted(source.list()[KEY])
    return sorted(s.pulled_at for s in source)


def economics_over_time(
    history: Snapshots,
    values: pd.DataFrame | None = None,
    redemption_rate: float | None = 1.0,
) -> pd.DataFrame:
    """One row per snapshot x card definition holding cards or PENDING points.

    ``members`` counts distinct members holding a card of it, ``cards`` its cards;
    ``outstanding_points`` and ``pending_points`` are summed as in ``liability``: for a
    sampled snapshot all four are weighted, the sample's estimates of the program's.
    ``liability_median`` values every snapshot at one point value, the ``median`` of
    ``values`` (``card_definition_id, low, median, high``; by default ``point_values`` of
    the latest snapshot), times ``redemption_rate``: so the curve follows the points, not
    changing prices. Ordered by ``pulled_at``, then card
    definition.
    """
    rate = _checked_rate(redemption_rate)
    if values is None:
        values = point_values(_latest(history))
    medians = _checked_values(values).set_index("card_definition_id")["median"]
    cards = _stacked(history, "cards")
    buckets = _stacked(history, "pending_buckets")
    pending = buckets[buckets["status"] == PendingBucketStatus.PENDING]
    keys = [KEY, "card_definition_id"]
    holders = cards.drop_duplicates([*keys, "member_id"]).assign(one=1)
    counts = pd.DataFrame(
        {
            "members": _weighted_sum(holders, keys, "one"),
            "cards": _weighted_sum(cards.assign(one=1), keys, "one"),
            "outstanding_points": _weighted_sum(cards, keys, "balance_points"),
        }
    )
    waiting = _weighted_sum(pending, keys, "points_total").rename("pending_points")
    frame = counts.join(waiting, how="outer").reset_index()
    frame = frame.fillna({"members": 0, "cards": 0}).astype({"members": "Int64", "cards": "Int64"})
    frame["outstanding_points"] = _zero_when_absent(frame, "outstanding_points", "cards")
    frame["pending_points"] = frame["pending_points"].astype("Int64")
    frame["pending_points"] = frame["pending_points"].mask(
        ~frame.set_index(keys).index.isin(waiting.index), 0
    )
    names = _stacked(history, "card_definitions").drop_duplicates([KEY, "id"])
    names = names.rename(columns={"id": "card_definition_id", "name": "card_definition_name"})
    frame = frame.merge(names, on=keys, how="left")
    total = (frame["outstanding_points"] + frame["pending_points"]).astype("Float64")
    median = frame["card_definition_id"].map(medians).astype("Float64")
    frame["liability_median"] = total * median * rate
    return OVER_TIME.conform(frame.sort_values(keys, ignore_index=True))


def _zero_when_absent(frame: pd.DataFrame, column: str, count: str) -> pd.Series:
    """``column`` as Int64, 0 where the definition has no row to sum (``count`` is 0)."""
    typed = frame[column].astype("Int64")
    return typed.mask(frame[count] == 0, 0)


def _total(points: pd.Series, weight: pd.Series) -> int:
    """The sum of ``points``, each row counted ``weight`` times, to the nearest point (exact
    when every weight is 1)."""
    if (weight == 1).all():
        return int(points.sum())
    return round(float((points.astype("float64") * weight).sum()))


def estimate_redemption_rate(history: Snapshots) -> tuple[float, str]:
    """The share of issued points that were redeemed, estimated from >= 2 snapshots.

    Per card between consecutive snapshots: points issued are the points of its buckets
    that went from PENDING to ACTIVATED (or left its bucket list: the service lists PENDING
    buckets only, of cards holding pending points), less the rise of the card's canceled
    pending points (``lifetime_pending_canceled``: a canceled bucket leaves the list too,
    its points never reaching the balance), plus any rise of its balance beyond them; points
    redeemed are any fall of its balance beyond them. The rate is redeemed / issued over
    the whole history, capped at 1; a sampled snapshot's cards count for the members they
    stand for (``weight``). Returns the rate and the method with its figures, as
    text to quote. Earning and spending between two snapshots net out (both figures are
    lower bounds), cards present in one snapshot only count from the one they appear in,
    and expired points count as redeemed, so the rate errs high and a liability using it
    errs on the conservative side. ValueError when there are fewer than two snapshots or
    no points were issued between them.
    """
    stamps = _stamps(history)
    if len(stamps) < 2:
        raise ValueError(
            f"estimate_redemption_rate needs at least 2 snapshots, got {len(stamps)}; "
            "give redemption_rate yourself"
        )
    step = {stamp: i for i, stamp in enumerate(stamps)}
    cards = _stacked(history, "cards")
    cards["step"] = cards[KEY].map(step)
    before = cards[["id", "step", "balance_points"]].assign(step=cards["step"] + 1, seen=True)
    moves = cards[cards["step"] > 0].merge(
        before, on=["id", "step"], how="left", suffixes=("", "_before")
    )
    unknown = moves["balance_points"].isna() | (
        moves["seen"].notna() & moves["balance_points_before"].isna()
    )
    moves = moves[~unknown]
    buckets = _stacked(history, "pending_buckets").dropna(subset=["points_total"])
    buckets["step"] = buckets[KEY].map(step)
    was_pending = buckets[buckets["status"] == PendingBucketStatus.PENDING]
    was_pending = was_pending[["id", "card_id", "step", "points_total"]].assign(
        step=was_pending["step"] + 1
    )
    now = was_pending.merge(buckets[["id", "step", "status"]], on=["id", "step"], how="left")
    # The service lists PENDING buckets only, of the cards holding pending points: a bucket
    # PENDING before and no longer listed while its card was read left PENDING, activated
    # unless the card's canceled pending points rose by its points.
    read = pd.MultiIndex.from_frame(cards[["id", "step"]])
    card_read = pd.MultiIndex.from_frame(now[["card_id", "step"]]).isin(read)
    gone = now["status"].isna() & card_read
    activated = now[(now["status"] == PendingBucketStatus.ACTIVATED) | gone]
    credited = activated.groupby(["card_id", "step"])["points_total"].sum()
    canceled = _canceled_rises(cards).reindex(credited.index, fill_value=0)
    credited = (credited - canceled).clip(lower=0)
    moves = moves.join(credited.rename("activated"), on=["id", "step"])
    moves = moves.fillna({"balance_points_before": 0, "activated": 0})
    net = moves["balance_points"] - moves["balance_points_before"] - moves["activated"]
    redeemed = _total((-net).clip(lower=0), moves["weight"])
    rises = _total(net.clip(lower=0), moves["weight"])
    by_buckets = _total(moves["activated"], moves["weight"])
    issued = rises + by_buckets
    first, last = (f"{s:%Y-%m-%d %H:%M}" for s in (stamps[0], stamps[-1]))
    span = f"{len(stamps)} snapshots from {first} to {last} UTC"
    if issued == 0:
        raise ValueError(f"no points were issued between the {span}; give redemption_rate yourself")
    rate = min(1.0, redeemed / issued)
    capped = " (capped at 1)" if redeemed > issued else ""
    if (cards["weight"] != 1).any():
        span += " (sampled: each card counted for the members it stands for)"
    method = (
        f"redemption rate {rate:.4f}{capped} = points redeemed / points issued over {span}: "
        f"{redeemed:,} points left card balances; {issued:,} were issued ({by_buckets:,} by "
        f"pending buckets activated, {rises:,} by balance rises). Per card between consecutive "
        "snapshots a balance fall beyond the activated buckets counts as redeemed and a rise "
        "as issued; earning and spending in the same interval net out, and expired points "
        "count as redeemed, so the rate errs high (a conservative liability)."
    )
    return rate, method
