"""Moving the sandbox clock back never revives a token or cursor that has expired."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import httpx
import pytest
from shared_tls import TLS

from lyt_toolkit.sandbox import Sandbox

NOW = "2026-01-15T12:00:00.000Z"


@pytest.fixture
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox(now=NOW) as sandbox:
        yield sandbox


def _rewards(sb: Sandbox, headers: dict[str, str], **params: str) -> httpx.Response:
    return httpx.get(
        f"{sb.base_url}/v2/loyalties/rewards", params=params, headers=headers, verify=TLS
    )


def test_a_token_expired_stays_expired_when_the_clock_is_set_back(sb: Sandbox) -> None:
    headers = sb.v2_headers()
    sb.advance_clock(2 * 3600)  # tokens live an hour
    assert _rewards(sb, headers).status_code == 401
    sb.set_clock(NOW)
    assert _rewards(sb, headers).status_code == 401


def test_a_token_expired_but_never_presented_stays_expired_after_setting_back(
    sb: Sandbox,
) -> None:
    headers = sb.v2_headers()
    sb.advance_clock(2 * 3600)
    sb.set_clock(NOW)
    assert _rewards(sb, headers).status_code == 401


def test_a_token_still_valid_survives_setting_the_clock_back(sb: Sandbox) -> None:
    headers = sb.v2_headers()
    sb.advance_clock(600)
    sb.set_clock(NOW)
    assert _rewards(sb, headers).status_code == 200


def test_a_token_issued_after_setting_the_clock_back_works(sb: Sandbox) -> None:
    sb.advance_clock(2 * 3600)
    sb.set_clock(NOW)
    assert _rewards(sb, sb.v2_headers()).status_code == 200


def test_a_cursor_expired_stays_expired_when_the_clock_is_set_back(sb: Sandbox) -> None:
    headers = sb.v2_headers()
    cursor = _rewards(sb, headers, limit="5").json()["cursor"]["next"]
    sb.advance_clock(1800)  # cursors live 30 minutes; the token still lives
    sb.set_clock(NOW)
    response = _rewards(sb, headers, limit="5", cursor=cursor)
    assert response.status_code == 400 and "cursor" in response.json()["details"]


def test_a_token_expired_stays_expired_after_a_restart_on_an_earlier_clock(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, now=NOW) as first:
        headers = first.v2_headers()
        first.advance_clock(2 * 3600)
    with Sandbox.start(db=db, now=NOW) as again:  # the clock starts where it did before
        assert _rewards(again, headers).status_code == 401


def test_a_token_still_valid_survives_a_restart(tmp_path: Path) -> None:
    db = str(tmp_path / "sandbox.sqlite")
    with Sandbox.start(db=db, now=NOW) as first:
        headers = first.v2_headers()
    with Sandbox.start(db=db, now=NOW) as again:
        assert _rewards(again, headers).status_code == 200
