"""``lyt export --out DIR [--sandbox] [--budget-share F] [--sample N] [--checkpoint DIR]
[--kinds KIND,...] [--since OLD [--members all|new|none]]``: pull a snapshot, or refresh the
one exported in ``OLD`` by what is new (each choice's calls printed first), and write it as
CSV + manifest (a sampled snapshot with its sample design files, a refreshed one with each
kind's read time); with ``--checkpoint`` the pull is paced across budget windows and
resumable; with ``--kinds`` only those frames are pulled (``ProgramSnapshot.pull(kinds=...)``:
without cards and pending buckets no member is read). ``lyt export --estimate [--read-sample
N] [--kinds ...] [--budget-share F]`` counts the pull's calls instead (``_estimate``): nothing
is pulled or written."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import LytError, PullBudgetError
from ..frames.registry import FRAME_NAMES
from ._common import EXIT_BAD_OPTION, EXIT_ERROR, EXIT_OK, fail
from ._estimate import estimate_options, print_estimate
from ._pull import (
    REFUSED,
    budget_refusal,
    calls_line,
    output_dir,
    pull_options,
    pull_snapshot,
    refused,
    sample_line,
    share_refusal,
)
from ._refresh import members_choice, read_at_lines, refresh_snapshot

__all__ = ["export"]

COMMAND = "lyt export"


def export(args: argparse.Namespace) -> int:
    """Pull from the configured service (or the embedded demo) and write the CSVs."""
    try:
        options = pull_options(args)
        read_sample = estimate_options(args)
        members = members_choice(args, options)
        if members is not None and options.kinds is not None:
            raise ValueError(
                f"--kinds: not with --since (a refresh reads the kinds {args.since} holds)"
            )
    except ValueError as exc:
        return fail(COMMAND, str(exc), EXIT_BAD_OPTION)
    sandbox = bool(getattr(args, "sandbox", False))
    if args.estimate:
        return print_estimate(COMMAND, options, read_sample, sandbox=sandbox)
    if args.out is None:
        return fail(
            COMMAND, "--out: give the directory to write to (or --estimate)", EXIT_BAD_OPTION
        )
    out = output_dir(args.out, COMMAND)
    if out is None:
        return EXIT_ERROR
    try:
        if members is None:
            snapshot = pull_snapshot(sandbox, options)
        else:
            snapshot = refresh_snapshot(Path(args.since).expanduser(), sandbox, options, members)
        written = snapshot.to_csv(out)
    except PullBudgetError as exc:
        return fail(COMMAND, budget_refusal(exc, options), EXIT_ERROR)
    except LytError as exc:
        if (share := share_refusal(exc)) is not None:  # a paced pull's share too small
            return fail(COMMAND, share, EXIT_BAD_OPTION)
        return fail(COMMAND, REFUSED if refused(exc) else str(exc), EXIT_ERROR)
    except OSError as exc:
        return fail(COMMAND, f"cannot write to {out}: {exc.strerror or exc}", EXIT_ERROR)
    except ValueError as exc:  # --members a sampled --since snapshot cannot take, --kinds --sample
        return fail(COMMAND, _as_option(str(exc)), EXIT_BAD_OPTION)
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
    if members is not None:
        print("Refreshed by what is new; how old each kind is:")
        print("\n".join(read_at_lines(snapshot)))
    print(f"Written to {out.resolve()}/:")
    width = max(len(p.name) for p in written)
    frames = snapshot.frames()
    if snapshot.sample is not None:
        frames |= {"sample_strata": snapshot.sample.strata, "sample_units": snapshot.sample.units}
    for path in written:
        rows = frames.get(path.stem)
        count = f"{len(rows):>7,} rows" if rows is not None else ""
        if path.stem in FRAME_NAMES and path.stem not in snapshot.kinds:
            count = f"{'-':>7} not pulled (--kinds)"
        print(f"  {path.name:<{width}}  {count}".rstrip())
    return EXIT_OK


def _as_option(reason: str) -> str:
    """A pull's refusal of its ``kinds=`` or ``sample=`` named as the option: ``--kinds: ...``."""
    return f"--{reason}" if reason.startswith(("kinds:", "sample:")) else reason
