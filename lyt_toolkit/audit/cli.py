"""Deprecated since 0.4.0, removed in 0.5.0: the ``lyt_toolkit.audit.cli`` module of 0.1.0.

Its ``write_reports`` is ``lyt_toolkit.reports.write_reports`` (which takes the findings
summary before ``out``); the command-line handlers it held are in ``lyt_toolkit.cli``.
"""

from __future__ import annotations

from .._deprecation import deprecation, module_getattr

__all__: list[str] = []


def _write_reports() -> object:
    from ..reports import write_reports

    return write_reports


__getattr__ = module_getattr(
    __name__,
    {"write_reports": (deprecation("lyt_toolkit.audit.cli.write_reports"), _write_reports)},
)
