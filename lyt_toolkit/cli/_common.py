"""What every ``lyt`` command shares: its exit codes, the one line it prints when it stops
(``fail``) and the masking of configured credentials and bearer tokens in what it prints
(``scrub``).

Findings, changes and drift are data, not failures: a command that reports them exits 0
when it ran (``lyt drift``, ``lyt plan`` and ``lyt verify`` exit 2 when there is something to
see, so a script can tell), and a command that cannot run prints one line naming the cause,
never a traceback and never a credential.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .._secret import quoted
from .._text import figure

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "EXIT_APPLIED",
    "EXIT_BAD_OPTION",
    "EXIT_CANNOT_RUN",
    "EXIT_CHANGES",
    "EXIT_DRIFT",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_AS_REHEARSED",
    "EXIT_NO_CHANGES",
    "EXIT_NO_DRIFT",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "EXIT_VERIFIED",
    "cli_words",
    "fail",
    "interrupted",
    "item_lines",
    "redemption_rate",
    "scrub",
]

EXIT_OK = 0
"""The command ran (``lyt audit``, ``demo``, ``diff``, ``export``, ``report``; ``rehearse``:
every item was made)."""
EXIT_ERROR = 1
"""``lyt apply``, ``drift``, ``export``, ``plan``, ``rehearse``, ``verify``: refused, failed or
could not run (``rehearse``: some item would not be made)."""
EXIT_CANNOT_RUN = 2
"""``lyt audit``, ``demo``, ``diff``, ``report``, ``sandbox``: could not run."""
EXIT_APPLIED = 0
"""``lyt apply``: the plan is applied."""
EXIT_NO_DRIFT = 0
"""``lyt drift``: the live program matches the snapshot."""
EXIT_DRIFT = 2
"""``lyt drift``: something drifted."""
EXIT_NO_CHANGES = 0
"""``lyt plan``: the edited frames change nothing."""
EXIT_CHANGES = 2
"""``lyt plan``: the plan has changes."""
EXIT_VERIFIED = 0
"""``lyt verify``: the service holds what the plan's rehearsal made."""
EXIT_NOT_AS_REHEARSED = 2
"""``lyt verify``: some change is not as rehearsed."""
EXIT_BAD_OPTION = 2
"""``lyt export``: an option's value is wrong."""
EXIT_INTERRUPTED = 130
"""Every command: stopped with Ctrl-C (128 + SIGINT, as a shell reports it)."""
EXIT_TERMINATED = 143
"""Every command: stopped with SIGTERM, taken as a Ctrl-C (``_sigterm``; 128 + SIGTERM, as a
shell reports a process it ended)."""
MAX_ITEMS_SHOWN = 20
"""Items not made, printed one per line (``item_lines``)."""


def fail(command: str, reason: str, code: int = EXIT_CANNOT_RUN) -> int:
    """Print ``{command}: {reason}`` to stderr, any configured token masked (``scrub``: a
    reason may quote a file a user handed over), and return ``code``."""
    print(f"{command}: {scrub(reason)}", file=sys.stderr)
    return code


def interrupted(checkpoint: str | None) -> str:
    """Why a command stopped at Ctrl-C: ``interrupted``, and with a ``--checkpoint`` folder
    where what its pull read is kept and how to go on."""
    if checkpoint is None:
        return "interrupted"
    return f"interrupted; what it read is kept in {checkpoint}: run the same command to go on"


def scrub(text: str) -> str:
    """``text`` with any token the environment or ``.env`` configures, and every secret a
    client of this process holds, replaced by ``***``, and any other ``Bearer <token>`` by
    ``Bearer ***`` (defence in depth: a reason may quote a file; ``_secret.quoted``)."""
    return quoted(text)


def cli_words(message: str, options: Mapping[str, str]) -> str:
    """A refusal as the command line words it: each keyword it names that the command takes as
    an option (``options``: keyword -> option; ``refresh=True`` -> ``--refresh``), and
    ``budget_share=1.0`` as ``--budget-share 1``, ``budget_share`` alone as ``--budget-share``."""
    message = re.sub(
        r"\bbudget_share=([0-9.]+)", lambda m: f"--budget-share {float(m[1]):g}", message
    )
    message = re.sub(r"\bbudget_share\b(?!=)", "--budget-share", message)
    return re.sub(r"\b([a-z_]+)=True\b", lambda m: options.get(m[1], m[0]), message)


def redemption_rate(text: str) -> float | str | None:
    """``--redemption-rate``: a share from 0 to 1, or None for ``history``; else the error."""
    if text.strip().lower() == "history":
        return None
    try:
        rate = float(text)
    except ValueError:
        rate = float("nan")
    if not 0 <= rate <= 1:
        return f"--redemption-rate {text!r} is neither a number from 0 to 1 nor 'history'"
    return rate


def item_lines(left: pd.DataFrame, heading: str) -> list[str]:
    """The items of a results frame not made (``left``), under ``heading``, one line each:
    call, target, outcome, status and message, any secret masked; the first
    ``MAX_ITEMS_SHOWN``, then how many more."""
    import pandas as pd

    lines = ["", heading]
    for row in left.head(MAX_ITEMS_SHOWN).to_dict("records"):
        status = "" if pd.isna(row["status"]) else f" {row['status']}"
        message = "" if pd.isna(row["message"]) else f": {row['message']}"
        call = f"{row['call']} " if "call" in row else ""
        lines.append(scrub(f"  {call}{row['target']}: {row['outcome']}{status}{message}"))
    if len(left) > MAX_ITEMS_SHOWN:
        lines.append(f"  ... and {figure(len(left) - MAX_ITEMS_SHOWN)} more")
    return lines
