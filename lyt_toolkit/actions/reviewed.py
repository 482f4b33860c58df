"""The plan file a reviewer approved: the sha256 of its bytes (what ``sha256sum`` prints,
``SavedPlan.sha256``, what ``<file>.applied`` records) given to ``apply(sha256=...)`` or
``lyt apply --sha256`` binds the apply to those very bytes; any other file is refused
before a call is sent.

All 64 hex digits are required (either case): a prefix could be matched by a forged file,
12 digits (48 bits) in about 2**48 tries, hours on one graphics card. Refusals show the
first ``SHOWN`` digits of each hash, or more where the two share those: up to the first
digit that tells them apart (all 64, for a reviewer's typo in the last).
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import LytError
from .plan_reader import shown

__all__ = ["SHOWN", "UnreviewedPlanError", "checked_sha256", "refuse_unreviewed"]

SHOWN = 12
"""Hex digits of a hash a refusal shows."""
_SHA256 = re.compile("[0-9a-fA-F]{64}")


class UnreviewedPlanError(LytError, ValueError):
    """A plan file whose bytes are not the ones reviewed: its sha256 is another."""


def checked_sha256(value: object, name: str = "sha256") -> str:
    """``value``, the 64 hex digits of a sha256, in lower case; else ``ValueError`` naming
    ``name`` (the keyword, or the option of ``lyt apply``)."""
    if not isinstance(value, str) or not _SHA256.fullmatch(value):
        prefix = " (a prefix is not enough: a forged file could match it)"
        short = isinstance(value, str) and re.fullmatch("[0-9a-fA-F]{1,63}", value)
        raise ValueError(
            f"{name} {shown(value, 80)}: expected the 64 hex digits of the plan file's sha256"
            + (prefix if short else "")
        )
    return value.lower()


def refuse_unreviewed(path: Path, found: str, reviewed: str | None) -> None:
    """``UnreviewedPlanError`` when ``reviewed`` (a sha256, ``None``: no check) is not
    ``found``, the sha256 of the plan file's bytes as read (empty: a plan held without
    a file)."""
    if reviewed is None:
        return
    wanted = checked_sha256(reviewed)
    if not found:
        raise UnreviewedPlanError(
            f"{path}: a plan not read from a file has no sha256 to check against the reviewed"
            f" {wanted[:SHOWN]}; save it and load it from its file"
        )
    if found != wanted:
        raise UnreviewedPlanError(
            f"{path}: its sha256 is {_apart(found, wanted)}, not the reviewed"
            f" {_apart(wanted, found)}:"
            " the file changed since it was reviewed; nothing was sent. Review it again and"
            " apply it with its own sha256"
        )


def _apart(digest: str, other: str) -> str:
    """``digest``'s first ``SHOWN`` hex digits, or as many as tell it from ``other`` (the
    first that differs included), then ``...`` unless that is all of it."""
    same = next(
        (i for i, (a, b) in enumerate(zip(digest, other, strict=True)) if a != b), len(digest)
    )
    cut = max(SHOWN, same + 1)
    return digest if cut >= len(digest) else f"{digest[:cut]}..."
