"""SIGTERM taken as a Ctrl-C while a ``lyt`` command runs (``sigterm_as_ctrl_c``).

A command started in the background (``nohup lyt export --checkpoint DIR ... &``) has Ctrl-C
ignored, as a shell starts background jobs, so it is stopped with SIGTERM: ``kill``, a
scheduler's timeout, a container's stop. For the command's run the entry point (``main``)
makes the first SIGTERM do what a Ctrl-C does: the SIGINT handler of the moment is called
(asyncio's, which cancels a pull's work at its awaits; Python's, which raises
``KeyboardInterrupt``), or, Ctrl-C being ignored, a pull's loop on this thread is stopped as
asyncio's handler would (``_interrupt``), else ``KeyboardInterrupt`` is raised. So the
command's clean-up happens as at a Ctrl-C (the writes in flight answered and logged, the
checkpoint kept, the ``interrupted`` line), and it exits ``EXIT_TERMINATED`` (143). That
SIGTERM gives the signal back its previous handler, the default ending the process, so a
second one during the clean-up ends it at once.

Only in the main thread, only while SIGTERM has its default action (a handler of the
caller's is left alone), and the previous handler is restored when the run ends: importing
the toolkit, or using it as a library, installs nothing.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from .._interrupt import interrupt

__all__ = ["Sigterm", "sigterm_as_ctrl_c"]


class Sigterm:
    """Whether the run got a SIGTERM (``received``)."""

    def __init__(self) -> None:
        self.received = False


@contextmanager
def sigterm_as_ctrl_c(sigterm: Sigterm | None = None) -> Iterator[Sigterm]:
    """In the block, the first SIGTERM does what a Ctrl-C does (see the module), and
    ``sigterm`` (a new ``Sigterm`` if not given) says it came; a second ends the process.

    The ``KeyboardInterrupt`` it raises may come as the handler is put in place or given
    back, outside the block's own code: whoever catches it around the ``with`` (``main``)
    reads ``sigterm``, made before it."""
    sigterm = Sigterm() if sigterm is None else sigterm
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
    ):
        yield sigterm
        return

    def as_ctrl_c(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second one ends the process
        sigterm.received = True
        ctrl_c = signal.getsignal(signal.SIGINT)
        if not callable(ctrl_c):  # ignored (a background job) or the default
            if interrupt():  # a pull's loop here: its task cancelled, as asyncio's Ctrl-C does
                return
            raise KeyboardInterrupt
        ctrl_c(signal.SIGINT, frame)

    signal.signal(signal.SIGTERM, as_ctrl_c)
    try:
        yield sigterm
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
