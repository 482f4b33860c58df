"""Answers kept as they arrive, and given back instead of a call: the hook of checkpointed pulls.

A client with a ``Recorder`` (``LoyaltyClient.recording(recorder)``) asks it before every
GET whether the answer is already held (``recall``). A held answer is decoded as if it had
just arrived: no call is sent, none is counted against the budget. Otherwise the recorder
names the request to send for it: the same one, or another that reads what it asks (a
page whose cursor may have expired, read by ``created_at`` instead). Each answer is given
to the recorder (``keep``), which stores it and hands back the answer to decode, or
another request when that answer read nothing new. POSTs, DELETEs and the token request
always go to the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol
from urllib.parse import urlencode

import httpx

__all__ = ["Asked", "Recorder"]


@dataclass(frozen=True)
class Asked:
    """A GET as the client would send it: ``path`` (no base URL) and its query ``params``."""

    path: str
    params: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, path: str, params: Sequence[tuple[str, str]]) -> Asked:
        return cls(path, tuple((str(k), str(v)) for k, v in params))

    @property
    def key(self) -> str:
        """The request as one line (path and query in the order sent): what an answer is
        stored under."""
        return f"{self.path}?{urlencode(self.params)}" if self.params else self.path

    def value(self, name: str) -> str | None:
        """The first value of the query parameter ``name``, if any."""
        return next((v for k, v in self.params if k == name), None)

    def with_params(self, params: Sequence[tuple[str, str]]) -> Asked:
        return replace(self, params=tuple(params))


class Recorder(Protocol):
    """Where a client's GET answers are kept (a pull's checkpoint)."""

    def recall(self, asked: Asked) -> httpx.Response | Asked:
        """The answer held for ``asked``, or the request to send for it."""
        ...

    def keep(self, asked: Asked, sent: Asked, answer: httpx.Response) -> httpx.Response | Asked:
        """Store ``answer`` (to ``sent``, sent for ``asked``); return the answer to give for
        ``asked``, or another request to send for it."""
        ...
