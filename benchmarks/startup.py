"""Start-up CPU: what importing each command's modules, and each ``lyt`` command run as a
process, cost, beside the floor: importing the libraries no command can avoid.

Every figure is the user + system CPU of one child process (``os.wait4``) and its wall time,
run with ``python -P`` (the working directory not first on the path, so a baseline's child
imports its own tree) and bytecode cached in a folder of the run's own (one untimed warm-up
each, as an installed package has its ``.pyc`` files). Three kinds of case:

- ``floor (import pandas, httpx)``: a fresh interpreter importing the data and HTTP
  libraries every command that reads or writes the service needs (``FLOOR``): what a
  command's start-up is compared with;
- ``import (COMMAND)``: a fresh interpreter importing the modules the command's handler
  loads (``IMPORTS``), and nothing else;
- ``lyt ...``: the command itself, against a sandbox this tree serves over HTTP (a demo
  program: its work is small, so start-up is most of it): ``--version``, ``--help``,
  ``audit --help``, ``export --estimate`` (the pull's calls counted), ``export`` (a pull),
  ``audit`` (a pull, the rules, the reports and their chart), ``plan --offline`` of an
  unedited export, ``apply`` of that empty plan (copied to a new name each time: an
  applied plan refuses to apply again), ``rehearse`` of it, ``verify`` of it (rehearsed
  again, nothing to read back), ``diff`` of the two exports, ``drift`` of the export against
  the sandbox, ``report economics --base`` of it, and ``sandbox serve`` up to its
  ``ready at`` line (its CPU read from ``/proc`` then; it is stopped after).

``--baseline DIR`` runs each case from the package tree in ``DIR`` too (e.g. one exported
with ``git archive main lyt_toolkit | tar -x -C DIR``), the two in alternating order in
each round, and prints the ratio of the medians (this tree / baseline).

Run: ``.venv/bin/python benchmarks/startup.py [--baseline DIR] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")
CREDENTIALS = {
    "LYT_APP_ID": "sandbox-app-id",
    "LYT_APP_TOKEN": "sandbox-app-token",
    "LYT_MANAGEMENT_ID": "sandbox-management-id",
    "LYT_MANAGEMENT_TOKEN": "sandbox-management-token",
}
"""The demo sandbox's key pairs (``lyt_toolkit.sandbox.config.DEFAULT_CREDENTIALS``)."""

FLOOR = "floor (import pandas, httpx)"
"""The case importing only the libraries no command that pulls or applies can avoid."""

IMPORTS = {
    "apply": "lyt_toolkit.cli.apply, lyt_toolkit.actions, lyt_toolkit.fill.pace_run",
    "export": "lyt_toolkit.cli.export, lyt_toolkit.snapshot, lyt_toolkit.fill, lyt_toolkit.client",
    "audit": "lyt_toolkit.cli.audit, lyt_toolkit.audit, lyt_toolkit.reports.chart, "
    "lyt_toolkit.fill, lyt_toolkit.client",
    "sandbox serve": "lyt_toolkit.cli.sandbox, lyt_toolkit.sandbox.server",
}
"""Per command, the modules its handler loads when it runs."""

_serial = count()


@dataclass
class Tree:
    """A package tree whose children are measured."""

    label: str
    source: Path
    pycache: Path
    cpu: dict[str, list[float]] = field(default_factory=dict)
    wall: dict[str, list[float]] = field(default_factory=dict)

    def env(self, served: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        return {
            **env,
            **served,
            "PYTHONPATH": str(self.source),
            "PYTHONPYCACHEPREFIX": str(self.pycache),
            "LYT_PROGRESS": "off",
        }


def child_cpu(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """CPU and wall seconds of ``command`` run to its end; it must exit 0."""
    started = time.perf_counter()
    child = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{command[3:]} exited {child.returncode}: {errors[-600:]!r}")
    return usage.ru_utime + usage.ru_stime, wall


def proc_cpu(pid: int) -> float:
    """User + system CPU seconds the process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def serve(env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[str], str, float, float]:
    """``lyt sandbox serve`` started: the child, its address, its CPU and wall once ready."""
    started = time.perf_counter()
    command = [sys.executable, "-P", "-m", "lyt_toolkit.cli", "sandbox", "serve", "--port", "0"]
    child = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    line = child.stdout.readline()
    if "ready at " not in line:
        child.kill()
        raise SystemExit(f"the sandbox did not start: {line!r}")
    cpu, wall = proc_cpu(child.pid), time.perf_counter() - started
    return child, line.split("ready at ")[1].split()[0], cpu, wall


def stop(child: subprocess.Popen[str]) -> None:
    child.send_signal(signal.SIGTERM)
    child.wait(timeout=60)


def serve_cpu(env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """CPU and wall seconds ``lyt sandbox serve`` takes to be ready to answer."""
    child, _, cpu, wall = serve(env, cwd)
    stop(child)
    return cpu, wall


def cases(work: Path) -> dict[str, list[str]]:
    """Each ``lyt`` case's arguments; ``{n}`` is a number new to each run."""
    return {
        "lyt --version": ["--version"],
        "lyt --help": ["--help"],
        "lyt audit --help": ["audit", "--help"],
        "lyt export --estimate": ["export", "--estimate"],
        "lyt export": ["export", "--out", str(work / "out-{n}")],
        "lyt audit": ["audit", "--out", str(work / "out-{n}")],
        "lyt plan --offline": ["plan", "--base", "base", "--edited", "edited", "--offline"],
        "lyt apply": ["apply", "plan-{n}.json"],
        "lyt rehearse": ["rehearse", "plan.json", "--base", "base"],
        "lyt verify": ["verify", "plan.json", "--base", "base"],
        "lyt diff": ["diff", "base", "edited"],
        "lyt drift": ["drift", "base"],
        "lyt report economics --base": [
            "report",
            "economics",
            "--base",
            "base",
            "--out",
            str(work / "report-{n}"),
        ],
    }


def measure(tree: Tree, case: str, work: Path, served: dict[str, str]) -> tuple[float, float]:
    """One run of ``case`` from ``tree``: its CPU and wall seconds."""
    env = tree.env(served)
    if case == FLOOR:
        return child_cpu([sys.executable, "-P", "-c", "import pandas, httpx"], env, work)
    if case.startswith("import "):  # "import (COMMAND)"
        code = f"import {IMPORTS[case[len('import (') : -1]]}"
        return child_cpu([sys.executable, "-P", "-c", code], env, work)
    if case == "lyt sandbox serve":
        return serve_cpu(env, work)
    n = str(next(_serial))
    if case == "lyt apply":
        shutil.copy(work / "plan.json", work / f"plan-{n}.json")
    arguments = [a.replace("{n}", n) for a in cases(work)[case]]
    return child_cpu([sys.executable, "-P", "-m", "lyt_toolkit.cli", *arguments], env, work)


def prepare(work: Path, served: dict[str, str]) -> None:
    """The snapshot ``base`` pulled from the served sandbox, an unedited copy ``edited`` and
    the (empty) plan between them, ``plan.json``."""
    env = Tree("this tree", ROOT, work / "pycache-this").env(served)
    lyt = [sys.executable, "-P", "-m", "lyt_toolkit.cli"]
    child_cpu([*lyt, "export", "--out", "base"], env, work)
    shutil.copytree(work / "base", work / "edited")
    plan = ["plan", "--base", "base", "--edited", "edited", "--out", "plan.json"]
    child_cpu([*lyt, *plan], env, work)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="package tree to compare with")
    parser.add_argument(
        "--only",
        action="append",
        default=None,
        help="run only the cases containing this text (given again: any of them)",
    )
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        trees = [Tree("this tree", ROOT, work / "pycache-this")]
        if args.baseline:
            trees.insert(0, Tree("baseline", args.baseline.resolve(), work / "pycache-base"))
        server, url, _, _ = serve(trees[-1].env({}), work)
        try:
            served = {"LYT_BASE_URL": url, **CREDENTIALS}
            prepare(work, served)
            names = [FLOOR, *(f"import ({command})" for command in IMPORTS)]
            names += [*cases(work), "lyt sandbox serve"]
            names = [n for n in names if args.only is None or any(o in n for o in args.only)]
            for tree in trees:
                for name in names:
                    measure(tree, name, work, served)  # warm-up: bytecode written
            for round_ in range(args.rounds):
                order = trees if round_ % 2 == 0 else trees[::-1]
                for name in names:
                    for tree in order:
                        cpu, wall = measure(tree, name, work, served)
                        tree.cpu.setdefault(name, []).append(cpu)
                        tree.wall.setdefault(name, []).append(wall)
        finally:
            stop(server)

    print(
        f"ms of each child, {args.rounds} rounds: CPU (user + system) median (least), wall median"
    )
    heading = " ".join(f"{t.label:>27}" for t in trees)
    print(f"{'case':30} {heading}" + ("  ratio" if args.baseline else ""))
    for name in names:
        cells = [
            f"{statistics.median(t.cpu[name]) * 1000:7,.0f} ({min(t.cpu[name]) * 1000:5,.0f})"
            f" {statistics.median(t.wall[name]) * 1000:7,.0f}"
            for t in trees
        ]
        ratio = ""
        if args.baseline:
            base, this = (statistics.median(t.cpu[name]) for t in trees)
            ratio = f"  {this / base:5.2f}"
        print(f"{name:30} " + " ".join(f"{c:>27}" for c in cells) + ratio)
    if args.baseline:
        print("ratio: this tree's CPU median / the baseline's (below 1: this tree starts cheaper)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
