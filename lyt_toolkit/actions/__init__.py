"""Bulk operations as data: plan -> preview -> execute -> results.

>>> plan = actions.create_benefits(rows)      # nothing sent yet
>>> plan.preview()                            # one row per item, local errors included
>>> results = plan.execute(client, concurrency=8, log="runs/benefits.jsonl")

Every ``execute`` returns one row per item (``succeeded``, ``already_done``,
``failed``, ``skipped_already_done``, ``invalid`` or, after a cancel, ``cancelled``)
and never stops on an item's failure; ``plan.preview(client)`` says first what the
service's state will make of each item, and ``plan.rehearse(snapshot)`` runs the plan
on a sandbox holding a snapshot of production first (``rehearsal.verify`` checks the
real run against it).
The action log makes a re-run resume an interrupted batch without repeating
anything that succeeded.
"""

from .benefits import (
    FLAT_COLUMNS,
    BenefitImport,
    CreateBenefits,
    benefits_from_csv,
    create_benefits,
    flat_row_to_body,
)
from .change_plan import SavedPlan
from .cost import PlanCost
from .deletions import DeleteTierStructures, DeleteWebhooks, delete_tier_structures, delete_webhooks
from .desired import ChangePlan, EditError, ProgramEdit, edit
from .items import ItemResult, Outcome, PlanItem, Standing
from .ledger import PlanAlreadyAppliedError
from .lock import LockFileError, LockHeldError
from .log import ActionLog, ForeignLogError
from .logged import logged_results, review_log, review_logs
from .pending import ActivatePendingBuckets, activate_pending_buckets
from .plan import ActionPlan
from .plan_reader import PlanFileError
from .rehearsal import Rehearsal, Verification
from .results import RESULT_COLUMNS
from .reviewed import UnreviewedPlanError
from .rewards import MoveRewardsToDraft, move_rewards_to_draft
from .staleness import StalePlanError
from .verify_touched import verify_touched, verify_touched_cost

__all__ = [
    "FLAT_COLUMNS",
    "RESULT_COLUMNS",
    "ActionLog",
    "ActionPlan",
    "ActivatePendingBuckets",
    "BenefitImport",
    "ChangePlan",
    "CreateBenefits",
    "DeleteTierStructures",
    "DeleteWebhooks",
    "EditError",
    "ForeignLogError",
    "ItemResult",
    "LockFileError",
    "LockHeldError",
    "MoveRewardsToDraft",
    "Outcome",
    "PlanAlreadyAppliedError",
    "PlanCost",
    "PlanFileError",
    "PlanItem",
    "ProgramEdit",
    "Rehearsal",
    "SavedPlan",
    "StalePlanError",
    "Standing",
    "UnreviewedPlanError",
    "Verification",
    "activate_pending_buckets",
    "benefits_from_csv",
    "create_benefits",
    "delete_tier_structures",
    "delete_webhooks",
    "edit",
    "flat_row_to_body",
    "logged_results",
    "move_rewards_to_draft",
    "review_log",
    "review_logs",
    "verify_touched",
    "verify_touched_cost",
]
