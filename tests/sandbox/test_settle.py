"""``Sandbox.settle``: every points activation still in progress settles at once."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

import pytest

from lyt_toolkit import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.services import programs

CARD = ("lprg_c0ffee0001", "lmbr_c0ffee0004", "lcrd_c0ffee000a")
BUCKET = "lcppb_c0ffee000f"
"""A PENDING bucket of ``CARD`` dated ahead: activatable."""


def _status(client: LoyaltyClient) -> str:
    """The bucket's status as listed; the service lists PENDING buckets only."""
    listed = {b.id: b.status for b in client.pending_buckets.iter(*CARD)}
    return listed.get(BUCKET, "unlisted")


def _pending_points(client: LoyaltyClient) -> float:
    member = client.members.get(*CARD[:2])
    return next(
        c.card.balance.pending_points for c in member.cards if c.card and c.card.id == CARD[2]
    )


def test_settle_finishes_the_activations_in_progress(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(programs, "settle_later", lambda *_: None)  # none settles by itself
    with start_sandbox() as sb, make_client(sb) as client:
        pending = _pending_points(client)
        answer = client.pending_buckets.activate(*CARD, BUCKET)
        assert answer.transaction is not None
        assert answer.transaction.status == "PENDING"
        assert _status(client) == "PENDING"
        assert sb.settle() == 1
        assert _status(client) == "unlisted"
        assert _pending_points(client) < pending
        assert sb.settle() == 0  # nothing left in progress
