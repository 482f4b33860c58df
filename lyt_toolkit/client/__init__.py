"""The service client: sync and async, with auth, retries, pagination and typed results."""

from ._client import AsyncLoyaltyClient, LoyaltyClient
from ._query import ListParams, ListQuery
from .config import ClientConfig, ClientSettings, Rate, RetryConfig
from .quota import Quota

__all__ = [
    "AsyncLoyaltyClient",
    "ClientConfig",
    "ClientSettings",
    "ListParams",
    "ListQuery",
    "LoyaltyClient",
    "Quota",
    "Rate",
    "RetryConfig",
]
