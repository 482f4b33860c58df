"""Paced, resumable pulls over real HTTP (issue 34, item 1): a checkpointed pull keeps to its
share of every budget window and waits across resets; what it reads is kept in its folder
as it arrives, so a pull killed with SIGKILL is resumed by the same call, reading nothing
again that the folder holds; one writer per folder; the result equals an unpaced pull."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fixture_types import ClientOf, LytProcess, StartSandbox
from interrupting import ctrl_c_while_refused, held, holder, stderr_until, until_counted

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit._services import forget_local
from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.client.recording import Asked
from lyt_toolkit.fill import checkpoint
from lyt_toolkit.fill.answers import JOURNAL
from lyt_toolkit.fill.checkpoint import CheckpointError
from lyt_toolkit.frames.registry import FRAME_NAMES
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import SandboxConfig, held_program
from lyt_toolkit.sandbox.server import free_port
from lyt_toolkit.snapshot.defaults import DEFAULT_CONCURRENCY
from lyt_toolkit.synthetic import generate_program

from .helpers import client_for

PROGRAM = generate_program(
    members=160, rewards=150, benefits=30, card_definitions=3, tier_structures=2, seed=5
)
"""About 200 calls to pull: two pages of rewards, then mostly members read one by one."""


@pytest.fixture(scope="module")
def program(start_sandbox: StartSandbox) -> Iterator[Sandbox]:
    with start_sandbox(PROGRAM) as sb:
        yield sb


@pytest.fixture(scope="module")
def unpaced(program: Sandbox) -> ProgramSnapshot:
    """The program pulled in one burst, and the calls that took."""
    program.set_plan("unlimited")
    with client_for(program) as client:
        return ProgramSnapshot.pull(client, progress=False, budget_share=1.0)


def _same(a: ProgramSnapshot, b: ProgramSnapshot) -> None:
    for name, frame in a.frames().items():
        pd.testing.assert_frame_equal(frame, b.frames()[name], obj=name)


def test_a_checkpointed_pull_equals_an_unpaced_one_and_its_next_run_sends_nothing(
    program: Sandbox, unpaced: ProgramSnapshot, tmp_path: Path
) -> None:
    folder = tmp_path / "checkpoint"
    with client_for(program) as client:
        first = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert first.calls is not None and unpaced.calls is not None
    assert first.calls.used == unpaced.calls.used  # no call beyond the unpaced pull's
    _same(unpaced, first)
    assert first.pulled_at == unpaced.pulled_at
    assert set(first.read_times) == set(first.kinds)
    for start, end in first.read_times.values():
        assert start <= end
    with client_for(program) as client:
        again = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        assert client.quota.calls_used == 0
    assert again.calls is not None and again.calls.recalled == unpaced.calls.used - 1
    _same(unpaced, again)
    assert again.pulled_at == first.pulled_at and again.read_times == first.read_times


def test_a_checkpoint_holds_one_pull(
    program: Sandbox, unpaced: ProgramSnapshot, tmp_path: Path
) -> None:
    folder = tmp_path / "checkpoint"
    with client_for(program) as client:
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder, kinds=["rewards"])
        with pytest.raises(
            CheckpointError, match=r"holds another pull \(kinds: \['rewards'\] there"
        ):
            ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    (tmp_path / "file").write_text("not a folder")
    with client_for(program) as client, pytest.raises(CheckpointError, match="cannot be made"):
        ProgramSnapshot.pull(client, progress=False, checkpoint=tmp_path / "file")


@pytest.mark.waits
def test_a_paced_pull_keeps_to_its_share_of_every_window_and_waits_across_resets(
    start_sandbox: StartSandbox, tmp_path: Path
) -> None:
    small = generate_program(
        members=40, rewards=30, benefits=5, card_definitions=2, tier_structures=1, seed=2
    )
    del small["now"]  # a running clock: windows end
    with start_sandbox(small, now=None) as sb:
        with client_for(sb) as client:
            whole = ProgramSnapshot.pull(client, progress=False, budget_share=1.0)
        assert whole.calls is not None
        needed = whole.calls.used  # about 50 calls
        sb.set_plan("60/minute")
        moment = pd.Timestamp(sb.set_clock(time.strftime("%Y-%m-%dT%H:%M:57Z", time.gmtime())))
        assert moment.second == 57  # the window resets in about 3 s
        with client_for(sb) as client:
            paced = ProgramSnapshot.pull(
                client, progress=False, budget_share=0.5, checkpoint=tmp_path / "checkpoint"
            )
        window = sb.plan()
    assert paced.calls is not None
    windows = paced.calls.windows
    assert len(windows) >= 2 and sum(windows) == paced.calls.used == needed
    assert max(windows) <= 30  # half of each 60-call window
    # The pull's windows are the minutes from ``moment`` on; the clock may have passed into a
    # later one, with no call yet, before the plan was read.
    last_window_ends = moment.floor("min") + pd.Timedelta(minutes=len(windows))
    if pd.Timestamp(window["resets_at"]) == last_window_ends:
        assert window["used"] == windows[-1]  # the service counted it as the pull did
    else:
        assert pd.Timestamp(window["resets_at"]) > last_window_ends and window["used"] == 0
    _same(whole, paced)


def _answers(folder: Path) -> int:
    journal = folder / "journal.jsonl"
    return len(journal.read_bytes().splitlines()) if journal.exists() else 0


@pytest.mark.parametrize(
    "stop",
    [signal.SIGKILL, signal.SIGINT, signal.SIGTERM],
    ids=["kill-9", "ctrl-c", "sigterm-in-the-background"],
)
def test_a_pull_stopped_mid_way_resumes_reading_nothing_it_had_stored(
    program: Sandbox,
    unpaced: ProgramSnapshot,
    tmp_path: Path,
    stop: signal.Signals,
    lyt_process: LytProcess,
    configure_lyt: Callable[[Sandbox], None],
    capsys: pytest.CaptureFixture[str],
) -> None:
    from lyt_toolkit.cli import main

    folder = tmp_path / "checkpoint"
    program.set_plan("1000000/hour")
    used_before = program.plan()["used"]
    program.set_faults(delay_seconds=0.05)
    try:
        first = lyt_process(
            program,
            tmp_path,
            "export",
            "--out",
            "a",
            "--checkpoint",
            str(folder),
            "--budget-share",
            "1",
            # A background job (``nohup lyt export ... &``): Ctrl-C ignored, SIGTERM stops it.
            background=stop == signal.SIGTERM,
        )
        deadline = time.monotonic() + 120
        while _answers(folder) < 60:  # the lists walked, members being read
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        first.send_signal(stop)
        _, stopped = first.communicate(timeout=60)
        if stop == signal.SIGKILL:
            assert first.returncode == -signal.SIGKILL
        else:  # SIGTERM as a Ctrl-C: 128 + the signal
            assert first.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[stop]
            assert (
                stopped == f"lyt export: interrupted; what it read is kept in {folder}: "
                "run the same command to go on\n"
            )
        stored = _answers(folder)
        program.set_faults(delay_seconds=0.3)  # the second run is seen holding the folder
        second = lyt_process(
            program,
            tmp_path,
            "export",
            "--out",
            "b",
            "--checkpoint",
            str(folder),
            "--budget-share",
            "1",
        )
        holder(folder / "pull.lock", [second])
        # Paused, it holds the folder however long the third takes (slow answers alone let
        # it end first on a loaded machine). The third runs here: its refusal is the lock's,
        # held by another process, not anything of a process of its own.
        second.send_signal(signal.SIGSTOP)
        try:
            configure_lyt(program)
            capsys.readouterr()
            code = main(
                ["export", "--out", "c", "--checkpoint", str(folder), "--budget-share", "1"]
            )
            refused = capsys.readouterr().err
            assert second.poll() is None  # it still held the folder when the third was refused
        finally:
            second.send_signal(signal.SIGCONT)
        program.clear_faults()
        out, err = second.communicate(timeout=300)
    finally:
        program.clear_faults()
    assert code == 1 and "by another process" in refused and "Traceback" not in refused
    assert second.returncode == 0, err
    assert "answers from the checkpoint" in out
    used = program.plan()["used"] - used_before
    assert unpaced.calls is not None
    repeated = used - unpaced.calls.used
    # Nothing stored is read again: beyond the unpaced pull's calls, only the reads in
    # flight at the stop (at most the pull's concurrency, 8) and the second run's token.
    assert 0 <= repeated <= 8 + 1, (used, unpaced.calls.used, stored)
    print(f"calls repeated after the kill: {repeated} ({stored} answers stored)")
    from lyt_toolkit.snapshot import read_snapshot

    resumed = read_snapshot(tmp_path / "b")
    assert "Read from 2026-01-15 12:00:00 to 2026-01-15 12:00:00 UTC" in out  # a fixed clock
    assert set(resumed.read_times) == set(FRAME_NAMES)
    expected = read_snapshot_of(unpaced, tmp_path / "expected")
    _same(expected, resumed)
    manifest = json.loads((folder / "checkpoint.json").read_text())
    assert manifest["runs"] == 2 and manifest["complete"] is True  # the refused run is not one


def test_a_background_sigterm_as_the_reads_go_to_the_threads_stops_them_and_repeats_none(
    program: Sandbox,
    unpaced: ProgramSnapshot,
    tmp_path: Path,
    configure_lyt: Callable[[Sandbox], None],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A background job's SIGTERM (Ctrl-C ignored) that comes while the pull's loop runs its
    own code, not an await: here just as the member reads are handed to the worker threads
    (``ThreadedClient.each``), a real signal raised there. The pull stops as at a Ctrl-C: the
    threads take no more reads, so the next run reads again only those in flight."""
    from lyt_toolkit.cli import main

    folder = tmp_path / "checkpoint"
    program.set_plan("1000000/hour")
    used_before = program.plan()["used"]
    configure_lyt(program)
    handing = asyncio.BaseEventLoop.run_in_executor
    raised: list[str] = []

    def handed(self: asyncio.BaseEventLoop, executor: Any, func: Any, *args: Any) -> Any:
        future = handing(self, executor, func, *args)
        names = [getattr(arg, "__qualname__", "") for arg in args]
        if not raised and "_each.<locals>.work" in names:  # a level's first thread set going
            assert callable(signal.getsignal(signal.SIGTERM))  # lyt's handler: it does not kill
            raised.append("SIGTERM")
            signal.raise_signal(signal.SIGTERM)  # its handler runs here, at once
        return future

    monkeypatch.setattr(asyncio.BaseEventLoop, "run_in_executor", handed)
    ctrl_c = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as a shell starts a background job
    capsys.readouterr()
    try:
        first = main(["export", "--out", "a", "--checkpoint", str(folder), "--budget-share", "1"])
    except KeyboardInterrupt:
        pytest.fail("the SIGTERM's KeyboardInterrupt escaped main")
    finally:
        signal.signal(signal.SIGINT, ctrl_c)
    monkeypatch.undo()
    stopped = capsys.readouterr().err
    assert raised and first == 143, stopped
    assert stopped == (
        f"lyt export: interrupted; what it read is kept in {folder}: run the same command to"
        " go on\n"
    )
    configure_lyt(program)
    assert main(["export", "--out", "b", "--checkpoint", str(folder), "--budget-share", "1"]) == 0
    used = program.plan()["used"] - used_before
    assert unpaced.calls is not None
    repeated = used - unpaced.calls.used
    # Beyond the unpaced pull's calls, only the reads in flight at the stop (at most the
    # pull's concurrency) and the second run's token.
    assert 0 <= repeated <= DEFAULT_CONCURRENCY + 1, (used, unpaced.calls.used)
    from lyt_toolkit.snapshot import read_snapshot

    _same(read_snapshot_of(unpaced, tmp_path / "expected"), read_snapshot(tmp_path / "b"))


def read_snapshot_of(snapshot: ProgramSnapshot, folder: Path) -> ProgramSnapshot:
    from lyt_toolkit.snapshot import read_snapshot

    snapshot.to_csv(folder)
    return read_snapshot(folder)


MEMBERS = "members"


def _tied_program() -> dict[str, object]:
    """1,000 members in one program whose ``created_at`` come in groups of 30 sharing one
    instant, so that pages of 100 end inside a group: a walk read on by ``created_at`` must
    drop the group's members already stored and keep the others. Its tests pull only the
    ``members`` list (``MEMBERS``), the walk they are about: reading each member's cards
    would add a call per member and nothing to what they check."""
    tied = generate_program(
        members=1000,
        programs=1,
        rewards=20,
        benefits=5,
        card_definitions=2,
        tier_structures=1,
        seed=9,
    )
    for i, member in enumerate(tied["members"]):
        member["created_at"] = f"now-{1000 + (i // 30) * 1000}s"
    return tied


@pytest.fixture(scope="module")
def tied(start_sandbox: StartSandbox) -> Iterator[tuple[Sandbox, ProgramSnapshot]]:
    with start_sandbox(_tied_program()) as sb, client_for(sb) as client:
        yield sb, ProgramSnapshot.pull(client, progress=False, budget_share=1.0, kinds=MEMBERS)


def test_pages_read_on_by_created_at_give_each_member_once_in_the_walks_order(
    tied: tuple[Sandbox, ProgramSnapshot], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sb, whole = tied
    monkeypatch.setattr(checkpoint, "CURSOR_FRESH", -1.0)  # no cursor is taken as fresh
    read_on: list[str] = []
    by_created = checkpoint.Checkpoint._by_created

    def spied(self: checkpoint.Checkpoint, asked: Asked, origin: str) -> object:
        instead = by_created(self, asked, origin)
        if instead is not None:
            read_on.append(dict(instead[0].params)["filters[created_at][conditions][$before]"])
        return instead

    monkeypatch.setattr(checkpoint.Checkpoint, "_by_created", spied)
    with client_for(sb) as client:
        paced = ProgramSnapshot.pull(
            client, progress=False, checkpoint=tmp_path / "c", kinds=MEMBERS
        )
    lines = (tmp_path / "c" / JOURNAL).read_text().splitlines()
    keys = [json.loads(line)["key"] for line in lines]
    walked = [k for k in keys if "/members?" in k and "cursor=" in k]
    # every page read with a cursor is read on by created_at: the members list is walked in
    # created_at windows (pull.windows), 800 of its 1,000 members past the first page and
    # the probe, so at least 7 pages follow a window's first one
    assert len(read_on) == len(walked) >= 7
    assert paced.calls is not None and whole.calls is not None
    # Each page read on by created_at starts with the members of its instant already stored
    # (dropped), so the walk's pages shift: at most one page more than the cursor walk.
    assert whole.calls.used <= paced.calls.used <= whole.calls.used + 1
    _same(whole, paced)


def test_a_list_walk_cut_off_is_read_on_by_created_at_in_the_next_run(
    tied: tuple[Sandbox, ProgramSnapshot], tmp_path: Path
) -> None:
    sb, whole = tied
    folder = tmp_path / "c"

    def cut(done: int, total: int) -> None:  # a failure half-way down the members list
        if done >= 550:
            raise RuntimeError("cut off")

    with client_for(sb) as client, pytest.raises(RuntimeError, match="cut off"):
        ProgramSnapshot.pull(client, progress=cut, checkpoint=folder, concurrency=1, kinds=MEMBERS)
    stored = _answers(folder)
    with client_for(sb) as client:
        resumed = ProgramSnapshot.pull(client, progress=False, checkpoint=folder, kinds=MEMBERS)
        sent = client.quota.calls_used
    assert whole.calls is not None and resumed.calls is not None
    assert resumed.calls.recalled == stored
    assert stored + sent <= whole.calls.used + 1  # each page once (and this run's token)
    _same(whole, resumed)


def test_the_embedded_sandbox_resumes_its_checkpoint_whatever_its_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lyt_toolkit.cli import main

    folder = tmp_path / "checkpoint"
    assert (
        main(["export", "--sandbox", "--checkpoint", str(folder), "--out", str(tmp_path / "a")])
        == 0
    )
    first = capsys.readouterr().out
    assert (
        main(["export", "--sandbox", "--checkpoint", str(folder), "--out", str(tmp_path / "b")])
        == 0
    )
    second = capsys.readouterr().out
    assert "answers from the checkpoint" not in first
    assert "answers from the checkpoint" in second  # a new port, the same source
    source = json.loads((folder / "checkpoint.json").read_text())["pull"]["source"]
    assert source == "sandbox of the embedded demo program (--sandbox), seed 7"


def test_a_checkpoint_of_one_sandbox_is_refused_on_another_holding_another_program(
    start_sandbox: StartSandbox, tmp_path: Path
) -> None:
    """Two sandboxes on this machine are two services, whatever their ports: another
    program's checkpoint is never answered from (it would be labelled as this one's)."""
    folder = tmp_path / "checkpoint"
    small, other = (
        generate_program(
            members=5, rewards=3, benefits=2, card_definitions=2, tier_structures=1, seed=seed
        )
        for seed in (3, 4)
    )
    port = free_port()

    def served(program: dict[str, Any], at: int = port) -> Sandbox:
        return Sandbox.start(program, port=at, now="2026-01-15T12:00:00Z", seed=7)

    def refused(sb: Sandbox, base_url: str) -> None:
        with (
            LoyaltyClient(
                base_url=base_url, env_file=None, **sb.credentials.as_client_kwargs()
            ) as client,
            pytest.raises(CheckpointError, match="holds another pull"),
        ):
            ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        assert client.quota.calls_used == 0

    with served(small) as first, client_for(first) as client:
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        with served(small, free_port()) as twin:  # the same program, serving beside it
            refused(twin, twin.base_url)
    with served(other) as second:  # another program on the same port, however spelled
        refused(second, second.base_url)
        refused(second, second.base_url.replace("127.0.0.1", "localhost"))
    with served(small) as again, client_for(again) as client:  # the same one, back again
        resumed = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert resumed.calls is not None and resumed.calls.recalled > 0


def test_sandboxes_served_elsewhere_on_this_machine_are_told_apart_by_port() -> None:
    from lyt_toolkit._services import service_identity

    assert service_identity("http://127.0.0.1:8101/") == "http://127.0.0.1:8101"
    assert service_identity("http://127.0.0.1:8102") != service_identity("http://127.0.0.1:8101")
    assert service_identity("http://[::1]:8101") == "http://[::1]:8101"


def _served_elsewhere(program: dict[str, Any], port: int, db: str | None = None) -> Sandbox:
    """A sandbox on ``port`` (over the database file ``db``, if given) that this process does
    not name, as one ``lyt sandbox serve`` serves: known by its address and what its answers
    say it holds."""
    sb = Sandbox.start(program, port=port, db=db, now="2026-01-15T12:00:00Z", seed=7)
    forget_local(sb.base_url)
    return sb


def _small(seed: int) -> dict[str, Any]:
    return generate_program(
        members=5, rewards=3, benefits=2, card_definitions=2, tier_structures=1, seed=seed
    )


def test_another_program_served_elsewhere_on_the_same_port_does_not_take_the_checkpoint(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "checkpoint"
    small, other = _small(3), _small(4)
    port = free_port()
    holds_small, holds_other = (
        held_program(SandboxConfig(data=p, now="2026-01-15T12:00:00Z", seed=7))
        for p in (small, other)
    )
    with _served_elsewhere(small, port) as first, client_for(first) as client:
        whole = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    pull = json.loads((folder / "checkpoint.json").read_text())["pull"]
    assert (pull["source"], pull["holds"]) == (f"http://127.0.0.1:{port}", holds_small)
    with _served_elsewhere(other, port) as second, client_for(second) as client:
        with pytest.raises(CheckpointError, match="holds another pull") as refused:
            ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        assert client.quota.calls_used == 1  # the token, whose answer says what it holds
        assert client.holds_token  # now the new token a pull starts with tells
        with pytest.raises(CheckpointError, match="holds another pull"):
            ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        assert client.quota.calls_used == 2
    assert f"holds: {holds_small!r} there, {holds_other!r} now" in str(refused.value)
    with _served_elsewhere(small, port) as again, client_for(again) as client:
        resumed = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
        assert client.quota.calls_used == 1  # the token; every answer from the folder
    assert resumed.calls is not None and whole.calls is not None
    assert resumed.calls.recalled == whole.calls.used - 1
    _same(whole, resumed)


def _served_here(program: dict[str, Any], port: int) -> Sandbox:
    """A sandbox on ``port`` that this process serves (a notebook's ``Sandbox.start``)."""
    return Sandbox.start(program, port=port, now="2026-01-15T12:00:00Z", seed=7)


@pytest.mark.parametrize("written_here", [True, False], ids=["written-here", "written-elsewhere"])
def test_a_sandbox_s_checkpoint_is_the_same_in_the_process_serving_it_and_any_other(
    tmp_path: Path, written_here: bool
) -> None:
    """A folder written by a pull in the process serving the sandbox resumes in another
    process against it, and the other way round (the address however spelled); another
    program on the same port is refused either way, before any read."""
    folder, port = tmp_path / "checkpoint", free_port()
    writer, reader = (_served_here, _served_elsewhere)[:: 1 if written_here else -1]
    heard = 1 if written_here else 0  # a token: what a sandbox served elsewhere holds
    with writer(_small(3), port) as first, client_for(first) as client:
        whole = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    with (
        reader(_small(4), port) as other,
        client_for(other) as client,
        pytest.raises(CheckpointError, match="holds another pull") as refused,
    ):
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert "' now: its program differs" in str(refused.value)
    assert client.quota.calls_used == heard
    with reader(_small(3), port) as again:
        spelled = again.base_url.replace("127.0.0.1", "localhost")
        kwargs = again.credentials.as_client_kwargs()
        with LoyaltyClient(base_url=spelled, env_file=None, **kwargs) as client:
            resumed = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
            assert client.quota.calls_used == heard  # every answer from the folder
    assert resumed.calls is not None and whole.calls is not None
    assert resumed.calls.recalled == whole.calls.used - 1
    _same(whole, resumed)


@pytest.mark.parametrize("here", [True, False], ids=["resumed-here", "resumed-elsewhere"])
def test_a_folder_naming_the_sandbox_as_its_serving_process_once_did_is_its_own(
    tmp_path: Path, here: bool
) -> None:
    """A folder the process serving the sandbox wrote before it named the sandbox's address
    (``HOLDS, on port PORT``) resumes against that sandbox in either process, and refuses
    another program on that port."""
    folder, port = tmp_path / "checkpoint", free_port()
    served = _served_here if here else _served_elsewhere
    with _served_here(_small(3), port) as first, client_for(first) as client:
        whole = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    manifest = json.loads((folder / "checkpoint.json").read_text())
    holds = manifest["pull"].pop("holds")
    manifest["pull"]["source"] = f"{holds}, on port {port}"
    (folder / "checkpoint.json").write_text(json.dumps(manifest))
    with (
        served(_small(4), port) as other,
        client_for(other) as client,
        pytest.raises(CheckpointError, match="its program differs"),
    ):
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    with served(_small(3), port) as again, client_for(again) as client:
        resumed = ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert resumed.calls is not None and whole.calls is not None
    assert resumed.calls.recalled == whole.calls.used - 1
    _same(whole, resumed)


def test_another_database_served_elsewhere_is_refused_by_its_digest_never_its_path(
    tmp_path: Path,
) -> None:
    """The same program, seed and clock over another database file on the same port: the
    folder is refused, saying the database differs; neither path is in the folder or the
    error."""
    folder, port = tmp_path / "checkpoint", free_port()
    with (
        _served_elsewhere(_small(3), port, db=str(tmp_path / "first.sqlite")) as first,
        client_for(first) as client,
    ):
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert "first.sqlite" not in (folder / "checkpoint.json").read_text()
    with (
        _served_elsewhere(_small(3), port, db=str(tmp_path / "second.sqlite")) as second,
        client_for(second) as client,
        pytest.raises(CheckpointError, match="holds another pull") as refused,
    ):
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    message = str(refused.value)
    assert ", seed 7, clock 2026-01-15T12:00:00.000Z, database " in message
    assert "' now: its database differs (a sandbox names its database by a digest of" in message
    assert "first.sqlite" not in message and "second.sqlite" not in message


def test_a_folder_that_names_the_database_by_its_path_is_another_holder_s(
    tmp_path: Path,
) -> None:
    """A folder written while the header still named the database by its path (a build
    before it named a digest of it) is refused, naming both, never resumed as this one's."""
    folder, port, db = tmp_path / "checkpoint", free_port(), str(tmp_path / "program.sqlite")
    with _served_elsewhere(_small(3), port, db=db) as first, client_for(first) as client:
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    manifest = json.loads((folder / "checkpoint.json").read_text())
    digest_named = manifest["pull"]["holds"]
    path_named = f"{digest_named.rsplit(' ', 1)[0]} {db}"  # "..., database /its/path"
    manifest["pull"]["holds"] = path_named
    (folder / "checkpoint.json").write_text(json.dumps(manifest))
    with (
        _served_elsewhere(_small(3), port, db=db) as again,
        client_for(again) as client,
        pytest.raises(CheckpointError, match="holds another pull") as refused,
    ):
        ProgramSnapshot.pull(client, progress=False, checkpoint=folder)
    assert f"holds: {path_named!r} there, {digest_named!r} now: its database differs" in str(
        refused.value
    )


def test_a_service_that_never_says_what_it_holds_is_its_address_at_no_call_more(
    tmp_path: Path, hearing_no_holds: ClientOf
) -> None:
    """The service itself sends no ``Lyt-Sandbox-Holds``: its checkpoint is named by its
    address as before, and its pulls cost what they did."""
    folder = tmp_path / "checkpoint"
    with _served_elsewhere(_small(3), free_port()) as sb:

        def pulled(**options: Any) -> tuple[ProgramSnapshot, int]:
            with hearing_no_holds(sb) as client:
                snapshot = ProgramSnapshot.pull(client, progress=False, **options)
                assert client._service_holds is None
                return snapshot, client.quota.calls_used

        whole, calls = pulled(budget_share=1.0)
        first, first_calls = pulled(checkpoint=folder)
        again, again_calls = pulled(checkpoint=folder)
    assert first_calls == calls and again_calls == 0  # not one call more
    _same(whole, first)
    assert json.loads((folder / "checkpoint.json").read_text())["pull"] == {
        "source": sb.base_url,
        "kinds": sorted(FRAME_NAMES),
        "sample": None,
    }
    _same(whole, again)


def test_a_history_keeps_when_each_kind_was_read(tmp_path: Path) -> None:
    from lyt_toolkit.snapshot import SnapshotHistory

    start = pd.Timestamp("2026-01-15T12:00:00Z")
    span = (start, start + pd.Timedelta(hours=5))
    snapshot = ProgramSnapshot.from_frames(
        {"rewards": ProgramSnapshot.from_frames({}).rewards},
        pulled_at=start,
        read_times={"rewards": span},
    )
    history = SnapshotHistory(tmp_path / "history")
    assert history.load(history.append(snapshot)).read_times == {"rewards": span}


def test_ctrl_c_while_a_paced_pull_waits_for_its_next_window_stops_it_at_once(
    program: Sandbox, tmp_path: Path, lyt_process: LytProcess
) -> None:
    # The fixed clock never ends the window: it would wait. (Not 100/hour: that names the
    # free plan, whose 500-call billing cycle refuses this paced pull before it starts.)
    program.set_plan("120/hour")
    folder = tmp_path / "checkpoint"
    try:
        export = lyt_process(
            program, tmp_path, "export", "--out", "a", "--checkpoint", str(folder), progress="auto"
        )
        said = stderr_until(export, "waiting for the next window")  # its share let start
        until_counted(program, 60, lambda: export.poll() is None)  # half the window, spent
        export.send_signal(signal.SIGINT)
        _, err = export.communicate(timeout=20)
        err = said + err
        used = program.plan()["used"]
    finally:
        program.set_plan("1000000/hour")
    assert export.returncode == 130 and "interrupted; what it read is kept in" in err
    assert "Traceback" not in err
    assert used == 60  # nothing sent after its share, nor on the way out


RETRY_AFTER = 25
"""Seconds the service asks the reads to wait, as when other traffic has spent the window
under a pull: within the client's ``max_wait`` and timeout, so each read's worker thread
waits it out in one sleep, ending when the reset comes."""


READS_AT_ONCE = DEFAULT_CONCURRENCY
"""The reads a pull has under way at once: its concurrency, each in a thread of the pull's
own pool (``pull.threaded``), which has as many threads at least."""


READ_BEFORE_HELD = 30
"""The calls a pull sends before the rest are held (``held``): its lists walked, members
being read, READS_AT_ONCE at a time."""


def _interrupted_while_reads_wait(
    program: Sandbox, start: Callable[[], subprocess.Popen[str]], folder: Path
) -> tuple[subprocess.Popen[str], str, str, int]:
    """The pull ``start()`` starts, its output once a Ctrl-C stopped it while its reads
    waited out a 429, and the calls it sent after the Ctrl-C (``ctrl_c_while_refused``):
    its calls past the first ``READ_BEFORE_HELD`` held until every read under way is, so
    the 429s come while they surely are."""
    with held(program, after=READ_BEFORE_HELD) as gate:
        pull = start()
        gate.until_held(lambda: READS_AT_ONCE, pull)
        kept = _answers(folder)
        out, err, sent = ctrl_c_while_refused(
            program, pull, RETRY_AFTER, lambda: READS_AT_ONCE, gate
        )
    assert _answers(folder) >= kept > 0  # every answer it had kept is still there
    return pull, out, err, sent


def test_ctrl_c_while_a_paced_pull_s_reads_wait_out_a_429_stops_them_at_once(
    program: Sandbox, tmp_path: Path, lyt_process: LytProcess
) -> None:
    program.set_plan("1000000/hour")
    folder = tmp_path / "checkpoint"
    export, _, err, sent = _interrupted_while_reads_wait(
        program,
        lambda: lyt_process(program, tmp_path, "export", "--out", "a", "--checkpoint", str(folder)),
        folder,
    )
    assert export.returncode == 130
    assert err == (
        f"lyt export: interrupted; what it read is kept in {folder}: "
        "run the same command to go on\n"
    )
    assert sent == 0  # nothing sent after the interrupt, nor on the way out


IN_A_NOTEBOOK = """
import asyncio, json, sys
from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.client import LoyaltyClient

async def cell() -> None:  # a notebook's: its kernel's loop runs, a Ctrl-C raises in the cell
    with LoyaltyClient(env_file=None, **json.loads(sys.argv[2])) as client:
        ProgramSnapshot.pull(client, checkpoint=sys.argv[1], progress=False)

try:
    asyncio.new_event_loop().run_until_complete(cell())
except KeyboardInterrupt:
    print("interrupted")
"""


def test_ctrl_c_in_a_notebook_returns_from_a_paced_pull_whose_reads_wait_out_a_429_at_once(
    program: Sandbox, tmp_path: Path
) -> None:
    """In a notebook the pull runs on a loop of its own in a worker thread, the kernel's
    running; the Ctrl-C raised in the cell stops it there too, and the cell returns."""
    program.set_plan("1000000/hour")
    folder = tmp_path / "checkpoint"
    settings = {"base_url": program.base_url, **program.credentials.as_client_kwargs()}
    cell, out, err, sent = _interrupted_while_reads_wait(
        program,
        lambda: subprocess.Popen(
            [sys.executable, "-c", IN_A_NOTEBOOK, str(folder), json.dumps(settings)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ),
        folder,
    )
    assert (cell.returncode, out, err) == (0, "interrupted\n", "")
    assert sent == 0
