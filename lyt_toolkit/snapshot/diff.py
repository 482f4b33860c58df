"""What changed between two snapshots: one row per changed value, computed column by column.

``ProgramSnapshot.diff(other)`` lines up each kind's rows by their key (the ID;
reward costs by reward, cost and spending entry; cards by member and card),
then compares every column of the rows both snapshots hold, whole columns at a
time: NA equals NA, categoricals compare by value (whatever their category
lists), and JSON-text columns (``metadata``, ``validity_daily``) compare as
parsed JSON, parsing only the cells whose text differs.

A sampled snapshot (``ProgramSnapshot.sampled``, ``pull(sample=...)``) holds cards and
pending buckets of its sampled members only, so a row it lacks was not read, not deleted:
when either side is a sample those kinds (``MEMBER_KINDS``) are left out, the diff says so
(``SnapshotDiff.left_out`` and ``note``, shown in its repr), and ``compare`` refuses when
nothing else is left to compare. So is a kind only one side holds (a snapshot pulled with
``kinds=``): its rows were never read on the other side.

Audit findings between the two snapshots come from the audit package, which sits
above this one: ``lyt_toolkit.audit.findings_between(diff.before, diff.after)``.
``SnapshotDiff.findings`` is deprecated (removed in 0.5.0): it works, with a
``FutureWarning``, once importing ``lyt_toolkit.audit`` registered the comparison here
with ``use_findings``, and raises a ``RuntimeError`` naming ``findings_between`` before.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
import pandas as pd

from .._deprecation import deprecated_attribute, deprecation
from .._text import figure
from ..frames.registry import FRAME_NAMES, SCHEMAS
from ..frames.schema import DATETIME, Column, Schema, text
from ..reports.snapshot_csv import write_csv
from .record import Frames

__all__ = [
    "CHANGES",
    "CHANGE_KINDS",
    "DEFAULT_IGNORE",
    "JSON_COLUMNS",
    "KEYS",
    "MEMBER_KINDS",
    "FindingsBetween",
    "KeyAlignment",
    "SnapshotDiff",
    "align",
    "compare",
    "row_keys",
    "use_findings",
]

CHANGE_KINDS = ("added", "removed", "changed")
"""Values of the ``change`` column."""

DEFAULT_IGNORE = ("updated_at",)
"""Columns left out of a diff unless asked for: every update moves them."""

KEYS: dict[str, tuple[str, ...]] = {
    **{kind: ("id",) for kind in FRAME_NAMES},
    "reward_costs": ("reward_id", "cost_id", "spending_index"),
    "cards": ("member_id", "id"),
}
"""The columns that identify a row of each kind (a card is shared by its members)."""

MEMBER_KINDS: tuple[str, ...] = ("cards", "pending_buckets")
"""The kinds a sampled snapshot holds for its sampled members only: never compared row by row
with a sample on either side."""

KEY_SEPARATOR = "/"
"""Between the parts of a composite key; a missing part is written ``-``."""

JSON_COLUMNS = frozenset({"metadata", "validity_daily"})
"""Text columns holding JSON, compared as parsed values."""

CHANGES = Schema(
    "changes",
    "One row per changed value between two snapshots; an added or removed row is one row "
    "whose ``after`` or ``before`` holds the whole row as JSON.",
    (
        Column("kind", "category", "frame kind of the row", FRAME_NAMES),
        text("key", "the row's ID, or its composite key as parts joined by '/' (NA part: '-')"),
        Column("change", "category", "added, removed or changed", CHANGE_KINDS),
        text("column", "the changed column (NA for an added or removed row)"),
        text("before", "old value as text (a removed row: the row as JSON; NA: missing)"),
        text("after", "new value as text (an added row: the row as JSON; NA: missing)"),
    ),
)
"""The declared schema of ``SnapshotDiff.changes``."""


@cache
def _empty_changes() -> pd.DataFrame:
    return CHANGES.empty()


def _no_changes() -> pd.DataFrame:
    """A fresh empty changes frame (built once, copied)."""
    return _empty_changes().copy()


_S = TypeVar("_S", bound=Frames)
"""The snapshots compared (``ProgramSnapshot``; this module reads them through ``Frames``,
not importing the model, which imports this module for ``ProgramSnapshot.diff``)."""

FindingsBetween = Callable[[_S, _S], pd.DataFrame]
"""Audit findings that appeared, changed and were resolved from the first snapshot to the second."""

_FINDINGS: list[FindingsBetween[Any]] = []


def use_findings(between: FindingsBetween[Any]) -> None:
    """Make ``between`` the source of the deprecated ``SnapshotDiff.findings`` (the audit
    package calls this on import; both go in 0.5.0)."""
    _FINDINGS[:] = [between]


def _findings(diff: SnapshotDiff[Any]) -> pd.DataFrame:
    """What the deprecated ``SnapshotDiff.findings`` returns (computed once per diff)."""
    if diff._findings_frame is None:
        between = diff._findings_between or (_FINDINGS[0] if _FINDINGS else None)
        if between is None:
            raise RuntimeError(
                "diff.findings runs the audit rules, which this package cannot import: call "
                "lyt_toolkit.audit.findings_between(diff.before, diff.after) instead"
            )
        diff._findings_frame = between(diff.before, diff.after)
    return diff._findings_frame


class SnapshotDiff(Generic[_S]):
    """The changes from ``before`` to ``after``: ``changes`` and ``summary()``.

    The audit findings that changed between the two are
    ``lyt_toolkit.audit.findings_between(diff.before, diff.after)``.

    ``len(diff)`` is the number of change rows; a diff is true when anything changed.
    ``left_out`` names the kinds not compared (a sample on either side: ``MEMBER_KINDS``; a
    kind only one side holds) and ``note`` says why (None when every kind was compared).
    """

    def __init__(
        self,
        before: _S,
        after: _S,
        changes: pd.DataFrame,
        findings_between: FindingsBetween[_S] | None = None,
        *,
        left_out: tuple[str, ...] = (),
    ) -> None:
        self.before = before
        self.after = after
        self.changes = changes
        self.left_out = left_out
        self.note = _note(before, after, left_out)
        self._findings_between = findings_between
        self._findings_frame: pd.DataFrame | None = None

    def __len__(self) -> int:
        return len(self.changes)

    def __bool__(self) -> bool:
        return len(self.changes) > 0

    def __repr__(self) -> str:
        note = "" if self.note is None else f"; {self.note}"
        return (
            f"SnapshotDiff({self.before.pulled_at} -> {self.after.pulled_at},"
            f" {figure(len(self))} changes{note})"
        )

    def summary(self) -> pd.DataFrame:
        """Rows added, removed and changed and values changed, per kind and in ``total``.

        A kind left out (``left_out``) has NA counts: it was not compared, which is not the
        same as unchanged."""
        c = self.changes
        rows = c.drop_duplicates(["kind", "change", "key"])
        counts = pd.crosstab(rows["kind"], rows["change"], dropna=False)
        counts = counts.reindex(index=list(FRAME_NAMES), columns=list(CHANGE_KINDS), fill_value=0)
        values = c[c["change"] == "changed"].groupby("kind", observed=False).size()
        counts["changed_values"] = values.reindex(counts.index, fill_value=0)
        counts = counts.astype("int64")
        counts.loc["total"] = counts.sum(axis=0)
        if self.left_out:
            counts = counts.astype("Int64")
            counts.loc[list(self.left_out)] = pd.NA
        counts.index.name = "kind"
        counts.columns.name = None
        return counts

    findings = deprecated_attribute(
        deprecation("lyt_toolkit.snapshot.SnapshotDiff.findings"), _findings
    )
    """Deprecated: ``lyt_toolkit.audit.findings_between(diff.before, diff.after)``. Audit
    findings that ``appeared``, ``changed`` or were ``resolved``; runs the audit on both
    snapshots the first time it is read, with the comparison ``findings_between`` (given to
    the constructor) or the one importing ``lyt_toolkit.audit`` registered."""

    def to_csv(self, path: str | Path) -> Path:
        """Write ``changes`` as a CSV in the snapshot conventions (spreadsheet-safe text)."""
        out = Path(path)
        write_csv(self.changes, out)
        return out


def compare(
    before: _S,
    after: _S,
    *,
    ignore: Iterable[str] = DEFAULT_IGNORE,
    aligned: Mapping[str, KeyAlignment] | None = None,
) -> SnapshotDiff[_S]:
    """The ``SnapshotDiff`` from ``before`` to ``after``, leaving out the ``ignore`` columns.

    ``aligned`` holds kinds already lined up by ``align`` on these very frames (a caller
    that checked the keys first): their keys are not computed again.

    When either snapshot is a sample, ``MEMBER_KINDS`` are left out (see ``SnapshotDiff.note``);
    ``ValueError`` when the snapshots hold nothing else to compare."""
    skip = _checked_ignore(ignore)
    known = aligned or {}
    sampled = before.sample is not None or after.sample is not None
    unmatched = before.kinds ^ after.kinds
    left_out = tuple(k for k in FRAME_NAMES if k in unmatched or (sampled and k in MEMBER_KINDS))
    if sampled and not (before.kinds | after.kinds) - set(MEMBER_KINDS):
        raise ValueError(
            f"nothing to compare: {_which_sampled(before, after)}, so its cards and pending "
            "buckets are those of its sampled members only, and neither snapshot holds another "
            "kind; compare two full pulls (ProgramSnapshot.pull without sample=)"
        )
    parts = [
        _kind_changes(kind, getattr(before, kind), getattr(after, kind), skip, known.get(kind))
        for kind in FRAME_NAMES
        if kind not in left_out
    ]
    changes = pd.concat([p for p in parts if len(p)] or [_no_changes()], ignore_index=True)
    changes = CHANGES.conform(changes).reset_index(drop=True)
    return SnapshotDiff(before, after, changes, left_out=left_out)


def _which_sampled(before: Frames, after: Frames) -> str:
    """Which side is a sample, and of how many members, in words."""
    sides = [(n, s.sample) for n, s in (("before", before), ("after", after))]
    named = [f"the {name} snapshot is a {design}" for name, design in sides if design is not None]
    return " and ".join(named)


def _note(before: Frames, after: Frames, left_out: tuple[str, ...]) -> str | None:
    """Why ``left_out`` was not compared (None when every kind was)."""
    # A sample on either side leaves its member kinds out whichever side holds them (a
    # sample's drift does not pull them again): that is the reason to give for them.
    a_sample = before.sample is not None or after.sample is not None
    sampled = [k for k in left_out if a_sample and k in MEMBER_KINDS]
    unmatched = [k for k in left_out if k not in sampled]
    notes = []
    if sampled:
        notes.append(
            f"{' and '.join(sampled)} not compared: {_which_sampled(before, after)}, holding "
            "them only for its sampled members, so a row it lacks was not read, not deleted "
            "(compare two full pulls for them)"
        )
    if unmatched:
        notes.append(
            f"{', '.join(unmatched)} not compared: only one of the snapshots holds them (the "
            "other was pulled with kinds= without them)"
        )
    return "; ".join(notes) or None


def _checked_ignore(ignore: Iterable[str]) -> frozenset[str]:
    if isinstance(ignore, str):
        ignore = (ignore,)
    skip = frozenset(ignore)
    known = {c.name for s in SCHEMAS.values() for c in s.columns}
    unknown = sorted(skip - known)
    if unknown:
        raise ValueError(f"ignore: no frame has the columns {unknown}")
    keys = sorted(skip & {k for parts in KEYS.values() for k in parts})
    if keys:
        raise ValueError(f"ignore: {keys} identify rows and cannot be ignored")
    return skip


def row_keys(kind: str, frame: pd.DataFrame) -> pd.Series[str]:
    """Each row's key as one string; a repeated key gets ``#2``, ``#3``... in row order."""
    return _keys(kind, frame)[0]


def _keys(kind: str, frame: pd.DataFrame) -> tuple[pd.Series[str], pd.Index, np.ndarray[Any, Any]]:
    """``row_keys``, the same keys as an index (its hash table built once, for lookups),
    and where a row's key repeats an earlier row's."""
    missing = [c for c in KEYS[kind] if c not in frame.columns]
    if missing:
        raise ValueError(f"{kind}: the frame lacks its key columns {missing}")
    parts = [_key_text(frame[c]) for c in KEYS[kind]]
    keys = parts[0]
    for part in parts[1:]:
        keys = keys + KEY_SEPARATOR + part
    keys = keys.reset_index(drop=True)
    index = pd.Index(keys)
    if index.is_unique:  # the usual case: the lookup's hash table answers it
        return keys, index, np.zeros(len(keys), dtype=bool)
    seen = keys.groupby(keys).cumcount()
    repeated = (seen > 0).to_numpy()
    keys = keys.where(~repeated, keys + "#" + (seen + 1).astype("str"))
    return keys, pd.Index(keys), repeated


@dataclass(frozen=True, eq=False)
class KeyAlignment:
    """One kind's rows lined up by key between two frames, by position."""

    before_keys: pd.Series[str]
    after_keys: pd.Series[str]
    before_index: pd.Index
    """``before_keys`` as an index: its hash table finds a key's row in ``before``."""
    at_after: np.ndarray[Any, Any]
    """Each ``before`` row's position in ``after``; -1: the row was removed."""
    at_before: np.ndarray[Any, Any]
    """Each ``after`` row's position in ``before``; -1: the row was added."""
    repeated_after: np.ndarray[Any, Any]
    """Where an ``after`` row's key repeats an earlier row's (its key got ``#2``...)."""


def align(kind: str, before: pd.DataFrame, after: pd.DataFrame) -> KeyAlignment:
    """The rows of ``before`` and ``after`` lined up by their keys (``KEYS``)."""
    before_keys, before_index, _ = _keys(kind, before)
    after_keys, after_index, repeated = _keys(kind, after)
    return KeyAlignment(
        before_keys,
        after_keys,
        before_index,
        after_index.get_indexer(before_index),
        before_index.get_indexer(after_index),
        repeated,
    )


def _key_text(column: pd.Series[Any]) -> pd.Series[str]:
    text = column.astype("str")
    present = column.notna()
    return text if present.all() else text.where(present, "-")  # a key is seldom blank


def _kind_changes(
    kind: str,
    before: pd.DataFrame,
    after: pd.DataFrame,
    skip: frozenset[str],
    aligned: KeyAlignment | None = None,
) -> pd.DataFrame:
    """The change rows of one kind."""
    if before.empty and after.empty:
        return _no_changes()
    columns = [c for c in before.columns if c in after.columns and c not in skip]
    if _same_rows(kind, before, after, columns):  # the usual kind: no key lined up, no column
        return _no_changes()  # taken apart (equal frames hold equal keys in the same rows)
    rows = aligned or align(kind, before, after)
    before_keys, after_keys = rows.before_keys, rows.after_keys
    at_after, at_before = rows.at_after, rows.at_before
    removed, added = np.flatnonzero(at_after < 0), np.flatnonzero(at_before < 0)
    kept = np.flatnonzero(at_after >= 0)
    old = before.iloc[kept].reset_index(drop=True)
    new = after.iloc[at_after[kept]].reset_index(drop=True)
    kept_keys = before_keys.iloc[kept].reset_index(drop=True)
    parts = []
    if len(removed):  # an empty part costs as much to build as a short one
        parts.append(
            _whole_rows(kind, before_keys.iloc[removed], before.iloc[removed][columns], "removed")
        )
    if len(added):
        parts.append(_whole_rows(kind, after_keys.iloc[added], after.iloc[added][columns], "added"))
    for name in columns if len(kept) else ():
        changed = np.flatnonzero(_differs(old[name], new[name], json_text=name in JSON_COLUMNS))
        if len(changed):
            parts.append(
                _frame(
                    kind,
                    kept_keys.iloc[changed],
                    "changed",
                    name,
                    _as_text(old[name].iloc[changed]),
                    _as_text(new[name].iloc[changed]),
                )
            )
    found = [p for p in parts if len(p)]
    if not found:
        return _no_changes()
    out = pd.concat(found, ignore_index=True)
    order = {c: i for i, c in enumerate(CHANGE_KINDS)}
    position = {c: i for i, c in enumerate(columns)}
    out["_change"] = out["change"].map(order)
    out["_column"] = out["column"].map(position).fillna(-1)
    out = out.sort_values(["key", "_change", "_column"], kind="stable")
    return out.drop(columns=["_change", "_column"])


def _same_rows(kind: str, before: pd.DataFrame, after: pd.DataFrame, columns: list[str]) -> bool:
    """Whether the frames hold the same ``columns``, their keys among them, row for row (NA
    equals NA)."""
    if not set(KEYS[kind]) <= set(columns):  # refused by ``align``, naming the columns
        return False
    if len(before) != len(after):
        return False
    if not before.index.equals(after.index):  # labels are no part of a row (an edited CSV's
        before, after = before.reset_index(drop=True), after.reset_index(drop=True)  # from 1)
    if list(before.columns) == columns == list(after.columns):  # no copy without the others
        return bool(before.equals(after))
    return bool(before[columns].equals(after[columns]))


def _differs(old: pd.Series[Any], new: pd.Series[Any], *, json_text: bool) -> np.ndarray[Any, Any]:
    """Where two aligned columns hold different values (NA equals NA; categories by value)."""
    if old.equals(new):  # the usual case, decided in one pass (NA in the same places is equal)
        return np.zeros(len(old), dtype=bool)
    if _same_categories(old, new):  # compare codes: NA is code -1 on both sides
        return np.asarray(old.cat.codes.to_numpy() != new.cat.codes.to_numpy())
    old, new = _comparable(old), _comparable(new)
    missing_old, missing_new = old.isna().to_numpy(), new.isna().to_numpy()
    try:
        equal = (old == new).to_numpy(dtype=bool, na_value=False)
    except TypeError:  # dtypes that cannot be compared: compare their text
        equal = (old.astype("str") == new.astype("str")).to_numpy(dtype=bool, na_value=False)
    differs = ~(equal | (missing_old & missing_new))
    if json_text:
        both = np.flatnonzero(differs & ~missing_old & ~missing_new)
        if len(both):
            same = _json_equal(old.iloc[both], new.iloc[both])
            differs[both[same]] = False
    return differs


def _same_categories(old: pd.Series[Any], new: pd.Series[Any]) -> bool:
    a, b = old.dtype, new.dtype
    return (
        isinstance(a, pd.CategoricalDtype)
        and isinstance(b, pd.CategoricalDtype)
        and a.categories.equals(b.categories)
    )


def _comparable(column: pd.Series[Any]) -> pd.Series[Any]:
    """Categoricals as their values' text, so two category lists never stop a comparison."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        return column.astype("str").where(column.notna(), None)
    return column


def _json_equal(old: pd.Series[Any], new: pd.Series[Any]) -> np.ndarray[Any, Any]:
    """Cell by cell, whether two JSON texts hold the same value (text that is not JSON: as text)."""
    return np.array([_parsed(a) == _parsed(b) for a, b in zip(old, new, strict=True)], dtype=bool)


def _parsed(value: str) -> Any:
    try:
        return json.loads(value)
    except ValueError:
        return value


def _as_text(column: pd.Series[Any]) -> pd.Series[Any]:
    """Values as text: instants in ISO 8601 UTC with ``Z``, NA kept as NA."""
    if isinstance(column.dtype, pd.DatetimeTZDtype) or str(column.dtype) == DATETIME:
        out = column.dt.tz_convert("UTC").dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    else:
        out = column.astype("str")
    return out.where(column.notna(), None).reset_index(drop=True)


def _whole_rows(kind: str, keys: pd.Series[str], rows: pd.DataFrame, change: str) -> pd.DataFrame:
    """One change row per added or removed row, the row itself as JSON text."""
    if not len(rows):
        return _no_changes()
    lines = rows.to_json(
        orient="records", lines=True, date_format="iso", date_unit="us", force_ascii=False
    )
    # pandas escapes every "/" as "\/" (valid JSON, but hard to read): undo it
    as_json = pd.Series(lines.rstrip("\n").split("\n"), dtype="str").str.replace(
        "\\/", "/", regex=False
    )
    missing = pd.Series([None] * len(rows), dtype="str")
    before, after = (as_json, missing) if change == "removed" else (missing, as_json)
    return _frame(kind, keys, change, None, before, after)


def _frame(
    kind: str,
    keys: pd.Series[str],
    change: str,
    column: str | None,
    before: pd.Series[Any],
    after: pd.Series[Any],
) -> pd.DataFrame:
    n = len(keys)
    return pd.DataFrame(
        {
            "kind": [kind] * n,
            "key": keys.to_numpy(),
            "change": [change] * n,
            "column": [column] * n,
            "before": before.to_numpy(),
            "after": after.to_numpy(),
        }
    )
