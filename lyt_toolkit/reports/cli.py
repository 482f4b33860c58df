"""``lyt export --out DIR [--sandbox]``: pull a snapshot and write it as CSV + manifest."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import APIError, LytError

EXIT_OK = 0
EXIT_FAILED = 1


def _pull(sandbox: bool):  # -> ProgramSnapshot
    from ..client import LoyaltyClient
    from ..frames.snapshot import ProgramSnapshot

    progress = sys.stderr.isatty()
    if not sandbox:
        with LoyaltyClient() as client:
            return ProgramSnapshot.pull(client, progress=progress)
    from ..sandbox import Sandbox

    with (
        Sandbox.start(seed=7) as sb,
        LoyaltyClient(
            base_url=sb.base_url, env_file=None, **sb.credentials.as_client_kwargs()
        ) as client,
    ):
        return ProgramSnapshot.pull(client, progress=progress)


def _explain(exc: LytError) -> str:
    """One line for a failed pull; a refused key pair names the settings to check."""
    if isinstance(exc, APIError) and exc.status == 401:
        return "the service refused the credentials (401); check LYT_APP_ID and LYT_APP_TOKEN"
    return str(exc)


def export(args: argparse.Namespace) -> int:
    """Pull from the configured service (or the embedded demo) and write the CSVs."""
    out = Path(args.out)
    try:
        snapshot = _pull(bool(getattr(args, "sandbox", False)))
        written = snapshot.to_csv(out)
    except LytError as exc:
        print(f"lyt export: {_explain(exc)}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as exc:
        print(f"lyt export: cannot write to {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FAILED
    print(f"Snapshot of {snapshot.source} as of {snapshot.pulled_at:%Y-%m-%d %H:%M:%S} UTC")
    print(f"Written to {out.resolve()}/:")
    width = max(len(p.name) for p in written)
    frames = snapshot.frames()
    for path in written:
        rows = frames.get(path.stem)
        count = f"{len(rows):>7} rows" if rows is not None else ""
        print(f"  {path.name:<{width}}  {count}".rstrip())
    return EXIT_OK
