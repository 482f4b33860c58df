"""``lyt diff OLD_DIR NEW_DIR [--out FILE]``: what changed between two exported snapshots.

Either folder may hold a CSV export (``lyt export``, ``to_csv``) or a Parquet
one (``to_parquet``). Prints the counts per kind and the audit findings that
appeared, changed or were resolved; ``--out`` writes every change as CSV. Changes are
data, not failures: the exit code is 0 whenever the diff ran.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import LytError

if TYPE_CHECKING:
    from ..snapshot import SnapshotDiff

__all__ = ["diff", "format_diff", "write_changes"]

EXIT_OK = 0
MAX_FINDINGS_SHOWN = 20
EXIT_CANNOT_RUN = 2


def diff(args: argparse.Namespace) -> int:
    """Read both folders, diff them, print the summary and write ``--out``."""
    from ..snapshot import read_snapshot

    try:
        old, new = read_snapshot(args.old), read_snapshot(args.new)
    except (LytError, OSError) as exc:
        return _fail(str(exc))
    changes = old.diff(new)
    print(format_diff(changes))
    problem = write_changes(changes, args.out)
    return EXIT_OK if problem is None else _fail(problem)


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
    print(f"\n{len(changes)} changes written to {path.resolve()}")
    return None


def format_diff(changes: SnapshotDiff) -> str:
    """The printed diff: both pull times, counts per kind, findings that appeared, changed or
    resolved."""
    import warnings

    from ..audit import findings_between

    before, after = changes.before, changes.after
    lines = [
        f"Changes from {before.pulled_at:%Y-%m-%d %H:%M:%S} UTC "
        f"to {after.pulled_at:%Y-%m-%d %H:%M:%S} UTC: {len(changes)} changes",
        "",
        changes.summary().to_string(),
    ]
    if changes.note is not None:
        lines += ["", f"Note: {changes.note}"]
    with warnings.catch_warnings():  # the rules left out are printed below instead
        warnings.simplefilter("ignore", UserWarning)
        findings = findings_between(before, after)
    counts = findings["change"].value_counts()
    left_out = findings.attrs.get("left_out", ())
    lines += [
        "",
        f"Audit findings: {counts.get('appeared', 0)} appeared, "
        f"{counts.get('changed', 0)} changed, {counts.get('resolved', 0)} resolved"
        + (f" (per-member rules left out: {', '.join(left_out)})" if left_out else ""),
    ]
    for f in findings.head(MAX_FINDINGS_SHOWN).itertuples(index=False):
        was = f" (was: {f.previous_message})" if f.change == "changed" else ""
        lines.append(f"  {f.change:<8} {f.resource_id}: {f.message}{was}  [{f.rule}]")
    if len(findings) > MAX_FINDINGS_SHOWN:
        lines.append(f"  ... and {len(findings) - MAX_FINDINGS_SHOWN} more")
    return "\n".join(lines)


def _fail(reason: str) -> int:
    print(f"lyt diff: {reason}", file=sys.stderr)
    return EXIT_CANNOT_RUN
