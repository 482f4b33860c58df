"""The sync resource classes are generated from their async twins (``scripts/unasync.py``):
a sync class edited by hand, or an async one changed without generating again, fails here."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "unasync.py"


def _unasync() -> SimpleNamespace:
    """The script's functions and constants (run as a module, not as ``__main__``)."""
    return SimpleNamespace(**runpy.run_path(str(SCRIPT)))


def test_every_generated_sync_class_is_up_to_date() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def test_a_sync_class_edited_by_hand_is_out_of_date() -> None:
    unasync = _unasync()
    module = "lyt_toolkit/client/resources/rewards.py"
    text = (ROOT / module).read_text()
    edited = text.replace("        return self._send(_get(reward_id))", "        return None", 1)
    assert edited != text
    assert unasync.generated(text, module) == text
    assert unasync.generated(edited, module) == text


def test_the_sync_form_of_async_lines() -> None:
    line = _unasync().unasync_line
    assert line("    async def get(self) -> Reward:") == "    def get(self) -> Reward:"
    assert line("        return await self._send(_get(reward_id))") == (
        "        return self._send(_get(reward_id))"
    )
    assert line("class AsyncRewards(AsyncResource):") == "class Rewards(SyncResource):"
    assert line("    ) -> AsyncIterator[Page[Reward]]:") == "    ) -> Iterator[Page[Reward]]:"
    assert line("        return aiter_items(fetch)") == "        return iter_items(fetch)"
    assert line("    fetch: Callable[[R], Awaitable[Page[T]]],") == (
        "    fetch: Callable[[R], Page[T]],"
    )
    assert line('        """Async twin of ``Rewards.get``."""') is None
    assert line('        # sync: """One reward by ID."""') == '        """One reward by ID."""'
    assert line("        # sync:") == ""
    assert line("        self.awaiting = asyncio_free") == "        self.awaiting = asyncio_free"


def test_an_async_twin_docstring_needs_the_sync_one_under_it() -> None:
    unasync = _unasync()
    module = "lyt_toolkit/client/resources/oauth.py"
    text = (ROOT / module).read_text()
    sync_doc = (
        '        # sync: """A new token for ``scopes``'
        ' (default: the client\'s configured scopes)."""\n'
    )
    assert text.count(sync_doc) == 1
    with pytest.raises(SystemExit, match=r"oauth\.py:\d+: an 'Async twin of' docstring"):
        unasync.generated(text.replace(sync_doc, ""), module)
