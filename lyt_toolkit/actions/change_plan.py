"""``ChangePlan``: what turning a base snapshot into edited frames takes, shown (a
Terraform-style summary, one line per change) and run (cost, preview, rehearse, apply);
``SavedPlan``: a ``ChangePlan`` read back from its file, which it holds.

The two live here together because each names the other (``ChangePlan.load`` gives a
``SavedPlan``, which holds a ``ChangePlan`` and re-plans into one); what a saved plan does
besides is in its own modules: the file format (``plan_file``), what it touches
(``touched``), the re-read (``reread``), the staleness check (``staleness``), re-planning
(``replan``) and the ledger of applied plans (``ledger``).
"""

from __future__ import annotations

import functools
import threading
from abc import ABCMeta
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, Protocol, TypeVar

import pandas as pd

from .._json_file import clipped
from .._progress import Progress, display, offset
from .._stop import stopping
from .._text import counted, figure
from ..client.allowance import Allowance, AllowanceSpent, PacingEnded, checked_share
from ..client.paced_floor import PacedShareTooSmall
from ..errors import BudgetExceededError, RehearsalSnapshotError, StoppedError
from ..fill.pace_run import paced_run
from ..fill.pace_work import PacedWork, paced_work
from ..frames.registry import FRAME_NAMES
from ..snapshot import ProgramSnapshot
from ..snapshot.defaults import DEFAULT_SHARE
from ..snapshot.diff import compare
from ._runner import CANCELLED, UNPACED
from .change_planner import CHANGE_COLUMNS, UNSUPPORTED_COLUMNS, Planner
from .change_rows import CALL_KINDS, DELETES, refused_keys
from .chunked import (
    ChunkAhead,
    chunk_size,
    in_order,
    known_refused,
    not_reached,
    part_of,
    planned_part,
    reads_as_chunked,
    share_of_window,
    to_send,
    waits_for_window,
)
from .cost import PlanCost, budgeted, item_calls, learn_budget
from .edited_frames import EditError, noun, read_edited
from .kept_dropped import dropped_as_kept
from .kept_reads import KeptReads, kept_path
from .kept_replan import KeptReplan, kept_key, learn_date
from .ledger import applied_marker, applied_record, record_applied, refuse_applied
from .lock import held
from .log import (
    ActionLog,
    LogOwner,
    LogSource,
    log_state,
    opened_log,
    reading_once,
    refuse_foreign,
)
from .logged import review_path
from .paced import Heard, hearing, pacing, refuse_past_cycle, refuse_unlogged
from .plan import ActionPlan
from .plan_file import read_plan, save_plan, write_plan
from .plan_text import (
    calls_text,
    marked_calls_text,
    plan_html,
    plan_string,
    refused_lines,
    sample_note,
    summary_line,
)
from .quiet import ReadMark, hear_since, heard_since, mark_read, none_heard_since, quiet_since
from .rehearsal import Rehearsal, rehearse_run, sampled_base_line
from .replan import replanned, touched_again
from .reread import (
    LiveRows,
    done_in_log,
    doubtful,
    left_to_read,
    live_rows,
    own_work,
    read_keys,
    reread_calls,
    service_now,
    touched_read_by,
)
from .results import preview_frame, results_frame
from .reviewed import refuse_unreviewed
from .staleness import ChunkStop, Replanned, stale_error, stale_objects
from .touched import StalePlanError, Touched, touched_objects
from .window_fell import window_fell

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = [
    "CHANGE_COLUMNS",
    "UNSUPPORTED_COLUMNS",
    "ChangePlan",
    "HasFrames",
    "SavedPlan",
    "as_saved",
    "reread_line",
]


class HasFrames(Protocol):
    """What holds edited frames: a ``ProgramEdit`` or a ``ProgramSnapshot``."""

    def frames(self) -> dict[str, pd.DataFrame]: ...


@dataclass(frozen=True, eq=False)
class ChangePlan(metaclass=ABCMeta):
    """What turning ``base`` into the edited frames takes: ``changes`` the service can make
    (sent by ``parts``, one action plan per call), ``unsupported`` the ones it cannot.

    A ``SavedPlan`` counts as one (``isinstance``): it holds its plan and offers all of it.
    """

    base: ProgramSnapshot
    changes: pd.DataFrame
    unsupported: pd.DataFrame
    parts: tuple[ActionPlan[Any], ...]
    inputs: Mapping[str, pd.DataFrame] = field(default_factory=dict, repr=False)
    """Call -> the rows its part was built from (what ``save`` writes)."""
    _budget: PlanCost | None = field(default=None, init=False, repr=False, compare=False)
    """The cost and budget of the last ``cost``, ``preview``, ``apply`` or ``summary`` given a
    client (``None``: never costed with one)."""

    @classmethod
    def from_frames(
        cls,
        before: ProgramSnapshot,
        after: HasFrames | Mapping[str, pd.DataFrame],
    ) -> ChangePlan:
        """The plan from the ``before`` snapshot to the frames of ``after`` (a ``ProgramEdit``,
        a snapshot or a mapping of frames; a kind it lacks is left as it is). ``EditError``
        names the frame, row and column of a cell whose value does not fit the column's
        dtype, a repeated key or an ``id`` not in the base."""
        if not isinstance(before, ProgramSnapshot):
            raise TypeError(f"before: expected a ProgramSnapshot, not {type(before).__name__}")
        if isinstance(after, Mapping):
            frames = after
        elif callable(getattr(after, "frames", None)):
            frames = after.frames()
        else:
            raise TypeError(
                "after: expected a ProgramEdit, a ProgramSnapshot or a mapping of frames,"
                f" not {type(after).__name__}"
            )
        edited = read_edited(before, frames)
        target = ProgramSnapshot.from_frames(
            {kind: edited.kept.get(kind, getattr(before, kind)) for kind in FRAME_NAMES},
            source=before.source,
            pulled_at=before.pulled_at,
        )
        # The keys were lined up once, for the check: the diff reuses them. The target holds
        # a sampled base's own members, so their cards and buckets are compared too (a diff
        # of two pulls leaves them out: there a row one lacks was not read).
        whole = replace(before, sample=None)
        diff = compare(whole, target, ignore=(), aligned=edited.aligned)
        return cls(before, *Planner(before, edited.aligned).plan(diff.changes, edited.new))

    def save(self, path: str | Path) -> Path:
        """Write the plan as readable JSON bound to its base: see ``plan_file``."""
        return save_plan(as_saved(self, path), path)

    @classmethod
    def load(cls, path: str | Path) -> SavedPlan:
        """The plan ``save`` wrote; its ``apply`` first checks the touched objects are
        still as in the base (see ``SavedPlan``)."""
        return SavedPlan.load(path)

    # -- showing ------------------------------------------------------------------------

    def summary(self, client: LoyaltyClient | None = None) -> str:
        """``Plan: N to create, N to change, N to delete; N changes the service cannot make;
        N calls`` (a loaded plan's: ``N calls (R re-reads, then W writes)``, see
        ``SavedPlan``), then ``, R left in this window`` once a budget is known: ``client``'s
        (read now, and remembered: a client that has sent nothing yet fetches its token,
        whose answer tells the budget, as ``apply`` would: ``learn_budget``), else the one of
        the client the plan was last costed, previewed or applied with; ``budget unknown``
        when that client had read none (or the service sends no limit headers). Never
        costed with a client, the summary has no budget part."""
        if client is not None:
            learn_budget(client)
            self.cost(client)
        return summary_line(self.changes, self.unsupported, self._calls_text(), self._budget)

    def _calls_text(self) -> str:
        """The summary's calls: one a change, and a read back of each write the base shows
        the service will refuse (a saved plan's re-read adds its own)."""
        return calls_text(0, int(self.changes["calls"].sum()), self._refusals(None))

    def to_string(self) -> str:
        """The summary, then a line per change (``+``, ``~``, ``-``; a pending-bucket
        activation the base shows blocked ends ``(the service will refuse: REASON)``: it
        is still sent, and its result row says the service's answer, 423) and per change
        the service cannot make (``!``, with the reason): every line, however many."""
        return plan_string(
            self.summary(), self.changes, self.unsupported, whole=True, note=self._base_note()
        )

    @property
    def base_sample(self) -> str | None:
        """The sample the base holds the members of, as text (None: every member was read).
        A plan from a sampled base changes the sampled members' cards and pending buckets
        alone, and says so under its summary; a saved plan keeps it in its file."""
        return None if self.base.sample is None else str(self.base.sample)

    def _base_note(self) -> str:
        return sample_note(self.base_sample, sampled_base_line(self.parts))

    def __str__(self) -> str:
        """``to_string()``, a long plan cut as pandas cuts a long frame: more than
        pandas' ``display.max_rows`` changes (60) show ``display.min_rows`` of them (10),
        half from the head and half from the tail, with a line between counting the rest
        and saying where they all are (``actions.plan_text``)."""
        return plan_string(self.summary(), self.changes, self.unsupported, note=self._base_note())

    def __repr__(self) -> str:
        return f"<ChangePlan {self.summary()}>"

    def _repr_html_(self) -> str:
        """Jupyter's view: the summary, then a table grouped by action (create, change,
        delete, cannot make), each group headed with its count; every value escaped, a
        long group cut as ``str`` cuts the plan."""
        return plan_html(self.summary(), self.changes, self.unsupported, self._base_note())

    def __len__(self) -> int:
        return len(self.changes) + len(self.unsupported)

    # -- running ------------------------------------------------------------------------

    def cost(
        self,
        client: LoyaltyClient | None = None,
        *,
        log: LogSource | None = None,
        budget_share: float = DEFAULT_SHARE,
    ) -> PlanCost:
        """The calls every part sends together (one token request at most), and with
        ``client`` the budget it last read, ``budget_share`` of it the plan's: see
        ``ActionPlan.cost``; the ``log`` read whole once."""
        share = checked_share(budget_share)
        with reading_once(log) as log:
            return self._costed(self._needed(log), client, share)

    def _costed(self, needed: int, client: LoyaltyClient | None, share: float) -> PlanCost:
        """The cost of ``needed`` calls, the budget ``client`` read remembered."""
        cost = PlanCost.for_client(needed, client, share)
        if client is not None:
            self._remember(cost)
        return cost

    def _needed(self, log: LogSource | None) -> int:
        """The calls the parts send, those the ``log`` saw done left out, and the read back
        of each write the base shows the service will refuse (``_refusals``)."""
        return sum(part.cost(log=log).needed for part in self.parts) + self._refusals(log)

    def _refusals(self, log: LogSource | None) -> int:
        """The writes the base shows the service will refuse (``refused_keys``) that the
        run sends once (neither done nor in doubt in the ``log``): each, refused, is read
        back (``ActionPlan.check_done``), a call more (one in doubt is read before instead,
        as its part counts)."""
        calls = 0
        parts = {part.action: part for part in self.parts}
        for call, keys in refused_keys(self.changes).items():
            part = parts.get(call)
            state = (
                log_state(log, call, ask=False) if part is None else part._log_state(log, ask=False)
            )
            calls += sum(item_calls(key, state) == 1 for key in keys)
        return calls

    def _remember(self, cost: PlanCost) -> None:
        """Keep the budget a client read, for ``summary`` (the plan is frozen otherwise)."""
        object.__setattr__(self, "_budget", cost)

    def apply(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None = None,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
        concurrency: int = 8,
        progress: Progress = True,
        cancel: threading.Event | None = None,
        budget_share: float = DEFAULT_SHARE,
        paced: bool = False,
    ) -> pd.DataFrame:
        """Execute every part (creates, then changes, then deletes) with one ``log``; one
        results frame, its ``call`` column naming the part.

        Refused before any write (``check_apply``): deletes without ``allow_destroy`` (each
        row named), unsupported changes without ``ignore_unsupported``, and a plan needing
        more than ``budget_share`` of the calls left (``BudgetExceededError``; by default
        half, the rest staying for the project's other traffic; a client that has sent
        nothing yet fetches its token first, learning the budget).

        Setting ``cancel`` (from another thread, e.g. a Cancel button) stops the apply
        after the requests in flight: every item not yet sent, in this part and the
        following ones, is ``cancelled`` and not logged (see ``ActionPlan.execute``). A
        callable ``progress`` counts ``(done, total)`` over the whole plan's items.

        ``paced=True`` (with a ``log``) is never refused for the window's budget: each part
        runs paced (``ActionPlan.execute(paced=True)``), the whole plan keeping to
        ``budget_share`` of every window (a part counts what the ones before it sent in the
        window) and of the billing cycle.

        Unpaced, the share the check promised holds from the apply's first call to its last
        (one ``client.quota.allowance``): a call beyond ``budget_share`` of what the window
        had left as the apply started (less what other traffic spent since) is not sent,
        whatever the run needs beyond its cost (retries, a refused write's read back); the
        items not sent then, in this part and the following ones, are ``cancelled`` (not
        logged: running again with the log after the reset sends exactly them).
        """
        share = checked_share(budget_share)
        # the log read whole once, however many parts read it
        with reading_once(log) as log, _within_share(client, share, paced) as held:
            return self._checked_run(
                client,
                held,
                log=log,
                allow_destroy=allow_destroy,
                ignore_unsupported=ignore_unsupported,
                concurrency=concurrency,
                progress=progress,
                cancel=cancel,
                share=share,
                paced=paced,
            )

    def _checked_run(
        self,
        client: LoyaltyClient,
        held: Allowance | None,
        *,
        log: LogSource | None,
        allow_destroy: bool,
        ignore_unsupported: bool,
        concurrency: int,
        progress: Progress,
        cancel: threading.Event | None,
        share: float,
        paced: bool,
    ) -> pd.DataFrame:
        """``apply``'s checks, then its parts, within the allowance ``held`` (if any)."""
        self.check_apply(
            client,
            log=log,
            allow_destroy=allow_destroy,
            ignore_unsupported=ignore_unsupported,
            budget_share=share,
            paced=paced,
        )
        results = self._execute(
            client,
            log=log,
            concurrency=concurrency,
            progress=progress,
            cancel=cancel,
            paced_at=share if paced else None,
            held=held,
        )
        self._remember(PlanCost.for_client(0, client))  # the budget the apply left
        return results

    def check_apply(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None = None,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
        budget_share: float = DEFAULT_SHARE,
        paced: bool = False,
    ) -> PlanCost:
        """Raise what ``apply`` with these options would refuse before sending any write (a
        ``log`` of another service or project too, ``ForeignLogError``: before it is counted
        from); else the plan's cost. Nothing is written; a client that has sent nothing yet
        fetches its token first, learning the budget (``learn_budget``). ``paced``: no log
        is refused (``ValueError``) and the window's budget is not, the billing cycle's is."""
        if paced:
            refuse_unlogged(log)
        self._check_options(allow_destroy=allow_destroy, ignore_unsupported=ignore_unsupported)
        # a 429 waits, paced; the token counted in the log's window
        with hearing(client, budget_share, paced, what="apply", log=log) as heard:
            refuse_foreign(log, client)
            cost = budgeted(lambda: self.cost(client, log=log, budget_share=budget_share), client)
        what = f"the change plan ({counted(len(self.changes), 'change')})"
        _refuse_over(cost, what, paced, client, heard)
        return cost

    def _check_options(self, *, allow_destroy: bool, ignore_unsupported: bool) -> None:
        """Refuse deletes without ``allow_destroy`` (the items the parts send, not the rows'
        labels) and unsupported changes without ``ignore_unsupported``. What they quote of
        the rows (an edited or a saved file's) is cut short, a bearer token in it masked."""
        deletes = [
            f"{noun(CALL_KINDS[part.action])} {clipped(str(item.target))}"
            for part in self.parts
            if part.action in DELETES
            for item in part.items
        ]
        if deletes and not allow_destroy:
            raise EditError(
                f"the plan deletes {counted(len(deletes), 'row')} ({', '.join(deletes)}):"
                " pass allow_destroy=True"
            )
        if len(self.unsupported) and not ignore_unsupported:
            rows = "; ".join(refused_lines(self.unsupported))
            raise EditError(
                f"the plan holds {counted(len(self.unsupported), 'change')} the service cannot make"
                f" ({rows}): revert them, or pass ignore_unsupported=True"
            )

    def rehearse(
        self,
        snapshot: ProgramSnapshot | str | Path | None = None,
        *,
        log: LogSource | None = None,
        concurrency: int = 8,
        progress: Progress = True,
    ) -> Rehearsal:
        """Run every part on one sandbox started from ``snapshot`` (default: the base);
        ``rehearsal.diff`` shows the result, ``rehearsal.verify(after, results=...)``
        checks production after ``apply``. Deletes and unsupported rows are not refused."""
        return rehearse_run(
            "change_plan",
            self.parts,
            self.base if snapshot is None else snapshot,
            lambda client, copied: self._execute(
                client, log=copied, concurrency=concurrency, progress=progress
            ),
            log=log,
            progress=progress,
        )

    def preview(
        self,
        client: LoyaltyClient | None = None,
        *,
        log: LogSource | None = None,
        concurrency: int = 8,
        progress: Progress = True,
    ) -> pd.DataFrame:
        """Every part's ``preview`` in one frame, its ``call`` column naming the part: with
        ``client``, what the service's state makes of each item (a pending bucket that
        cannot activate shows its ``blocked_reason``). Nothing is written."""
        preview = _by_call(
            (
                (
                    part.action,
                    part.preview(client, log=log, concurrency=concurrency, progress=progress),
                )
                for part in self.parts
            ),
            preview_frame((), ()),
        )
        if client is not None:
            self.cost(client, log=log)  # the budget the preview's reads left
        return preview

    def _execute(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None,
        concurrency: int,
        progress: Progress,
        cancel: threading.Event | None = None,
        paced_at: float | None = None,
        held: Allowance | None = None,
    ) -> pd.DataFrame:
        """Every part executed in turn; ``paced_at``: each paced at that share. Unpaced, the
        plan as a whole is ``held`` to its share (``_within_share``): each part may take what
        is left of it, and once it is spent the parts after are not sent (``_not_sent``).
        Held so, a part is not refused for the window before it starts (the apply's check
        counted it): the window fallen since (another client's calls, the plan lowered), it
        sends what the share still holds and its items beyond are ``cancelled``, not the
        apply raised part way with the parts before unreported."""
        total = sum(len(part.items) for part in self.parts)
        frames: list[tuple[str, pd.DataFrame]] = []
        done = 0
        for part in self.parts:
            if held is not None and held.left == 0:
                results = part._not_sent(client, log)
            else:
                try:
                    # Paced, each part keeps to the share of every window, counting the parts
                    # before.
                    results = part.execute(
                        client,
                        log=log,
                        concurrency=concurrency,
                        progress=offset(progress, done, total),
                        cancel=cancel,
                        budget_share=1.0 if paced_at is None else paced_at,
                        paced=paced_at is not None,
                        allow_partial=held is not None,  # the share held stops it
                    )
                except AllowanceSpent:  # before the part sent an item (its items each stop so)
                    results = part._not_sent(client, log)
                except BudgetExceededError as refused:  # the whole window's, fallen since
                    if held is not None or paced_at is not None:
                        raise
                    made = sum(int((f["outcome"] == "succeeded").sum()) for _, f in frames)
                    items = len(part.valid_items)
                    raise window_fell(refused, part.action, items, made, log is not None) from None
            frames.append((part.action, results))
            done += len(part.items)
        return _by_call(frames)

    def _not_sent(self, client: LoyaltyClient, log: LogSource | None) -> pd.DataFrame:
        """Every part's results when the apply's share was spent before it wrote (by the
        re-read): see ``ActionPlan._not_sent``."""
        return _by_call((part.action, part._not_sent(client, log)) for part in self.parts)


@dataclass(frozen=True)
class _Refreshing:
    """A paced ``refresh=True`` apply re-planning each chunk (``_chunk_replanned``): its
    options."""

    allow_destroy: bool
    ignore_unsupported: bool


def _reconsidered(log: ActionLog | None, refresh: bool) -> AbstractContextManager[object]:
    """A ``refresh``'s run in the block: the plan made again, the ``log``'s refusals for good
    are sent again, the line saying so written with the run's first write, none by a run
    refused or stopped before it (``ActionLog.as_reconsidered``)."""
    return log._reconsidered_in() if refresh and log is not None else nullcontext()


def _by_call(
    frames: Iterable[tuple[str, pd.DataFrame]], empty: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The parts' frames one after the other, a first column ``call`` naming each row's part.
    Without a part (a plan of no changes), ``empty`` (default: the results frame of no items)
    with its ``call``: the columns and dtypes a reader of a frame with rows relies on."""
    parts = [frame.assign(call=call) for call, frame in frames]
    if not parts:
        none = results_frame((), ()) if empty is None else empty
        parts = [none.assign(call=pd.Series(dtype="str"))]
    out = pd.concat(parts, ignore_index=True)
    return out[["call", *[c for c in out.columns if c != "call"]]]


_P = ParamSpec("_P")
_R = TypeVar("_R")
_NO_FILE = Path()


def _one_writer(
    apply: Callable[Concatenate[SavedPlan, _P], _R],
) -> Callable[Concatenate[SavedPlan, _P], _R]:
    """``apply`` holding the plan file's lock throughout: one writer per plan (``lock``)."""

    @functools.wraps(apply)
    def one_writer(plan: SavedPlan, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with held(plan.path, "is being applied"):
            return apply(plan, *args, **kwargs)

    return one_writer


@dataclass(frozen=True, eq=False, init=False)
class SavedPlan:
    """A ``ChangePlan`` read from its file: it holds the ``plan`` and offers all of it
    (``changes``, ``summary``, ``preview``, ``rehearse``...), with the file's ``path`` and
    ``sha256`` and the base hashes of the objects the plan ``touched``; ``apply`` checks
    the base first.

    ``apply`` refuses what it can without sending anything (``check_apply``), then
    re-reads exactly the touched objects (``reread_cost``, counted in the summary) and
    refuses a stale plan, naming each object whose live row differs from the base and
    each created benefit's name another benefit took since (``StalePlanError``);
    ``refresh=True`` re-plans against the live rows instead (``refreshed``). A plan
    applied to completion is recorded next to the file (``applied_marker``, see
    ``ledger``) and refuses to apply again; an interrupted apply resumes from its action
    log (objects the log saw done are not stale: the plan changed them, ``own_work``;
    one whose every write the log saw done is not even re-read, ``left_to_read``).

    Its ``base`` holds the base's ``source`` and ``pulled_at`` only (no rows): pass the
    snapshot to ``rehearse(snapshot)``.
    """

    plan: ChangePlan
    """The plan the file holds."""
    path: Path
    """The plan file."""
    touched: tuple[Touched, ...]
    """Kind, key, call and base hash of each object the plan touches (see ``touched``)."""
    sha256: str
    """sha256 of the plan file's bytes as read: what ``<file>.applied`` records."""

    def __init__(
        self,
        base: ProgramSnapshot,
        changes: pd.DataFrame,
        unsupported: pd.DataFrame,
        parts: tuple[ActionPlan[Any], ...],
        inputs: Mapping[str, pd.DataFrame] | None = None,
        *,
        path: Path = _NO_FILE,
        touched: tuple[Touched, ...] = (),
        sha256: str = "",
    ) -> None:
        plan = ChangePlan(base, changes, unsupported, parts, {} if inputs is None else inputs)
        object.__setattr__(self, "plan", plan)  # frozen: set once, here
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "touched", touched)
        object.__setattr__(self, "sha256", sha256)

    @classmethod
    def load(cls, path: str | Path) -> SavedPlan:
        """The plan ``ChangePlan.save`` wrote to ``path`` (see ``plan_file``)."""
        found = read_plan(path)
        saved = cls(*found[:5], path=Path(path), touched=found.touched, sha256=found.sha256)
        object.__setattr__(saved, "_file_sample", found.sample)  # frozen: set once, here
        object.__setattr__(saved, "_read_mark", found.read)
        return saved

    @classmethod
    def from_frames(
        cls, before: ProgramSnapshot, after: HasFrames | Mapping[str, pd.DataFrame]
    ) -> SavedPlan:
        """``ChangePlan.from_frames(before, after)``, held with no file."""
        plan = ChangePlan.from_frames(before, after)
        return cls(plan.base, plan.changes, plan.unsupported, plan.parts, plan.inputs)

    # -- the plan it holds ---------------------------------------------------------------

    @property
    def base(self) -> ProgramSnapshot:
        """The plan's base (read from a file: its ``source`` and ``pulled_at`` only)."""
        return self.plan.base

    @property
    def base_sample(self) -> str | None:
        """The sample the base holds the members of, as text (``ChangePlan.base_sample``;
        read from a file: as the file says)."""
        if self.sha256:
            sample: str | None = getattr(self, "_file_sample", None)
            return sample
        return self.plan.base_sample

    def _base_note(self) -> str:
        return sample_note(self.base_sample, sampled_base_line(self.plan.parts))

    @property
    def changes(self) -> pd.DataFrame:
        """The plan's changes (``ChangePlan.changes``)."""
        return self.plan.changes

    @property
    def unsupported(self) -> pd.DataFrame:
        """The changes the service cannot make (``ChangePlan.unsupported``)."""
        return self.plan.unsupported

    @property
    def parts(self) -> tuple[ActionPlan[Any], ...]:
        """The action plans sending the changes (``ChangePlan.parts``)."""
        return self.plan.parts

    @property
    def inputs(self) -> Mapping[str, pd.DataFrame]:
        """Call -> the rows its part is built from (``ChangePlan.inputs``)."""
        return self.plan.inputs

    @property
    def _budget(self) -> PlanCost | None:
        return self.plan._budget

    def _remember(self, cost: PlanCost) -> None:
        self.plan._remember(cost)

    def save(self, path: str | Path) -> Path:
        """Write the plan to ``path`` (``ChangePlan.save``)."""
        return self.plan.save(path)

    def summary(self, client: LoyaltyClient | None = None, *, log: LogSource | None = None) -> str:
        """The plan's summary (``ChangePlan.summary``), its calls counting the re-read:
        ``N calls (R re-reads, then W writes)``; with the ``log`` of an interrupted apply,
        those its resumed apply sends (``cost(log=log)``'s): the re-read left and a read
        back of each write in doubt, then the parts' calls left. With ``client``, its budget
        learnt as ``ChangePlan.summary`` learns it."""
        log = self._bound(log)
        if client is not None:
            learn_budget(client)
            self.cost(client, log=log)
        return summary_line(self.changes, self.unsupported, self._calls_text(log), self._budget)

    def _calls_text(self, log: LogSource | None = None) -> str:
        """``N calls (R re-reads, then W writes)``: ``apply`` re-reads before it writes."""
        refused = self.plan._refusals(log)
        if log is None:
            reads, writes = self._reread_calls(), int(self.changes["calls"].sum())
        else:
            kept: frozenset[tuple[str, ...]] = getattr(self, "_kept_counted", frozenset())
            chunked: int | None = getattr(self, "_chunked_counted", None)
            refresh: bool = getattr(self, "_refresh_counted", False)
            # a refresh sends the writes refused for good again, each read back if refused
            again = self._reconsidered(log) if refresh else 0
            writes = self.plan._needed(log) - refused + again
            refused += again
            reads = self._needed(log, kept, refresh=refresh, reads=chunked) - writes - refused
            writes -= getattr(self, "_dropped_counted", 0)  # a refresh's, the kept rows show
        held: bool | None = getattr(self, "_held_counted", None)
        if held:  # re-planned from a read the service shows no call since: none sent
            reads = 0
        elif held is None and getattr(self, "_read_mark", None) is not None:
            return marked_calls_text(reads, max(0, writes), refused)  # not known yet
        return calls_text(reads, max(0, writes), refused)

    def to_string(self) -> str:
        """The summary, then every line (see ``ChangePlan.to_string``), then the file line."""
        return self._with_file(
            plan_string(
                self.summary(), self.changes, self.unsupported, whole=True, note=self._base_note()
            )
        )

    def __str__(self) -> str:
        """The summary, then a line per change, a long plan cut (see ``ChangePlan.__str__``),
        then, read from a file, ``File: PATH (sha256 HEX)``: what ``apply(sha256=...)`` binds
        to."""
        return self._with_file(
            plan_string(self.summary(), self.changes, self.unsupported, note=self._base_note())
        )

    def __repr__(self) -> str:
        file = f"{self.path} sha256={self.sha256}" if self.sha256 else str(self.path)
        return f"<SavedPlan {file}: {self.summary()}>"

    def _repr_html_(self) -> str:
        """Jupyter's view (see ``ChangePlan._repr_html_``), the file and its sha256 under
        the summary."""
        note = "\n".join(filter(None, [self._base_note(), self._file_line() * bool(self.sha256)]))
        return plan_html(self.summary(), self.changes, self.unsupported, note)

    def _file_line(self) -> str:
        return f"File: {self.path} (sha256 {self.sha256})"

    def _with_file(self, text: str) -> str:
        """``text`` and, for a plan read from a file, the file line under it."""
        return f"{text}\n{self._file_line()}" if self.sha256 else text

    def __len__(self) -> int:
        return len(self.plan)

    def cost(
        self,
        client: LoyaltyClient | None = None,
        *,
        log: LogSource | None = None,
        budget_share: float = DEFAULT_SHARE,
        paced: bool = False,
        refresh: bool = False,
    ) -> PlanCost:
        """The re-read's calls, one read back of each write the ``log`` holds in doubt
        (``own_work``), then the parts' (those the ``log`` saw done left out); with
        ``client`` the budget it last read, ``budget_share`` of it the plan's
        (``ChangePlan.cost``), and no re-read for a plan a stale apply re-planned while the
        service shows no call of the project since its read (``apply`` sends none). With
        ``client``, the reads the rows kept beside the ``log`` answer are not counted: an
        apply with these ``paced`` and ``refresh`` takes them up (``kept_rows``), and a
        ``refresh`` counts no write those rows show it drops (``kept_dropped``); checked as
        it writes (``paced`` with a ``log``, a ``refresh`` too: ``chunked``), each chunk's
        re-read, an object several chunks need counted for each, its chunks cut as they
        will be from the window's share left now. The ``log`` is read whole once."""
        share = checked_share(budget_share)
        with self._bound_log(log) as log, reading_once(log) as log:
            kept = self._kept_rows(client, log, paced=paced, refresh=refresh)
            chunked = self._chunked_reads(client, log, kept, share, paced=paced, refresh=refresh)
            object.__setattr__(self, "_kept_counted", kept)  # for ``summary``, as the budget is
            object.__setattr__(self, "_chunked_counted", chunked)
            object.__setattr__(self, "_refresh_counted", refresh)
            needed = self._needed(log, kept, refresh=refresh, reads=chunked)
            holds = client is not None and self._read_holds(client, log)
            if holds:
                needed -= self._reread_calls(log, kept, refresh=refresh)
            object.__setattr__(self, "_held_counted", self._held(client, holds))  # for ``summary``
            dropped = 0
            if client is not None and refresh and kept and not holds:
                dropped = self._dropped(client, log, paced)
            object.__setattr__(self, "_dropped_counted", dropped)  # for ``summary`` too
        return self.plan._costed(needed - dropped, client, share)

    def _held(self, client: LoyaltyClient | None, holds: bool) -> bool | None:
        """Whether the apply sends no re-read, its plan re-planned from a read the service
        shows no call of the project since (``holds``); None when not known yet: no
        ``client``, or one that sent no call since (its apply's first call tells)."""
        mark: ReadMark | None = getattr(self, "_read_mark", None)
        if holds or mark is None:
            return holds
        return None if client is None or not heard_since(mark, client) else False

    def _dropped(self, client: LoyaltyClient, log: LogSource | None, paced: bool) -> int:
        """The calls of the writes a ``refresh`` drops that the rows kept beside the ``log``
        already show (made, or no longer allowed: ``kept_dropped``), counted with no call."""
        kept = self._kept(log, client, paced)
        if kept is None:
            return 0
        left = self._rereads(log, refresh=True)
        now, dated = service_now(client), client.service_time() is not None
        replans = self._kept_replan
        return dropped_as_kept(self, self.parts, log, left, kept, now, replans, dated=dated)

    @functools.cached_property
    def _kept_replan(self) -> KeptReplan:
        """The plan a refresh's cost made again from the rows kept beside the log, for the
        apply that follows on the same rows (``kept_replan``)."""
        return KeptReplan()

    def _chunked_reads(
        self,
        client: LoyaltyClient | None,
        log: LogSource | None,
        kept: frozenset[tuple[str, ...]],
        share: float,
        *,
        paced: bool,
        refresh: bool,
    ) -> int | None:
        """The re-read calls of an apply with these ``paced`` and ``refresh`` and the ``log``
        checked (or, ``refresh``, re-planned) as it writes (``chunked``; None: it reads
        otherwise), a ``refresh``'s writes the log shows refused for good too, the reads ``kept``
        answers left out: each chunk's, an object several chunks need (a card definition
        many creates point at, a listing of names or rewards a chunk boundary cuts) counted
        for each, its chunks cut as the apply will cut them from ``share`` of the window's
        calls left now (``reads_as_chunked``; another's call since changes them)."""
        if not paced or log is None or not self.sha256 or client is None:
            return None
        if self._read_holds(client, log):
            return None
        states = [log_state(log, part.action, client) for part in self.parts]
        in_doubt = sum(len(doubtful(part, s)) for part, s in zip(self.parts, states, strict=True))
        todos = [
            (part, to_send(part, state, reconsidered=refresh))
            for part, state in zip(self.parts, states, strict=True)
        ]
        left, whole = self._share_left(client, log, share)
        left = None if left is None else max(0, left - in_doubt)  # read back first
        actions = {part.action: state for part, state in zip(self.parts, states, strict=True)}
        return reads_as_chunked(
            self.touched,
            self.inputs,
            todos,
            kept,
            left,
            whole,
            carried=refresh,
            token_held=client.holds_token,
            refused=known_refused(self.changes, actions, reconsidered=refresh),
        )

    @staticmethod
    def _share_left(
        client: LoyaltyClient, log: LogSource, share: float
    ) -> tuple[int | None, int | None]:
        """The calls a paced apply's share holds in this window now (the plan's earlier runs'
        there counted, ``paced.pacing``), and in a whole window (None: the budget unknown)."""
        whole = share_of_window(client, share)
        action_log = log if isinstance(log, ActionLog) else ActionLog(log)
        try:
            with client.quota.allowance(share, paced=True, earlier=action_log.earlier) as held:
                return held.left, whole
        finally:
            if action_log is not log:
                action_log.close()

    def _needed(
        self,
        log: LogSource | None,
        kept: frozenset[tuple[str, ...]] = frozenset(),
        *,
        refresh: bool = False,
        reads: int | None = None,
    ) -> int:
        """The calls of an apply with the ``log``: the re-read (less what ``kept`` rows
        answer; ``reads``, when given: a chunked apply's, ``_chunked_reads``), a read back of
        each write in doubt, the parts' writes; a ``refresh`` sends the writes the log shows
        refused for good again (``ActionLog.reconsider``), each with its read back should it
        be refused again (two calls: one when it is made now)."""
        states = [log_state(log, part.action) for part in self.parts]
        in_doubt = sum(len(doubtful(part, s)) for part, s in zip(self.parts, states, strict=True))
        again = 2 * self._reconsidered(log) if refresh else 0
        if reads is None:
            reads = self._reread_calls(log, kept, refresh=refresh)
        return reads + in_doubt + self.plan._needed(log) + again

    def _reconsidered(self, log: LogSource | None) -> int:
        """The writes the ``log`` shows refused for good, which a refresh sends again."""
        return sum(len(log_state(log, part.action).refused) for part in self.parts)

    def _kept_rows(
        self, client: LoyaltyClient | None, log: LogSource | None, *, paced: bool, refresh: bool
    ) -> frozenset[tuple[str, ...]]:
        """What the rows kept beside ``log`` answer (``ReadKeys``' keys) for an apply with
        ``client`` and these options: a ``refresh`` takes up any kept (a stale refusal's, a
        paced re-read stopped part way), a ``paced`` apply those of a re-read stopped part way,
        an unpaced one none (``_checked``)."""
        kept = None if client is None else self._kept(log, client, paced)
        if kept is None or not (refresh or (paced and not kept.refused)):
            return frozenset()
        return frozenset(kept.held)

    def preview(
        self,
        client: LoyaltyClient | None = None,
        *,
        log: LogSource | None = None,
        concurrency: int = 8,
        progress: Progress = True,
    ) -> pd.DataFrame:
        """The plan's preview (``ChangePlan.preview``): nothing is written."""
        log = self._bound(log)
        return self.plan.preview(client, log=log, concurrency=concurrency, progress=progress)

    def rehearse(
        self,
        snapshot: ProgramSnapshot | str | Path | None = None,
        *,
        log: LogSource | None = None,
        concurrency: int = 8,
        progress: Progress = True,
    ) -> Rehearsal:
        """The plan's rehearsal (``ChangePlan.rehearse``); pass the base ``snapshot``: a
        plan read from its file holds none (``RehearsalSnapshotError`` naming ``snapshot``
        without it)."""
        if snapshot is None and self.sha256:
            raise RehearsalSnapshotError(
                f"snapshot: the plan read from {self.path} holds no base to rehearse on (its"
                " source and pulled_at only): pass the snapshot it was made from, or the folder"
                " its to_csv wrote"
            )
        return self.plan.rehearse(
            snapshot, log=self._bound(log), concurrency=concurrency, progress=progress
        )

    # -- the file's checks -------------------------------------------------------------

    @property
    def applied_marker(self) -> Path:
        """Where a complete apply is recorded: next to the plan file (see ``ledger``)."""
        return applied_marker(self.path)

    def applied_before(self) -> dict[str, Any] | None:
        """The marker's record of an apply to completion of this very plan (its file's
        sha256), else ``None``; a record without a hash (an older toolkit's) counts as
        this plan's: it cannot tell."""
        return applied_record(self.path, self.sha256)

    def reread_cost(
        self,
        client: LoyaltyClient | None = None,
        *,
        log: LogSource | None = None,
        paced: bool = False,
        refresh: bool = False,
        budget_share: float = DEFAULT_SHARE,
    ) -> PlanCost:
        """The calls re-reading the touched objects takes: one per 99 rewards (listed by
        ID), one per tier structure and card definition, one per page of 100 buckets of a
        card holding touched pending buckets (as many as the card held in the base: a card
        listing more is refused, not read further), one per 10 names of created benefits
        (a name held by over 100 benefits costs more); with ``client``, one more for a
        token if it holds none, and the budget it last read. With the ``log`` of an
        interrupted apply, an object whose every write the log saw done is not re-read
        (``reread.left_to_read``), nor one the rows kept beside it answer for an apply with
        these ``paced`` and ``refresh`` (see ``cost``). Paced with a ``log`` (a ``refresh``
        too), the re-read goes a chunk at a time with ``budget_share`` of each window
        (``chunked``): an object several chunks need is counted for each (see ``cost``). The
        ``log`` is read whole once."""
        share = checked_share(budget_share)
        with self._bound_log(log) as log, reading_once(log) as log:
            kept = self._kept_rows(client, log, paced=paced, refresh=refresh)
            chunked = self._chunked_reads(client, log, kept, share, paced=paced, refresh=refresh)
            reads = self._reread_calls(log, kept, refresh=refresh) if chunked is None else chunked
        return PlanCost.for_client(reads, client)

    def _reread_calls(
        self,
        log: LogSource | None = None,
        kept: frozenset[tuple[str, ...]] = frozenset(),
        *,
        refresh: bool = False,
    ) -> int:
        """The re-read's calls (``reread_calls``); the whole re-read's (no ``log``, nothing
        ``kept``) is ``_whole_reread``, counted once."""
        if log is not None or kept:
            return reread_calls(self._rereads(log, refresh=refresh), self.inputs, kept=kept)
        return self._whole_reread

    @functools.cached_property
    def _whole_reread(self) -> int:
        """The whole re-read's calls, counted once a plan (its touched objects and rows are
        fixed): each count walks every touched entry, and a summary is asked for often."""
        return reread_calls(self.touched, self.inputs)

    def _rereads(
        self, log: LogSource | None, client: LoyaltyClient | None = None, *, refresh: bool = False
    ) -> list[Touched]:
        """The touched objects the re-read reads: those with a write the ``log`` did not see
        done, nor refused for good but by a ``refresh``, which reconsiders those (see
        ``reread.left_to_read``; with ``client``, a foreign log is refused)."""
        if log is None:
            return list(self.touched)
        done = done_in_log(self.parts, self._bound(log), client, refused=not refresh)
        return left_to_read(self.touched, self.inputs, done)

    def live_rows(
        self, client: LoyaltyClient, *, log: LogSource | None = None
    ) -> dict[tuple[str, str], pd.DataFrame | None]:
        """(kind, key) -> the touched object's live row (``None`` when it is gone); for a
        created benefit's name, the live benefits holding it (``id``, ``name``). With the
        ``log`` of an interrupted apply, only the objects ``reread_cost(log=log)`` counts."""
        return self._live(client, self._bound(log), None)

    def _live(
        self,
        client: LoyaltyClient,
        log: LogSource | None,
        kept: KeptReads | None,
        *,
        refresh: bool = False,
    ) -> LiveRows:
        """``live_rows`` (a ``refresh``'s: of the writes refused for good too, ``_rereads``),
        what ``kept`` holds of a stopped paced re-read not read again."""
        return live_rows(client, self._rereads(log, client, refresh=refresh), self.inputs, kept)

    def own_work(self, client: LoyaltyClient, log: LogSource | None) -> dict[str, set[str]]:
        """Call -> the targets the plan's own writes made: done in the ``log``, or in doubt
        there (an apply stopped while sending them) and read back done, one read each (a
        benefit's name is unique: one holding it with the plan's settings is the plan's)."""
        return own_work(self.parts, client, self._bound(log))

    def stale(self, client: LoyaltyClient, *, log: LogSource | None = None) -> list[str]:
        """Each touched object whose live row differs from the base, as ``kind key``
        (objects the plan's own writes made, ``own_work``, are not staleness)."""
        log = self._bound(log)
        return self._stale_in(self.live_rows(client, log=log), self.own_work(client, log), client)

    def _stale_in(
        self, live: LiveRows, own: Mapping[str, set[str]], client: LoyaltyClient
    ) -> list[str]:
        """``stale``'s answer from the ``live`` rows read and the plan's ``own`` work."""
        reread = [entry for entry in self.touched if (entry["kind"], entry["key"]) in live]
        changes = self.changes
        activatable = changes.loc[
            (changes["kind"] == "pending_buckets") & changes["blocked_reason"].isna(), "key"
        ]
        return stale_objects(
            reread, live, own, today=service_now(client).date(), activatable=set(activatable)
        )

    def refreshed(self, client: LoyaltyClient, *, log: LogSource | None = None) -> ChangePlan:
        """The plan made again against the live rows of the touched objects, from typed
        values (see ``replan``): a change already made drops out, one the live state no
        longer allows is unsupported. What the plan's own writes made (``own_work`` of
        ``log``) is not re-planned: a create stays (the log settles it), any other change
        drops out."""
        return self._refreshed(client, self._bound(log), None)

    def _refreshed(
        self, client: LoyaltyClient, log: LogSource | None, kept: KeptReads | None
    ) -> ChangePlan:
        """``refreshed``: the plan made again from the rows read, those ``kept`` answer with
        no call; the plan this refresh's cost made again from the same rows, when it did
        (``kept_replan``: the rows, the log's state and the service's date unchanged)."""
        if kept is not None:
            left = self._rereads(log, client, refresh=True)
            key = kept_key(self.parts, self.inputs, log, left, kept, service_now(client))
            made = self._kept_replan.taken(key)
            if made is not None:
                return ChangePlan(made[0], *made[1])
        live = self._live(client, log, kept, refresh=True)
        own, dated = self.own_work(client, log), client.service_time() is not None
        base, planned = replanned(self, live, own, service_now(client), dated=dated)
        return ChangePlan(base, *planned)

    def check_apply(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None = None,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
        refresh: bool = False,
        budget_share: float = DEFAULT_SHARE,
        sha256: str | None = None,
        paced: bool = False,
    ) -> PlanCost:
        """Raise what ``apply`` with these options refuses before the re-read (nothing is
        written; a client that has sent nothing yet fetches its token first, learning the
        budget, ``learn_budget``, and a sandbox's date a ``refresh`` makes its kept rows'
        plan again by, ``kept_replan.learn_date``): first, before any call, a file whose
        ``sha256`` is not the one given (``UnreviewedPlanError``, see ``reviewed``); then a plan
        already applied, deletes without ``allow_destroy``, unsupported
        changes without ``ignore_unsupported`` (``refresh`` checks those of the plan made
        again), a ``log`` of another service or project (``ForeignLogError``, before the
        cost is counted from it), a budget that cannot hold the re-read and the writes
        (``paced``: no log, ``ValueError``, and a billing cycle that cannot); else that cost."""
        if paced:
            refuse_unlogged(log)
        refuse_unreviewed(self.path, self.sha256, sha256)
        log = self._bound(log)
        refuse_applied(self.path, self.sha256)
        self.plan._check_options(
            allow_destroy=allow_destroy, ignore_unsupported=ignore_unsupported or refresh
        )
        # a 429 waits, paced; the token counted in the log's window
        with hearing(client, budget_share, paced, what="apply", log=log) as heard:
            refuse_foreign(log, client)
            unheard = refresh and not client.holds_token
            if unheard and self._kept_rows(client, log, paced=paced, refresh=True):
                learn_date(client)  # the plan made again from the kept rows: by its date, once
            cost = budgeted(
                lambda: self.cost(
                    client, log=log, budget_share=budget_share, paced=paced, refresh=refresh
                ),
                client,
            )
        if paced and heard.sent and log is not None:
            # its calls (the token request) now noted in the log as this run's in the window:
            # the share left, and the chunks it cuts, as the apply's own allowances see them
            cost = self.cost(
                client, log=log, budget_share=budget_share, paced=paced, refresh=refresh
            )
        what = f"re-reading the objects {self.path} touches, then the writes"
        _refuse_over(cost, what, paced, client, heard)
        return cost

    @_one_writer
    def apply(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None = None,
        refresh: bool = False,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
        concurrency: int = 8,
        progress: Progress = True,
        cancel: threading.Event | None = None,
        budget_share: float = DEFAULT_SHARE,
        sha256: str | None = None,
        paced: bool = False,
    ) -> pd.DataFrame:
        """Check the base, then apply (see ``ChangePlan.apply``, ``cancel``,
        ``budget_share`` and ``paced`` too: paced, the re-read is as well, a chunk of writes
        at a time, each chunk's objects re-read just before it is sent, ``chunked``; the
        first stale chunk stops the apply, its writes unsent, saving the plan made again for
        review only when that chunk read every object left, see ``_for_review``; a paced
        ``refresh`` instead re-plans each chunk's writes from its rows just read, as
        ``refreshed`` plans them, and sends those: it writes in each window its share holds a
        chunk in, and a change the chunk's rows no longer allow refuses it there, the earlier
        chunks' writes made and logged); recorded once complete.

        ``sha256`` (the 64 hex digits of the reviewed file's sha256, ``File:`` in the
        plan's text) binds the apply to the file reviewed: a file whose bytes were read as
        another is refused before any call (``UnreviewedPlanError``). Without it the file
        is trusted as it now reads.

        Refused before any write: a plan another apply is applying (``LockHeldError``
        naming it: one writer per plan, see ``lock``); then (``check_apply``, before the
        re-read) a file other than the reviewed one, a plan already applied
        (``PlanAlreadyAppliedError``), deletes without ``allow_destroy``, unsupported
        changes without ``ignore_unsupported``, a ``log`` of
        another service or project (``ForeignLogError``), a budget that cannot hold the
        re-read and the writes; after the re-read, a stale plan
        (``StalePlanError`` naming each object; ``refresh=True`` re-plans against the live
        state instead: with the ``log`` of an apply so refused, or of a refresh refused
        for its unsupported changes, from the rows that re-read read, not read again within
        ``kept_reads.KEPT_FOR``). With the ``log`` of an interrupted apply, what the plan's
        own writes made (``own_work``) is neither stale nor sent again, nor is a write the
        service refused for good (``actions.log``: a 404, 409 or 423), its result that
        refusal, unless ``refresh`` (the plan made again reconsiders it: the log's line saying
        so written with the first write, none by a refresh refused or stopped before one).

        Unpaced, the share checked holds over the re-read and the writes together (see
        ``ChangePlan.apply``): a re-read it stops sends no write, every item ``cancelled``.

        ``progress`` as everywhere: ``True`` prints the re-read's cost as a line of text
        where a bar would show (a notebook, a terminal; not with ``LYT_PROGRESS=off``),
        a callable or ``False`` prints nothing.
        """
        share = checked_share(budget_share)
        # Unpaced, the share checked holds over the re-read and every part (``_within_share``);
        # the log's lines read are this plan file's runs' (``_bound``), read whole once.
        with (
            self._bound_log(log) as log,
            reading_once(log) as log,
            _within_share(client, share, paced) as held,
        ):
            cost = self.check_apply(
                client,
                log=log,
                allow_destroy=allow_destroy,
                ignore_unsupported=ignore_unsupported,
                refresh=refresh,
                budget_share=share,
                sha256=sha256,
                paced=paced,
            )
            # one writer; its owner and plan lines before its re-read keeps any read (a paced
            # one's, ``kept_reads``): a log, and what is kept beside it, of this service's state
            with opened_log(log) as action_log:
                if action_log is not None:
                    action_log.claim(LogOwner.of(client))
                    action_log.begin_plan()
                if progress is True and display() is not None:  # where a bar would show, as text
                    print(
                        reread_line(
                            self, client, log, paced=paced, refresh=refresh, budget_share=share
                        )
                    )
                # (a paced apply without a log was refused above)
                paced_reread = (
                    self._reread_paced(client, log, share, progress)
                    if paced and log is not None
                    else nullcontext()
                )
                try:
                    if not refresh and self._read_holds(client, log, hear=True):
                        # the stale apply it was re-planned from read it: unchanged since
                        plan = self.plan
                    elif paced and log is not None and self.sha256:
                        # checked as it writes, a chunk at a time (``chunked``); a refresh
                        # re-plans each chunk from the rows just read
                        self.plan.check_apply(
                            client,
                            log=log,
                            allow_destroy=allow_destroy,
                            ignore_unsupported=ignore_unsupported or refresh,
                            budget_share=share,
                            paced=True,
                        )
                        kept = self._kept(log, client, paced)
                        assert kept is not None and action_log is not None
                        refreshing = (
                            _Refreshing(allow_destroy, ignore_unsupported) if refresh else None
                        )
                        with _reconsidered(action_log, refresh):
                            results = self._written_as_checked(
                                client,
                                log,
                                kept,
                                (share, concurrency, progress, cancel, cost.needed),
                                refreshing,
                            )
                        self._remember(PlanCost.for_client(0, client))
                        record_applied(self.path, self.sha256, results)
                        return results
                    else:
                        # a refresh takes up what a stale refusal of this plan just read
                        kept = self._kept(log, client, paced)
                        with paced_reread:
                            plan = self._checked(
                                client,
                                log,
                                refresh,
                                kept,
                                allow_destroy=allow_destroy,
                                ignore_unsupported=ignore_unsupported,
                            )
                except AllowanceSpent:
                    if held is None:
                        raise
                    results = self.plan._not_sent(client, log)  # the re-read spent the share
                else:
                    # the plan's own checks (a refreshed plan's unsupported changes), its parts
                    with _reconsidered(action_log, refresh):
                        results = plan._checked_run(
                            client,
                            held,
                            log=log,
                            allow_destroy=allow_destroy,
                            ignore_unsupported=ignore_unsupported,
                            concurrency=concurrency,
                            progress=progress,
                            cancel=cancel,
                            share=share,
                            paced=paced,
                        )
        self._remember(PlanCost.for_client(0, client))  # the budget the apply left
        record_applied(self.path, self.sha256, results)
        return results

    @contextmanager
    def _reread_paced(
        self,
        client: LoyaltyClient,
        log: LogSource,
        share: float,
        progress: Progress,
        planned: Callable[[], int] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[Allowance]:
        """The re-read's calls (``planned()``, else all it reads) paced at ``share`` of every
        window (``actions.paced``); ``cancel`` set, a wait for the next window ends
        (``StoppedError``)."""
        action_log = log if isinstance(log, ActionLog) else ActionLog(log)
        if planned is None:
            calls = self._reread_calls(log)
            planned = lambda: calls  # noqa: E731
        stopped = nullcontext() if cancel is None else stopping(cancel, CANCELLED)
        try:
            with (
                pacing(client, action_log, share, planned, progress, "re-read") as allowance,
                stopped,
            ):
                yield allowance
        finally:
            if action_log is not log:
                action_log.close()

    def _written_as_checked(
        self,
        client: LoyaltyClient,
        log: LogSource,
        kept: KeptReads,
        run: tuple[float, int, Progress, threading.Event | None, int],
        refreshing: _Refreshing | None,
    ) -> pd.DataFrame:
        """The parts, paced, a chunk of writes at a time, each sent once the objects it needs
        are re-read and not stale (``chunked``), ``run`` its share, concurrency, progress,
        ``cancel`` and its ``planned`` calls in all (its cost); else ``StalePlanError``
        naming them, the rows read kept for ``refresh=True``. ``refreshing``: each chunk's
        writes are re-planned from the rows just read instead (``_chunk_replanned``), the
        rows a refusal kept answering each chunk's reads, each chunk's used up, while the
        service shows no call of the project but this apply's since the first chunk's read
        (``quiet.none_heard_since``), up to the chunk's re-planning: else read afresh
        (``_chunk_read``)."""
        share, concurrency, progress, cancel, planned = run
        if kept.refused and refreshing is None:
            kept.clear()  # a refusal's rows: what it named may be put right since
        # its chunks' bars show one work, as its cost counted it (``pace_work``)
        with paced_work(client, "paced apply", lambda: planned) as work:
            return self._chunks_written(
                client, log, kept, (share, concurrency, progress, work), cancel, refreshing
            )

    def _chunks_written(
        self,
        client: LoyaltyClient,
        log: LogSource,
        kept: KeptReads,
        run: tuple[float, int, Progress, PacedWork],
        cancel: threading.Event | None,
        refreshing: _Refreshing | None,
    ) -> pd.DataFrame:
        """``_written_as_checked``'s chunks, ``run`` its share, concurrency, progress and
        work."""
        share, concurrency, progress, work = run
        with self._reread_paced(client, log, share, False, lambda: 0, cancel):
            own = self.own_work(client, log)  # a write in doubt read back: the plan's own?
        whole = share_of_window(client, share)
        total = sum(len(part.items) for part in self.parts)
        frames, done, stopped = [], 0, ""
        mark: ReadMark | Literal[False] | None = False  # the first chunk's read, once made
        for part in self.parts:
            state = log_state(log, part.action, client)
            todo = [] if stopped else to_send(part, state, reconsidered=refreshing is not None)
            refused = known_refused(
                self.changes, {part.action: state}, reconsidered=refreshing is not None
            ).get(part.action, set())
            sent: list[tuple[list[int], pd.DataFrame]] = []
            reached: set[int] = set()
            while todo and not stopped:
                fresh = not kept.held  # none of the chunk's rows read by an earlier run
                # after the first chunk's read, the rows kept answer while nothing is heard
                quiet = None if mark is False else functools.partial(none_heard_since, mark, client)
                try:
                    live, chunk, used = self._chunk_read(
                        client,
                        log,
                        (kept, quiet),
                        (part, todo, refused),
                        (whole, share, progress, work),
                        cancel,
                    )
                except (StoppedError, PacingEnded):  # a Cancel while it waits for a window
                    stopped = "not sent: the batch was cancelled"
                    break
                except PacedShareTooSmall as exc:  # the service's plan changed as it ran
                    stopped = f"not sent: {exc}; {UNPACED}"
                    break
                if mark is False:
                    mark = mark_read(client)  # the kept rows taken up: as good while quiet
                if refreshing is None:
                    stale = self._stale_in(live, own, client)
                    if stale:
                        kept.refuse()  # for a refresh to take up
                        chunk_read = (part, chunk, fresh)
                        raise self._chunk_stale(client, log, share, stale, live, own, chunk_read)
                    writes, sending = part_of(part, chunk), chunk
                else:
                    writes, sending = self._chunk_replanned(
                        client, live, own, kept, (part, chunk), refreshing
                    )
                if refreshing is None:
                    kept.clear()  # read, and not stale: a resume reads afresh
                else:
                    kept.drop(used)  # re-planned: the rows kept for the next chunks stay
                todo, reached = todo[len(chunk) :], reached | set(chunk)
                if not writes.items:
                    continue  # the chunk's every change made already, or dropped
                results = writes.execute(
                    client,
                    log=log,
                    concurrency=concurrency,
                    progress=offset(progress, done + len(part.items) - len(todo), total),
                    cancel=cancel,
                    budget_share=share,
                    paced=True,
                )
                sent.append((sending, results))
                made = results.loc[results["outcome"] == "succeeded", "target"]
                own.setdefault(part.action, set()).update(map(str, made))  # not re-planned
                cancelled = results.loc[results["outcome"] == "cancelled", "message"]
                if len(cancelled):
                    stopped = str(cancelled.iloc[0])
            rest = [index for index in range(len(part.items)) if index not in reached]
            sent.append((rest, not_reached(part, rest, client, log, stopped)))
            frames.append((part.action, in_order(sent)))
            done += len(part.items)
        if not stopped:  # else the rows of a chunk stopped while read, for the next run
            kept.clear()
        return _by_call(frames)

    def _chunk_replanned(
        self,
        client: LoyaltyClient,
        live: LiveRows,
        own: Mapping[str, set[str]],
        kept: KeptReads,
        chunk: tuple[ActionPlan[Any], list[int]],
        refreshing: _Refreshing,
    ) -> tuple[ActionPlan[Any], list[int]]:
        """A refresh's writes of ``chunk`` (a part and its items' indices) as the plan made
        again from the ``live`` rows just read plans them (``replanned``, as ``refreshed``
        makes it), and the indices in the part of those still planned (one already made, or
        dropped unsupported, is not sent); its unsupported changes refused without
        ``ignore_unsupported`` (``EditError``; the rows kept for the refresh with it)."""
        base, planned = replanned(self, live, own, service_now(client))
        try:
            ChangePlan(base, *planned)._check_options(
                allow_destroy=refreshing.allow_destroy,
                ignore_unsupported=refreshing.ignore_unsupported,
            )
        except EditError:
            kept.refuse()  # the refresh with the option added reads nothing again
            raise
        return planned_part(planned.parts, *chunk)

    def _chunk_stale(
        self,
        client: LoyaltyClient,
        log: LogSource,
        share: float,
        stale: list[str],
        live: LiveRows,
        own: Mapping[str, set[str]],
        chunk_read: tuple[ActionPlan[Any], list[int], bool],
    ) -> StalePlanError:
        """The refusal of a paced apply at a chunk whose ``live`` rows show ``stale`` objects
        (``chunk_read``: its part, its items' indices, whether this run read all its rows).
        The plan made again from those rows is saved for review, as an unpaced refusal saves
        it (``_for_review``: the plan's writes made left out), when they are every object
        left to read, all read by this run; else the refusal says why not and what each way
        on costs (``ChunkStop``). No call is sent."""
        part, chunk, fresh = chunk_read
        written = sum(len(log_state(log, p.action).succeeded) for p in self.parts)
        left = {(entry["kind"], entry["key"]) for entry in self._rereads(log)}
        if not left <= live.keys():
            why = (
                f"this chunk read {counted(len(live), 'object')} of the {figure(len(left))} left"
                " to read, and a plan made again of what it read alone would leave the others'"
                " writes out"
            )
        elif not fresh:
            why = "some of this chunk's rows were read by an earlier run, not just now"
        else:
            review = self._for_review(live, own, client, paced=True)
            if not isinstance(review, str):
                return stale_error(
                    self.path, self.base.pulled_at, stale, review, chunk=ChunkStop(written)
                )
            why = review
        ahead = ChunkAhead(self.touched, self.inputs, part, chunk)
        refresh = self.reread_cost(client, log=log, paced=True, refresh=True, budget_share=share)
        stop = ChunkStop(
            written,
            why,
            again=ahead.reads(len(chunk)),
            refresh=self.cost(client, log=log, budget_share=share, paced=True, refresh=True).needed,
            refresh_reads=refresh.needed,
        )
        return stale_error(self.path, self.base.pulled_at, stale, chunk=stop)

    def _chunk_read(
        self,
        client: LoyaltyClient,
        log: LogSource,
        kept_while: tuple[KeptReads, Callable[[], bool] | None],
        writes: tuple[ActionPlan[Any], list[int], Collection[str]],
        pace: tuple[int | None, float, Progress, PacedWork],
        cancel: threading.Event | None,
    ) -> tuple[LiveRows, list[int], set[tuple[str, ...]]]:
        """The next chunk of ``writes``' ``todo`` (indices of its ``part``'s items, a write to
        one of its ``refused`` targets read back once refused: ``known_refused``;
        ``chunk_size``), the
        live rows of the objects its writes need, read paced (``pace``: a window's share in
        calls, the share, the progress, the work it is a chunk of, told of it), its writes
        held back (``Allowance.holding_back``), and what those reads fetch (``read_keys``).
        ``kept_while``: the rows kept, and whether they may still answer (None: as they
        are, the first chunk's), asked before the reads and once they are read: a row kept
        answers only while nothing else was heard up to the chunk's re-planning, and not in
        a chunk that waits for the next window (nothing heard across it can be told); else
        it is read afresh."""
        kept, quiet = kept_while
        part, todo, refused = writes
        whole, share, progress, work = pace
        planned: list[int] = [0]
        with self._reread_paced(
            client, log, share, progress, lambda: planned[0], cancel
        ) as allowance:
            kept.expire()  # a row read over ``KEPT_FOR`` before is read again: not counted
            if quiet is not None and kept.held and not quiet():
                kept.clear()  # another's call since the first chunk's read: read afresh
            ahead = ChunkAhead(self.touched, self.inputs, part, todo, frozenset(kept.held), refused)
            held = client.holds_token
            if (
                quiet is not None
                and kept.held
                and waits_for_window(ahead.calls, allowance.left, held)
            ):
                kept.clear()  # its rows read in the window its writes go in
                ahead = ChunkAhead(self.touched, self.inputs, part, todo, refused=refused)
            chunk = todo[: chunk_size(ahead.calls, allowance.left, whole, token_held=held)]
            entries = ahead.needed(len(chunk))
            earlier = read_keys(entries, self.inputs) & kept.held.keys()  # no call: kept
            planned[0] = ahead.reads(len(chunk))
            work.chunk(part.action, planned[0], len(chunk), len(todo))
            with allowance.holding_back(ahead.sent(len(chunk))):
                live = live_rows(client, entries, self.inputs, kept)
                if earlier and quiet is not None and not quiet():  # heard as it read
                    kept.drop(earlier)
                    again = touched_read_by(entries, self.inputs, earlier)
                    planned[0] += reread_calls(again, self.inputs)
                    live |= live_rows(client, again, self.inputs, kept)
        return live, chunk, read_keys(entries, self.inputs)

    def _bound(self, log: LogSource | None) -> LogSource | None:
        """``log`` reading the lines of this plan file's runs only (``ActionLog.plan``): those
        of another plan's there (one saved before at this path) are not its work."""
        if log is None or not self.sha256:
            return log
        if isinstance(log, ActionLog):
            return log if log.plan == self.sha256 else ActionLog(log.path, plan=self.sha256)
        return ActionLog(log, plan=self.sha256)

    @contextmanager
    def _bound_log(self, log: LogSource | None) -> Iterator[LogSource | None]:
        """``_bound(log)``, closed after the block when made here."""
        bound = self._bound(log)
        try:
            yield bound
        finally:
            if isinstance(bound, ActionLog) and bound is not log:
                bound.close()

    def _kept(self, log: LogSource | None, client: LoyaltyClient, paced: bool) -> KeptReads | None:
        """Where a re-read of this plan file keeps what it read from ``client``'s service,
        project and sandbox state (``kept_reads``): ``paced``, as read (a run stopped part way
        takes it up); else once refused only."""
        if log is None or not self.sha256:
            return None
        path = log.path if isinstance(log, ActionLog) else Path(log)
        owner = LogOwner.of(client)
        return KeptReads(
            kept_path(path),
            self.sha256,
            owner=(owner.service, owner.project, owner.instance),
            as_read=paced,
        )

    def _checked(
        self,
        client: LoyaltyClient,
        log: LogSource | None,
        refresh: bool,
        kept: KeptReads | None,
        *,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
    ) -> ChangePlan:
        """The plan to apply: ``refresh``, made again from the live rows (refused for
        unsupported changes without ``ignore_unsupported``, deletes without
        ``allow_destroy``), else this one once it is not stale; the reads ``kept`` cleared once
        the re-read ends, but for a refusal's (stale; a refresh's unsupported changes), kept
        for a refresh to take up (``kept_reads``): a check reads afresh."""
        if kept is not None and not refresh and (kept.refused or not kept.as_read):
            kept.clear()  # what the refusal named may be put right since; unpaced, all read
        try:
            if refresh:
                plan = self._refreshed(client, log, kept)
                plan._check_options(
                    allow_destroy=allow_destroy, ignore_unsupported=ignore_unsupported
                )
            else:
                plan = self._not_stale(client, log, kept)
        except EditError:
            if kept is not None:
                kept.refuse()  # the refresh with the option added reads nothing again
            raise
        except StalePlanError:
            if kept is not None and (refresh or not kept.refused):
                kept.clear()
            raise
        if kept is not None:
            kept.clear()
        return plan

    def _not_stale(
        self, client: LoyaltyClient, log: LogSource | None, kept: KeptReads | None = None
    ) -> ChangePlan:
        """The plan, once no touched object is stale; else ``StalePlanError`` naming each
        and the plan re-planned from the rows read, saved for review (``_for_review``)."""
        live, own = self._live(client, log, kept), self.own_work(client, log)
        stale = self._stale_in(live, own, client)
        if stale:
            if kept is not None:
                kept.refuse()
            review = self._for_review(live, own, client)
            if isinstance(review, str):
                raise stale_error(self.path, self.base.pulled_at, stale, unreviewed=review)
            raise stale_error(self.path, self.base.pulled_at, stale, review)
        return self.plan

    def _for_review(
        self,
        live: LiveRows,
        own: Mapping[str, set[str]],
        client: LoyaltyClient,
        *,
        paced: bool = False,
    ) -> Replanned | str:
        """The plan made again from the ``live`` rows a stale apply read (as ``refreshed``
        makes it, but with the plan's ``own`` writes, made, creates too, left out: it is
        applied with a log of its own), saved next to the plan file as ``NAME.refreshed.json``
        with the mark of that read (``quiet``): applied while the service shows no call of the
        project since, it is not read again, else it is re-read as any plan (a write in doubt
        that landed since is a call, and its row changed); its command ``--paced`` for a
        ``paced`` apply's. Else why none was saved: a plan with no file (empty: nothing to
        say), or a folder not writable."""
        if not self.sha256:
            return ""
        mark = mark_read(client)  # right after the re-read: its calls are all answered
        base, planned = replanned(self, live, own, service_now(client), logged=False)
        target = review_path(self.path)
        again = SavedPlan(
            base, *planned, path=target, touched=tuple(touched_again(self, live, planned))
        )
        try:
            sha256 = write_plan(again, target, read=mark)
        except OSError:
            return f"{target} could not be written"
        options = [
            option
            for option, needed in (
                ("--allow-destroy", any(part.action in DELETES for part in planned.parts)),
                ("--ignore-unsupported", len(planned.unsupported) > 0),
                ("--paced", paced),
            )
            if needed
        ]
        command = " ".join(["lyt apply", str(target), "--sha256", sha256, *options])
        made = sum(len(targets) for targets in own.values())
        return Replanned(target, sha256, command, len(planned.unsupported), made)

    def _read_holds(
        self, client: LoyaltyClient, log: LogSource | None, *, hear: bool = False
    ) -> bool:
        """Whether this plan, re-planned by a stale apply from the rows it read, need not be
        read again: its log holds nothing yet and the service shows no call of the project
        since that read (``quiet.quiet_since``; ``hear``: a token request first when the
        client sent no call since, else none is sent and such a client is answered no)."""
        mark: ReadMark | None = getattr(self, "_read_mark", None)
        log = self._bound(log)
        if mark is None or (log is not None and any(done_in_log(self.parts, log).values())):
            return False
        if log is not None and any(doubtful(p, log_state(log, p.action)) for p in self.parts):
            return False
        if hear:
            hear_since(mark, client)
        return quiet_since(mark, client)


ChangePlan.register(SavedPlan)  # a saved plan offers all of the plan it holds


def _refuse_over(
    cost: PlanCost, what: str, paced: bool, client: LoyaltyClient, heard: Heard
) -> None:
    """Refuse ``what`` (an apply, which takes no ``allow_partial``) when ``cost`` does not fit
    its share of ``client``'s window, or, ``paced``, of the billing cycle (naming the calls
    ``heard`` sent)."""
    if paced:
        refuse_past_cycle(cost.needed, client, cost.share, what, heard)
        return
    if not cost.fits:
        raise cost.refusal(what, partial=False, paced=True)


@contextmanager
def _within_share(client: LoyaltyClient, share: float, paced: bool) -> Iterator[Allowance | None]:
    """An unpaced apply's ``share`` of the calls the window has left as it starts, held over
    every call it sends (its token request, re-read, retries, read backs and writes): a call
    beyond it is not sent (``AllowanceSpent``). None paced (each window's share is kept
    instead; the apply one ``paced_run``, its token request not said sent earlier) or at 1.0
    (the whole window: it runs until the service refuses a call)."""
    if paced:
        with paced_run():
            yield None
        return
    if share >= 1:
        yield None
        return
    with client.quota.allowance(share) as held:
        yield held


def reread_line(
    saved: SavedPlan,
    client: LoyaltyClient,
    log: LogSource | None,
    *,
    paced: bool = False,
    refresh: bool = False,
    budget_share: float = DEFAULT_SHARE,
) -> str:
    """``Re-reading N touched objects: COST`` (``N of T``, saying why, when the ``log``
    shows every write to some done; a paced apply's, each chunk's before its writes, an
    object several chunks need counted for each; its cost without the reads the rows kept
    beside the ``log`` answer, ``SavedPlan.cost``): the line ``apply`` and ``lyt apply``
    with these ``paced``, ``refresh`` and ``budget_share`` print."""
    left, total = len(saved._rereads(log, client, refresh=refresh)), len(saved.touched)
    what = counted(total, "touched object")
    if saved._read_holds(client, log):
        return (
            f"Not re-reading the {what}: the stale apply this plan was re-planned from read"
            " them, and the service shows no call of the project since"
        )
    if left < total:
        others = figure(total - left)
        what = f"{figure(left)} of {what} (not the other {others}: the log shows them written)"
    if paced and log is not None and saved.sha256:
        what += ", each chunk's just before its writes"
    cost = saved.reread_cost(
        client, log=log, paced=paced, refresh=refresh, budget_share=budget_share
    )
    return f"Re-reading {what}: {cost}"


def as_saved(plan: ChangePlan, path: str | Path = "") -> SavedPlan:
    """``plan`` as ``ChangePlan.load`` reads it once saved at ``path``: what ``lyt plan``
    shows, its summary and cost counting the re-read ``apply`` sends first (and the budget
    ``plan`` last read, if any)."""
    saved = SavedPlan(
        plan.base,
        plan.changes,
        plan.unsupported,
        plan.parts,
        plan.inputs,
        path=Path(path),
        touched=tuple(touched_objects(plan.base, plan.changes, plan.inputs)),
    )
    if plan._budget is not None:
        saved._remember(plan._budget)
    return saved
