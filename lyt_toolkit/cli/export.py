"""``lyt export --out DIR [--sandbox] [--budget-share F] [--sample N] [--checkpoint DIR]``: pull
a snapshot and write it as CSV + manifest (a sampled snapshot with its sample design files);
with ``--checkpoint`` the pull is paced across budget windows and resumable."""

from __future__ import annotations

import argparse
import sys

from ..errors import LytError, PullBudgetError
from ._pull import (
    REFUSED,
    budget_refusal,
    calls_line,
    output_dir,
    pull_options,
    pull_snapshot,
    refused,
    sample_line,
)

__all__ = ["export"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_OPTION = 2
EXIT_INTERRUPTED = 130
COMMAND = "lyt export"


def export(args: argparse.Namespace) -> int:
    """Pull from the configured service (or the embedded demo) and write the CSVs."""
    try:
        options = pull_options(args)
    except ValueError as exc:
        print(f"{COMMAND}: {exc}", file=sys.stderr)
        return EXIT_BAD_OPTION
    out = output_dir(args.out, COMMAND)
    if out is None:
        return EXIT_FAILED
    try:
        snapshot = pull_snapshot(bool(getattr(args, "sandbox", False)), options)
        written = snapshot.to_csv(out)
    except PullBudgetError as exc:
        print(f"{COMMAND}: {budget_refusal(exc, can_sample=True)}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        kept = (
            f"; what it read is kept in {options.checkpoint}: run the same command to go on"
            if options.checkpoint is not None
            else ""
        )
        print(f"{COMMAND}: interrupted{kept}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except LytError as exc:
        print(f"{COMMAND}: {REFUSED if refused(exc) else exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"{COMMAND}: cannot write to {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"Snapshot of {snapshot.source} as of {snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC")
    print(calls_line(snapshot))
    if snapshot.read_times:
        first = min(start for start, _ in snapshot.read_times.values())
        last = max(end for _, end in snapshot.read_times.values())
        print(
            f"Read from {first:%Y-%m-%d %H:%M:%S} to {last:%Y-%m-%d %H:%M:%S} UTC: each kind "
            "as it stood when read (manifest.json's read_times)"
        )
    if (note := sample_line(snapshot)) is not None:
        print(note)
    print(f"Written to {out.resolve()}/:")
    width = max(len(p.name) for p in written)
    frames = snapshot.frames()
    if snapshot.sample is not None:
        frames |= {"sample_strata": snapshot.sample.strata, "sample_units": snapshot.sample.units}
    for path in written:
        rows = frames.get(path.stem)
        count = f"{len(rows):>7} rows" if rows is not None else ""
        print(f"  {path.name:<{width}}  {count}".rstrip())
    return EXIT_OK
