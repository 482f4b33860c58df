"""``ChangePlan``: what turning a base snapshot into edited frames takes, shown (a
Terraform-style summary, one line per change) and run (cost, preview, rehearse, apply)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pandas as pd

from .._progress import Progress
from ..frames.registry import FRAME_NAMES
from ..snapshot import ProgramSnapshot
from ..snapshot.diff import compare
from .change_planner import CHANGE_COLUMNS, UNSUPPORTED_COLUMNS, Planner
from .cost import PlanCost
from .edited_frames import EditError, noun, read_edited
from .log import LogSource
from .plan import ActionPlan
from .rehearsal import Rehearsal, rehearse_run

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from .plan_file import SavedPlan

__all__ = ["CHANGE_COLUMNS", "UNSUPPORTED_COLUMNS", "ChangePlan", "HasFrames"]

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
        from .plan_file import save_plan

        return save_plan(self, path)

    @classmethod
    def load(cls, path: str | Path) -> SavedPlan:
        """The plan ``save`` wrote; its ``apply`` first checks the touched objects are
        still as in the base (see ``plan_file``)."""
        from .plan_file import load_plan

        return load_plan(path)

    # -- showing ------------------------------------------------------------------------

    def summary(self) -> str:
        """``Plan: N to create, N to change, N to delete; N changes the service cannot make;
        N calls``."""
        counts = self.changes["action"].value_counts()
        made = ", ".join(f"{counts.get(a, 0)} to {a}" for a in _SIGNS)
        calls = int(self.changes["calls"].sum())
        return (
            f"Plan: {made}; {len(self.unsupported)} changes the service cannot make; {calls} calls"
        )

    def __str__(self) -> str:
        lines = [self.summary()]
        for row in self.changes.itertuples(index=False):
            what = noun(str(row.kind))
            if row.action == "create":
                lines.append(f'+ {what} "{row.key}" {row.after}')
            elif row.action == "change":
                lines.append(f"~ {what} {row.key} {row.column} {row.before} -> {row.after}")
            else:
                lines.append(f"- {what} {row.key}")
        for row in self.unsupported.itertuples(index=False):
            detail = (
                f" {row.column} {row.before} -> {row.after}" if isinstance(row.column, str) else ""
            )
            lines.append(f"! {noun(str(row.kind))} {row.key}{detail}: {row.reason}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ChangePlan {self.summary()}>"

    def __len__(self) -> int:
        return len(self.changes) + len(self.unsupported)

    # -- running ------------------------------------------------------------------------

    def cost(
        self, client: LoyaltyClient | None = None, *, log: LogSource | None = None
    ) -> PlanCost:
        """The calls every part sends together (one token request at most), and with
        ``client`` the budget it last read: see ``ActionPlan.cost``."""
        needed = sum(part.cost(log=log).needed for part in self.parts)
        if client is None:
            return PlanCost(needed)
        if needed and not client.holds_token:
            needed += 1
        quota = client.quota
        return PlanCost(needed, quota.remaining, quota.limit, quota.resets_at)

    def apply(
        self,
        client: LoyaltyClient,
        *,
        log: LogSource | None = None,
        allow_destroy: bool = False,
        ignore_unsupported: bool = False,
        concurrency: int = 8,
        progress: Progress = True,
    ) -> pd.DataFrame:
        """Execute every part (creates, then changes, then deletes) with one ``log``; one
        results frame, its ``call`` column naming the part.

        Refused before anything is sent: deletes without ``allow_destroy`` (each row
        named), unsupported changes without ``ignore_unsupported``, and a plan needing more
        calls than the client knows are left (``BudgetExceededError``).
        """
        deletes = self.changes[self.changes["action"] == "delete"]
        if len(deletes) and not allow_destroy:
            rows = ", ".join(f"{noun(str(k))} {key}" for k, key in deletes[["kind", "key"]].values)
            raise EditError(
                f"the plan deletes {len(deletes)} rows ({rows}): pass allow_destroy=True"
            )
        if len(self.unsupported) and not ignore_unsupported:
            rows = "; ".join(str(self).splitlines()[1 + len(self.changes) :])
            raise EditError(
                f"the plan holds {len(self.unsupported)} changes the service cannot make"
                f" ({rows}): revert them, or pass ignore_unsupported=True"
            )
        cost = self.cost(client, log=log)
        if not cost.fits:
            raise cost.refusal(f"the change plan ({len(self.changes)} changes)")
        return self._execute(client, log=log, concurrency=concurrency, progress=progress)

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
        return _by_call(
            (part.action, part.preview(client, log=log, concurrency=concurrency, progress=progress))
            for part in self.parts
        )

    def _execute(
        self, client: LoyaltyClient, *, log: LogSource | None, concurrency: int, progress: Progress
    ) -> pd.DataFrame:
        return _by_call(
            (part.action, part.execute(client, log=log, concurrency=concurrency, progress=progress))
            for part in self.parts
        )


def _by_call(frames: Iterable[tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The parts' frames one after the other, a first column ``call`` naming each row's part."""
    parts = [frame.assign(call=call) for call, frame in frames]
    if not parts:
        return pd.DataFrame({"call": pd.Series(dtype="str"), "target": [], "outcome": []})
    out = pd.concat(parts, ignore_index=True)
    return out[["call", *[c for c in out.columns if c != "call"]]]
