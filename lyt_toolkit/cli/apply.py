"""``lyt apply PLAN_FILE [--sha256 HEX] [--allow-destroy] [--ignore-unsupported] [--refresh]
[--log FILE] [--budget-share SHARE] [--paced]``: apply a saved plan.

The plan file (``plan.save(path)``) is applied to the configured service. ``--sha256``
binds it to the file reviewed: a file whose bytes hash otherwise is refused before any call
(without it the file is trusted as it now reads). What the apply would refuse before its
re-read (a log of another service among it) is refused before anything is printed; then
the file and its sha256 and the summary are printed, with a ``Calls:`` line saying what the
service counts of the run (the summary's calls and the token request sent first), and the
objects it touches are re-read (the calls printed before), a stale plan is refused naming
each changed object, and the plan made again from the rows read is saved next to it for review
(``NAME.refreshed.json``, printed, with the ``lyt apply`` command applying exactly it:
applied while the service shows no call of the project since, it reads nothing again;
``--refresh`` instead plans again against the live state, reading it again). Of a plan
applied part way it holds only what is still to do: the plan's own writes made (its log's,
and those in doubt there the service shows made) drop out, creates too, as it is applied with
a log of its own. A file that cannot be written is named in the refusal. With ``--paced``,
where each chunk of writes is re-read just before it is sent, the file is saved (its command
with ``--paced``) when the stale chunk read every object left, all in this run, else the
refusal says why not and what each way on (running again, planning again from a fresh pull,
``--refresh``) costs in calls. ``--paced
--refresh`` re-plans a chunk of writes at a time from the rows just read and sends it, so a
run stopped and started again in each window writes in each. Deletes
need ``--allow-destroy``,
changes the service cannot make ``--ignore-unsupported``, and a plan applied to completion
refuses to apply again. The action log (default:
``PLAN_FILE.log.jsonl``) lets an interrupted apply, even a killed one, finish: what it
made is neither stale nor sent twice, and an object it wrote every change to is not
re-read. The re-read and the writes keep to ``--budget-share``
of the calls left in the window (default 0.5), or the apply is refused before them; with
``--paced`` they keep to that share of every window instead, waiting for each reset however
long, so a plan of any size is applied (its billing cycle's share still bounds it). One
apply of a plan runs at a time: another is refused naming it. A refusal names these
options, never the Python keywords. Exit code: 0 applied, 1 refused, failed or not run,
130 stopped with Ctrl-C, 143 with SIGTERM (once the writes in flight are answered and logged;
the same command resumes). A plan with no change to send (none, or only changes the service
cannot make, with ``--ignore-unsupported``) is applied, saying ``Applied: nothing, the plan
has no change to send``: exit code 0. After its outcomes it says what the command sent (its
check's token request, the re-read, the writes and any retries) and the window its last
answer told, as ``lyt export`` does: ``API calls used: N; remaining this window: R of L;
resets at T``. An apply that leaves changes not made says what makes them: running again,
but for writes the service refused for good (logged final: not sent again) planning again or
``--refresh``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from .._collector import start_up
from .._progress import display
from .._text import counted, figure
from ..errors import LytError
from ._common import (
    EXIT_APPLIED,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    cli_words,
    fail,
    item_lines,
    scrub,
)
from ._pull import connected_client, share_option

if TYPE_CHECKING:
    import pandas as pd

    from ..actions.cost import PlanCost

__all__ = ["EXIT_APPLIED", "EXIT_ERROR", "apply"]

COMMAND = "lyt apply"


class _Keywords(TypedDict):
    """The keywords of ``SavedPlan.apply`` (and ``check_apply``) ``lyt apply`` sets."""

    refresh: bool
    allow_destroy: bool
    ignore_unsupported: bool
    sha256: str | None
    paced: bool


_OPTIONS = {
    "allow_destroy": "--allow-destroy",
    "ignore_unsupported": "--ignore-unsupported",
    "refresh": "--refresh",
    "paced": "--paced",
}
"""The keywords of ``SavedPlan.apply`` a refusal may name, as ``lyt apply`` takes them."""


def apply(args: argparse.Namespace) -> int:
    """Load the plan, connect, re-read what it touches and apply it."""
    with start_up():  # see start_up
        from ..actions import ChangePlan
        from ..actions.change_plan import reread_line
        from ..actions.ledger import COMPLETE, refused_for_good
        from ..actions.logged import default_log
        from ..actions.reviewed import checked_sha256
        from ..actions.touched import StalePlanError
        from ..fill.pace_run import paced_run
        from ..snapshot.cost import budget_text

    try:
        reviewed = None if args.sha256 is None else checked_sha256(args.sha256, "--sha256")
    except ValueError as exc:
        return fail(COMMAND, str(exc), EXIT_ERROR)
    try:
        plan = ChangePlan.load(args.plan)
    except (LytError, OSError) as exc:  # a file may quote a token planted in it: masked
        return fail(COMMAND, scrub(str(exc)), EXIT_ERROR)
    try:
        share = share_option(args.budget_share)
    except ValueError as exc:
        return fail(COMMAND, str(exc), EXIT_ERROR)
    log = Path(args.log) if args.log else default_log(plan.path)
    try:
        # its check's token request and its apply one run's: neither says it sent earlier
        with connected_client(False) as client, paced_run():
            options = _Keywords(
                refresh=bool(args.refresh),
                allow_destroy=bool(args.allow_destroy),
                ignore_unsupported=bool(args.ignore_unsupported),
                sha256=reviewed,
                paced=bool(args.paced),
            )
            # what apply refuses before the re-read (a log of another service too), refused
            # before anything is printed: no count from a log that is not this service's
            cost = plan.check_apply(client, log=log, budget_share=share, **options)
            print(_applying(plan.path, plan.sha256, reviewed is not None))
            print(plan.summary(log=log))  # a resumed apply's: what its log leaves
            if args.paced and not cost.fits:  # "short" above: not refused, paced
                print(_paced_line(cost))
            if cost.needed and client.holds_token:  # its check fetched the token
                print(_counted_line(cost, waits=bool(args.paced) and not cost.fits))
            # A paced apply may run for hours: its bars (where one can be seen) say how far,
            # and apply prints the re-read's line there itself.
            shown = bool(args.paced)
            if not (shown and display() is not None):
                print(
                    reread_line(
                        plan,
                        client,
                        log,
                        paced=args.paced,
                        refresh=args.refresh,
                        budget_share=share,
                    )
                )
            if args.refresh:  # the summary above is the saved plan's, not what is applied
                print("--refresh: the plan is made again from the live state just read (a change")
                print("already made drops out), so what is applied may differ from the above:")
            results = plan.apply(client, log=log, progress=shown, budget_share=share, **options)
            quota = client.quota  # what the command sent, and the window its last answer told
            spent = f"API calls used: {figure(quota.calls_used)}; " + budget_text(
                quota.remaining, quota.limit, quota.resets_at
            )
    except StalePlanError as exc:
        if exc.replanned is not None:  # the review, before the command applying it
            _show_replanned(exc.replanned)
        return fail(COMMAND, cli_words(scrub(_lines(str(exc))), _OPTIONS), EXIT_ERROR)
    except LytError as exc:
        return fail(COMMAND, cli_words(scrub(" ".join(str(exc).split())), _OPTIONS), EXIT_ERROR)
    except OSError as exc:  # the log or the plan's record cannot be read or written
        return fail(COMMAND, _file_error(exc, log), EXIT_ERROR)
    except KeyboardInterrupt:  # the writes in flight were answered and logged first
        return fail(
            COMMAND,
            f"interrupted; run the same command again to resume from its log {log}",
            EXIT_INTERRUPTED,
        )
    print(_applied_line(results))
    print(spent)
    left = ~results["outcome"].isin(COMPLETE)
    if left.any():
        for line in item_lines(_cli_messages(results[left]), "Items not made:"):
            print(line)
        refused = int((left & refused_for_good(results)).sum())
        return fail(COMMAND, _not_made(int(left.sum()), refused, log), EXIT_ERROR)
    return EXIT_APPLIED


def _cli_messages(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` with each message as the command line words it (``cli_words``: a share
    beyond ``--budget-share``, not ``budget_share``)."""
    import pandas as pd

    messages = results["message"].map(lambda m: m if pd.isna(m) else cli_words(m, _OPTIONS))
    return results.assign(message=messages)


def _applied_line(results: pd.DataFrame) -> str:
    """``Applied: N OUTCOME, ...``, every outcome counted; a plan with no change to send
    (none, or only ones the service cannot make) says so."""
    if not len(results):
        return "Applied: nothing, the plan has no change to send"
    counts = results["outcome"].value_counts()
    return "Applied: " + ", ".join(f"{figure(n)} {outcome}" for outcome, n in counts.items())


def _not_made(left: int, refused: int, log: Path) -> str:
    """Why the apply ends with ``left`` changes not made (the lines above name them),
    ``refused`` of them refused for good (a run again does not send those), and what makes
    them: running again, planning again, ``--refresh``."""
    said = f"{counted(left, 'item')} not made, as the lines above say (every outcome in {log})"
    if not refused:
        return f"{said}; run again to resume"
    final = (
        f"{counted(refused, 'write')} the service refused for good, which running again does"
        " not send"
    )
    reconsider = "put right what refused them, then plan again from a fresh snapshot, or apply"
    if refused == left:
        return f"{said}: {final}; {reconsider} with --refresh, to reconsider them"
    return f"{said}; run again to resume the rest ({final}: {reconsider} with --refresh)"


def _show_replanned(path: Path) -> None:
    """Every line of the plan a stale apply re-planned and saved at ``path``: its review."""
    from ..actions import ChangePlan

    try:
        replanned = ChangePlan.load(path)
    except (LytError, OSError):
        return  # the refusal still names the file
    print(f"The plan made again from the state just read, saved to {path}:")
    print(replanned.to_string())


def _applying(path: Path, sha256: str, bound: bool) -> str:
    """``Applying PATH (sha256 HEX, ...)``: the file applied, and whether it was checked."""
    how = "the reviewed one" if bound else "not checked: --sha256 HEX refuses any other file"
    return f"Applying {path} (sha256 {sha256}, {how})"


def _paced_line(cost: PlanCost) -> str:
    """What ``--paced`` does with the calls this window's share does not hold."""
    return (
        f"--paced: the {counted(cost.shortfall, 'call')} beyond this window's share wait for"
        f" the next windows, {cost.share:g} of each"
    )


def _counted_line(cost: PlanCost, *, waits: bool) -> str:
    """What the service counts of this run: the ``cost`` above, after the token request its
    check sent, and, when it ``waits`` for the next windows, a token request in each."""
    line = (
        f"Calls: this run sends the {figure(cost.needed)} above, plus any retries; with its"
        f" token request, sent first, the service counts {figure(cost.needed + 1)}"
    )
    return f"{line}, and 1 more in each new window the run goes on into" if waits else line


def _file_error(exc: OSError, log: Path) -> str:
    """``[log ]FILE: REASON`` (``log`` when the file is the action log)."""
    if exc.filename is None:
        return str(exc)
    what = "log " if Path(exc.filename) == log else ""
    return f"{what}{exc.filename}: {exc.strerror}"


def _lines(message: str) -> str:
    """``message`` with the runs of blanks in each line made one, its lines and their
    indents kept (a stale refusal names an object a line)."""
    return "\n".join(
        line[: len(line) - len(line.lstrip())] + " ".join(line.split())
        for line in message.splitlines()
    )
