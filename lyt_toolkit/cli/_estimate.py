"""``lyt export --estimate [--read-sample N]``: the calls the pull the same options ask for
would make, counted before it (``ProgramSnapshot.estimate``), with nothing pulled or written.

``estimate_options`` checks the options (``--read-sample`` only with ``--estimate``, and none
the estimate cannot count beside it), ``print_estimate`` runs it and prints its text and the
calls line a pull prints. A budget refusal names it as a way to know the cost first
(``_pull.cost_first``).
"""

from __future__ import annotations

import argparse

from ..errors import LytError
from ._common import EXIT_ERROR, EXIT_OK, fail
from ._pull import PullOptions, connected_client, explain

__all__ = ["NOT_ESTIMATED", "estimate_options", "print_estimate", "read_sample_option"]

NOT_ESTIMATED = {
    "sample": "--sample: not with --estimate (it counts the calls of a pull of every member)",
    "checkpoint": "--checkpoint: not with --estimate (it counts the whole pull's calls, paced or"
    " not, none of them kept in a checkpoint yet: give --estimate without --checkpoint)",
    "since": "--since: not with --estimate (it counts a pull's calls; lyt export --since prints"
    " a refresh's calls before it reads)",
}
"""The options (argument name -> the refusal naming it) whose pull the estimate cannot count."""


def estimate_options(args: argparse.Namespace) -> int | None:
    """The members ``--read-sample`` asks the estimate to read (None: none, or no
    ``--estimate``), checked: a ``ValueError`` naming ``--read-sample`` given without
    ``--estimate`` or with a bad value (as ``ProgramSnapshot.estimate`` refuses
    ``read_sample``), or an option the estimate cannot count beside ``--estimate``."""
    text = getattr(args, "read_sample", None)
    if not getattr(args, "estimate", False):
        if text is not None:
            raise ValueError(
                "--read-sample: only with --estimate (the members the estimate reads to project"
                " the bucket lists)"
            )
        return None
    for name, refusal in NOT_ESTIMATED.items():
        if getattr(args, name, None) is not None:
            raise ValueError(refusal)
    return read_sample_option(text)


def read_sample_option(text: str | None) -> int | None:
    """``--read-sample`` as the estimate's ``read_sample``, refused as the Python API refuses
    it (``checked_read_sample``), named as the option: a ``ValueError``."""
    from ..fill.estimate import checked_read_sample

    if text is None:
        return None
    try:
        value = int(text.strip())
    except ValueError:
        raise ValueError(
            f"--read-sample: expected a whole number of members, got {text!r}"
        ) from None
    try:
        return checked_read_sample(value)
    except ValueError as exc:  # "read_sample: 0 members; read 1 at least, or give None"
        reason = str(exc).removeprefix("read_sample: ").removesuffix(", or give None")
        raise ValueError(f"--read-sample: {reason}") from None


def print_estimate(
    command: str, options: PullOptions, read_sample: int | None, *, sandbox: bool
) -> int:
    """Estimate the pull ``options`` ask for (its kinds, in its share of the window), reading
    ``read_sample`` members, and print the estimate's text, then the calls it spent and the
    budget left as a pull's calls line says them; nothing is pulled or written. One line
    saying why, when the estimate cannot run."""
    from ..snapshot import ProgramSnapshot
    from ..snapshot.cost import PullCalls

    try:
        with connected_client(sandbox) as client:
            estimate = ProgramSnapshot.estimate(
                client,
                kinds=options.kinds,
                budget_share=options.budget_share,
                read_sample=read_sample,
            )
    except LytError as exc:
        reason = explain(exc, options)
        reason = reason.replace("the snapshot could not be pulled: ", "the estimate failed: ", 1)
        return fail(command, reason, EXIT_ERROR)
    print(estimate)
    spent = PullCalls(estimate.spent, estimate.remaining, estimate.limit, estimate.resets_at)
    print(f"API {spent} (the estimate's own; nothing pulled or written)")
    return EXIT_OK
