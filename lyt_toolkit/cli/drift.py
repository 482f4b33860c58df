"""``lyt drift SNAPSHOT_DIR [--sandbox] [--budget-share F] [--out FILE]``: what changed in
the live program since a snapshot was exported.

The snapshot's kinds are pulled again from the configured service (or the embedded demo
sandbox) and compared with the folder, which may hold a CSV or a Parquet snapshot. The
exit code tells a script the answer: 0 when nothing drifted, 2 when something did (the
changes printed, and written to ``--out`` as CSV), 1 when the check could not run (a bad
``--budget-share`` included, so that 2 always means drift; a pull beyond that share is
refused with its ways forward).
"""

from __future__ import annotations

import argparse
import sys

from ..errors import LytError

__all__ = ["EXIT_DRIFT", "EXIT_ERROR", "EXIT_NO_DRIFT", "drift"]

EXIT_NO_DRIFT = 0
EXIT_ERROR = 1
EXIT_DRIFT = 2
COMMAND = "lyt drift"


def drift(args: argparse.Namespace) -> int:
    """Read the snapshot folder, pull the live program, print and write what drifted."""
    from ..snapshot import read_snapshot
    from ._pull import connected_client, pull_options
    from .audit import _explain
    from .diff import format_diff, write_changes

    try:
        options = pull_options(args)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        snapshot = read_snapshot(args.snapshot)
    except (LytError, OSError) as exc:
        return _fail(str(exc))
    try:
        with connected_client(bool(args.sandbox)) as client:
            changes = snapshot.drift(client, progress=True, budget_share=options.budget_share)
    except LytError as exc:
        return _fail(_explain(exc))
    except ValueError as exc:  # a sample holding nothing a drift can compare
        return _fail(str(exc))
    if not changes:
        when = f"{snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC"
        print(f"No drift: the live program matches the snapshot of {when}")
        if changes.note is not None:
            print(f"Note: {changes.note}")
        return EXIT_NO_DRIFT
    print(format_diff(changes))
    problem = write_changes(changes, args.out)
    return EXIT_DRIFT if problem is None else _fail(problem)


def _fail(reason: str) -> int:
    print(f"{COMMAND}: {reason}", file=sys.stderr)
    return EXIT_ERROR
