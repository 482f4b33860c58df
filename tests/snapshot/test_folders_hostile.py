"""The folders the toolkit reads back, as a careless or hostile user leaves them: a snapshot
folder (``lyt audit --base``, ``lyt diff``, ``read_snapshot``) and a pull's checkpoint. Each
bad file is one error naming it (and the key), never a traceback, a wait on a pipe, a value
silently dropped or a configured token printed; a refused checkpoint sends no call."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fixture_types import StartSandbox

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit._lock import LockFileError
from lyt_toolkit.cli import main
from lyt_toolkit.errors import LytError
from lyt_toolkit.fill.answers import JOURNAL, PARTS
from lyt_toolkit.fill.checkpoint import CheckpointError
from lyt_toolkit.reports import SnapshotFileError
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.snapshot import read_snapshot
from lyt_toolkit.synthetic import generate_program

from .helpers import client_for

PROGRAM = generate_program(
    members=30, rewards=12, benefits=4, card_definitions=2, tier_structures=1, seed=5
)
MAX_MANIFEST = 64 * 2**20
"""The largest snapshot manifest read (``reports.snapshot_csv.MAX_MANIFEST``)."""
TOKEN = "folders-hostile-app-token-0123456789"
"""The app token ``lyt`` is configured with here: never printed."""
FOREIGN = "eyJhbGciOiJIUzI1NiJ9.handed-over-with-the-folder.0123456789abcdef"
"""A bearer token no one configured here (another project's, pasted into a file): masked
whole wherever it is quoted, not cut short."""


@pytest.fixture(scope="module")
def sb(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox(PROGRAM, now=PROGRAM["now"]) as sandbox:
        yield sandbox


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    monkeypatch.chdir(tmp_path)  # no .env of the working copy
    monkeypatch.setenv("LYT_APP_TOKEN", TOKEN)
    return TOKEN


def _copy(saved: Path, form: str, tmp_path: Path) -> Path:
    folder = tmp_path / form
    shutil.copytree(saved / form, folder)
    return folder


def _rehashed(folder: Path, name: str) -> None:
    """The manifest's SHA-256 of frame ``name`` made to match its file again (a hostile edit)."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    entry = manifest["frames"][name]
    entry["sha256"] = hashlib.sha256((folder / entry["file"]).read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


@contextmanager
def _fed(fifo: Path, content: bytes) -> Iterator[None]:
    """A FIFO at ``fifo`` whose writer passes ``content`` off as the file (a reader that
    opens it would not block forever, only read it)."""
    os.mkfifo(fifo)

    def feed() -> None:
        try:
            with fifo.open("wb") as pipe:
                pipe.write(content)
        except OSError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        yield
    finally:  # let the writer's open return, and so the thread end
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        writer.join()
        os.close(reader)


def _one_line(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 2) -> str:
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert TOKEN not in out + err
    return err


# -- snapshot folders ------------------------------------------------------------------------


def _huge(path: Path) -> None:
    with path.open("r+b") as file:  # sparse: no disk is used
        file.truncate(MAX_MANIFEST + 1)


def _deep(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")


def _long_integer(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"rows": 30', '"rows": ' + "9" * 5000, 1), encoding="utf-8")


def _twice(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"sha256": ', '"sha256": "0", "sha256": ', 1), encoding="utf-8")


MANIFESTS = {
    "over the size limit": (_huge, "over 64 MiB; no snapshot manifest is that large"),
    "nested too deeply": (_deep, "not a snapshot manifest: nested too deeply"),
    "an integer of 5,000 digits": (_long_integer, "frames.members.rows: must be a whole number"),
    "a key given twice": (_twice, "key 'sha256': given twice in one object"),
}


@pytest.mark.parametrize("form", ["csv", "parquet"])
@pytest.mark.parametrize("case", MANIFESTS)
def test_a_manifest_no_writer_made_is_one_line_naming_it(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], form: str, case: str
) -> None:
    folder = _copy(saved, form, tmp_path)
    edit, reason = MANIFESTS[case]
    edit(folder / "manifest.json")
    err = _one_line(capsys, ["audit", "--base", str(folder), "--out", str(tmp_path / "out")])
    assert err == f"lyt audit: --base {folder}: {folder / 'manifest.json'}: {reason}\n"


@pytest.mark.parametrize("form", ["csv", "parquet"])
def test_a_pipe_or_a_device_for_a_snapshot_file_is_named_as_one_unread(
    saved: Path, tmp_path: Path, form: str
) -> None:
    folder = _copy(saved, form, tmp_path)
    manifest = folder / "manifest.json"
    content = manifest.read_bytes()
    manifest.unlink()
    with _fed(manifest, content), pytest.raises(SnapshotFileError) as caught:
        read_snapshot(folder)
    assert str(caught.value) == f"{manifest}: is a pipe or a device, not a snapshot manifest"
    manifest.unlink()
    manifest.write_bytes(content)
    members = folder / f"members.{form}"
    members.unlink()
    members.symlink_to("/dev/zero")
    with pytest.raises(SnapshotFileError) as caught:
        read_snapshot(folder)
    assert str(caught.value) == f"{members}: is a pipe or a device, not a file of a snapshot"


def _off_category_csv(folder: Path) -> None:
    path = folder / "members.csv"
    path.write_bytes(path.read_bytes().replace(b",ACTIVE,", b",ACTIVATED,", 1))


def _off_category_parquet(folder: Path) -> None:
    path = folder / "members.parquet"
    frame = pd.read_parquet(path)
    frame["status"] = frame["status"].astype(str)
    frame.loc[0, "status"] = "ACTIVATED"
    frame.to_parquet(path, index=False)


@pytest.mark.parametrize("form", ["csv", "parquet"])
def test_a_value_outside_its_column_s_categories_is_refused_not_dropped(
    saved: Path, tmp_path: Path, form: str
) -> None:
    folder = _copy(saved, form, tmp_path)
    (_off_category_csv if form == "csv" else _off_category_parquet)(folder)
    _rehashed(folder, "members")
    with pytest.raises(SnapshotFileError) as caught:
        read_snapshot(folder)
    assert str(caught.value).startswith(f"{folder / f'members.{form}'}: column 'status', row ")
    assert "ACTIVATED" not in str(caught.value)


def test_a_token_in_a_value_of_the_wrong_type_is_never_printed(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], token: str
) -> None:
    folder = _copy(saved, "parquet", tmp_path)
    path = folder / "members.parquet"
    frame = pd.read_parquet(path)
    frame["created_at"] = f"Bearer {token}"
    frame.to_parquet(path, index=False)
    _rehashed(folder, "members")
    err = _one_line(capsys, ["diff", str(folder), str(folder)])
    assert err == (
        f"lyt diff: {path}: column 'created_at': its values are not of dtype "
        "'datetime64[ns, UTC]'\n"
    )


@pytest.mark.parametrize(
    "command",
    [["diff", "{folder}", "{folder}"], ["plan", "--base", "{folder}", "--edited", "{folder}"]],
    ids=lambda command: command[0],
)
def test_a_token_planted_in_a_manifest_is_never_printed(
    saved: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    token: str,
    command: list[str],
) -> None:
    folder = _copy(saved, "csv", tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["format"] = token
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    argv = [part.format(folder=folder) for part in command]
    err = _one_line(capsys, argv, 2 if command[0] == "diff" else 1)
    assert "format '***' is not" in err


def test_a_bearer_token_no_one_configured_is_masked_whole_not_cut_short(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], token: str
) -> None:
    folder = _copy(saved, "csv", tmp_path)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["format"] = f"Bearer {FOREIGN}"
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(SnapshotFileError) as caught:
        read_snapshot(folder)
    message = str(caught.value)
    assert message.startswith(f"{folder / 'manifest.json'}: format 'Bearer ***' is not "), message
    err = _one_line(capsys, ["diff", str(folder), str(folder)])
    assert err == f"lyt diff: {message}\n"
    assert FOREIGN[:8] not in message + err


BEARER = f"Bearer {FOREIGN}"
LONG = "x" * 5000
NAMES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "a token for a frame": (
        lambda manifest: manifest["frames"].update({BEARER: manifest["frames"]["members"]}),
        "unknown frames 'Bearer ***'",
    ),
    "a long kind": (
        lambda manifest: manifest.update(kinds=[*manifest["frames"], LONG]),
        "kinds: names frames the manifest lacks: 'xxx",
    ),
    "a token read at": (
        lambda manifest: manifest.update(read_at={BEARER: manifest["pulled_at"]}),
        "read_at: names frames the manifest lacks: 'Bearer ***'",
    ),
    "a long read time": (
        lambda manifest: manifest.update(read_times={LONG: []}),
        "read_times: 'xxx",
    ),
    "a token to sample by": (
        lambda manifest: manifest.update(sample={"seed": 1, "by": [BEARER]}),
        "sample: by must name each of",
    ),
    "a long stratum": (
        lambda manifest: manifest.update(sample={"seed": 1, "by": [LONG]}),
        "sample: by must name each of",
    ),
}


@pytest.mark.parametrize("case", NAMES)
def test_a_name_a_manifest_gives_is_quoted_short_and_a_token_in_it_masked(
    saved: Path, tmp_path: Path, case: str
) -> None:
    """A frame, kind or stratum a manifest names, quoted in its refusal: cut short, a bearer
    token in it masked whole."""
    folder = _copy(saved, "csv", tmp_path)
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    edit, quoted = NAMES[case]
    edit(manifest)
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(SnapshotFileError) as caught:
        read_snapshot(folder)
    said = str(caught.value).removeprefix(f"{path}: ")
    assert said.startswith(quoted) and len(said) < 300, said
    assert FOREIGN[:8] not in said and "\n" not in said, said


def _cell_set(path: Path, column: str, index: int, value: str) -> None:
    """The CSV file at ``path`` with the cell of ``column`` in data row ``index`` (from 0) set
    to ``value``, every other cell as it was."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    frame.loc[index, column] = value
    frame.to_csv(path, index=False)


CSV_VALUES = {  # frame, column, data row (from 0), what the column holds, its dtype
    "a whole number": ("cards", "balance_points", 7, "a whole number", "Int64"),
    "a number": ("rewards", "digital_gift_voucher_balance", 4, "a number", "Float64"),
    "a flag": ("card_definitions", "listed", 1, "True or False", "boolean"),
}


@pytest.mark.parametrize("case", CSV_VALUES)
def test_a_csv_value_not_of_its_column_s_dtype_is_named_by_column_and_row_never_quoted(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], token: str, case: str
) -> None:
    """pandas' own message quotes the value (here a token): the refusal is in our words,
    through the Python API as through ``lyt``."""
    name, column, index, holds, dtype = CSV_VALUES[case]
    folder = _copy(saved, "csv", tmp_path)
    path = folder / f"{name}.csv"
    _cell_set(path, column, index, token)
    _rehashed(folder, name)
    with pytest.raises(SnapshotFileError) as caught:
        read_snapshot(folder)
    assert str(caught.value) == (
        f"{path}: column {column!r}, row {index + 1}: a value that is not {holds} (dtype {dtype!r})"
    )
    err = _one_line(capsys, ["diff", str(folder), str(folder)])
    assert err == f"lyt diff: {caught.value}\n"


@pytest.mark.parametrize("form", ["csv", "parquet"])
def test_a_frame_file_swapped_after_its_hash_check_is_not_what_is_parsed(
    saved: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str
) -> None:
    """The members file is replaced (by the cards file) the moment its hash is taken: what is
    parsed is the bytes the hash was checked on, not the file opened again."""
    folder = _copy(saved, form, tmp_path)
    members = folder / f"members.{form}"
    expected = read_snapshot(folder).members
    checked = hashlib.sha256(members.read_bytes()).hexdigest()
    swapped = (folder / f"cards.{form}").read_bytes()
    sha256 = hashlib.sha256

    class SwappedOnceChecked:
        """``hashlib.sha256``, swapping the members file once its digest is taken."""

        def __init__(self, data: bytes = b"") -> None:
            self._digest = sha256(data)

        def update(self, data: bytes) -> None:
            self._digest.update(data)

        def hexdigest(self) -> str:
            digest = self._digest.hexdigest()
            if digest == checked:
                members.write_bytes(swapped)
            return digest

    monkeypatch.setattr(hashlib, "sha256", SwappedOnceChecked)
    again = read_snapshot(folder).members
    assert members.read_bytes() == swapped  # the swap happened, after the check
    pd.testing.assert_frame_equal(again, expected)


# -- checkpoint folders ----------------------------------------------------------------------


def _edit_manifest(**values: object) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        path = folder / "checkpoint.json"
        manifest = json.loads(path.read_text(encoding="utf-8"))
        manifest.update(values)
        path.write_text(json.dumps(manifest), encoding="utf-8")

    return edit


def _device(name: str) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        (folder / name).unlink(missing_ok=True)
        (folder / name).symlink_to("/dev/zero")

    return edit


def _folder_for(name: str) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        (folder / name).unlink()
        (folder / name).mkdir()

    return edit


def _parts_a_file(folder: Path) -> None:
    shutil.rmtree(folder / PARTS)
    (folder / PARTS).write_text("not a folder", encoding="utf-8")


def _a_corrupt_part(folder: Path) -> None:
    (folder / PARTS / "part-00001.parquet").write_bytes(b"PAR1 not a part")


def _a_part_naming_windows_in_words(folder: Path) -> None:
    """The part ``_checkpoint`` wrote, with a ``window`` column of text."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / PARTS / "part-00001.parquet"
    table = pq.read_table(path)
    words = pa.array(["next hour"] * table.num_rows, pa.string())
    pq.write_table(table.append_column("window", words), path)


def _a_journal_line_of_nothing(folder: Path) -> None:
    with (folder / JOURNAL).open("r+b") as journal:  # sparse: no disk is used
        journal.truncate(journal.seek(0, os.SEEK_END) + 300 * 2**20)


CHECKPOINTS: dict[str, tuple[Callable[[Path], None], str]] = {
    "manifest /dev/zero": (_device("checkpoint.json"), "checkpoint.json: is a pipe or a device"),
    "manifest nested too deeply": (
        lambda folder: _deep(folder / "checkpoint.json"),
        "checkpoint.json: not a checkpoint manifest: nested too deeply",
    ),
    "runs as text": (_edit_manifest(runs="two"), "checkpoint.json: runs: must be a whole number"),
    "runs a list": (_edit_manifest(runs=[]), "checkpoint.json: runs: must be a whole number"),
    "pull a list": (_edit_manifest(pull=[]), "checkpoint.json: pull: must be an object"),
    "pulled_at in words": (
        _edit_manifest(pulled_at="yesterday"),
        "checkpoint.json: pulled_at: must be an ISO 8601 instant",
    ),
    "window a list": (_edit_manifest(window=[]), "checkpoint.json: window: must be an object"),
    "window sent in words": (
        _edit_manifest(window={"ends": 1768482000, "sent": "sixty"}),
        "checkpoint.json: window: sent must be a whole number from 0",
    ),
    "window ends never": (
        _edit_manifest(window={"ends": None, "sent": 60}),
        "checkpoint.json: window: ends must be a finite number (Unix seconds)",
    ),
    "manifest removed": (
        lambda folder: (folder / "checkpoint.json").unlink(),
        "holds answers but no checkpoint.json",
    ),
    "journal /dev/zero": (_device(JOURNAL), f"{JOURNAL}: is a pipe or a device"),
    "journal a folder": (_folder_for(JOURNAL), f"{JOURNAL}: is a folder, not a checkpoint journal"),
    "journal line of 300 MiB": (_a_journal_line_of_nothing, "is over 256 MiB"),
    "parts a file": (_parts_a_file, f"{PARTS}: is not a folder"),
    "a corrupt part": (_a_corrupt_part, "part-00001.parquet: not a part this toolkit wrote"),
    "a part's windows in words": (
        _a_part_naming_windows_in_words,
        "part-00001.parquet: column window is not double",
    ),
    "lock /dev/zero": (_device("pull.lock"), "pull.lock is not a regular file"),
}


def _checkpoint(saved: Path, tmp_path: Path) -> Path:
    """A copy of the saved checkpoint with a part (the journal's first answers written out)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path / "checkpoint"
    shutil.copytree(saved / "checkpoint", folder)
    lines = (folder / JOURNAL).read_text(encoding="utf-8").splitlines()
    entries = [json.loads(line) for line in lines[:5]]
    table = pa.table(
        {
            "key": pa.array([e["key"] for e in entries], pa.string()),
            "at": pa.array([e["at"] for e in entries], pa.float64()),
            "run": pa.array([e["run"] for e in entries], pa.int32()),
            "body": pa.array([e["body"].encode() for e in entries], pa.binary()),
        }
    )
    pq.write_table(table, folder / PARTS / "part-00001.parquet")
    (folder / JOURNAL).write_text("\n".join(lines[5:]) + "\n", encoding="utf-8")
    return folder


def test_a_checkpoint_with_a_part_resumes_sending_nothing(
    sb: Sandbox, saved: Path, tmp_path: Path
) -> None:
    """What the refusals below edit resumes as it is, from the part and the journal."""
    folder = _checkpoint(saved, tmp_path)
    with client_for(sb) as client:
        again = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        assert client.quota.calls_used == 0
    assert len(again.members) == 30


@pytest.mark.parametrize("case", CHECKPOINTS)
def test_a_checkpoint_no_pull_made_is_refused_naming_the_file_before_any_call(
    sb: Sandbox, saved: Path, tmp_path: Path, case: str
) -> None:
    folder = _checkpoint(saved, tmp_path)
    edit, reason = CHECKPOINTS[case]
    edit(folder)
    used = sb.plan()["used"]
    with client_for(sb) as client, pytest.raises(LytError) as caught:
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert isinstance(caught.value, CheckpointError | LockFileError)
    message = str(caught.value)
    assert str(folder) in message and reason in message, message
    assert "\n" not in message
    assert sb.plan()["used"] == used


def test_a_pipe_for_a_checkpoint_s_manifest_is_refused_without_waiting_on_it(
    sb: Sandbox, saved: Path, tmp_path: Path
) -> None:
    folder = _checkpoint(saved, tmp_path)
    manifest = folder / "checkpoint.json"
    content = manifest.read_bytes()
    manifest.unlink()
    used = sb.plan()["used"]
    with (
        _fed(manifest, content),
        client_for(sb) as client,
        pytest.raises(CheckpointError, match=r"checkpoint\.json: is a pipe or a device"),
    ):
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert sb.plan()["used"] == used


def test_a_journal_line_of_an_answer_at_no_time_is_read_again_not_a_crash(
    sb: Sandbox, saved: Path, tmp_path: Path
) -> None:
    folder = _checkpoint(saved, tmp_path)
    lines = (folder / JOURNAL).read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[-1])
    lines[-1] = lines[-1].replace(f'"at":{json.dumps(entry["at"])}', '"at":1e999')
    (folder / JOURNAL).write_text("\n".join(lines) + "\n", encoding="utf-8")
    with client_for(sb) as client:
        again = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        sent = client.quota.calls_used
    assert sent <= 2  # the token, and that answer read again
    assert len(again.members) == 30 and len(again.cards) == 30


CHECKPOINT_PULLS: dict[str, tuple[dict[str, object], list[str]]] = {
    "a token for a key and a value": (
        {f"Bearer {FOREIGN}": f"Bearer {FOREIGN}"},
        ["'Bearer ***': 'Bearer ***' there, None now"],
    ),
    "a long key and value": ({"k" * 5000: "v" * 5000}, ["'kkk", "'vvv", "... there, None now"]),
    "a hundred keys": (
        {f"extra_{n:03d}": n for n in range(100)},
        ["extra_004': 4 there, None now; and 95 more"],
    ),
}


@pytest.mark.parametrize("case", CHECKPOINT_PULLS)
def test_a_checkpoint_s_pull_is_quoted_short_and_a_token_in_it_masked(
    sb: Sandbox, saved: Path, tmp_path: Path, case: str
) -> None:
    """What a checkpoint's manifest records of its pull, quoted where it differs from this
    pull: each key and value cut short, any bearer token in them masked whole, the first
    five keys named and the rest counted."""
    folder = _checkpoint(saved, tmp_path)
    path = folder / "checkpoint.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    added, quoted = CHECKPOINT_PULLS[case]
    manifest["pull"].update(added)
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with client_for(sb) as client, pytest.raises(CheckpointError) as caught:
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    message = str(caught.value)
    assert message.startswith(f"checkpoint: {folder} holds another pull ("), message
    said = message.removeprefix(f"checkpoint: {folder} ")
    assert len(said) < 1000 and "\n" not in said and FOREIGN[:8] not in said, said
    assert all(part in said for part in quoted), said
