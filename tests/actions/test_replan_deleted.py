"""A plan made again drops what the live program holds DELETED, over real HTTP: a tier
structure someone else deleted since the pull is gone, as an object the service no longer
answers is (unsupported, its reason "already DELETED in the live program"), not planned:
its delete, sent, was answered 404 and read back, two calls for nothing. So is a create on
a card definition DELETED (sent, refused 404) and a reward's move to draft."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pandas as pd
import pytest
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.cli import main
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

from .helpers import TIERS, SaveFour, bonus, pull

pytestmark = pytest.mark.usefixtures("lyt_to_fresh", "professional")

_COMMAND = re.compile(r"lyt apply (\S+) --sha256 ([0-9a-f]{64})((?: --[a-z-]+)*)")
_GONE = "already DELETED in the live program"


def _sent(
    fresh: Sandbox, make_client: Callable[..., LoyaltyClient], run: Callable[..., object]
) -> list[tuple[str, str]]:
    """``run(client)`` with a client of ``fresh`` whose requests are recorded: them, as
    (method, path)."""
    sent: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        run(client)
    return [(request.method, request.url.path) for request in sent]


@pytest.mark.parametrize("way", ["review", "refresh"])
def test_a_tier_structure_someone_else_deleted_is_not_deleted_again(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    client: LoyaltyClient,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    save_four: SaveFour,
    way: str,
) -> None:
    """The four-kind plan, its tier structure deleted by someone else since: the refusal
    says so, the plan made again holds the other three writes and the tier structure in its
    gone rows; applied (the file for review, or ``refresh=True`` on the rows the refusal
    read), no DELETE is sent. Before, both sent it (404, ``already_done``) and read it back."""
    path = tmp_path / "plan.json"
    save_four(path)
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    client.tier_structures.delete(TIERS)
    fresh.settle()

    assert main(["apply", str(path), "--sha256", sha256, "--allow-destroy"]) == 1
    out, err = capsys.readouterr()
    assert f"\n  tier_structures {TIERS} (already DELETED)\n" in err, err
    command = _COMMAND.search(err)
    assert command is not None, err
    review = ChangePlan.load(command[1])
    assert [part.action for part in review.parts] == [
        "create_benefit",
        "move_reward_to_draft",
        "activate_pending_bucket",
    ]
    gone = review.unsupported
    assert gone[["kind", "key", "reason"]].values.tolist() == [["tier_structures", TIERS, _GONE]]
    assert f"! tier structure {TIERS}: {_GONE}" in out, out
    assert "Plan: 1 to create, 2 to change, 0 to delete; 1 change" in out, out
    assert command[3] == " --ignore-unsupported"  # nothing left to delete: no --allow-destroy

    if way == "review":
        sent = _sent(
            fresh,
            make_client,
            lambda c: review.apply(
                c, progress=False, ignore_unsupported=True, sha256=review.sha256
            ),
        )
    else:  # the refresh takes up the rows the refusal read (its listings read again)
        log, costs = path.with_name(path.name + ".log.jsonl"), []

        def refresh(c: LoyaltyClient) -> None:
            plan = ChangePlan.load(path)
            costs.append(plan.cost(c, log=log, refresh=True).needed)  # sends nothing
            plan.apply(
                c,
                log=log,
                progress=False,
                refresh=True,
                allow_destroy=True,
                ignore_unsupported=True,
                sha256=sha256,
            )

        sent = _sent(fresh, make_client, refresh)
        assert costs == [len(sent)], sent  # before: 7 counted, 8 sent
    writes = [url for method, url in sent if method != "GET" and url != "/oauth/token"]
    assert len(writes) == 3 and not any("tier-structures" in url for url in writes), sent
    assert not any("tier-structures" in url for _, url in sent), sent  # nor read back


def test_a_create_on_a_deleted_card_definition_and_a_deleted_rewards_move_are_gone(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    client: LoyaltyClient,
    tmp_path: Path,
) -> None:
    """A plan whose base holds a card definition and a reward ACTIVE that the live program
    holds DELETED (the service has no call deleting either: the base stands for a pull
    made before someone deleted them). Made again, the create on the card definition and
    the reward's move are gone rows, DELETED; before, the create stayed and was sent
    (refused 404), and the move read "only ACTIVE -> DRAFT has a call"."""
    snapshot = pull(client)
    definitions, rewards = snapshot.card_definitions, snapshot.rewards
    definition = str(definitions.loc[definitions["status"] == "DELETED", "id"].iloc[0])
    reward = str(rewards.loc[rewards["status"] == "DELETED", "id"].iloc[0])
    definitions.loc[definitions["id"] == definition, "status"] = "ACTIVE"
    rewards.loc[rewards["id"] == reward, "status"] = "ACTIVE"
    edit = actions.edit(snapshot)
    edit.rewards.loc[edit.rewards["id"] == reward, "status"] = "DRAFT"
    edit.benefits = pd.concat([edit.benefits, bonus(definition)], ignore_index=True)
    loaded = ChangePlan.load(edit.plan().save(tmp_path / "plan.json"))

    with pytest.raises(StalePlanError) as refused:
        loaded.apply(client, progress=False, sha256=loaded.sha256)
    assert set(refused.value.stale) == {
        f"card_definitions {definition} (DELETED)",
        f"rewards {reward} (DELETED)",
    }
    assert refused.value.replanned is not None
    review = ChangePlan.load(refused.value.replanned)
    assert review.parts == ()
    assert sorted(review.unsupported[["kind", "key", "reason"]].values.tolist()) == [
        ["benefits", "Bonus 05", f"card definition {definition} is DELETED in the live program"],
        ["rewards", reward, "DELETED in the live program"],
    ]
    sent = _sent(
        fresh,
        make_client,
        lambda c: review.apply(c, progress=False, ignore_unsupported=True, sha256=review.sha256),
    )
    assert sent == [("POST", "/oauth/token")]  # the service heard; nothing written
