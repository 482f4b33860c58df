"""``lyt plan --base SNAPSHOT_DIR --edited EDITED_DIR``: the plan an edited export makes.

The base is a snapshot folder (CSV or Parquet, checksums checked); the edited folder a
copy of a CSV export changed in a spreadsheet (``reports.read_edited_frames``). Prints
the plan (``print(plan)``) and, with ``--out PLAN_FILE``, saves it for ``lyt apply``;
nothing is sent. The exit code tells a script the answer
(``--detailed-exitcode`` semantics): 0 when there are no changes, 2 when there are
(changes the service cannot make included), 1 when the plan could not be made.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import LytError

__all__ = ["EXIT_CHANGES", "EXIT_ERROR", "EXIT_NO_CHANGES", "plan"]

EXIT_NO_CHANGES = 0
EXIT_ERROR = 1
EXIT_CHANGES = 2


def plan(args: argparse.Namespace) -> int:
    """Read both folders, plan from the base to the edited frames and print the plan."""
    from ..actions import ChangePlan
    from ..reports import read_edited_frames
    from ..snapshot import read_snapshot

    try:
        change_plan = ChangePlan.from_frames(
            read_snapshot(args.base), read_edited_frames(args.edited)
        )
    except (LytError, OSError) as exc:
        print(f"lyt plan: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(change_plan)
    if args.out:
        out = Path(args.out).expanduser()
        try:
            change_plan.save(out)
        except (LytError, OSError) as exc:
            print(f"lyt plan: cannot write {out}: {exc}", file=sys.stderr)
            return EXIT_ERROR
        print(f"\nPlan saved to {out.resolve()}; apply it with: lyt apply {out}")
    return EXIT_CHANGES if len(change_plan) else EXIT_NO_CHANGES
