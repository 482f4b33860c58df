"""A card's pending points total equals the points of its PENDING buckets, in the demo
program as loaded, after activations and after a reset."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from frame_reads import records

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.errors import ResourceLockedError
from lyt_toolkit.sandbox import Sandbox

from .helpers import eventually


def _pulled(sb: Sandbox, make_client: Callable[..., LoyaltyClient]) -> ProgramSnapshot:
    with make_client(sb) as client:
        return ProgramSnapshot.pull(client, progress=False)


def _gaps(snapshot: ProgramSnapshot) -> dict[str, int]:
    """Card ID -> pending total minus its PENDING buckets' points, for cards where they differ."""
    buckets = snapshot.pending_buckets.drop_duplicates("id")
    held = buckets[buckets["status"] == "PENDING"].groupby("card_id")["points_total"].sum()
    cards = snapshot.cards.drop_duplicates("id").set_index("id")["balance_pending_points"]
    gaps = {str(card): int(total - held.get(card, 0)) for card, total in cards.items()}
    return {card: gap for card, gap in gaps.items() if gap}


def test_pending_totals_follow_the_buckets_through_activation_and_reset(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    make_client: Callable[..., LoyaltyClient],
) -> None:
    with start_sandbox() as sb:
        loaded = _pulled(sb, make_client)
        assert _gaps(loaded) == {}
        pending = loaded.pending_buckets[loaded.pending_buckets["status"] == "PENDING"]
        activated = set()
        with make_client(sb) as client:
            for b in records(pending):
                try:
                    client.pending_buckets.activate(b.program_id, b.member_id, b.card_id, b.id)
                except ResourceLockedError:
                    continue
                activated.add(b.id)
        assert len(activated) >= 4  # the demo's four activatable buckets

        def settled() -> bool:
            # A pull lists the buckets of cards holding pending points only: an activated
            # bucket is either listed as ACTIVATED or, its card holding none, not listed.
            buckets = _pulled(sb, make_client).pending_buckets
            return not activated & set(buckets.loc[buckets["status"] == "PENDING", "id"])

        assert eventually(settled, timeout=10)
        assert _gaps(_pulled(sb, make_client)) == {}
        sb.reset()
        assert _gaps(_pulled(sb, make_client)) == {}
