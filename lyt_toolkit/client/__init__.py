"""The service client: sync and async, with auth, retries, pagination and typed results."""

from ._client import AsyncLoyaltyClient, LoyaltyClient
from ._query import ListParams, ListQuery
from .config import ClientConfig, ClientSettings, RetryConfig

__all__ = [
    "AsyncLoyaltyClient",
    "ClientConfig",
    "ClientSettings",
    "ListParams",
    "ListQuery",
    "LoyaltyClient",
    "RetryConfig",
]
