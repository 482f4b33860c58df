"""``ChangePlan``: what turning a base snapshot into edited frames takes, shown (a
Terraform-style summary, one line per change) and run (cost, preview, rehearse, apply)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from .._progress import Progress
from .._text import counted
from ..frames.registry import FRAME_NAMES
from ..snapshot import ProgramSnapshot
from ..snapshot.diff import compare
from .change_planner import CHANGE_COLUMNS, UNSUPPORTED_COLUMNS, Planner
from .change_rows import CALL_KINDS, DELETES
from .cost import PlanCost
from .edited_frames import EditError, noun, read_edited
from .log import LogSource
from .plan import ActionPlan
from .rehearsal import Rehearsal, rehearse_run

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from .plan_file import SavedPlan  # the circle of ``save`` (issue 35 item 3)

__all__ = ["CHANGE_COLUMNS", "HTML_ROWS", "UNSUPPORTED_COLUMNS", "ChangePlan", "HasFrames"]

_SIGNS = {"create": "+", "change": "~", "delete": "-"}


class HasFrames(Protocol):
    """What holds edited frames: a ``ProgramEdit`` or a ``ProgramSnapshot``."""

    def frames(self) -> dict[str, pd.DataFrame]: ...


@dataclass(frozen=True, eq=False)
class ChangePlan:
    """What turning ``base`` into the edited frames takes: ``changes`` the service can make
    (sent by ``parts``, one action plan per call), ``unsupported`` the ones it cannot."""

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
        # The keys were lined up once, for the check: the diff reuses them.
        diff = compare(before, target, ignore=(), aligned=edited.aligned)
        return cls(before, *Planner(before, edited.aligned).plan(diff.changes, edited.new))

    def save(self, path: str | Path) -> Path:
        """Write the plan as readable JSON bound to its base: see ``plan_file``."""
        # Inside the method: plan_file's SavedPlan subclasses ChangePlan, so plan_file
        # imports this module first (the circle issue 35 item 3 removes; pyproject.toml).
        from .plan_file import save_plan

        return save_plan(self, path)

    @classmethod
    def load(cls, path: str | Path) -> SavedPlan:
        """The plan ``save`` wrote; its ``apply`` first checks the touched objects are
        still as in the base (see ``plan_file``)."""
        from .plan_file import load_plan  # inside the method, as in ``save``

        return load_plan(path)

    # -- showing ------------------------------------------------------------------------

    def summary(self, client: LoyaltyClient | None = None) -> str:
        """``Plan: N to create, N to change, N to delete; N changes the service cannot make;
        N calls`` (a loaded plan's: ``N calls (R re-reads, then W writes)``, see
        ``SavedPlan``), then ``, R left in this window`` once a budget is known: ``client``'s
        (read now, and remembered), else the one of the client the plan was last costed,
        previewed or applied with; ``budget unknown`` when that client had read none.
        Never costed with a client, the summary has no budget part."""
        if client is not None:
            self.cost(client)
        counts = self.changes["action"].value_counts()
        made = ", ".join(f"{counts.get(a, 0)} to {a}" for a in _SIGNS)
        cannot = counted(len(self.unsupported), "change")
        text = f"Plan: {made}; {cannot} the service cannot make; {self._calls_text()}"
        if self._budget is None:
            return text
        if self._budget.remaining is None:
            return f"{text}, budget unknown"
        return f"{text}, {self._budget.remaining} left in this window"

    def _calls_text(self) -> str:
        """The summary's calls: one a change (a saved plan's re-read adds its own)."""
        return counted(int(self.changes["calls"].sum()), "call")

    def __str__(self) -> str:
        """The summary, then a line per change (``+``, ``~``, ``-``; a pending-bucket
        activation the base shows blocked ends ``(the service will refuse: REASON)``: it
        is still sent, and its result row says the service's answer, 423) and per change
        the service cannot make (``!``, with the reason)."""
        lines = [self.summary()]
        for row in self.changes.itertuples(index=False):
            what = noun(str(row.kind))
            if row.action == "create":
                lines.append(f'+ {what} "{row.key}" {row.after}')
            elif row.action == "change":
                lines.append(f"~ {what} {row.key} {row.column} {row.before} -> {row.after}")
            else:
                lines.append(f"- {what} {row.key}")
            if isinstance(row.blocked_reason, str):
                lines[-1] += f" (the service will refuse: {row.blocked_reason})"
        for row in self.unsupported.itertuples(index=False):
            detail = (
                f" {row.column} {row.before} -> {row.after}" if isinstance(row.column, str) else ""
            )
            lines.append(f"! {noun(str(row.kind))} {row.key}{detail}: {row.reason}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ChangePlan {self.summary()}>"

    def _repr_html_(self) -> str:
        """Jupyter's view: the summary, then a table grouped by action (create, change,
        delete, cannot make), each group headed with its count; every value escaped, at
        most ``HTML_ROWS`` rows a group."""
        groups = [
            (action, self.changes[self.changes["action"] == action], "call") for action in _SIGNS
        ]
        groups.append(("cannot make", self.unsupported, "reason"))
        body = [_html_group(action, rows, last) for action, rows, last in groups if len(rows)]
        head = "".join(f"<th>{c}</th>" for c in _HTML_COLUMNS) + "<th>call / reason</th>"
        empty = f'<tbody><tr><td colspan="{len(_HTML_COLUMNS) + 1}">No changes.</td></tr></tbody>'
        return (
            f'<div class="lyt-change-plan"><p><b>{escape(self.summary())}</b></p>'
            f"<table><thead><tr>{head}</tr></thead>{''.join(body) or empty}</table></div>"
        )

    def __len__(self) -> int:
        return len(self.changes) + len(self.unsupported)

    # -- running ------------------------------------------------------------------------

    def cost(
        self, client: LoyaltyClient | None = None, *, log: LogSource | None = None
    ) -> PlanCost:
        """The calls every part sends together (one token request at most), and with
        ``client`` the budget it last read: see ``ActionPlan.cost``."""
        cost = PlanCost.for_client(self._needed(log), client)
        if client is not None:
            self._remember(cost)
        return cost

    def _needed(self, log: LogSource | None) -> int:
        """The calls the parts send, those the ``log`` saw done left out."""
        return sum(part.cost(log=log).needed for part in self.parts)

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
    ) -> pd.DataFrame:
        """Execute every part (creates, then changes, then deletes) with one ``log``; one
        results frame, its ``call`` column naming the part.

        Refused before anything is sent (``check_apply``): deletes without
        ``allow_destroy`` (each row named), unsupported changes without
        ``ignore_unsupported``, and a plan needing more calls than the client knows are
        left (``BudgetExceededError``).

        Setting ``cancel`` (from another thread, e.g. a Cancel button) stops the apply
        after the requests in flight: every item not yet sent, in this part and the
        following ones, is ``cancelled`` and not logged (see ``ActionPlan.execute``). A
        callable ``progress`` counts ``(done, total)`` over the whole plan's items.
        """
        self.check_apply(
            client, log=log, allow_destroy=allow_destroy, ignore_unsupported=ignore_unsupported
        )
        results = self._execute(
            client, log=log, concurrency=concurrency, progress=progress, cancel=cancel
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
    ) -> PlanCost:
        """Raise what ``apply`` with these options would refuse before sending anything;
        else the plan's cost (nothing is sent)."""
        self._check_options(allow_destroy=allow_destroy, ignore_unsupported=ignore_unsupported)
        cost = self.cost(client, log=log)
        if not cost.fits:
            what = f"the change plan ({counted(len(self.changes), 'change')})"
            raise cost.refusal(what, partial=False)  # apply takes no allow_partial
        return cost

    def _check_options(self, *, allow_destroy: bool, ignore_unsupported: bool) -> None:
        """Refuse deletes without ``allow_destroy`` (the items the parts send, not the rows'
        labels) and unsupported changes without ``ignore_unsupported``."""
        deletes = [
            f"{noun(CALL_KINDS[part.action])} {item.target}"
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
            rows = "; ".join(str(self).splitlines()[1 + len(self.changes) :])
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
            (part.action, part.preview(client, log=log, concurrency=concurrency, progress=progress))
            for part in self.parts
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
    ) -> pd.DataFrame:
        total = sum(len(part.items) for part in self.parts)
        frames = []
        done = 0
        for part in self.parts:
            shown = _offset(progress, done, total) if callable(progress) else progress
            results = part.execute(
                client, log=log, concurrency=concurrency, progress=shown, cancel=cancel
            )
            frames.append((part.action, results))
            done += len(part.items)
        return _by_call(frames)


HTML_ROWS = 50
"""Rows of each action group ``ChangePlan._repr_html_`` shows; the rest are counted."""

_HTML_COLUMNS = ("kind", "key", "column", "before", "after")


def _html_group(action: str, rows: pd.DataFrame, last: str) -> str:
    """One ``<tbody>``: a header row naming ``action`` and its count, then its rows."""
    width = len(_HTML_COLUMNS) + 1
    lines = [f'<tr><th colspan="{width}" style="text-align:left">{action} ({len(rows)})</th></tr>']
    for row in rows.head(HTML_ROWS).itertuples(index=False):
        cells = [getattr(row, c) for c in (*_HTML_COLUMNS, last)]
        if last == "call" and isinstance(row.blocked_reason, str):
            cells[-1] = f"{cells[-1]} (the service will refuse: {row.blocked_reason})"
        lines.append("<tr>" + "".join(f"<td>{_html_cell(v)}</td>" for v in cells) + "</tr>")
    if len(rows) > HTML_ROWS:
        more = len(rows) - HTML_ROWS
        lines.append(f'<tr><td colspan="{width}">... and {more} more</td></tr>')
    return "<tbody>" + "".join(lines) + "</tbody>"


def _html_cell(value: Any) -> str:
    """A cell's text, HTML-escaped; NA blank."""
    return "" if value is None or value is pd.NA or pd.isna(value) else escape(str(value))


def _offset(
    progress: Callable[[int, int], None], done: int, total: int
) -> Callable[[int, int], None]:
    """A part's progress ``(n, of)`` as progress ``(done + n, total)`` over the whole plan."""
    return lambda n, _of: progress(done + n, total)


def _by_call(frames: Iterable[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The parts' frames one after the other, a first column ``call`` naming each row's part."""
    parts = [frame.assign(call=call) for call, frame in frames]
    if not parts:
        return pd.DataFrame({"call": pd.Series(dtype="str"), "target": [], "outcome": []})
    out = pd.concat(parts, ignore_index=True)
    return out[["call", *[c for c in out.columns if c != "call"]]]
