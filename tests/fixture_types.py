"""The types of the session fixtures that hand out builders (see tests/conftest.py), for the
annotations of the tests and fixtures that take them."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from contextlib import AbstractContextManager

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox

StartSandbox = Callable[..., AbstractContextManager[Sandbox]]
"""``start_sandbox(program, **kwargs)``: a sandbox served for the ``with`` block."""
LytProcess = Callable[..., subprocess.Popen[str]]
"""``lyt_process(sb, cwd, *args)``: ``lyt ARGS`` as a process of its own, talking to ``sb``."""
ClientOf = Callable[[Sandbox], AbstractContextManager[LoyaltyClient]]
"""``client_of(sb)``: a client of ``sb`` for the ``with`` block (e.g. ``hearing_no_holds``)."""
