"""The committed notebooks carry their outputs and never a credential.

Notebooks are the first thing analysts read and they are committed with their
outputs, so a token printed once would be published. These checks read the
``.ipynb`` files as stored (nbval re-executes them separately).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS, SandboxCredentials

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOK_FILES = sorted(NOTEBOOKS.glob("*.ipynb"))

SECRET_PATTERNS = {
    "bearer token": re.compile(r"Bearer [A-Za-z0-9._-]{16,}"),
    "64-hex token": re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])"),
    "X-App-Token value": re.compile(r"X-App-Token['\"]?\s*[:=]\s*['\"]?[^\s'\",}]+", re.I),
    "X-Management-Token value": re.compile(
        r"X-Management-Token['\"]?\s*[:=]\s*['\"]?[^\s'\",}]+", re.I
    ),
}
TEXT_MIME_PREFIXES = ("text/", "application/json")
"""Binary outputs (PNG plots) are base64 and are not scanned as text."""


def _secret_values() -> set[str]:
    values = {DEFAULT_CREDENTIALS["app_token"], DEFAULT_CREDENTIALS["management_token"]}
    env = SandboxCredentials.from_env()
    values |= {env.app_token, env.management_token}
    return {v for v in values if v}


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _as_text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    if isinstance(value, str):
        return value
    return json.dumps(value)


def _texts(notebook: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, text) for every cell source, every textual output and the metadata."""
    found: list[tuple[str, str]] = []
    for number, cell in enumerate(notebook["cells"]):
        found.append((f"cell {number} source", _as_text(cell.get("source", ""))))
        for output in cell.get("outputs", []):
            where = f"cell {number} output"
            if "text" in output:
                found.append((where, _as_text(output["text"])))
            if "traceback" in output:
                found.append((where, _as_text(output["traceback"])))
            if "evalue" in output:
                found.append((where, _as_text(output["evalue"])))
            for mime, data in output.get("data", {}).items():
                if mime.startswith(TEXT_MIME_PREFIXES):
                    found.append((f"{where} {mime}", _as_text(data)))
    # Saved widget state (what static viewers render) lives in the notebook metadata.
    found.append(("notebook metadata", json.dumps(notebook.get("metadata", {}))))
    return found


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOK_FILES) >= 1, f"no notebooks in {NOTEBOOKS}"


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda p: p.name)
def test_notebook_is_committed_executed(path: Path) -> None:
    code_cells = [c for c in _load(path)["cells"] if c["cell_type"] == "code"]
    assert code_cells, f"{path.name} has no code cells"
    assert any(c.get("outputs") for c in code_cells), f"{path.name} has no outputs"
    unexecuted = [n for n, c in enumerate(code_cells) if c.get("execution_count") is None]
    assert not unexecuted, f"{path.name}: code cells never executed: {unexecuted}"


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda p: p.name)
def test_notebook_has_no_error_outputs(path: Path) -> None:
    for number, cell in enumerate(_load(path)["cells"]):
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", f"{path.name} cell {number} failed"


@pytest.mark.parametrize("path", NOTEBOOK_FILES, ids=lambda p: p.name)
def test_notebook_carries_no_credential(path: Path) -> None:
    secrets = _secret_values()
    for where, text in _texts(_load(path)):
        for name, pattern in SECRET_PATTERNS.items():
            match = pattern.search(text)
            assert match is None, f"{path.name} {where}: {name} ({match.group(0)[:12]}...)"
        for value in secrets:
            assert value not in text, f"{path.name} {where}: a sandbox token value"


def test_patterns_catch_what_they_should() -> None:
    """The scanner itself: each pattern flags a planted credential."""
    planted = {
        "bearer token": "Authorization: Bearer abcdefABCDEF0123456789.xyz",
        "64-hex token": "token " + "ab" * 32,
        "X-App-Token value": "{'X-App-Token': 'something'}",
        "X-Management-Token value": "X-Management-Token: something",
    }
    for name, text in planted.items():
        assert SECRET_PATTERNS[name].search(text), name
    assert not SECRET_PATTERNS["bearer token"].search("token_type: Bearer")
    assert not SECRET_PATTERNS["64-hex token"].search("f" * 65)
