"""``lyt sandbox serve --from-snapshot DIR``: the exported snapshot served over HTTP."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from frame_reads import cell
from shared_tls import TLS

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS

from .serving import KEYS, demo_env, serve_refused, served, v2_headers
from .snapshots import pull

PULLED = "2026-02-20T17:45:00Z"


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ProgramSnapshot]:
    """A demo snapshot pulled on a clock of its own, exported with ``to_csv``."""
    with Sandbox.start(now=PULLED) as sb:
        snapshot = pull(sb)
    folder = tmp_path_factory.mktemp("snapshot") / "export"
    snapshot.to_csv(folder)
    return folder, snapshot


def test_serve_from_snapshot_holds_the_snapshot_on_its_clock_with_sandbox_keys(
    exported: tuple[Path, ProgramSnapshot],
) -> None:
    folder, snapshot = exported
    production = {"LYT_APP_ID": "production-app", "LYT_APP_TOKEN": "production-token-secret"}
    with served("--from-snapshot", str(folder), env={**demo_env(), **production}) as (url, _):
        clock = httpx.get(f"{url}/_sandbox/clock", headers=KEYS, verify=TLS).json()["now"]
        assert clock == "2026-02-20T17:45:00.000Z"
        token = {"grant_type": "client_credentials", "scope": "loyalties"}
        real = {"X-App-Id": "production-app", "X-App-Token": "production-token-secret"}
        assert (
            httpx.post(f"{url}/oauth/token", data=token, headers=real, verify=TLS).status_code
            == 401
        )
        assert KEYS["X-App-Id"] == DEFAULT_CREDENTIALS["app_id"]  # v2_headers signs in with them
        rewards = httpx.get(
            f"{url}/v2/loyalties/rewards",
            params={"limit": 100},
            headers=v2_headers(url),
            verify=TLS,
        ).json()["data"]
    assert [r["id"] for r in rewards] == snapshot.rewards["id"].tolist()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "--from-snapshot: {folder}/manifest.json is missing: not a snapshot directory"),
        (["--data", "x.json"], "--from-snapshot: give --data or --from-snapshot, not both"),
    ],
)
def test_serve_refuses_what_is_no_snapshot_naming_the_option(
    tmp_path: Path,
    extra: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    stderr = serve_refused(monkeypatch, capsys, "--from-snapshot", str(tmp_path), *extra)
    assert stderr.strip() == f"lyt sandbox serve: {message.format(folder=tmp_path)}"


def test_a_snapshot_the_sandbox_cannot_hold_is_refused_naming_the_record(
    exported: tuple[Path, ProgramSnapshot],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, snapshot = exported
    members = snapshot.members.copy()
    members.loc[0, "customer_id"] = "not a customer id"
    broken = ProgramSnapshot.from_frames({**snapshot.frames(), "members": members})
    broken.to_csv(tmp_path / "export")
    first = serve_refused(monkeypatch, capsys, "--from-snapshot", str(tmp_path / "export"))
    first = first.splitlines()[0]
    assert first.startswith(f"lyt sandbox serve: --from-snapshot {tmp_path / 'export'}: ")
    assert f"members[0] {cell(members, 0, 'id')}: customer_id: String should match" in first
