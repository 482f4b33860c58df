"""What the committed notebook says each cell shows, against what the page shows.

nbval compares a run's outputs with the committed ones as data (text, HTML source); a
person sees them rendered. Here every output of a cell must be on the page, in order,
rendered as its richest type (an HTML table as HTML, a plot as a loaded image, a widget
as a widget), with the text of its data: an HTML output's text as the browser draws it
(so HTML that only a script would fill, or markup the page drops, shows as a
difference). Texts are compared without their whitespace and after nbval's own
sanitising (``notebooks/sanitize.cfg``), so an output of a run compares with the
committed one as nbval compares them.
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

from .lab import NOTEBOOKS
from .notebook_state import WIDGET_VIEW, Notebook
from .notebook_ui import Output

SANITIZE = NOTEBOOKS / "sanitize.cfg"
STREAM_MIME = "application/vnd.jupyter.{name}"
RICHEST_FIRST = (WIDGET_VIEW, "text/html", "image/png", "image/jpeg", "text/plain")
"""The types JupyterLab prefers among an output's data, as far as the notebooks use them."""


@dataclass(frozen=True)
class Stored:
    """One output as the notebook stores it: the type the page renders it as (``None``
    for a widget view) and the text a person should read in it."""

    mime: str | None
    text: str


def _sanitising() -> list[tuple[re.Pattern[str], str]]:
    parser = configparser.ConfigParser()
    parser.read(SANITIZE, encoding="utf-8")
    return [(re.compile(parser[s]["regex"]), parser[s]["replace"]) for s in parser.sections()]


_SANITISING = _sanitising()


def comparable(text: str) -> str:
    """``text`` sanitised as nbval sanitises it, without whitespace."""
    for pattern, replacement in _SANITISING:
        text = pattern.sub(replacement, text)
    return "".join(text.split())


class _VisibleText(HTMLParser):
    """The text of an HTML fragment a browser draws (not that of its styles or scripts)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._hidden += tag in ("style", "script")

    def handle_endtag(self, tag: str) -> None:
        self._hidden -= tag in ("style", "script") and self._hidden > 0

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    parser.close()
    return " ".join(parser.parts)


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _stored(output: dict[str, Any]) -> Stored:
    kind = output["output_type"]
    if kind == "stream":
        return Stored(STREAM_MIME.format(name=output["name"]), _joined(output["text"]))
    if kind == "error":
        return Stored(STREAM_MIME.format(name="stderr"), f"{output['ename']}: {output['evalue']}")
    data = output.get("data", {})
    mime = next(m for m in RICHEST_FIRST if m in data)
    if mime == WIDGET_VIEW:
        return Stored(None, "")
    if mime.startswith("image/"):
        return Stored(mime, "")
    text = _joined(data[mime])
    return Stored(mime, visible_text(text) if mime == "text/html" else text)


def stored_outputs(notebook: Notebook) -> list[list[Stored]]:
    """Per cell (markdown cells count, with none), the outputs the page should show:
    consecutive stream outputs of one name are one, as JupyterLab and nbval join them."""
    cells: list[list[Stored]] = []
    for cell in notebook["cells"]:
        shown: list[Stored] = []
        for output in cell.get("outputs", []):
            stored = _stored(output)
            last = shown[-1] if shown else None
            if last and output["output_type"] == "stream" and last.mime == stored.mime:
                shown[-1] = Stored(last.mime, last.text + stored.text)
            else:
                shown.append(stored)
        cells.append(shown)
    return cells


def shown_unlike_stored(
    shown: list[list[Output]], notebook: Notebook, stored_as: Mapping[str, str] | None = None
) -> list[str]:
    """Where the page's outputs (``NotebookUI.outputs``) differ from the stored ones: an
    output missing, extra, rendered as another type, an image not loaded, other text.
    Outputs inside a widget (its output area) are the widget's, not the cell's.
    ``stored_as`` maps a text the page may show to the one stored in its place (a run in
    the lab shows the lab's credential IDs where the committed run shows the defaults)."""
    expected = stored_outputs(notebook)

    def _as(text: str) -> str:
        for shows, stored in (stored_as or {}).items():
            text = text.replace(shows, stored)
        return text

    if len(shown) != len(expected):
        return [f"{len(shown)} cells shown, {len(expected)} stored"]
    problems = []
    for index, (outputs, stored) in enumerate(zip(shown, expected, strict=True)):
        own = [o for o in outputs if not o.nested]
        if [o.mime for o in own] != [s.mime for s in stored]:
            mimes = [o.mime for o in own], [s.mime for s in stored]
            problems.append(f"cell {index}: shown as {mimes[0]}, stored as {mimes[1]}")
            continue
        for number, (output, want) in enumerate(zip(own, stored, strict=True)):
            where = f"cell {index} output {number} ({want.mime})"
            if want.mime is not None and want.mime.startswith("image/") and output.images < 1:
                problems.append(f"{where}: no image loaded")
            elif want.mime is not None and comparable(_as(output.text)) != comparable(want.text):
                problems.append(f"{where}: shows {output.text[:80]!r}, stored {want.text[:80]!r}")
    return problems
