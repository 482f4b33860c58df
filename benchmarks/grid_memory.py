"""The widgets' grids at real scale: the memory a notebook's kernel takes to show them.

For each size in ``--rewards`` (default 20,000 and 100,000), generates a program of that many
rewards, every one ended before its clock (``generate_program``), serves it with a sandbox,
and measures two routes, each in an IPython kernel of its own (``jupyter_client``), as a
notebook runs them:

- ``rewards``: ``RewardDraftPanel(client)`` displayed, then **Load rewards** (``load()``):
  every reward read over HTTP, a page of 100 a call, and shown in ``rewards_grid``;
- ``findings``: the program's rewards (their times resolved) made ACTIVE, as frames
  (``rewards_frame``, ``ProgramSnapshot.from_frames``) audited for ``active-reward-expired``
  (a finding each), then ``FindingsPanel(client, findings)`` displayed.

Each prints the kernel's peak RSS (``VmHWM``: imports, the frames, the step), the step's own
peak above what the kernel held before it (the peak reset with ``/proc/self/clear_refs``), what
it still holds after it, the rows the grid sends the browser (checked to be every row) and
their size.

``--baseline DIR`` measures the package tree in ``DIR`` too (e.g. one exported with
``git archive main lyt_toolkit | tar -x -C DIR``), side by side with this tree's.

Run: ``.venv/bin/python benchmarks/grid_memory.py [--baseline DIR] [--rewards 20000 100000]``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ROUTES = ("rewards", "findings")


def _status(key: str) -> float:
    """A ``/proc/self/status`` figure in MiB (``VmRSS``, ``VmHWM``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    raise LookupError(key)


def measure(route: str, program_file: str) -> None:
    """In the kernel: run ``route`` on the sandbox ``LYT_*`` points at and print its figures
    as one JSON line. Only the package's public API, so that a baseline runs it too."""
    import gc

    from IPython.display import display

    import lyt_toolkit
    from lyt_toolkit import audit
    from lyt_toolkit.client import LoyaltyClient
    from lyt_toolkit.frames import rewards_frame
    from lyt_toolkit.snapshot import ProgramSnapshot
    from lyt_toolkit.widgets import FindingsPanel, RewardDraftPanel

    client = LoyaltyClient(env_file=None)
    if route == "rewards":
        panel: Any = RewardDraftPanel(client)
        display(panel)
    else:
        program = json.loads(Path(program_file).read_text())
        rewards = [{**r, "status": "ACTIVE"} for r in program["rewards"]]
        snapshot = ProgramSnapshot.from_frames(
            {"rewards": rewards_frame(rewards)}, pulled_at=program["now"]
        )
        findings = audit.run(snapshot, rules=["active-reward-expired"])
        del program, rewards, snapshot
    gc.collect()
    start = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # the peak from here
    if route == "rewards":
        panel.load()
        table = panel.rewards_grid
    else:
        panel = FindingsPanel(client, findings)
        display(panel)
        table = panel.findings_grid
    step_peak = _status("VmHWM") - start
    data = table._dt_args["data_json"]
    figures = {
        "package": str(Path(lyt_toolkit.__file__).parent.parent),
        "rows": len(panel.rewards if route == "rewards" else panel.findings),
        "sent_rows": len(json.loads(data)),
        "sent_mib": len(data.encode()) / 2**20,
        "step_peak_mib": step_peak,
        "process_peak_mib": _status("VmHWM"),
    }
    del data
    gc.collect()
    figures["held_mib"] = _status("VmRSS") - start
    print(json.dumps(figures))


def in_kernel(tree: Path, route: str, program_file: Path, env: dict[str, str]) -> dict[str, Any]:
    """``measure(route, program_file)`` in a fresh kernel importing the package from ``tree``."""
    from jupyter_client.manager import start_new_kernel

    path = os.pathsep.join([str(tree), str(Path(__file__).parent)])
    with tempfile.TemporaryDirectory() as cwd:
        manager, kernel = start_new_kernel(
            kernel_name="python3", cwd=cwd, env={**os.environ, **env, "PYTHONPATH": path}
        )
        try:
            msg_id = kernel.execute(
                f"import grid_memory; grid_memory.measure({route!r}, {str(program_file)!r})"
            )
            out: list[str] = []
            while True:
                msg = kernel.get_iopub_msg(timeout=1800)
                if msg["parent_header"].get("msg_id") != msg_id:
                    continue
                kind, content = msg["msg_type"], msg["content"]
                if kind == "stream":
                    out.append(content["text"])
                elif kind == "error":
                    raise RuntimeError("\n".join(content["traceback"]))
                elif kind == "status" and content["execution_state"] == "idle":
                    break
        finally:
            kernel.stop_channels()
            manager.shutdown_kernel(now=True)
    lines = [line for line in "".join(out).splitlines() if line.startswith("{")]
    figures: dict[str, Any] = json.loads(lines[-1])
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, nargs="+", default=[20_000, 100_000])
    parser.add_argument("--baseline", type=Path, help="package tree to compare with")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from lyt_toolkit.sandbox import Sandbox
    from lyt_toolkit.sandbox.timeexpr import resolve_tree
    from lyt_toolkit.synthetic import generate_program

    trees = {"this tree": ROOT}
    if args.baseline:
        trees = {"baseline": args.baseline.resolve(), **trees}
    print(
        f"{'rewards':>8} {'route':9} {'tree':10} {'rows':>8} {'sent':>8} {'sent MiB':>9}"
        f" {'step peak':>10} {'held':>8} {'kernel peak':>12}  (MiB)"
    )
    failed = False
    for size in args.rewards:
        program = generate_program(
            rewards=size, benefits=2, card_definitions=2, tier_structures=1, members=2, seed=4
        )
        for reward in program["rewards"]:
            reward["end_date"] = "2025-12-31T00:00:00Z"
        with tempfile.TemporaryDirectory() as tmp:
            program_file = Path(tmp) / "program.json"
            now = datetime.fromisoformat(program["now"].replace("Z", "+00:00"))
            resolved = {"now": program["now"], "rewards": resolve_tree(program["rewards"], now)}
            program_file.write_text(json.dumps(resolved))
            del resolved
            with Sandbox.start(program, now=program["now"], seed=7) as sandbox:
                env = {"LYT_BASE_URL": sandbox.base_url, "LYT_PROGRESS": "off"}
                keys = sandbox.credentials.as_client_kwargs().items()
                env.update({f"LYT_{k.upper()}": str(v) for k, v in keys})
                for route in ROUTES:
                    for label, tree in trees.items():
                        f = in_kernel(tree, route, program_file, env)
                        assert Path(f["package"]) == tree, (f["package"], tree)
                        failed |= f["sent_rows"] != f["rows"]
                        print(
                            f"{size:8,} {route:9} {label:10} {f['rows']:8,} {f['sent_rows']:8,}"
                            f" {f['sent_mib']:9.1f} {f['step_peak_mib']:10.0f}"
                            f" {f['held_mib']:8.0f} {f['process_peak_mib']:12.0f}",
                            flush=True,
                        )
        del program
    if failed:
        print("SOME GRID DID NOT SEND EVERY ROW")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
