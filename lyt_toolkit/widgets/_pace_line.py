"""What a panel's status says while a paced batch runs: the calls sent of those needed and
when the next window begins, redrawn once a second (a paced batch may wait for an hour)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..client import LoyaltyClient

__all__ = ["PaceLine"]

REDRAW = 1.0
"""Seconds between redraws."""


class PaceLine:
    """``show`` the paced batch's line once a second while the block runs, from a thread of
    its own, until it ends or ``stopped`` is set (a Cancel's own status stays)."""

    def __init__(
        self,
        show: Callable[[str], None],
        client: LoyaltyClient,
        share: float,
        needed: int,
        stopped: threading.Event,
    ) -> None:
        self.show = show
        self.client = client
        self.share = share
        self.needed = needed
        self.stopped = stopped
        self._start = client.quota.calls_used
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._redrawn, name="lyt-pace-line", daemon=True)

    def __enter__(self) -> PaceLine:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._ended.set()
        self._thread.join()

    def _redrawn(self) -> None:
        while True:
            text = self.text()
            if self.stopped.is_set():
                return
            self.show(text)
            if self._ended.wait(REDRAW):
                return

    def text(self) -> str:
        """The line as the quota stands: calls sent of those needed, the next window."""
        sent = self.client.quota.calls_used - self._start
        text = (
            f"Running paced at {self.share:g} of each window: {sent:,} of {self.needed:,}"
            " calls sent"
        )
        resets = self.client.quota.resets_at  # on the service's clock, as the cost line says
        if resets is not None:
            text += f", next window at {resets:%H:%M:%S} UTC"
        return text
