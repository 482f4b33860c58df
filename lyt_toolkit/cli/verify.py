"""``lyt verify PLAN_FILE --base SNAPSHOT_DIR [--budget-share SHARE] [--paced] [--log FILE]
[--out FILE]``: after ``lyt apply``, whether the service now holds what the plan meant.

The plan is rehearsed again on a local sandbox holding the snapshot it was made from
(``lyt rehearse``: no call to the service), then the configured service is read back, only
the objects the rehearsal changed or its items wrote to (``actions.verify_touched``: rewards
and benefits by ID, created benefits by name, a get per card definition and tier structure,
a member with its cards one read, a card's pending buckets its bucket list), and each change
is compared with the rehearsed one (``Rehearsal.verify``). The read-back's calls are printed
before it and keep to ``--budget-share`` of the window (refused before the first read
otherwise, naming ``--paced``, which waits for the reset instead, counting what the plan's
runs sent in the window, from its action log, against the same share; when the reads it
certainly sends, counted from the file and its base (``planned_reads``: of the objects the
plan's items write to and of the members whose cards its activations certainly change),
already do not fit, before the rehearsal, the refusal saying its count a lower bound by which
the ways it names are judged). Its scope is printed:
a change the service made to any other object is not seen.

Each item's outcome is compared with the rehearsal's, the apply's read from its action log
(``--log``, or ``PLAN_FILE.log.jsonl`` when it exists: ``actions.logged_results``, no call;
without one the outcomes are not compared, and it says so): refused in production, never sent
(the apply stopped or cancelled first) or made where the rehearsal refused it, an item is not
as rehearsed. A plan applied part way, then refused as stale, has the rest applied from its
plan for review (``NAME.refreshed.json``, its own log beside it: ``actions.review_log``,
bound to that file's sha256): an item the plan's log shows not sent or in doubt takes that
log's outcome, and the output says what that apply did of them: the writes it made
(succeeded), and those that failed (refused by the service) or are in doubt in it. A plan
for review refused as stale in turn has its own (``NAME.refreshed.refreshed.json``): the
chain is followed (``actions.review_logs``, each link bound to its file's sha256, at most
``MAX_REVIEWS``; a file beyond is named, to verify alone), a line for each. An item the
files for review left out (someone else made it since) stays not sent by the apply, said
so. Paced, the plan's log counts the read-back against the share as above: reading the
logs of its plans for review sends nothing, and their applies' calls count as the
project's other traffic.
Each change not as rehearsed names the outcome of the item writing to its row:
not as rehearsed, that is why; as rehearsed, the row changed otherwise since. Printed: the
verdict, the checks that are not as rehearsed one per line (the first ``MAX_CHECKS_SHOWN``);
``--out`` writes every check as CSV, with its ``item`` and ``item_outcome``. Exit code: 0
every change as rehearsed, 2 some not, 1 refused or could not run, 130 stopped with Ctrl-C,
143 with SIGTERM.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

from .._collector import start_up
from .._text import counted, figure
from ..errors import LytError
from ._common import (
    EXIT_ERROR,
    EXIT_NOT_AS_REHEARSED,
    EXIT_VERIFIED,
    cli_words,
    fail,
    scrub,
)
from ._pull import connected_client, read_or_fail, share_option
from ._rehearsed import load_or_fail, rehearsed_or_fail

if TYPE_CHECKING:
    import pandas as pd

    from ..actions import ActionLog, PlanCost, Rehearsal, SavedPlan, Verification
    from ..client import LoyaltyClient
    from ..snapshot import ProgramSnapshot

__all__ = ["EXIT_ERROR", "EXIT_NOT_AS_REHEARSED", "EXIT_VERIFIED", "verify"]

COMMAND = "lyt verify"
MAX_CHECKS_SHOWN = 20
"""Checks that are not as rehearsed, printed one per line; ``--out`` writes every one."""
MAX_VALUE_SHOWN = 60
"""Characters of an expected or actual value printed."""

_OPTIONS = {"paced": "--paced"}
"""The keywords of ``verify_touched`` a refusal may name, as ``lyt verify`` takes them."""


def verify(args: argparse.Namespace) -> int:
    """Rehearse the plan again, read back what it touched and compare."""
    with start_up():  # see start_up
        from ..actions import ActionLog, review_logs, verify_touched, verify_touched_cost
        from ..actions.logged import default_log

    try:
        share = share_option(args.budget_share)
    except ValueError as exc:
        return fail(COMMAND, str(exc), EXIT_ERROR)
    plan = load_or_fail(args.plan, COMMAND)
    if plan is None:
        return EXIT_ERROR
    log_path = Path(args.log) if args.log else default_log(plan.path)
    if args.log is not None and not log_path.is_file():
        return fail(COMMAND, f"--log {args.log}: no such action log", EXIT_ERROR)
    reviews = review_logs(plan.path)
    for note in (_applied_note(plan, log_path, reviews), _beyond_note(plan.path, reviews)):
        if note is not None:
            print(note)
    snapshot = read_or_fail(args.base, COMMAND)
    if snapshot is None:
        return EXIT_ERROR
    try:
        with connected_client(False) as client:
            if not args.paced:  # refused on budget before the rehearsal, when it can tell
                _refuse_planned(plan, snapshot, client, share)
            print(
                f"Rehearsing {plan.path} (sha256 {plan.sha256}) again on a sandbox holding the"
                f" snapshot saved in {args.base}, to know what the apply should have made: no"
                " call to the service"
            )
            done = rehearsed_or_fail(plan, args.base, COMMAND, snapshot=snapshot)
            if done is None:
                return EXIT_ERROR
            cost = verify_touched_cost(done.rehearsal, client, budget_share=share)
            # paced, the apply's log counts its runs' calls in the window (none: not applied)
            log = ActionLog(log_path, plan=plan.sha256) if log_path.is_file() else None
            paced_log = args.paced and log is not None
            try:
                results = _logged(done.rehearsal, log, log_path, client, reviews)
                cost_text = _cost_text(cost, args.paced, paced_log)
                print(f"Reading back what the rehearsal changed: {cost_text}")
                verification = verify_touched(
                    done.rehearsal,
                    client,
                    results=results,
                    budget_share=share,
                    paced=args.paced,
                    log=log if paced_log else None,
                )
            finally:
                for opened in (log, *reviews):
                    if opened is not None:
                        opened.close()
    except (LytError, OSError, ValueError) as exc:
        return fail(COMMAND, cli_words(scrub(" ".join(str(exc).split())), _OPTIONS), EXIT_ERROR)
    print(f"{verification!r}")
    if not verification.ok:
        print()
        print("\n".join(_check_lines(verification.problems)))
    problem = _write_checks(verification, args.out)
    if problem is not None:
        return fail(COMMAND, problem, EXIT_ERROR)
    return EXIT_VERIFIED if verification.ok else EXIT_NOT_AS_REHEARSED


def _refuse_planned(
    plan: SavedPlan, snapshot: ProgramSnapshot, client: LoyaltyClient, share: float
) -> None:
    """``BudgetExceededError`` when the reads the read-back certainly sends (``planned_reads``:
    known from the file and its base, a lower bound of the read-back's) already do not fit
    ``share`` of the window: the rehearsal, long at scale, is then not waited for. The ways
    the refusal names are judged by that bound, and it says so."""
    from ..actions.cost import PlanCost, learn_budget
    from ..actions.verify_touched import planned_reads

    learn_budget(client)  # its token, which the read-back sends first anyway
    cost = PlanCost.for_client(planned_reads(snapshot, plan.parts).calls, client, share)
    if not cost.fits:
        what = (
            f"verifying {plan.path} (at least {counted(cost.needed, 'read')}, counted from the"
            " plan file and its base before rehearsing it: those of the objects its items write"
            " to and of the members whose cards its activations certainly change; the"
            " rehearsal may add reads of what its other changes reach, so a way below judged"
            " by this count can still be refused after it)"
        )
        raise cost.refusal(what, partial=False, paced=True, resumable=False)


def _cost_text(cost: PlanCost, paced: bool, paced_log: bool) -> str:
    """The read-back's calls and budget (not paced, an unknown one said so); paced, before a
    call has read the budget, what it does instead of keeping to a budget it knows."""
    if cost.remaining is not None or not paced:
        return str(cost)
    counting = ", counting what the plan's runs sent in the window (its log)" if paced_log else ""
    return (
        f"calls needed: {figure(cost.needed)}; paced: each window's budget is read with its"
        f" first call and {cost.share:g} of it sent{counting}, then it waits for the reset"
    )


def _applied_note(plan: SavedPlan, log_path: Path, reviews: list[ActionLog]) -> str | None:
    """What ``plan``'s record says of its apply when it shows none to completion (None when
    it does): the rest applied to completion from its plan for review (``reviews``: the logs
    of the chain of them, the last applied), every item done but the writes the service
    refused for good (its log: they are not sent again), or no record at all."""
    from ..actions.ledger import applied_marker

    if plan.applied_before() is not None:
        return None
    if reviews and _completed(reviews[-1]):
        reviewed = _file_of(reviews[-1])
        which = "its plan for review" if len(reviews) == 1 else "the last of its plans for review,"
        that = "that apply" if len(reviews) == 1 else "their applies"
        return (
            f"Note: {plan.path} has no record of an apply to completion; {which}"
            f" {reviewed}{',' if len(reviews) > 1 else ''} has ({applied_marker(reviewed)}):"
            f" what {that} made counts as this plan's"
        )
    if refused := _refused_for_good(plan, log_path):
        return (
            f"Note: the apply of {plan.path} went to its end but the service refused"
            f" {counted(refused, 'write')} for good ({log_path}): those the rehearsal made show as"
            " not as rehearsed"
        )
    return (
        f"Note: {plan.path} has no record of an apply to completion ({plan.applied_marker}):"
        " what was not applied shows as missing"
    )


def _beyond_note(path: Path, reviews: list[ActionLog]) -> str | None:
    """What is said when the chain of plans for review goes on past the ``MAX_REVIEWS``
    followed (None when it does not): the file whose apply's outcomes are not read."""
    from ..actions.logged import MAX_REVIEWS, review_path

    beyond = review_path(_file_of(reviews[-1])) if len(reviews) == MAX_REVIEWS else None
    if beyond is None or not beyond.is_file():
        return None
    return (
        f"Note: {path}'s plans for review go on past the {MAX_REVIEWS} followed, to {beyond}:"
        f" what its apply (and any after it) made is not read here; lyt verify {beyond}"
        " --base with the same base verifies it alone"
    )


def _file_of(review: ActionLog) -> Path:
    """The plan for review whose apply ``review`` (its action log) recorded."""
    from ..actions.logged import plan_of_log

    return plan_of_log(review.path)


def _completed(review: ActionLog) -> bool:
    """Whether the plan for review whose log is ``review`` was applied to completion."""
    from ..actions.ledger import applied_record

    return review.plan is not None and applied_record(_file_of(review), review.plan) is not None


def _refused_for_good(plan: SavedPlan, log_path: Path) -> int:
    """The writes the plan's action log shows refused for good when it shows every other
    item done (an apply gone to its end), else 0."""
    from ..actions import ActionLog

    if not log_path.is_file():
        return 0
    refused = 0
    with ActionLog(log_path, plan=plan.sha256) as log:
        for part in plan.parts:
            state = log.state(part.action)
            targets = {str(item.target) for item in part.items}
            if not targets <= state.succeeded.keys() | state.refused.keys():
                return 0
            refused += len(targets & state.refused.keys())
    return refused


def _logged(
    rehearsal: Rehearsal,
    log: ActionLog | None,
    path: Path,
    client: LoyaltyClient,
    reviews: list[ActionLog],
) -> pd.DataFrame | None:
    """The apply's results as its action log tells them (``logged_results``), said first;
    None, said, without a log. With the logs of its plans for review (``reviews``, each of
    the file before), what each of their applies did of the items still not sent or in doubt
    is said (made, failed, in doubt), and the items none sent. A log of another service or
    project is refused (nothing sent): what it shows done was not done here."""
    from ..actions import logged_results
    from ..actions.log import refuse_foreign
    from ..actions.logged import sourced_results

    if log is None:
        print(f"No action log at {path}: the items' outcomes are not compared")
        return None
    refuse_foreign(log, client, ask=False)
    print(f"Comparing each item's outcome with the apply's, from its action log {path}")
    if not reviews:
        return logged_results(rehearsal, log)
    for review in reviews:
        refuse_foreign(review, client, ask=False)
    results, sources = sourced_results(rehearsal, log, review=reviews)
    lines = [
        f"and from the log of {whose}, {review.path}: {_taken(outcomes, _file_of(review).name)}"
        for whose, review, outcomes in _by_review(results, sources, reviews)
    ]
    if lines:
        print("\n".join(lines) + _unsent(results, reviews))
    return results


def _by_review(
    results: pd.DataFrame, sources: list[int | None], reviews: list[ActionLog]
) -> list[tuple[str, ActionLog, list[str]]]:
    """For each plan for review whose apply's log gave some item its outcome: whose plan for
    review it is (the plan's, or the file's before it), its log, and those outcomes."""
    taken = []
    for number, review in enumerate(reviews, start=1):
        outcomes = [o for o, s in zip(results["outcome"], sources, strict=True) if s == number]
        if outcomes:
            whose = "its" if number == 1 else f"{_file_of(reviews[number - 2]).name}'s"
            taken.append((f"{whose} plan for review", review, outcomes))
    return taken


def _taken(outcomes: list[str], name: str) -> str:
    """What an apply of the plan for review ``name`` did of the items whose ``outcomes`` its
    log gave, in verify's outcome words: the writes it made (``succeeded``), and those
    ``already_done``, ``failed`` (refused by the service) or ``in doubt`` in it."""
    from ..actions.logged import IN_DOUBT

    said = [f"{counted(outcomes.count('succeeded'), 'write')} made by {name}'s apply"]
    for outcome, words in (
        ("already_done", "already_done in it (found done)"),
        ("failed", "failed in it (refused by the service)"),
        (IN_DOUBT, f"{IN_DOUBT} (sent, its answer not logged)"),
    ):
        if found := outcomes.count(outcome):
            said.append(f"{figure(found)} {words}")
    return ", ".join(said)


def _unsent(results: pd.DataFrame, reviews: list[ActionLog]) -> str:
    """What is said of the items no apply sent: the last plan for review applied to
    completion, the files for review left them out (someone else changed their objects
    since: each holds them unsupported, as ``lyt verify`` of it shows); else they may still
    be to send."""
    from ..actions.logged import NOT_SENT

    unsent = int(results["outcome"].eq(NOT_SENT).sum())
    if not unsent:
        return ""
    one = unsent == 1
    by = "neither" if len(reviews) == 1 else f"none of the {len(reviews) + 1} applies"
    if not _completed(reviews[-1]):
        return f"; {counted(unsent, 'item')} sent by {by}{' apply' if len(reviews) == 1 else ''}"
    if len(reviews) == 1:
        reviewed = _file_of(reviews[0])
        left = f"{reviewed.name} left {'it' if one else 'them'} out"
        shows = f"lyt verify {reviewed} shows that"
    else:
        left = f"the files for review left {'it' if one else 'them'} out"
        shows = "lyt verify of each shows that"
    return (
        f"; {counted(unsent, 'item')} sent by {by}: {left}, someone else having changed"
        f" {'its object' if one else 'their objects'} since ({shows})"
    )


def _check_lines(problems: pd.DataFrame) -> list[str]:
    """The first checks that are not as rehearsed, one line each: status, kind, key, column,
    then the rehearsed value against the service's (an item's outcome: against the apply's),
    and the outcome of the item writing to the row, when the apply's is known: not as
    rehearsed, the reason; as rehearsed, the row changed otherwise since."""
    import pandas as pd

    from ..actions.rehearsal import OUTCOME

    outcome = problems["change"] == OUTCOME
    unlike = set(problems.loc[outcome, "item"].astype(str))
    lines = []
    for row in problems.head(MAX_CHECKS_SHOWN).to_dict("records"):
        if row["change"] == OUTCOME:
            lines.append(
                f"  {row['status']:<10} outcome {row['item']}: rehearsed"
                f" {_shown(row['expected'])}, the apply {_shown(row['actual'])}"
            )
            continue
        column = "" if pd.isna(row["column"]) else f" {row['column']}"
        lines.append(
            f"  {row['status']:<10} {row['change']} {row['kind']} {row['key']}{column}:"
            f" rehearsed {_shown(row['expected'])}, the service {_shown(row['actual'])}"
            f"{_why(row['item'], row['item_outcome'], unlike)}"
        )
    if len(problems) > MAX_CHECKS_SHOWN:
        lines.append(f"  ... and {counted(len(problems) - MAX_CHECKS_SHOWN, 'more check')}")
    return lines


def _why(item: object, outcome: object, unlike: set[str]) -> str:
    """What the outcome of the item writing to a row says of its check (nothing when the
    apply's is unknown)."""
    if not isinstance(item, str) or not isinstance(outcome, str):
        return ""
    if str(item) in unlike:
        return f"; item {_shown(item)}: {_shown(outcome)} in the apply"
    return f"; item {_shown(item)}: {_shown(outcome)} as rehearsed, the row changed otherwise since"


def _shown(value: object) -> str:
    """A value on one line, NA as ``NA``, any secret masked, cut at ``MAX_VALUE_SHOWN``."""
    import pandas as pd

    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "NA"
    text = scrub(" ".join(str(value).split()))
    return text if len(text) <= MAX_VALUE_SHOWN else text[: MAX_VALUE_SHOWN - 3] + "..."


def _write_checks(verification: Verification, out: str | None) -> str | None:
    """Every check written to ``out`` as CSV (nothing when None) and where said; the reason
    it could not, else None."""
    if not out:
        return None
    path = Path(out).expanduser()
    try:
        verification.checks.to_csv(path, index=False)
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    print(f"\n{counted(len(verification.checks), 'check')} written to {path.resolve()}")
    return None
