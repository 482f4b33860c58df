"""The calls of one saved plan as ``lyt plan``, ``lyt rehearse`` and ``lyt apply`` say them,
each figure naming what it counts so the three reconcile with the service's own count.

One plan has several true counts: its apply unpaced re-reads every touched object once, then
writes (the summary's ``N calls (R re-reads, then W writes)``); paced, it goes a chunk of
writes at a time, each chunk's objects re-read just before it, so an object several chunks
need (a card whose buckets two chunks activate, the card definition many creates point at, a
listing a chunk boundary cuts) is read once for each (``chunked.reads_as_chunked``); and the
service counts every call of a run, its token request too (one a run, and, paced, one in each
new window the run goes on into). Before, ``lyt plan`` said 607 calls, ``lyt rehearse`` "lyt
apply sends 608", a paced apply sent 608 and the service counted 609 (20,000 members: 297
rewards drafted, 200 buckets activated, 5 benefits created), no line saying why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .._text import counted, figure
from ..client.allowance import checked_share
from ..snapshot.defaults import DEFAULT_SHARE
from .chunked import CHUNK_MOST, known_refused, reads_as_chunked, share_of_window, to_send
from .log import LogState

if TYPE_CHECKING:
    import pandas as pd

    from ..client import LoyaltyClient
    from .plan import ActionPlan
    from .touched import Touched

__all__ = ["TOKEN_NOTE", "Chunkable", "paced_reread", "paced_text"]

TOKEN_NOTE = (
    "the service counts 1 call more a run, its token request (paced, 1 more in each new window"
    " the run goes on into)"
)
"""What each count of a plan's calls leaves out: the token request a run sends first."""


class Chunkable(Protocol):
    """What a paced apply's chunks are cut from, of a saved plan (a ``SavedPlan`` is one)."""

    @property
    def parts(self) -> Sequence[ActionPlan[Any]]: ...
    @property
    def touched(self) -> Sequence[Touched]: ...
    @property
    def inputs(self) -> Mapping[str, pd.DataFrame]: ...
    @property
    def changes(self) -> pd.DataFrame: ...


def paced_reread(
    saved: Chunkable, client: LoyaltyClient | None = None, *, budget_share: float = DEFAULT_SHARE
) -> int:
    """The re-read calls of a paced apply of the whole of ``saved`` (no log): each chunk's
    objects read for it, one several chunks need once for each (``reads_as_chunked``), its
    chunks cut from ``budget_share`` of the calls ``client`` last saw left in the window;
    without a client or a known budget, ``CHUNK_MOST`` writes a chunk (the fewest re-reads:
    a smaller share left cuts smaller chunks)."""
    share = checked_share(budget_share)
    todos = [(part, to_send(part, LogState())) for part in saved.parts]
    left = whole = None
    if client is not None and client.quota.limit is not None:
        try:
            with client.quota.allowance(share, paced=True) as held:
                left = held.left
        except ValueError:  # a share too small to pace: no chunk of this window's
            left = None
        else:
            whole = share_of_window(client, share)
    refused = known_refused(saved.changes, {})  # the base's blocked: each read back
    return reads_as_chunked(saved.touched, saved.inputs, todos, (), left, whole, refused=refused)


def paced_text(paced: int, reads: int, chunked: int, *, budget_known: bool) -> str:
    """``with --paced N (...)``: the ``paced`` calls of a paced apply whose re-read takes
    ``chunked`` calls where the unpaced one takes ``reads``, saying why they differ and how
    its chunks were cut (``budget_known``: from this window's share now; else ``CHUNK_MOST``
    writes a chunk)."""
    if chunked == reads:
        return f"with --paced the same {figure(paced)} (no object re-read for two chunks of writes)"
    cut = (
        "its chunks cut as this window's share now cuts them"
        if budget_known
        else f"its chunks of {figure(CHUNK_MOST)} writes, the most one holds (a smaller share"
        " left cuts smaller ones, re-reading more)"
    )
    return (
        f"with --paced {figure(paced)} ({counted(chunked, 're-read')}, not {figure(reads)}: a"
        " chunk of writes at a time, each chunk's objects re-read just before it, an object"
        f" several chunks need once for each; {cut})"
    )
