"""The shell of the reports' HTML pages: one style, the charts embedded, the body given."""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable
from pathlib import Path

__all__ = ["embedded_charts", "html_page"]

_STYLE = """\
body { font-family: sans-serif; margin: 2em auto; max-width: 1150px; color: #2c3e50; }
table { border-collapse: collapse; margin-bottom: 2em; }
th, td { text-align: left; padding: 0.3em 1.2em 0.3em 0; border-bottom: 1px solid #ddd; }
img { max-width: 100%; }"""


def html_page(title: str, body: str, *, style: str = "") -> str:
    """A whole page: ``title`` as its title and first heading, then ``body`` (HTML);
    ``style`` adds CSS rules to the shared ones."""
    rules = f"{_STYLE}\n{style}" if style else _STYLE
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{html.escape(title)}</title>
<style>
{rules}
</style>
</head>
<body>
<h1>{html.escape(title)}</h1>
{body}
</body>
</html>
"""


def embedded_charts(charts: Iterable[Path]) -> str:
    """Each chart (a PNG file) as a figure embedded as base64, its name as the alt text."""
    return "\n".join(
        f'<figure><img alt="{html.escape(p.stem.replace("_", " "))}" '
        f'src="data:image/png;base64,{base64.b64encode(p.read_bytes()).decode("ascii")}">'
        "</figure>"
        for p in charts
    )
