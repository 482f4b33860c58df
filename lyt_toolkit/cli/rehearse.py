"""``lyt rehearse PLAN_FILE --base SNAPSHOT_DIR [--log FILE] [--out FILE]``: a saved plan run
on a copy of production first.

The plan file (``lyt plan --out``) is applied to a local sandbox holding the snapshot saved
in ``--base`` (``SavedPlan.rehearse``: its clock at the snapshot's pull time, its own
credentials), which is read again and stopped. Nothing is sent to the configured service,
which need not be configured. Printed: the outcome of each item as ``lyt apply`` counts
them (the items that would not be made one per line), the calls the run sent (a real run
on a service in the snapshot's state sends the same, plus any retries), then what the run
changed as ``lyt diff`` shows it; ``--out`` writes every change as CSV. A snapshot lacking
a kind the plan needs, or a sampled one, is refused naming the ``lyt export`` that pulls one
to rehearse on. With ``--log`` (an interrupted apply's action log, copied, never written)
what it shows done is skipped, as ``lyt apply`` resuming from it would. Deletes and changes
the service cannot make are rehearsed as sent, not refused. Exit code: 0 every item was
made (or was already done), 1 some would not be or the rehearsal could not run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .._text import counted
from ._common import EXIT_ERROR, EXIT_OK, fail, scrub
from ._rehearsed import load_or_fail, rehearsed_or_fail
from .diff import format_diff, write_changes

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXIT_ERROR", "EXIT_OK", "outcome_line", "rehearse"]

COMMAND = "lyt rehearse"
MAX_ITEMS_SHOWN = 20
"""Items that would not be made, printed one per line."""


def rehearse(args: argparse.Namespace) -> int:
    """Load the plan, rehearse it on the snapshot and print what it did and changed."""
    from ..actions.ledger import COMPLETE

    plan = load_or_fail(args.plan, COMMAND)
    if plan is None:
        return EXIT_ERROR
    log = Path(args.log).expanduser() if args.log else None
    if log is not None and not log.is_file():
        return fail(COMMAND, f"--log {args.log}: no such action log", EXIT_ERROR)
    print(
        f"Rehearsing {plan.path} (sha256 {plan.sha256}) on a sandbox holding the snapshot saved"
        f" in {args.base}; nothing is sent to the service"
    )
    done = rehearsed_or_fail(plan, args.base, COMMAND, log)
    if done is None:
        return EXIT_ERROR
    rehearsal = done.rehearsal
    results = rehearsal.results
    print(outcome_line("Rehearsed", results))
    print(
        f"Calls the run sent: {rehearsal.calls} (a real run on a service in the snapshot's"
        " state sends the same, plus any retries)"
    )
    print()
    print(format_diff(rehearsal.diff))
    problem = write_changes(rehearsal.diff, args.out)
    if problem is not None:
        return fail(COMMAND, problem, EXIT_ERROR)
    left = results[~results["outcome"].isin(COMPLETE)]
    if len(left):
        for line in _item_lines(left):
            print(line)
        return fail(
            COMMAND,
            f"{counted(len(left), 'item')} would not be made; see the lines above",
            EXIT_ERROR,
        )
    return EXIT_OK


def outcome_line(what: str, results: pd.DataFrame) -> str:
    """``WHAT: N succeeded, M failed`` (``nothing to do`` for no item): as ``lyt apply``."""
    counts = results["outcome"].value_counts()
    shown = ", ".join(f"{n} {outcome}" for outcome, n in counts.items() if n)
    return f"{what}: {shown or 'nothing to do'}"


def _item_lines(left: pd.DataFrame) -> list[str]:
    """The items not made, one line each: call, target, outcome, status and message."""
    import pandas as pd

    lines = ["", "Items that would not be made:"]
    for row in left.head(MAX_ITEMS_SHOWN).to_dict("records"):
        status = "" if pd.isna(row["status"]) else f" {row['status']}"
        message = "" if pd.isna(row["message"]) else f": {row['message']}"
        call = f"{row['call']} " if "call" in row else ""
        lines.append(scrub(f"  {call}{row['target']}: {row['outcome']}{status}{message}"))
    if len(left) > MAX_ITEMS_SHOWN:
        lines.append(f"  ... and {len(left) - MAX_ITEMS_SHOWN} more")
    return lines
