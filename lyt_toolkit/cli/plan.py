"""``lyt plan --base SNAPSHOT_DIR --edited EDITED_DIR``: the plan an edited export makes.

The base is a snapshot folder (CSV or Parquet, checksums checked); the edited folder a
copy of a CSV export changed in a spreadsheet (``reports.read_edited_frames``). Prints
the plan as ``lyt apply`` will apply it (its calls count the re-read of the objects it
touches, then the writes) and, with ``--out PLAN_FILE``, saves it for ``lyt apply`` and
prints the file's sha256 and the ``lyt apply PLAN_FILE --sha256 HEX`` that applies exactly
that file.
A long plan is cut as ``print(plan)`` cuts it (pandas' ``display.max_rows`` and
``display.min_rows``: over 60 changes show the first and last 5), a line between counting
the rest and saying where they all are: the ``--out`` file. A ``Calls:`` line then says what
each count of its calls counts (``actions.calls_said``): ``lyt apply``'s (the summary's), a
paced one's (an object several chunks of writes need re-read for each, its chunks cut from
the window's share read, else of ``CHUNK_MOST`` writes), and the token request the service
counts beside them.
Nothing is written to the service. When a service is configured (``LYT_BASE_URL`` and
the key pair, in the environment or a ``.env`` file) one call, the token request, learns
the live budget, and the summary ends ``R left in this window (S at the plan's share,
0.5)``, with ``; K calls short`` when ``lyt apply`` would refuse it at its default share
(``budget unknown`` when the answers carry no budget; a failed read says why on stderr);
``--offline``, or no service configured, sends nothing and leaves the budget out.
The exit code tells a script the answer
(``--detailed-exitcode`` semantics): 0 when there are no changes, 2 when there are
(changes the service cannot make included), 1 when the plan could not be made.
"""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

from .._collector import start_up
from .._text import figure
from ..errors import LytError
from ._common import EXIT_CHANGES, EXIT_ERROR, EXIT_NO_CHANGES, fail, scrub
from ._pull import read_or_fail
from ._rehearsed import pull_words

if TYPE_CHECKING:
    from ..actions import SavedPlan

__all__ = ["EXIT_CHANGES", "EXIT_ERROR", "EXIT_NO_CHANGES", "plan"]

COMMAND = "lyt plan"


def plan(args: argparse.Namespace) -> int:
    """Read both folders, plan from the base to the edited frames and print the plan."""
    with start_up():  # see start_up
        from ..actions import ChangePlan
        from ..actions.change_plan import as_saved
        from ..actions.plan_text import plan_string, sample_note
        from ..actions.rehearsal import sampled_base_line
        from ..reports import read_edited_frames

    base = read_or_fail(args.base, COMMAND)  # a refusal names the folder's option
    if base is None:
        return EXIT_ERROR
    try:
        edited = read_edited_frames(Path(args.edited).expanduser())
    except (LytError, OSError) as exc:
        return fail(COMMAND, f"--edited {args.edited}: {' '.join(str(exc).split())}", EXIT_ERROR)
    try:  # shown as lyt apply will apply it: its re-read counted
        change_plan = as_saved(ChangePlan.from_frames(base, edited))
    except (LytError, OSError) as exc:
        return fail(COMMAND, str(exc), EXIT_ERROR)
    chunked = None if args.offline else _read_budget(change_plan)
    out = Path(args.out).expanduser() if args.out else None
    unsaved, saved_sha256 = None, ""
    if out is not None:  # saved before it is printed: a reader gone (| head) leaves it saved
        try:
            saved_sha256 = hashlib.sha256(change_plan.save(out).read_bytes()).hexdigest()
        except (LytError, OSError) as exc:
            unsaved = f"cannot write {out}: {exc}"
    where = f"in {out.resolve()}" if saved_sha256 and out else "--out PLAN_FILE saves them"
    print(
        plan_string(
            change_plan.summary(),
            change_plan.changes,
            change_plan.unsupported,
            note=pull_words(
                sample_note(change_plan.base_sample, sampled_base_line(change_plan.plan.parts))
            ),
            where=where,
        )
    )
    calls = _calls_line(change_plan, chunked)
    if calls:
        print(calls)
    if unsaved is not None:
        return fail(COMMAND, unsaved, EXIT_ERROR)
    if out is not None:
        print(f"\nPlan saved to {out.resolve()} (sha256 {saved_sha256}); apply exactly it with:")
        print(f"lyt apply {out} --sha256 {saved_sha256}")
    return EXIT_CHANGES if len(change_plan) else EXIT_NO_CHANGES


def _calls_line(change_plan: SavedPlan, chunked: int | None) -> str:
    """``Calls: lyt apply sends these N; with --paced M (...); the service counts 1 call more
    a run, ...``: what each count of the plan's calls counts (``calls_said``), ``chunked``
    the paced re-read cut from the window's share (None: the budget unknown); empty for a
    plan of no call."""
    from ..actions.calls_said import TOKEN_NOTE, paced_reread, paced_text

    calls, reads = change_plan.cost().needed, change_plan.reread_cost().needed
    if not calls:
        return ""
    known = chunked is not None
    chunked = paced_reread(change_plan) if chunked is None else chunked
    paced = paced_text(calls - reads + chunked, reads, chunked, budget_known=known)
    return f"Calls: lyt apply sends these {figure(calls)}; {paced}; {TOKEN_NOTE}"


def _read_budget(change_plan: SavedPlan) -> int | None:
    """Let ``change_plan`` remember the live budget: one read, when a service is configured;
    the re-read of its paced apply, its chunks cut from that budget's share (None: no budget
    read)."""
    from ..actions.calls_said import paced_reread
    from ..actions.cost import learn_budget
    from ..client import ClientConfig, LoyaltyClient
    from ..errors import ConfigurationError

    try:
        config = ClientConfig.resolve()
    except ConfigurationError:
        return None  # no service configured: the summary has no budget part
    try:
        with LoyaltyClient(config=config) as client:
            try:
                learn_budget(client)
            except LytError as exc:
                reason = scrub(" ".join(str(exc).split()))
                fail(COMMAND, f"the read for the budget failed: {reason}")
            change_plan.summary(client)
            return None if client.quota.limit is None else paced_reread(change_plan, client)
    except LytError as exc:  # a broken setting: the plan stands without its budget
        fail(COMMAND, f"the read for the budget failed: {scrub(str(exc))}")
    return None
