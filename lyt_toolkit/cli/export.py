"""``lyt export --out DIR [--sandbox]``: pull a snapshot and write it as CSV + manifest."""

from __future__ import annotations

import argparse
import sys

from ..errors import LytError
from ._pull import REFUSED, calls_line, output_dir, pull_snapshot, refused

__all__ = ["export"]

EXIT_OK = 0
EXIT_FAILED = 1


def export(args: argparse.Namespace) -> int:
    """Pull from the configured service (or the embedded demo) and write the CSVs."""
    out = output_dir(args.out, "lyt export")
    if out is None:
        return EXIT_FAILED
    try:
        snapshot = pull_snapshot(bool(getattr(args, "sandbox", False)))
        written = snapshot.to_csv(out)
    except LytError as exc:
        print(f"lyt export: {REFUSED if refused(exc) else exc}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"lyt export: cannot write to {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"Snapshot of {snapshot.source} as of {snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC")
    print(calls_line(snapshot))
    print(f"Written to {out.resolve()}/:")
    width = max(len(p.name) for p in written)
    frames = snapshot.frames()
    for path in written:
        rows = frames.get(path.stem)
        count = f"{len(rows):>7} rows" if rows is not None else ""
        print(f"  {path.name:<{width}}  {count}".rstrip())
    return EXIT_OK
