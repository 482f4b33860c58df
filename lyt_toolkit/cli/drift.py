"""``lyt drift SNAPSHOT_DIR [--sandbox] [--budget-share F] [--out FILE]``: what changed in
the live program since a snapshot was exported.

The snapshot's kinds are pulled again from the configured service (or the embedded demo
sandbox) and compared with the folder, which may hold a CSV or a Parquet snapshot. The
exit code tells a script the answer: 0 when nothing drifted, 2 when something did (the
changes printed, and written to ``--out`` as CSV), 1 when the check could not run (a bad
``--budget-share`` included, so that 2 always means drift; a pull beyond that share is
refused with its ways forward and, refused for its member reads, the ``lyt export
--estimate`` that tells its cost first, as ``lyt export`` is).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Iterable

from ..errors import LytError
from ._common import EXIT_DRIFT, EXIT_ERROR, EXIT_NO_DRIFT, fail
from ._pull import PullOptions, connected_client, explain, pull_options
from .diff import format_diff, write_changes

__all__ = ["EXIT_DRIFT", "EXIT_ERROR", "EXIT_NO_DRIFT", "drift"]

COMMAND = "lyt drift"


def drift(args: argparse.Namespace) -> int:
    """Read the snapshot folder, pull the live program, print and write what drifted."""
    from ..snapshot import read_snapshot

    try:
        options = pull_options(args)
    except ValueError as exc:
        return fail(COMMAND, str(exc), EXIT_ERROR)
    try:
        snapshot = read_snapshot(args.snapshot)
    except (LytError, OSError) as exc:
        return fail(COMMAND, str(exc), EXIT_ERROR)
    try:
        with connected_client(bool(args.sandbox)) as client:
            changes = snapshot.drift(client, progress=True, budget_share=options.budget_share)
    except LytError as exc:
        return fail(COMMAND, explain(exc, _pulled_as(options, snapshot.kinds)), EXIT_ERROR)
    except ValueError as exc:  # a sample holding nothing a drift can compare
        return fail(COMMAND, str(exc), EXIT_ERROR)
    if not changes:
        when = f"{snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC"
        print(f"No drift: the live program matches the snapshot of {when}")
        if changes.note is not None:
            print(f"Note: {changes.note}")
        return EXIT_NO_DRIFT
    print(format_diff(changes))
    problem = write_changes(changes, args.out)
    return EXIT_DRIFT if problem is None else fail(COMMAND, problem, EXIT_ERROR)


def _pulled_as(options: PullOptions, kinds: Iterable[str]) -> PullOptions:
    """``options`` with the ``kinds`` the drift pulls again, a snapshot's (None: every one),
    as a refusal spells the ``lyt export`` that pulls or estimates the same."""
    from ..frames.registry import FRAME_NAMES

    held = frozenset(kinds)
    return dataclasses.replace(options, kinds=None if held == set(FRAME_NAMES) else held)
