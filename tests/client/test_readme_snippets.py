"""The README's sandbox and promotion tier snippets run as written; its shell lines paste."""

from __future__ import annotations

import re
import shlex
import warnings
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS, ENV_VARIABLES

README = Path(__file__).resolve().parents[2] / "README.md"


def _section(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    level = heading.split(" ", 1)[0]
    section = text.split(f"\n{heading}\n", 1)[1]
    return re.split(rf"\n{level} |\n#{{1,{len(level) - 1}}} ", section, maxsplit=1)[0]


def _blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.DOTALL)


def test_the_sandbox_snippet_runs_and_stops_its_sandbox(capsys: pytest.CaptureFixture[str]) -> None:
    (code,) = _blocks(_section("### To the sandbox"), "python")
    namespace: dict[str, object] = {}
    exec(compile(code, f"{README}:To the sandbox", "exec"), namespace)
    assert "lrew_" in capsys.readouterr().out
    sb = namespace["sb"]
    assert isinstance(sb, Sandbox) and not sb.running


def test_the_shell_lines_paste_and_name_the_real_settings() -> None:
    lines = [
        line
        for block in _blocks(_section("### To the sandbox"), "bash")
        for line in block.splitlines()
    ]
    assert lines
    exports = {}
    for line in lines:
        assert "[" not in line and "<" not in line, line
        words = shlex.split(line)
        if words[0] == "export":
            name, value = words[1].split("=", 1)
            exports[name] = value
        else:
            assert words[:3] == [".venv/bin/lyt", "sandbox", "serve"], line
            assert len(words[3:]) % 2 == 0 and all(w.startswith("--") for w in words[3::2])
    expected = {ENV_VARIABLES[key]: value for key, value in DEFAULT_CREDENTIALS.items()}
    assert exports == {"LYT_BASE_URL": "http://127.0.0.1:8000", **expected}


def test_the_what_if_snippet_runs_as_written(
    sandbox: Sandbox, make_client: Callable[..., LoyaltyClient]
) -> None:
    (code,) = _blocks(_section("## Promotion tiers: what if?"), "python")
    with make_client(sandbox) as client, warnings.catch_warnings():
        warnings.simplefilter("error")
        namespace: dict[str, object] = {"client": client}
        exec(compile(code, f"{README}:Promotion tiers", "exec"), namespace)
        result = eval(  # the block's last expression, as a notebook would show it
            compile(code[code.index("client.promotion_tiers.what_if(") :], "what_if", "eval"),
            namespace,
        )
    assert isinstance(namespace["tiers"], pd.DataFrame) and len(namespace["tiers"]) > 0
    assert isinstance(result, pd.DataFrame) and len(result) == 2
    assert result["valid"].notna().all()


def test_the_report_files_snippet_runs_as_written(
    sandbox: Sandbox,
    make_client: Callable[..., LoyaltyClient],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (code,) = _blocks(_section("### Report files in Python"), "python")
    monkeypatch.chdir(tmp_path)
    with make_client(sandbox) as client:
        namespace: dict[str, object] = {"client": client}
        exec(compile(code, f"{README}:Report files in Python", "exec"), namespace)
    pd.testing.assert_frame_equal(namespace["again"], namespace["findings"])
    written = {p.name for p in (tmp_path / "reports" / "audit").iterdir()}
    assert {"audit_findings.csv", "audit_findings.schema.json", "chart.png"} <= written
