"""``lyt rehearse PLAN_FILE --base SNAPSHOT_DIR [--log FILE] [--out FILE]``: a saved plan run
on a copy of production first.

The plan file (``lyt plan --out``) is applied to a local sandbox holding the snapshot saved
in ``--base`` (``SavedPlan.rehearse``: its clock at the snapshot's pull time, its own
credentials), which is read again and stopped. Nothing is sent to the configured service,
which need not be configured. Printed: the outcome of each item as ``lyt apply`` counts
them (the items that would not be made one per line), the calls the run sent (its token
request among them) and those ``lyt apply`` sends on a service in the snapshot's state (the
same, after its re-read of the touched objects, which a rehearsal leaves out, plus any
retries; with ``--paced``, re-reading a chunk's objects before each chunk of writes, an
object several chunks need once for each: ``actions.calls_said``), then what the run
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

from .._collector import start_up
from .._text import counted, figure, tally
from ._common import EXIT_ERROR, EXIT_OK, fail, item_lines
from ._rehearsed import load_or_fail, rehearsed_or_fail
from .diff import format_diff, write_changes

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXIT_ERROR", "EXIT_OK", "outcome_line", "rehearse"]

COMMAND = "lyt rehearse"


def rehearse(args: argparse.Namespace) -> int:
    """Load the plan, rehearse it on the snapshot and print what it did and changed."""
    with start_up():  # see start_up
        from ..actions.calls_said import paced_reread
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
    chunked = None if log is not None else paced_reread(plan)
    print(_calls_line(rehearsal.calls, plan.reread_cost(log=log).needed, chunked))
    print()
    print(format_diff(rehearsal.diff))
    problem = write_changes(rehearsal.diff, args.out)
    if problem is not None:
        return fail(COMMAND, problem, EXIT_ERROR)
    left = results[~results["outcome"].isin(COMPLETE)]
    if len(left):
        for line in item_lines(left, "Items that would not be made:"):
            print(line)
        return fail(
            COMMAND,
            f"{counted(len(left), 'item')} would not be made; see the lines above",
            EXIT_ERROR,
        )
    return EXIT_OK


def _calls_line(sent: int, reread: int, chunked: int | None) -> str:
    """The calls the rehearsed run sent (its token request among them) and what ``lyt apply``
    sends on a service in the snapshot's state: those and, first, the re-read of the touched
    objects (``reread``); paced, its re-read a chunk at a time (``chunked``; None: not said,
    a resumed apply's depends on the live window)."""
    from ..actions.calls_said import paced_text

    line = (
        f"Calls the run sent: {figure(sent)} (its token request, the writes, any read back); lyt"
        f" apply sends {figure(sent + reread)} on a service in the snapshot's state: the same,"
        f" after re-reading the touched objects ({counted(reread, 'call')}), plus any retries"
    )
    if chunked is None or not reread:
        return line
    return f"{line}; {paced_text(sent + chunked, reread, chunked, budget_known=False)}"


def outcome_line(what: str, results: pd.DataFrame) -> str:
    """``WHAT: N succeeded, M failed`` (``nothing to do`` for no item): as ``lyt apply``."""
    return f"{what}: {tally(results['outcome'].value_counts().items()) or 'nothing to do'}"
