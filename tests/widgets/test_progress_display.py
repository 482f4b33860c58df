"""Where a progress bar shows: a widget in Jupyter, text on a terminal, nothing elsewhere."""

from __future__ import annotations

import io
import sys
import threading
from typing import Any

import IPython
import pytest
import tqdm.notebook

from lyt_toolkit import _progress
from lyt_toolkit._progress import ProgressBar, display


class Terminal(io.StringIO):
    """A stderr that says it is a terminal and keeps what was written."""

    def isatty(self) -> bool:
        return True


class KernelShell:
    """What ``get_ipython()`` returns inside a Jupyter kernel (its config names the kernel app)."""

    config: dict[str, Any] = {"IPKernelApp": {"connection_file": "kernel-test.json"}}


@pytest.fixture(autouse=True)
def auto(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default choice, and every redraw shown at once so the output can be read."""
    monkeypatch.delenv(_progress.ENV_VAR, raising=False)
    monkeypatch.setattr(_progress, "REFRESH_SECONDS", 0)


def _pull(bar: ProgressBar) -> None:
    """12 pages of 100 rows, as a pull reports them."""
    for _ in range(12):
        bar.advance(100, pages=1)


def test_piped_output_shows_nothing_but_still_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    assert display() is None
    with ProgressBar(True, desc="rewards", unit="row") as bar:
        _pull(bar)
    assert piped.getvalue() == ""
    assert (bar.done, bar.pages) == (1200, 12)


def test_a_terminal_gets_a_text_bar_with_rows_and_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert display() == "text"
    with ProgressBar(True, desc="rewards", unit="row") as bar:
        _pull(bar)
        assert bar.done == 1200
    written = terminal.getvalue()
    assert "rewards: 1,200 rows" in written and "12 pages]" in written  # grouped from 1,000
    assert "1 page]" in written  # the first page, in the singular


def test_a_terminal_bar_groups_its_count_and_total(monkeypatch: pytest.MonkeyPatch) -> None:
    """tqdm's bar with its counts grouped (``1,234/20,000``, where it wrote ``1234/20000``),
    and past its total, which tqdm then drops, the count alone (``20,005 calls``)."""
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with ProgressBar(True, desc="cards reads", unit="call", total=20_000) as bar:
        bar.advance(1234)
        assert "| 1,234/20,000 [" in terminal.getvalue().split("\r")[-1]
        bar.set(20_005)  # more than the total it was told
        assert terminal.getvalue().split("\r")[-1].startswith("cards reads: 20,005call [")


def test_a_jupyter_kernel_gets_a_widget_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(IPython, "get_ipython", lambda: KernelShell())
    shown: list[Any] = []
    monkeypatch.setattr(tqdm.notebook, "display", lambda widget, **_: shown.append(widget))
    assert display() == "widget"
    bar = ProgressBar(True, desc="snapshot", unit="row", total=1200)
    _pull(bar)
    (container,) = shown
    label, progress, counts = container.children
    assert label.value.startswith("snapshot") and (progress.value, progress.max) == (1200, 1200)
    text = counts.value.replace("\u2007", " ")  # the widget spaces with figure spaces
    assert "1,200/1,200" in text and "12 pages]" in text
    bar.close()
    assert terminal.getvalue() == ""  # a kernel's bar is the widget, never text


def test_a_terminal_ipython_is_not_a_notebook(monkeypatch: pytest.MonkeyPatch) -> None:
    class TerminalShell:
        config: dict[str, Any] = {"TerminalInteractiveShell": {}}

    monkeypatch.setattr(IPython, "get_ipython", lambda: TerminalShell())
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert display() is None


@pytest.mark.parametrize(
    ("setting", "tty", "expected"),
    [
        ("off", True, None),
        ("text", False, "text"),
        ("widget", False, "widget"),
        ("auto", True, "text"),
    ],
)
def test_the_environment_overrides_the_choice(
    monkeypatch: pytest.MonkeyPatch, setting: str, tty: bool, expected: str | None
) -> None:
    monkeypatch.setenv(_progress.ENV_VAR, setting)
    monkeypatch.setattr(sys, "stderr", Terminal() if tty else io.StringIO())
    assert display() == expected


def test_switched_off_or_drawn_by_the_caller(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    seen: list[tuple[int, int]] = []

    def draw(done: int, total: int) -> None:
        seen.append((done, total))

    with ProgressBar(draw, desc="x", total=3) as bar:
        bar.advance(2)
        bar.advance(0, pages=1)  # a page alone moves no row
        bar.advance(1)
    assert seen == [(0, 3), (2, 3), (3, 3)]
    with ProgressBar(False, desc="quiet") as quiet:
        _pull(quiet)
    assert terminal.getvalue() == "" and (quiet.done, quiet.pages) == (1200, 12)


def test_lazy_bars_show_what_was_counted_before(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = ProgressBar(True, desc="rewards", unit="row", lazy=True)
    bar.advance(100, pages=1)
    assert terminal.getvalue() == ""
    bar.show()
    bar.advance(100, pages=1)
    bar.close()
    written = terminal.getvalue()
    assert "rewards: 100 rows" in written and "rewards: 200 rows" in written
    assert "2 pages" in written


def test_rows_and_pages_add_up_across_threads() -> None:
    bar = ProgressBar(None, desc="pull", unit="row")

    def fetch() -> None:
        for _ in range(500):
            bar.advance(7, pages=1)

    threads = [threading.Thread(target=fetch) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (bar.done, bar.pages) == (4 * 500 * 7, 4 * 500)
