"""Every Python snippet of the README runs as written, in order, against a sandbox.

The sandbox's keys are exported as the README's shell route says, the working directory
is a fresh folder holding the example CSV, and each snippet finds a connected ``client``
(the README says the snippets assume one), plus whatever the snippets before it defined.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import ENV_VARIABLES

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
EXAMPLE_CSV = ROOT / "data" / "benefits_import_example.csv"


def snippets() -> list[tuple[int, str]]:
    """Each ```python block of the README with the line it starts on."""
    text = README.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, match.start()) + 2, match.group(1))
        for match in re.finditer(r"```python\n(.*?)```", text, flags=re.DOTALL)
    ]


def test_the_readme_has_snippets_to_run() -> None:
    assert len(snippets()) >= 10


def test_every_readme_snippet_runs_in_order(
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "data").mkdir()
    shutil.copy(EXAMPLE_CSV, tmp_path / "data" / EXAMPLE_CSV.name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYT_PROGRESS", "off")
    with start_sandbox(now="2026-01-15T12:00:00Z") as sb:
        monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
        for key, value in sb.credentials.as_client_kwargs().items():
            monkeypatch.setenv(ENV_VARIABLES[key], value)
        with LoyaltyClient() as client:
            namespace: dict[str, object] = {}
            for line, code in snippets():
                namespace["client"] = client
                try:
                    exec(compile(code, f"{README}:{line}", "exec"), namespace)
                except Exception as exc:
                    pytest.fail(f"the README snippet at line {line} failed: {exc!r}")
    out = capsys.readouterr().out
    assert "calls needed:" in out and "lrew_" in out  # the snippets' prints ran
