"""The live program a snapshot's drift is compared with: the same kinds pulled again."""

from __future__ import annotations

from .._progress import Progress
from ..frames.registry import FRAME_NAMES
from ..snapshot.defaults import DEFAULT_SHARE
from ..snapshot.diff import MEMBER_KINDS
from ..snapshot.model import ProgramSnapshot
from .pull import ClientSource

__all__ = ["pull_live"]


def pull_live(
    snapshot: ProgramSnapshot,
    client: ClientSource = None,
    *,
    progress: Progress = True,
    budget_share: float = DEFAULT_SHARE,
) -> ProgramSnapshot:
    """The kinds ``snapshot`` holds, pulled again from ``client`` within ``budget_share``.

    A sampled snapshot's cards and pending buckets cannot be compared, so they are not
    pulled again (no member is read one by one); a ``ValueError`` when nothing else is left.
    """
    kinds = set(snapshot.kinds)
    if snapshot.sample is not None:
        kinds -= set(MEMBER_KINDS)
        if not kinds:
            raise ValueError(
                f"no drift to look for: this snapshot is a {snapshot.sample} and holds only "
                "cards and pending buckets, which a sample cannot compare; pull the "
                "program whole (ProgramSnapshot.pull without sample=) to follow them"
            )
    partial = kinds != set(FRAME_NAMES)
    return ProgramSnapshot.pull(
        client,
        progress=progress,
        kinds=kinds if partial else None,
        budget_share=budget_share,
    )
