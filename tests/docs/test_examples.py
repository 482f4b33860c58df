"""Every runnable example of the docs runs as written (the convention: docs/contributing.md).

One test per page (but those ``test_pages`` runs whole, comparing what each block prints:
``RUN_WITH_OUTPUT``): a fresh sandbox of the demo program on a fixed clock, its address and
keys exported as the docs' shell route says, a fresh working folder holding the example
CSV, and the page's ```python blocks run in order in one namespace, each finding a
connected ``client``.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict
from pathlib import Path

import pytest

from lyt_toolkit.client import LoyaltyClient
from lyt_toolkit.sandbox import Sandbox
from lyt_toolkit.sandbox.config import ENV_VARIABLES

from .pages import DOCS, ROOT, RUN_WITH_OUTPUT, blocks, runnable_pages

EXAMPLE_CSV = ROOT / "data" / "benefits_import_example.csv"
PAGES = runnable_pages()
RUN_HERE = [p for p in PAGES if str(p.relative_to(DOCS)) not in RUN_WITH_OUTPUT]


def test_the_docs_have_runnable_examples_on_every_how_to_page() -> None:
    how_to = sorted((DOCS / "how-to").glob("*.md"))
    assert len(how_to) == 13
    assert set(how_to) <= set(PAGES)
    assert sum(len(blocks(p)) for p in PAGES) >= 20


def test_the_pages_left_to_test_pages_are_runnable_pages() -> None:
    assert {DOCS / p for p in RUN_WITH_OUTPUT} <= set(PAGES) - set(RUN_HERE)


@pytest.mark.parametrize("page", RUN_HERE, ids=[str(p.relative_to(DOCS)) for p in RUN_HERE])
def test_every_example_of_the_page_runs_in_order(
    page: Path,
    start_sandbox: Callable[..., AbstractContextManager[Sandbox]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "data").mkdir()
    shutil.copy(EXAMPLE_CSV, tmp_path / "data" / EXAMPLE_CSV.name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LYT_PROGRESS", "off")
    with start_sandbox(now="2026-01-15T12:00:00Z") as sb:
        monkeypatch.setenv("LYT_BASE_URL", sb.base_url)
        for key, value in asdict(sb.credentials).items():
            monkeypatch.setenv(ENV_VARIABLES[key], value)
        with LoyaltyClient() as client:
            namespace: dict[str, object] = {}
            for line, code in blocks(page):
                namespace["client"] = client
                try:
                    exec(compile(code, f"{page}:{line}", "exec"), namespace)
                except Exception as exc:
                    pytest.fail(f"the example at {page.relative_to(ROOT)}:{line} failed: {exc!r}")
