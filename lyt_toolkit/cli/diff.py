"""``lyt diff OLD_DIR NEW_DIR [--out FILE]``: what changed between two exported snapshots.

Either folder may hold a CSV export (``lyt export``, ``to_csv``) or a Parquet
one (``to_parquet``). Prints the counts per kind, the first changes one per line
(kind, ID, column, before -> after) and the audit findings that appeared, changed or
were resolved; ``--out`` writes every change as CSV. Changes are
data, not failures: the exit code is 0 whenever the diff ran.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from .._text import figure
from ..errors import LytError
from ._common import EXIT_OK, fail, scrub

if TYPE_CHECKING:
    import pandas as pd

    from ..snapshot import SnapshotDiff

__all__ = ["change_lines", "diff", "format_diff", "write_changes"]

COMMAND = "lyt diff"
MAX_FINDINGS_SHOWN = 20
MAX_CHANGES_SHOWN = 20
"""Changes printed one per line; ``--out`` writes them all."""
MAX_VALUE_SHOWN = 60
"""Characters of a value printed in a change line."""


def diff(args: argparse.Namespace) -> int:
    """Read both folders, diff them, print the summary and write ``--out``."""
    from ..snapshot import read_snapshot

    try:
        old, new = read_snapshot(args.old), read_snapshot(args.new)
    except (LytError, OSError) as exc:
        return fail(COMMAND, str(exc))
    changes = old.diff(new)
    print(format_diff(changes))
    problem = write_changes(changes, args.out)
    return EXIT_OK if problem is None else fail(COMMAND, problem)


def write_changes(changes: SnapshotDiff, out: str | None) -> str | None:
    """Write every change to ``out`` as CSV (nothing when None) and say where; the reason
    it could not, else None."""
    if not out:
        return None
    path = Path(out).expanduser()
    try:
        changes.to_csv(path)
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    print(f"\n{figure(len(changes))} changes written to {path.resolve()}")
    return None


def format_diff(changes: SnapshotDiff) -> str:
    """The printed diff: both pull times, counts per kind (of the kinds either snapshot
    holds), the first changes one per line, findings that appeared, changed or resolved."""
    import warnings

    from ..audit import findings_between

    before, after = changes.before, changes.after
    summary = changes.summary()
    held = [kind for kind in summary.index if kind in before.kinds | after.kinds]
    lines = [
        f"Changes from {before.pulled_at:%Y-%m-%d %H:%M:%S} UTC "
        f"to {after.pulled_at:%Y-%m-%d %H:%M:%S} UTC: {figure(len(changes))} changes",
        "",
        summary.loc[[*held, "total"]].to_string(),
    ]
    if changes.note is not None:
        lines += ["", f"Note: {changes.note}"]
    if changes:
        lines += ["", *change_lines(changes.changes)]
    with warnings.catch_warnings():  # the rules left out are printed below instead
        warnings.simplefilter("ignore", UserWarning)
        findings = findings_between(before, after)
    counts = findings["change"].value_counts()
    left_out = findings.attrs.get("left_out", ())
    lines += [
        "",
        f"Audit findings: {figure(counts.get('appeared', 0))} appeared, "
        f"{figure(counts.get('changed', 0))} changed, {figure(counts.get('resolved', 0))} resolved"
        + (f" (rules left out: {', '.join(left_out)})" if left_out else ""),
    ]
    for f in findings.head(MAX_FINDINGS_SHOWN).itertuples(index=False):
        was = f" (was: {f.previous_message})" if f.change == "changed" else ""
        lines.append(f"  {f.change:<8} {f.resource_id}: {f.message}{was}  [{f.rule}]")
    if len(findings) > MAX_FINDINGS_SHOWN:
        lines.append(f"  ... and {figure(len(findings) - MAX_FINDINGS_SHOWN)} more")
    return "\n".join(lines)


def change_lines(changes: pd.DataFrame, limit: int = MAX_CHANGES_SHOWN) -> list[str]:
    """The first ``limit`` rows of a diff's ``changes``, one line each: the change, kind, key,
    then a changed value's column and ``before -> after`` (an added or removed row's name);
    then how many more there are."""
    lines = [
        f"  {c.change:<8} {c.kind} {c.key}" + _what(c.change, c.column, c.before, c.after)
        for c in changes.head(limit).itertuples(index=False)
    ]
    if len(changes) > limit:
        lines.append(f"  ... and {figure(len(changes) - limit)} more")
    return lines


def _what(change: object, column: object, before: object, after: object) -> str:
    """A changed value as `` column: before -> after``; an added or removed row's name."""
    if change == "changed":
        return f" {column}: {_shown(before)} -> {_shown(after)}"
    row = json.loads(str(after if change == "added" else before))
    name = row.get("name") if isinstance(row, dict) else None
    return "" if name is None else f" ({_shown(name)})"


def _shown(value: object, width: int = MAX_VALUE_SHOWN) -> str:
    """A value on one line: NA as ``NA``, characters that are not printable escaped, any
    secret masked (``scrub``), and cut at ``width`` characters."""
    import pandas as pd

    if value is None or value is pd.NA:  # the changes frame's text is string-typed
        return "NA"
    text = str(value)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    text = scrub(text)
    return text if len(text) <= width else text[: width - 3] + "..."
