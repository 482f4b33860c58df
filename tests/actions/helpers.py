"""Helpers of the action tests: distinctive credentials, benefit rows, fault injection, and
the demo program's edits of the desired-state tests."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import httpx
import pandas as pd
import pytest
from interrupting import HANG, PacedLines, Waits, until, until_counted
from shared_tls import TLS

from lyt_toolkit import actions
from lyt_toolkit.actions import ChangePlan, ProgramEdit
from lyt_toolkit.actions.plan_file import StalePlanError
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import SandboxCredentials
from lyt_toolkit.snapshot import ProgramSnapshot
from lyt_toolkit.synthetic import generate_program

APP_TOKEN = "apptok-ACTIONS-SECRET-91c3"
MANAGEMENT_TOKEN = "mgmttok-ACTIONS-SECRET-7d2e"
SECRETS = (APP_TOKEN, MANAGEMENT_TOKEN)
CREDENTIALS = SandboxCredentials(
    app_id="actions-tests-app",
    app_token=APP_TOKEN,
    management_id="actions-tests-management",
    management_token=MANAGEMENT_TOKEN,
)


class SimulatedCrash(BaseException):
    """Stands in for the process dying: not an item failure, so it stops the batch."""


class CrashingBenefits:
    """``client.benefits`` that crashes on the create call number ``crash_at`` (1-based).

    ``after_sending=True`` lets that request reach the service first: the
    benefit exists but the run dies before it can log the success.
    """

    def __init__(self, real: Any, crash_at: int, *, after_sending: bool = False) -> None:
        self._real = real
        self.crash_at = crash_at
        self.after_sending = after_sending
        self.calls = 0
        self.created: list[str] = []
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def create(self, body: Any) -> Any:
        with self._lock:
            self.calls += 1
            number = self.calls
        if number >= self.crash_at and not self.after_sending:
            raise SimulatedCrash(f"crash before create #{number}")
        benefit = self._real.create(body)
        with self._lock:
            self.created.append(benefit.name)
        if number >= self.crash_at:
            raise SimulatedCrash(f"crash after create #{number}")
        return benefit


class _ClientWith:
    """The real client with some resource groups replaced (a fault-injecting wrapper)."""

    def __init__(self, client: LoyaltyClient, **groups: Any) -> None:
        self._client = client
        self.__dict__.update(groups)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


def client_with(client: LoyaltyClient, **groups: Any) -> LoyaltyClient:
    """``client`` with the resource groups in ``groups`` replaced, typed as the client it
    stands in for (every other attribute is the real client's)."""
    return cast(LoyaltyClient, _ClientWith(client, **groups))


def benefit_rows(
    prefix: str, count: int, card_definition_id: str = "lcdef_c0ffee0001"
) -> list[dict[str, Any]]:
    return [
        {
            "name": f"{prefix} {i:04d}",
            "type": "POINTS",
            "points": {"value": 10 + i, "card_definition_id": card_definition_id},
        }
        for i in range(count)
    ]


def names_on_server(client: LoyaltyClient, prefix: str) -> list[str]:
    return [
        b.name for b in client.benefits.iter(filters={"name": {"$starts_with": prefix}}, limit=100)
    ]


# -- the desired-state tests: the demo program edited -------------------------------------

BUCKET = "lcppb_c0ffee0001"
"""A pending bucket the demo program can activate (dated after the sandbox's today)."""
TIERS = "lts_c0ffee0006"


def pull(client: LoyaltyClient) -> ProgramSnapshot:
    """The whole program, pulled over HTTP without a progress bar."""
    return ProgramSnapshot.pull(client, progress=False)


def two_refused_one_made(client: LoyaltyClient) -> ProgramEdit:
    """The program pulled and three of its pending buckets activated: a past date and one of
    an INACTIVE program (each refused 423), and ``BUCKET``, which the service makes."""
    snapshot = pull(client)
    buckets = snapshot.pending_buckets
    pending = buckets["status"] == "PENDING"
    past = buckets.loc[pending & (buckets["date"] < snapshot.pulled_at.normalize()), "id"]
    inactive = buckets.loc[pending & (buckets["program_status"] == "INACTIVE"), "id"]
    edit = actions.edit(snapshot)
    chosen = edit.pending_buckets["id"].isin([past.iloc[0], inactive.iloc[0], BUCKET])
    edit.pending_buckets.loc[chosen, "status"] = "ACTIVATED"
    return edit


def first_id(frame: pd.DataFrame, **equal: str) -> str:
    """The ID of the first row whose columns hold the given values."""
    rows = frame
    for column, value in equal.items():
        rows = rows[rows[column] == value]
    return str(rows["id"].iloc[0])


def bonus(card_definition_id: str) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "name": "Bonus 05",
                "type": "POINTS",
                "points_value": 50,
                "card_definition_id": card_definition_id,
            }
        ]
    )


def four_kinds(snapshot: ProgramSnapshot) -> tuple[ProgramEdit, dict[str, str]]:
    """An edit making one change of each supported kind; the targets by call."""
    edit = actions.edit(snapshot)
    reward = first_id(snapshot.rewards, status="ACTIVE")
    card = str(snapshot.card_definitions["id"].iloc[0])
    edit.rewards.loc[edit.rewards["id"] == reward, "status"] = "DRAFT"
    edit.benefits = pd.concat([edit.benefits, bonus(card)], ignore_index=True)
    edit.tier_structures = edit.tier_structures[edit.tier_structures["id"] != TIERS]
    edit.pending_buckets.loc[edit.pending_buckets["id"] == BUCKET, "status"] = "ACTIVATED"
    targets = {
        "create_benefit": "Bonus 05",
        "move_reward_to_draft": reward,
        "activate_pending_bucket": BUCKET,
        "delete_tier_structure": TIERS,
        "card": card,
    }
    return edit, targets


def four_kinds_plan(snapshot: ProgramSnapshot) -> tuple[ChangePlan, dict[str, str]]:
    """The plan of ``four_kinds(snapshot)``'s edit, and its targets by call."""
    edit, targets = four_kinds(snapshot)
    return edit.plan(), targets


SaveFour = Callable[[Path], tuple[ChangePlan, dict[str, str]]]
"""``save_four(path)`` (the fixture): ``four_kinds_plan`` of a ``fresh`` client's program,
saved at ``path``; the plan and its targets by call."""


def one_card_of_many_buckets(buckets: int = 150) -> dict[str, Any]:
    """A generated program of one member whose one card holds ``buckets`` pending buckets
    (150: two pages of its bucket list)."""
    return generate_program(
        rewards=1,
        benefits=1,
        card_definitions=2,
        tier_structures=1,
        members=1,
        pending_buckets=buckets,
        seed=3,
    )


def one_bucket_a_card(base: ProgramSnapshot) -> tuple[ChangePlan, pd.DataFrame]:
    """A plan of ``base`` activating one future pending bucket of an ACTIVE member and program
    on each card whose definition holds points as pending (the service activates each): the
    plan and the buckets chosen (one bucket list each in the re-read)."""
    buckets, definitions = base.pending_buckets, base.card_definitions
    holding = definitions.loc[definitions["pending_points_type"] != "IMMEDIATE", "id"]
    chosen = buckets[
        (buckets["date"] > base.pulled_at)
        & (buckets["program_status"] == "ACTIVE")
        & (buckets["member_status"] == "ACTIVE")
        & buckets["card_definition_id"].isin(holding)
    ].drop_duplicates("card_id")
    edit = actions.edit(base)
    edit.pending_buckets.loc[edit.pending_buckets["id"].isin(chosen["id"]), "status"] = "ACTIVATED"
    return edit.plan(), chosen


SaveOne = Callable[[Path], pd.DataFrame]
"""``save_one(path)`` (the fixture): ``one_bucket_a_card``'s plan of a ``fresh`` client's
program saved at ``path``; the buckets chosen."""


def activate(client: LoyaltyClient, bucket: pd.Series) -> None:
    """``bucket`` (a pending buckets row) activated with ``client``: someone else's call."""
    client.pending_buckets.activate(bucket.program_id, bucket.member_id, bucket.card_id, bucket.id)


def refused_stale(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    path: Path,
    log: Path,
    save_one: SaveOne,
) -> pd.DataFrame:
    """The plan saved at ``path`` refused as stale by an unpaced apply (its last item's
    bucket activated by someone else since: every card read, its rows kept beside ``log``):
    its buckets, in plan order."""
    with make_client(fresh) as client:
        chosen = save_one(path)
        targets = [str(item.target) for item in ChangePlan.load(path).parts[0].items]
        chosen = chosen.set_index("id", drop=False).loc[targets]
        activate(client, chosen.iloc[-1])
    fresh.settle()
    with make_client(fresh) as client, pytest.raises(StalePlanError):
        ChangePlan.load(path).apply(client, log=log, progress=False)
    return chosen


def stopped_after(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    path: Path,
    writes: Callable[[list[httpx.Request]], bool],
    **apply: object,
) -> set[str]:
    """The plan at ``path`` applied (its sha256, its default log, one write at a time) and
    cancelled once ``writes`` holds of the requests sent: the rest not sent. The targets it
    made."""
    cancel, sent = threading.Event(), []

    def hook(request: httpx.Request) -> None:
        sent.append(request)
        if writes(sent):
            cancel.set()

    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    with (
        httpx.Client(event_hooks={"request": [hook]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        results = ChangePlan.load(path).apply(
            client,
            log=path.with_name(path.name + ".log.jsonl"),
            sha256=sha256,
            progress=False,
            concurrency=1,
            cancel=cancel,
            **apply,  # type: ignore[arg-type]
        )
    assert results["outcome"].eq("cancelled").any(), results.to_string()
    return set(results.loc[results["outcome"] == "succeeded", "target"])


def bucket_lists(sent: list[httpx.Request]) -> int:
    """The bucket lists among the requests ``sent``."""
    return sum(r.method == "GET" and r.url.path.endswith("/pending-points") for r in sent)


def stopped_in_re_read(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    path: Path,
    log: Path,
    at: int,
    **apply: Any,
) -> list[httpx.Request]:
    """The apply of the plan at ``path`` with ``log`` (paced, unless ``apply`` says
    otherwise: its other keyword arguments), stopped (Ctrl-C) as its ``at``-th bucket list
    goes out (the ones before read): the requests sent."""
    sent: list[httpx.Request] = []

    def ctrl_c(request: httpx.Request) -> None:
        sent.append(request)
        if bucket_lists(sent) == at:
            raise KeyboardInterrupt

    with (
        httpx.Client(event_hooks={"request": [ctrl_c]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as stopped,
        pytest.raises(KeyboardInterrupt),
    ):
        ChangePlan.load(path).apply(stopped, log=log, progress=False, **{"paced": True} | apply)
    return sent


E = TypeVar("E", bound=BaseException)


def refused_paced_apply(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    path: Path,
    log: Path,
    refusal: type[E],
) -> tuple[list[httpx.Request], E]:
    """The paced apply of the plan at ``path`` with ``log``, which must raise ``refusal``:
    the requests sent, and what it raised."""
    sent: list[httpx.Request] = []
    with (
        httpx.Client(event_hooks={"request": [sent.append]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
        pytest.raises(refusal) as refused,
    ):
        ChangePlan.load(path).apply(client, log=log, progress=False, paced=True)
    return sent, refused.value


def paced_four_kinds(
    fresh: Sandbox, client: LoyaltyClient, tmp_path: Path, save_four: SaveFour
) -> tuple[pd.DataFrame, PacedLines]:
    """The four-kind plan saved in ``tmp_path`` and applied paced by ``client`` on a budget of
    1000/hour, with a fresh log: its results and its progress lines."""
    path = tmp_path / "plan.json"
    save_four(path)
    fresh.set_plan("1000/hour")
    told = PacedLines()
    results = ChangePlan.load(path).apply(
        client, log=tmp_path / "plan.log.jsonl", progress=told, paced=True, allow_destroy=True
    )
    return results, told


SPENT = r"\b0 left this window of its share of (\d+)"
"""A paced bar's line once its share of the window is spent: the share."""


def activations(sent: list[httpx.Request]) -> int:
    """The bucket activations among the requests ``sent``."""
    return sum(r.method == "POST" and r.url.path.endswith("/activate") for r in sent)


def applied_until_waiting(
    sb: Sandbox, client: LoyaltyClient, path: Path, log: Path, **apply: Any
) -> pd.DataFrame | None:
    """The paced apply of the plan at ``path`` (``apply``: its other keyword arguments),
    cancelled once its bar says nothing is left of its share of the window (it waits for the
    next one) and the window counts what it let start; its results (None: it ended some
    other way), or what it raised, raised here."""
    cancel, out, told = threading.Event(), [], PacedLines()
    raised: list[BaseException] = []

    def run() -> None:
        try:
            out.append(
                ChangePlan.load(path).apply(
                    client, log=log, progress=told, paced=True, cancel=cancel, **apply
                )
            )
        except Exception as error:
            raised.append(error)

    def spent() -> list[str]:
        return [share for line in told.lines for share in re.findall(SPENT, line)]

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    until(lambda: bool(spent()) or not worker.is_alive(), "the share spent, or the plan applied")
    if worker.is_alive():
        until_counted(sb, int(spent()[0]), worker.is_alive)
    cancel.set()
    worker.join(HANG)
    assert not worker.is_alive()
    if raised:
        raise raised[0]
    return out[0] if out else None


@contextmanager
def waiting_no_time(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    monkeypatch: pytest.MonkeyPatch,
    waits: Waits,
    wait: Callable[[float], None],
) -> Iterator[tuple[LoyaltyClient, list[httpx.Request]]]:
    """A client of ``fresh`` whose waits for a window are taken at once (``wait``, which
    moves ``waits`` on; its quota and tokens on ``waits``' clock), and the requests it sends,
    each in the window ``waits`` is in."""
    from lyt_toolkit.client import _transport

    monkeypatch.setattr(_transport, "pause", lambda seconds, stops: wait(seconds))
    sent: list[httpx.Request] = []

    def in_its_window(request: httpx.Request) -> None:
        waits.catch_up()
        sent.append(request)

    with (
        httpx.Client(event_hooks={"request": [in_its_window]}, verify=TLS) as http,
        make_client(fresh, http_client=http) as client,
    ):
        client.quota._clock = client._transport.tokens.clock = waits
        yield client, sent


def paced_in_waits(
    fresh: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    monkeypatch: pytest.MonkeyPatch,
    waits: Waits,
    wait: Callable[[float], None],
    path: Path,
    *,
    saved: bool,
    **options: Any,
) -> tuple[pd.DataFrame, list[httpx.Request], int]:
    """The plan saved at ``path`` (``saved``: as saved, checked as it writes; else its
    ``ChangePlan``) applied paced over real HTTP with ``options``, each wait for a window
    taken at once (``waiting_no_time``): its results, the requests it sent and the refusals
    its client heard."""
    with waiting_no_time(fresh, make_client, monkeypatch, waits, wait) as (client, sent):
        loaded = ChangePlan.load(path)
        apply = loaded.apply if saved else loaded.plan.apply
        results = apply(client, progress=False, paced=True, **options)
        return results, sent, client.quota.refusals


def bonuses_then_drafts(
    base: ProgramSnapshot, bonuses: int, prefix: str
) -> tuple[ChangePlan, list[str]]:
    """A plan of ``base`` creating ``bonuses`` POINTS benefits (``PREFIX 0``, ...), then
    moving every ACTIVE reward to DRAFT (25 of the demo program's): two parts, the second
    larger than a window lowered between them may leave; the rewards."""
    edit = actions.edit(base)
    card = str(base.card_definitions["id"].iloc[0])
    added = [
        {"name": f"{prefix} {i}", "type": "POINTS", "points_value": 5, "card_definition_id": card}
        for i in range(bonuses)
    ]
    edit.benefits = pd.concat([edit.benefits, pd.DataFrame(added)], ignore_index=True)
    drafts = list(base.rewards.loc[base.rewards["status"] == "ACTIVE", "id"].astype(str))
    edit.rewards.loc[edit.rewards["id"].isin(drafts), "status"] = "DRAFT"
    return edit.plan(), drafts
