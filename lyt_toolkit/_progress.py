"""One progress helper for pulls, plans and widgets.

Every long job reports through a ``ProgressBar``: ``advance(n)`` as work
lands, ``close()`` at the end. What the user sees depends on ``progress``:

- ``True``: a ``tqdm.auto`` bar (a widget bar in Jupyter, text in a terminal);
- a callable ``(done, total)``: the caller draws it (the widgets do);
- ``False`` or ``None``: nothing.

A bar with ``lazy=True`` appears only once ``show()`` is called, so a pull that
fits in one page stays silent. Safe to advance from several threads.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["Progress", "ProgressBar"]

Progress = bool | Callable[[int, int], None] | None
"""``True`` for a ``tqdm.auto`` bar, a callable ``(done, total)`` for a custom one, else none."""


class ProgressBar:
    """Counts work done towards ``total`` (``None`` when unknown) and shows it as asked."""

    def __init__(
        self,
        progress: Progress,
        *,
        desc: str,
        unit: str = "item",
        total: int | None = None,
        lazy: bool = False,
    ) -> None:
        self.desc = desc
        self.unit = unit
        self.total = total
        self.done = 0
        self._lock = threading.Lock()
        self._callback = progress if callable(progress) else None
        self._wanted = bool(progress) and self._callback is None
        self._tqdm: Any = None
        if not lazy:
            self.show()
        if self._callback is not None:
            self._callback(0, total or 0)

    def show(self) -> None:
        """Open the tqdm bar (if one was asked for and is not open yet)."""
        if self._wanted and self._tqdm is None:
            from tqdm.auto import tqdm

            self._tqdm = tqdm(
                desc=self.desc,
                unit=f" {self.unit}s" if self.total is None else self.unit,
                total=self.total,
                initial=self.done,
                leave=False,
            )

    def advance(self, count: int = 1) -> None:
        """Record ``count`` more units done."""
        if count <= 0:
            return
        with self._lock:
            self.done += count
            if self._tqdm is not None:
                self._tqdm.update(count)
            if self._callback is not None:
                self._callback(self.done, self.total if self.total is not None else self.done)

    def close(self) -> None:
        """Close the tqdm bar; the count stays readable."""
        if self._tqdm is not None:
            self._tqdm.close()
            self._tqdm = None

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
