"""A secret of a client configured in the process, pasted bare into a file the toolkit reads
(a prices file, a benefit import CSV, a checkpoint's or a snapshot's manifest), is masked in
the Python API's exception: its ``str``, ``repr``, ``args`` and traceback show neither the
token nor its first 12 characters, even where the quote is cut short. The client talks to
a sandbox over real HTTP, with key tokens of its own and the bearer token it is issued."""

from __future__ import annotations

import json
import shutil
import traceback
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import httpx
import pytest

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.errors import LytError, RequestValidationError
from lyt_toolkit.fill.checkpoint import CheckpointError
from lyt_toolkit.inputs import InputFileError, benefits_from_csv
from lyt_toolkit.inputs.prices import read_prices
from lyt_toolkit.reports import SnapshotFileError
from lyt_toolkit.sandbox import Sandbox, SandboxCredentials
from lyt_toolkit.snapshot import read_snapshot
from lyt_toolkit.synthetic import generate_program

APP_TOKEN = "apptok-HELD-7c41e0b9a2d35f86"
"""Shorter than a quote is cut to: a message would quote it whole."""
MANAGEMENT_TOKEN = "mgmttok-HELD-" + "0123456789abcdef" * 5
"""Longer than a quote is cut to: a message would quote its first 57 characters."""
CREDENTIALS = SandboxCredentials(
    app_id="held-secrets-app",
    app_token=APP_TOKEN,
    management_id="held-secrets-management",
    management_token=MANAGEMENT_TOKEN,
)
PROGRAM = generate_program(
    members=4, rewards=2, benefits=1, card_definitions=2, tier_structures=1, seed=11
)
SECRETS = ("app token", "management token", "bearer token")


@pytest.fixture(scope="module")
def sb(start_sandbox: Callable[..., AbstractContextManager[Sandbox]]) -> Iterator[Sandbox]:
    with start_sandbox(PROGRAM, now=PROGRAM["now"], credentials=CREDENTIALS) as sandbox:
        yield sandbox


@pytest.fixture
def client(
    sb: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> Iterator[tuple[LoyaltyClient, dict[str, str]]]:
    """A client of ``sb`` that has made a ``/v2`` call, and its secrets by name."""
    issued: list[str] = []

    def keep_token(response: httpx.Response) -> None:
        if response.request.url.path == "/oauth/token":
            response.read()
            issued.append(response.json()["access_token"])

    with (
        httpx.Client(event_hooks={"response": [keep_token]}) as http,
        make_client(sb, http_client=http) as made,
    ):
        made.rewards.list(limit=1)
        assert len(issued) == 1
        yield made, dict(zip(SECRETS, (APP_TOKEN, MANAGEMENT_TOKEN, issued[0]), strict=True))


def _masked(error: LytError, secret: str) -> None:
    """Neither ``secret`` nor its first 12 characters in anything ``error`` shows; its
    message says a value was masked there."""
    shown = [str(error), repr(error), repr(error.args), "".join(traceback.format_exception(error))]
    for text in shown:
        assert secret[:12] not in text, text
    assert "***" in str(error), str(error)


def _raised(kind: type[LytError], read: Callable[[], object]) -> LytError:
    with pytest.raises(kind) as caught:
        read()
    return caught.value


def _masked_in_input(read: Callable[[Path], object], path: Path, text: str, secret: str) -> None:
    """``text`` written to ``path``, which ``read`` refuses (``InputFileError``) with
    ``secret`` masked (``_masked``)."""
    path.write_text(text, encoding="utf-8")
    _masked(_raised(InputFileError, lambda: read(path)), secret)


INPUTS: dict[str, tuple[Callable[[Path], object], str, str]] = {
    "prices, ids": (read_prices, "prices.csv", "id,value\n{secret},1\n{secret},2\n"),
    "prices, a value": (read_prices, "prices.csv", "id,value\nprod_mug,{secret}\n"),
    "benefit import, a column": (
        benefits_from_csv,
        "benefits.csv",
        "name,type,{secret}\nB1,POINTS\n",
    ),
    "benefit import, a column twice": (
        benefits_from_csv,
        "benefits.csv",
        "name,type,{secret},{secret}\nB1,POINTS\n",
    ),
}
"""An input file quoting the secret (``{secret}`` in its text): its reader, name and text."""


@pytest.mark.parametrize("name", SECRETS)
@pytest.mark.parametrize("case", INPUTS)
def test_a_secret_in_an_input_file(
    client: tuple[LoyaltyClient, dict[str, str]], tmp_path: Path, name: str, case: str
) -> None:
    read, file_name, text = INPUTS[case]
    secret = client[1][name]
    _masked_in_input(read, tmp_path / file_name, text.format(secret=secret), secret)


@pytest.mark.parametrize("name", SECRETS)
def test_a_secret_in_a_checkpoint_manifest(
    client: tuple[LoyaltyClient, dict[str, str]], saved: Path, tmp_path: Path, name: str
) -> None:
    made, secrets = client
    folder = tmp_path / "checkpoint"
    shutil.copytree(saved / "checkpoint", folder)
    manifest = json.loads((folder / "checkpoint.json").read_text(encoding="utf-8"))
    manifest["pull"]["source"] = secrets[name]
    (folder / "checkpoint.json").write_text(json.dumps(manifest), encoding="utf-8")
    pull = lambda: ProgramSnapshot.pull(made, progress=False, checkpoint=folder)  # noqa: E731
    error = _raised(CheckpointError, pull)
    _masked(error, secrets[name])
    assert "holds another pull (source: '***' there" in str(error), str(error)


@pytest.mark.parametrize("name", SECRETS)
@pytest.mark.parametrize("key", ["format", "pulled_at"])
def test_a_secret_in_a_snapshot_manifest(
    client: tuple[LoyaltyClient, dict[str, str]], saved: Path, tmp_path: Path, name: str, key: str
) -> None:
    secret = client[1][name]
    folder = tmp_path / "csv"
    shutil.copytree(saved / "csv", folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest[key] = secret
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    _masked(_raised(SnapshotFileError, lambda: read_snapshot(folder)), secret)


def test_a_closed_client_s_secrets_stay_masked(
    client: tuple[LoyaltyClient, dict[str, str]], tmp_path: Path
) -> None:
    """A message may quote a token after its client is gone: closing forgets nothing."""
    made, secrets = client
    made.close()
    secret = secrets["bearer token"]
    _masked_in_input(read_prices, tmp_path / "prices.csv", f"id,value\nprod_mug,{secret}\n", secret)


@pytest.mark.parametrize("name", SECRETS)
def test_an_error_s_text_attributes_are_masked(
    client: tuple[LoyaltyClient, dict[str, str]], name: str
) -> None:
    """Whatever makes a toolkit error, the text it keeps as attributes is masked too."""
    secret = client[1][name]
    error = RequestValidationError(f"filters.name: {secret!r} is refused", field=secret)
    _masked(error, secret)
    assert (error.message, error.field) == ("filters.name: '***' is refused", "***")
