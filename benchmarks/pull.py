"""Pull 10,000 rewards into pandas: the naive route against ``client.rewards.frame()``.

The naive route is what an analyst would write by hand: a token via httpx,
an ``httpx.get`` per page at limit 100 following ``cursor.next``,
``resp.json()`` and ``pandas.json_normalize``. The client route pages through
the same sandbox with retries, typed models and the declared schema. Both run
in one process against one sandbox, alternating three times; the script
prints each median time, their ratio (goal: the client at least as fast) and
the memory of each frame (goal: the client's at most half).

Run: ``.venv/bin/python benchmarks/pull.py [--rewards 10000] [--rounds 3]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import httpx
import pandas as pd

from lyt_toolkit import LoyaltyClient
from lyt_toolkit.frames import rewards_frame
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.synthetic import generate_program

REWARDS_PATH = "/v2/loyalties/rewards"


def naive_pull(base_url: str, creds: dict[str, str]) -> pd.DataFrame:
    """The hand-written route: raw httpx calls and ``json_normalize``."""
    keys = {"X-App-Id": creds["app_id"], "X-App-Token": creds["app_token"]}
    token = httpx.post(
        f"{base_url}/oauth/token",
        headers=keys,
        data={"grant_type": "client_credentials", "scope": "loyalties"},
    ).json()["access_token"]
    headers = {**keys, "Authorization": f"Bearer {token}"}
    records: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": 100}
    while True:
        resp = httpx.get(f"{base_url}{REWARDS_PATH}", params=params, headers=headers)
        resp.raise_for_status()
        body = resp.json()
        records.extend(body["data"])
        cursor = (body.get("cursor") or {}).get("next")
        if not cursor or not body["data"]:
            break
        params = {"limit": 100, "cursor": cursor}
    return pd.json_normalize(records)


def client_pull(base_url: str, creds: dict[str, str]) -> pd.DataFrame:
    """The toolkit's route: one client, typed models, the declared schema."""
    with LoyaltyClient(base_url=base_url, env_file=None, **creds) as client:
        return client.rewards.frame(progress=False)


def _timed(fn: Any, *args: Any) -> tuple[float, pd.DataFrame]:
    start = time.perf_counter()
    frame = fn(*args)
    return time.perf_counter() - start, frame


def _mb(frame: pd.DataFrame) -> float:
    return frame.memory_usage(deep=True).sum() / 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rewards", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    program = generate_program(rewards=args.rewards, benefits=10, members=10, seed=1)
    with Sandbox.start(data=program, now=program["now"], seed=1) as sb:
        creds = sb.credentials.as_client_kwargs()
        times: dict[str, list[float]] = {"naive": [], "client": []}
        frames: dict[str, pd.DataFrame] = {}
        for _ in range(args.rounds):
            for name, fn in (("naive", naive_pull), ("client", client_pull)):
                seconds, frames[name] = _timed(fn, sb.base_url, creds)
                times[name].append(seconds)
        with LoyaltyClient(base_url=sb.base_url, env_file=None, **creds) as client:
            models = list(client.rewards.iter(limit=100))
    dicts = [m.wire() for m in models]
    step_naive = min(_timed(pd.json_normalize, dicts)[0] for _ in range(args.rounds))
    step_client = min(_timed(rewards_frame, models)[0] for _ in range(args.rounds))

    naive, client = frames["naive"], frames["client"]
    assert len(naive) == len(client) == args.rewards, (len(naive), len(client))
    t_naive = statistics.median(times["naive"])
    t_client = statistics.median(times["client"])
    m_naive, m_client = _mb(naive), _mb(client)
    print(f"rewards pulled: {len(client):,} (limit 100, {args.rounds} alternating rounds)")
    print(f"naive  (httpx+json_normalize): median {t_naive:6.3f} s  runs {_fmt(times['naive'])}")
    print(f"client (rewards.frame()):      median {t_client:6.3f} s  runs {_fmt(times['client'])}")
    print(f"time ratio client/naive:   {t_client / t_naive:5.2f}  (goal <= 1.00)")
    print(
        f"naive frame:  {naive.shape[1]:3d} columns, {m_naive:7.2f} MB (deep), dtypes: "
        f"{_dtype_summary(naive)}"
    )
    print(
        f"client frame: {client.shape[1]:3d} columns, {m_client:7.2f} MB (deep), dtypes: "
        f"{_dtype_summary(client)}"
    )
    print(f"memory ratio client/naive: {m_client / m_naive:5.2f}  (goal <= 0.50)")
    print(
        f"frame step alone (best of {args.rounds}): json_normalize(dicts) {step_naive:.3f} s, "
        f"rewards_frame(models) {step_client:.3f} s, ratio {step_client / step_naive:.2f}"
    )


def _fmt(values: list[float]) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def _dtype_summary(frame: pd.DataFrame) -> str:
    counts = frame.dtypes.astype(str).value_counts()
    return ", ".join(f"{n} {d}" for d, n in counts.items())


if __name__ == "__main__":
    main()
