"""A plan paced across budget windows: ``budget_share`` of every window, waiting for each reset.

A bulk edit may need more writes than one window's share (8,000 activations under a 5,000-call
hourly plan). Executed with ``paced=True`` it holds the client's paced allowance, the one a
checkpointed pull holds (``Quota.allowance(paced=True)``): each window gives the plan
``budget_share`` of what it has left (other traffic's calls followed as they are spent), a
call beyond it waits in the client for the window's reset however long (``max_wait`` does not
bound it), and the run goes on. It is never refused for the window's budget and no item is
``cancelled`` for it. Ctrl-C, a ``cancel`` or the client closed end such a wait at once
(``_stop``): the item waiting was not sent and is logged ``cancelled``, not in doubt.

The action log is what makes a paced run resumable, never sending a write twice, so a paced
run needs one (``log=``; refused up front otherwise). The log also keeps what the plan's runs
spent of the window the last one was in (``ActionLog.note_window``, once a second while it
runs, before each call no item line stands for, a saved plan's re-read, and as it ends): a
run resumed in that window, or the next part of a change plan, counts those calls against
the same share instead of taking a new share of what is left.

A paced run's first call, its token request (it tells the budget), waits as its writes do:
started in a window the project's other traffic has spent, it is refused (429) with a
``Retry-After`` of up to an hour, and the run waits for the reset however long (``hearing``)
instead of ending with the client's ``QuotaExhaustedError`` beyond ``max_wait``. Where no bar
can be seen and a ``lyt`` command asked for plain lines (``_progress.lines``), that wait says
so in lines as the writes' do (``PaceBar``, named ``paced {what}``).

The billing cycle, as a paced pull keeps to it: a plan needing more than ``budget_share`` of
the project's cycle (``Quota.cycle``, when known) is refused before any write
(``CycleBudgetError``, naming the calls the run sent before it: its token request, if it
went out), and a run under way stops once the service's answers say the cycle's budget is
spent (the items not sent ``cancelled``, as beyond it).
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .._outgoing import telling_before_sending
from .._progress import Progress, lines
from .._stop import stopping
from ..client.allowance import Allowance
from ..errors import CycleBudgetError
from ..fill.pace import PaceBar
from ..fill.pace_run import current_run
from ._runner import CANCELLED
from .log import ActionLog, ForeignLogError, LogSource, opened_log

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["Heard", "hearing", "pacing", "refuse_past_cycle", "refuse_unlogged"]


def refuse_unlogged(log: LogSource | None) -> None:
    """``ValueError`` naming ``log`` for a paced run without one (nothing is sent)."""
    if log is None:
        raise ValueError(
            "paced=True needs log=: a paced run goes on over hours, and the action log is"
            " what lets it resume after a stop (Ctrl-C, a Cancel, a crash) without sending"
            " any write twice; pass log='plan.log.jsonl'"
        )


class Heard:
    """The calls ``client`` sent since a run began to hear the service (``hearing``)."""

    def __init__(self, client: LoyaltyClient) -> None:
        self._quota = client.quota
        self._start = client.quota.calls_used

    @property
    def sent(self) -> int:
        """Calls sent since (a refused or unanswered one included: it went out)."""
        return self._quota.calls_used - self._start


def refuse_past_cycle(
    needed: int, client: LoyaltyClient, share: float, what: str, heard: Heard
) -> None:
    """``CycleBudgetError`` when ``needed`` calls are more than ``share`` of the project's
    billing cycle (``Quota.cycle``; nothing refused while it is unknown), naming the calls the
    run sent before (``heard``)."""
    cycle = client.quota.cycle
    if cycle is not None and needed > math.floor(share * cycle.calls):
        raise CycleBudgetError(
            "writes", needed=needed, share=share, cycle=cycle, sent=heard.sent, work=what
        )


@contextlib.contextmanager
def hearing(
    client: LoyaltyClient,
    share: float,
    paced: bool,
    cancel: threading.Event | None = None,
    *,
    what: str,
    progress: Progress = True,
    log: LogSource | None = None,
) -> Iterator[Heard]:
    """The calls made in the block before a run's writes (its token request, which tells the
    budget and a sandbox's state), counted from the start (``Heard``), made, when ``paced``,
    as a paced work's: one the service refuses for a spent window waits for the reset however
    long (see the module), until ``cancel`` is set (a panel's Cancel: ``StoppedError``,
    nothing more sent). Such a wait shows as ``paced {what}`` lines where a ``lyt`` command asked
    for them and ``progress`` is ``True``. Paced with the plan's ``log``, they count against
    the share of the window its earlier runs were in, as its writes do (``_counted``); inside
    a ``paced_run``, its bars say none of them was sent earlier (``fill.pace_run``)."""
    heard = Heard(client)
    if not paced:
        yield heard
        return
    stopped = contextlib.nullcontext() if cancel is None else stopping(cancel, CANCELLED)
    with (
        _counted(client, share, log) as allowance,
        stopped,
        _waits_said(client, allowance, what, progress),
    ):
        try:
            yield heard
        finally:  # the run's own calls, not another run's (``fill.pace_run``)
            run = current_run()
            if run is not None:
                run.heard(allowance)


@contextlib.contextmanager
def _counted(client: LoyaltyClient, share: float, log: LogSource | None) -> Iterator[Allowance]:
    """The client's paced allowance at ``share``; with ``log``, the calls the plan's earlier
    runs sent in the window counted against it (the one their last run was in, while this
    machine's clock says it may not be over, before an answer names one: ``Allowance.presumed``)
    and those of the block noted in ``log`` before each goes out (once an answer named the
    window: a run killed with calls in flight leaves none uncounted) and as it ends, unless the
    log proved another's (``ForeignLogError``: nothing is written to it as it ends; before, a
    client that has heard nothing sends only its token request, noted in no window)."""
    quota = client.quota
    if log is None:
        with quota.allowance(share, paced=True) as allowance:
            yield allowance
        return
    with opened_log(log) as action_log:
        assert action_log is not None
        earlier, recorded = action_log.earlier, action_log.last_window
        with quota.allowance(share, paced=True, earlier=earlier, recorded=recorded) as allowance:
            foreign = False

            def note() -> None:
                action_log.note_window(lambda: quota.window_calls(allowance))

            try:
                with telling_before_sending(note):  # each call noted before it goes out
                    yield allowance
            except ForeignLogError:
                foreign = True
                raise
            finally:  # however the block ends (Ctrl-C included), unless the log is another's
                if not foreign:
                    note()


def _waits_said(
    client: LoyaltyClient, allowance: Allowance, what: str, progress: Progress
) -> contextlib.AbstractContextManager[object]:
    """The lines of a run's first calls (``PaceBar``: nothing while none waits) where a ``lyt``
    command asked for lines and the run will send a call (it holds no token yet); a wait
    shows as the client's own bar elsewhere."""
    if progress is True and lines() and not client.holds_token:
        return PaceBar(progress, client, allowance, lambda: None, desc=f"paced {what}")
    return contextlib.nullcontext()


@contextlib.contextmanager
def pacing(
    client: LoyaltyClient,
    log: ActionLog,
    share: float,
    planned: Callable[[], int | None],
    progress: Progress,
    what: str,
) -> Iterator[Allowance]:
    """The calls made in the block paced at ``share`` of every window, the calls the plan's
    earlier runs sent in the window it starts in (``log``'s window lines) counted against
    it, and what they all spent of the window noted in ``log`` as it goes (once a second,
    and before each call no item line stands for goes out: a saved plan's re-read) and as
    it ends; shown on a ``PaceBar`` (``planned()`` calls in all) named ``paced {what}``
    unless ``progress`` is not ``True``."""
    quota = client.quota
    with (
        quota.allowance(share, paced=True, earlier=log.earlier) as allowance,
        log.noting(lambda: quota.window_calls(allowance)) as note,
    ):
        try:
            with (
                PaceBar(progress, client, allowance, planned, tick=note, desc=f"paced {what}"),
                telling_before_sending(note),  # an item's send tells its own instead
            ):
                yield allowance
        finally:
            note()  # however the run ends (Ctrl-C included)
