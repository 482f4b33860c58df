"""Desired state: edit a snapshot's frames with pandas, and the toolkit derives the plan.

>>> edit = actions.edit(snapshot)                 # deep copies of every frame
>>> edit.rewards.loc[edit.rewards.id == "lrew_…", "status"] = "DRAFT"
>>> plan = edit.plan()                            # nothing sent
>>> print(plan)                                   # Plan: 0 to create, 1 to change, ...
>>> rehearsal = plan.rehearse()                   # on a sandbox started from the snapshot
>>> results = plan.apply(client, log="runs/edit.jsonl")
>>> rehearsal.verify(ProgramSnapshot.pull(client), results=results)

``ChangePlan.from_frames(before, after)`` compares the edited frames with the base
(``SnapshotDiff``, every column, ``updated_at`` included) and maps each change to the
action that makes it: a reward's status ACTIVE -> DRAFT (``move_rewards_to_draft``), a
new benefit row, its ``id`` empty (``create_benefits``), a tier structure dropped or
set to DELETED (``delete_tier_structures``), a pending bucket's status PENDING ->
ACTIVATED (``activate_pending_buckets``). Every other change is listed in
``plan.unsupported`` with its reason, never dropped; ``apply`` refuses such a plan
unless told ``ignore_unsupported=True``, and deletes unless ``allow_destroy=True``.

The work is split by job, one direction of dependency: ``edited_frames`` (conformance
and key checks) <- ``change_planner`` (diff rows to calls) <- ``change_plan``
(``ChangePlan``) <- ``program_edit`` (``ProgramEdit``, ``edit``). A saved plan
(``change_plan.SavedPlan``) holds its ``ChangePlan``; its file format, the objects it
touches, their re-read, the staleness check, re-planning and the ledger of applied plans are
``plan_file``, ``touched``, ``reread``, ``staleness``, ``replan`` and ``ledger``. This module
gathers the public names of the desired state.
"""

from __future__ import annotations

from .change_plan import CHANGE_COLUMNS, UNSUPPORTED_COLUMNS, ChangePlan
from .change_planner import SERVER_MANAGED
from .edited_frames import EditError
from .program_edit import ProgramEdit, edit

__all__ = [
    "CHANGE_COLUMNS",
    "SERVER_MANAGED",
    "UNSUPPORTED_COLUMNS",
    "ChangePlan",
    "EditError",
    "ProgramEdit",
    "edit",
]
