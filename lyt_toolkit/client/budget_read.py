"""Learning the call budget before work is set against it, with the one call it needs."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._client import LoyaltyClient

__all__ = ["learn_budget"]


def learn_budget(client: LoyaltyClient) -> bool:
    """Learn the budget when ``client`` does not know it, before work is set against it: a
    client that has sent nothing yet fetches its token now (the work's calls need it
    anyway), and the answer carries the limit headers. A service that sends none leaves the
    budget unknown, and nothing is refused for it. True when the token request was sent."""
    if client.quota.remaining is not None or client.holds_token:
        return False
    client.fetch_token()
    return True
