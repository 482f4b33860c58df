"""A secret of a client configured in the process, or a token set only in the environment or
``.env`` (no client made with it), pasted bare into a file the toolkit reads (a prices file,
a benefit import CSV, a checkpoint's or a snapshot's manifest, a plan file, a program file),
is masked in the Python API's exception: its ``str``, ``repr``, ``args`` and traceback show
neither the token nor its start, even where the quote is cut short; the two errors outside
``LytError`` (``ProgramFileError``, ``SchemaMismatchError``) mask alike. The client talks to
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
from sandbox.serving import refusing_to_serve
from shared_tls import TLS

from lyt_toolkit import LoyaltyClient, ProgramSnapshot
from lyt_toolkit.actions import ChangePlan, plan_file
from lyt_toolkit.actions.plan_reader import PlanFileError
from lyt_toolkit.audit import run
from lyt_toolkit.cli import main
from lyt_toolkit.errors import LytError, NotFoundError, OddValueWarning, RequestValidationError
from lyt_toolkit.fill.checkpoint import CheckpointError
from lyt_toolkit.frames.schema import OddValue, Schema, SchemaMismatchError, integer
from lyt_toolkit.frames.schema import text as text_column
from lyt_toolkit.inputs import InputFileError, benefits_from_csv
from lyt_toolkit.inputs.prices import read_prices
from lyt_toolkit.reports import SnapshotFileError
from lyt_toolkit.sandbox import Sandbox, SandboxCredentials
from lyt_toolkit.sandbox.loader import ProgramFileError
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
        httpx.Client(event_hooks={"response": [keep_token]}, verify=TLS) as http,
        make_client(sb, http_client=http) as made,
    ):
        made.rewards.list(limit=1)
        assert len(issued) == 1
        yield made, dict(zip(SECRETS, (APP_TOKEN, MANAGEMENT_TOKEN, issued[0]), strict=True))


@pytest.fixture(scope="module")
def pulled(sb: Sandbox, make_client: Callable[..., LoyaltyClient]) -> ProgramSnapshot:
    """``PROGRAM`` as a pull reads it."""
    with make_client(sb) as made:
        return ProgramSnapshot.pull(made, progress=False)


@pytest.fixture(scope="module")
def pulled_folder(pulled: ProgramSnapshot, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``pulled`` written once as a Parquet snapshot folder, for ``lyt diff`` to read (no
    test writes to it: each writes its own edited copy beside it)."""
    folder = tmp_path_factory.mktemp("pulled") / "old"
    pulled.to_parquet(folder)
    return folder


def _masked(error: BaseException, secret: str) -> None:
    """Neither ``secret`` nor its first 8 characters in anything ``error`` shows; its message
    says a value was masked there."""
    shown = [str(error), repr(error), repr(error.args), "".join(traceback.format_exception(error))]
    for said in shown:
        assert secret[:8] not in said, said
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


# -- tokens the environment or .env sets, no client configured with them -----------------

ENV_TOKEN = "envtok-ONLY-5e2a9c7d31b0f846"
"""Shorter than a quote is cut to."""
LONG_ENV_TOKEN = "envtok-LONG-" + "9876543210fedcba" * 5
"""Longer than a quote is cut to: a message cutting it first would show its start."""
QUOTES = {"whole": "{token}", "starting a long value": "{token}" + "-and-more" * 10}


def _configure(token: str, source: str, monkeypatch: pytest.MonkeyPatch, cwd: Path) -> None:
    """``token`` as ``LYT_APP_TOKEN`` in the environment, or in the ``.env`` file of the
    working directory ``cwd``; no other token anywhere."""
    monkeypatch.delenv("LYT_APP_TOKEN", raising=False)
    monkeypatch.delenv("LYT_MANAGEMENT_TOKEN", raising=False)
    cwd.mkdir(exist_ok=True)
    monkeypatch.chdir(cwd)
    if source == "environment":
        monkeypatch.setenv("LYT_APP_TOKEN", token)
    else:
        (cwd / ".env").write_text(f"LYT_BASE_URL=http://127.0.0.1:9\nLYT_APP_TOKEN={token}\n")


@pytest.fixture(
    params=[
        (token, source, quote)
        for token in (ENV_TOKEN, LONG_ENV_TOKEN)
        for source in ("environment", ".env")
        for quote in QUOTES
    ],
    ids=lambda p: f"{'long' if len(p[0]) > 60 else 'short'} token, {p[1]}, {p[2]}",
)
def configured(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> tuple[str, str]:
    """A token set only in the environment or ``.env`` (no client made with it), and the
    value a file quotes it in: the token, or a long value starting with it."""
    token, source, quote = request.param
    _configure(token, source, monkeypatch, tmp_path / "cwd")
    return token, QUOTES[quote].format(token=token)


@pytest.mark.parametrize("rows", ["{value},1\n{value},2\n", "prod_mug,{value}\n"])
def test_a_configured_token_in_a_prices_file(
    configured: tuple[str, str], tmp_path: Path, rows: str
) -> None:
    token, value = configured
    path = tmp_path / "prices.csv"
    path.write_text("id,value\n" + rows.format(value=value), encoding="utf-8")
    _masked(_raised(InputFileError, lambda: read_prices(path)), token)


def test_a_configured_token_in_a_benefit_import(
    configured: tuple[str, str], tmp_path: Path
) -> None:
    token, value = configured
    path = tmp_path / "benefits.csv"
    path.write_text(f"name,type,{value}\nB1,POINTS\n", encoding="utf-8")
    _masked(_raised(InputFileError, lambda: benefits_from_csv(path)), token)


def test_a_configured_token_in_a_checkpoint_manifest(
    sb: Sandbox,
    saved: Path,
    configured: tuple[str, str],
    tmp_path: Path,
    make_client: Callable[..., LoyaltyClient],
) -> None:
    token, value = configured
    folder = tmp_path / "checkpoint"
    shutil.copytree(saved / "checkpoint", folder)
    manifest = json.loads((folder / "checkpoint.json").read_text(encoding="utf-8"))
    manifest["pull"]["source"] = value
    (folder / "checkpoint.json").write_text(json.dumps(manifest), encoding="utf-8")
    with make_client(sb) as made:
        pull = lambda: ProgramSnapshot.pull(made, progress=False, checkpoint=folder)  # noqa: E731
        _masked(_raised(CheckpointError, pull), token)


@pytest.mark.parametrize("key", ["format", "pulled_at", "sha256"])
def test_a_configured_token_in_a_snapshot_manifest(
    saved: Path, configured: tuple[str, str], tmp_path: Path, key: str
) -> None:
    token, value = configured
    folder = tmp_path / "csv"
    shutil.copytree(saved / "csv", folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    if key == "sha256":  # a file's checksum: refused by its first 12 characters
        manifest["frames"]["rewards"]["sha256"] = value
    else:
        manifest[key] = value
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    _masked(_raised(SnapshotFileError, lambda: read_snapshot(folder)), token)


def _plan_calling(call: str) -> dict[str, object]:
    """A plan file of no change, naming ``call`` among its calls."""
    base = {"pulled_at": "2026-01-15T12:00:00Z", "source": "sandbox"}
    document = {"format": plan_file.FORMAT, "version": plan_file.VERSION, "summary": ""}
    lists: dict[str, list[object]] = {"changes": [], "unsupported": [], "touched": []}
    return document | {"base": base} | lists | {"calls": {call: []}}


@pytest.mark.parametrize("where", ["a key", "a call"])
def test_a_configured_token_in_a_plan_file(
    configured: tuple[str, str], tmp_path: Path, where: str
) -> None:
    """A plan file is read before any client is made: a key naming the token is masked
    before it is cut to 40 characters."""
    token, value = configured
    path = tmp_path / "plan.json"
    document = {value: float("nan")} if where == "a key" else _plan_calling(value)
    path.write_text(json.dumps(document), encoding="utf-8")
    _masked(_raised(PlanFileError, lambda: ChangePlan.load(path)), token)


def test_a_configured_token_in_a_program_file(configured: tuple[str, str], tmp_path: Path) -> None:
    """``ProgramFileError`` is no ``LytError`` (the sandbox is the service) but masks alike:
    here the file's format and an unknown section's name."""
    token, value = configured
    path = tmp_path / "program.json"
    programs: tuple[dict[str, object], ...] = ({"format": value}, {value: []})
    for program in programs:
        path.write_text(json.dumps(program), encoding="utf-8")
        with pytest.raises(ProgramFileError) as caught, Sandbox.start(path):
            pass
        _masked(caught.value, token)


def test_lyt_sandbox_serve_masks_a_configured_token_in_a_program_file(
    configured: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    token, value = configured
    path = tmp_path / "program.json"
    path.write_text(json.dumps({"format": value}), encoding="utf-8")
    with refusing_to_serve():
        assert main(["sandbox", "serve", "--port", "0", "--data", str(path)]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(f"lyt sandbox serve: --data {path}: format: ") and "***" in err, err
    assert token[:8] not in out + err


@pytest.mark.parametrize("name", SECRETS)
def test_a_held_secret_in_a_program_file(
    client: tuple[LoyaltyClient, dict[str, str]], tmp_path: Path, name: str
) -> None:
    secret = client[1][name]
    path = tmp_path / "program.json"
    path.write_text(json.dumps({"format": secret}), encoding="utf-8")
    with pytest.raises(ProgramFileError) as caught, Sandbox.start(path):
        pass
    _masked(caught.value, secret)


def test_a_configured_token_naming_a_column_of_a_frame(configured: tuple[str, str]) -> None:
    """``SchemaMismatchError`` is no ``LytError`` but masks alike."""
    token, value = configured
    pair = Schema("pair", "Two columns.", (text_column("id", "ID"), integer("n", "N")))
    with pytest.raises(SchemaMismatchError) as caught:
        pair.build([{"id": "a", "n": 1, value: 2}])
    _masked(caught.value, token)
    assert all(token[:8] not in str(v) for v in vars(caught.value).values()), vars(caught.value)


def test_a_configured_token_as_an_odd_value(configured: tuple[str, str]) -> None:
    """A value the service sent that its column cannot hold is quoted, masked before it is
    cut short, in the ``OddValueWarning`` and in the audit's finding."""
    token, value = configured
    pair = Schema("pairs", "Two columns.", (text_column("id", "ID"), integer("n", "N")))
    with pytest.warns(OddValueWarning) as caught:
        pair.build([{"id": "a", "n": value}])
    warned = [str(w.message) for w in caught if w.category is OddValueWarning]
    assert warned and all(token[:8] not in said and "***" in said for said in warned), warned
    odd = [OddValue("benefits", "lben_1", "points_value", value, "set to NA")]
    findings = run(ProgramSnapshot.from_frames({}, odd_values=odd), ["odd-value-in-answer"])
    message = findings["message"].iloc[0]
    assert token[:8] not in message and "***" in message, message


def test_lyt_diff_masks_a_configured_token_in_a_changed_value(
    configured: tuple[str, str],
    pulled: ProgramSnapshot,
    pulled_folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``lyt diff`` prints each changed value, masked before it is cut short (the pull's
    own folder, written once for the module, against the edited one)."""
    token, value = configured
    rewards = pulled.rewards.copy()
    rewards.loc[rewards.index[0], "name"] = value
    later = ProgramSnapshot.from_frames(
        {**pulled.frames(), "rewards": rewards}, source=pulled.source, pulled_at=pulled.pulled_at
    )
    later.to_parquet(tmp_path / "new")
    capsys.readouterr()
    assert main(["diff", str(pulled_folder), str(tmp_path / "new")]) == 0
    printed = capsys.readouterr().out
    assert "***" in printed and token[:8] not in printed, printed


def test_an_error_s_text_attributes_mask_a_configured_token(configured: tuple[str, str]) -> None:
    """Set before the error's arguments (``APIError``) or after (``RequestValidationError``)."""
    token, value = configured
    echoed = NotFoundError(404, f"no reward {value}", details=value, path=f"/v2/rewards/{value}")
    refused = RequestValidationError(f"filters.name: {value!r} is refused", field=value)
    for error in (echoed, refused):
        _masked(error, token)
        assert all(token[:8] not in str(v) for v in vars(error).values()), vars(error)


def test_a_changed_env_file_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``.env`` is parsed once per change: a token written after an error was made is
    masked in the next one."""
    _configure(ENV_TOKEN, ".env", monkeypatch, tmp_path)
    _masked(LytError(f"got {ENV_TOKEN}"), ENV_TOKEN)
    (tmp_path / ".env").write_text(f"LYT_MANAGEMENT_TOKEN={LONG_ENV_TOKEN}\n")
    _masked(LytError(f"got {LONG_ENV_TOKEN}"), LONG_ENV_TOKEN)
