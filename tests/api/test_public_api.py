"""The public API changes only on purpose: it is compared with the committed listing.

A public name or parameter that disappears fails unless a deprecation entry covers it
(``lyt_toolkit/_deprecation.py``); any other change fails too, with the command that
regenerates the listing (``python -m tests.api.public_api --write``), so every change to
the public surface is a reviewed diff of ``tests/api/public_api.txt``. With
``LYT_WRITE_PUBLIC_API=1`` the test rewrites the listing instead (still refusing to drop
an uncovered line).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lyt_toolkit import __version__
from lyt_toolkit._deprecation import DEPRECATIONS

from . import public_api


@pytest.fixture(scope="module")
def now() -> list[str]:
    return public_api.listing()


def test_no_public_name_or_parameter_disappears_without_a_deprecation(now: list[str]) -> None:
    added, removed = public_api.differences(now, public_api.committed())
    breaking = public_api.breaking(added, removed)
    assert not breaking, "\n".join(public_api.report([], breaking))


def test_the_public_api_matches_its_listing(now: list[str]) -> None:
    if os.environ.get("LYT_WRITE_PUBLIC_API") == "1":
        messages: list[str] = []
        assert public_api.write(out=messages.append) == 0, "\n".join(messages)
    added, removed = public_api.differences(now, public_api.committed())
    assert not (added or removed), "\n".join(public_api.report(added, removed))


def test_the_listing_is_sorted_and_unique() -> None:
    lines = public_api.committed()
    assert lines, f"no listing yet: {public_api.REGENERATE}"
    assert lines == sorted(set(lines))


@pytest.mark.parametrize("module", public_api.public_modules())
def test_every_public_package_declares_its_names(module: str) -> None:
    import importlib

    exported = getattr(importlib.import_module(module), "__all__", None)
    assert exported is not None, f"{module} has no __all__"
    assert all(not name.startswith("_") or name == "__version__" for name in exported)


def test_the_listing_names_the_deprecated_spellings(now: list[str]) -> None:
    assert "lyt_toolkit.actions.BenefitImport.plan [deprecated]" in now
    assert "lyt_toolkit.widgets.DangerZone.tier_structures_select [deprecated]" in now
    for entry in public_api.current_deprecations():
        assert any(line.startswith(f"deprecated: {entry.name} (") for line in now)


def test_a_deprecation_due_for_removal_is_gone(now: list[str]) -> None:
    """At the release of a deprecation's removal version, its spelling must be removed."""
    version = public_api._version_tuple(__version__)
    due = [d for d in DEPRECATIONS if public_api._version_tuple(d.removed_in) <= version]
    still = [d.name for d in due if f"{d.name}{public_api.DEPRECATED_MARK}" in now]
    assert not still, f"remove these, due in {__version__}: {still}"


def test_deprecation_entries_are_well_formed() -> None:
    names = [d.name for d in DEPRECATIONS]
    assert len(names) == len(set(names))
    for entry in DEPRECATIONS:
        since = public_api._version_tuple(entry.since)
        assert since < public_api._version_tuple(entry.removed_in), entry
        assert entry.name.startswith("lyt_toolkit.") and entry.instead


def test_covered_accepts_only_what_a_deprecation_names() -> None:
    assert public_api.covered("lyt_toolkit.actions.BenefitImport.plan")
    assert public_api.covered("lyt_toolkit.actions.BenefitImport.plan [deprecated]")
    assert public_api.covered("lyt_toolkit.widgets.DangerZone.webhooks_select.value")
    assert public_api.covered("deprecated: lyt_toolkit.x.y (since 0.4.0, removed in 0.5.0)")
    assert not public_api.covered("lyt_toolkit.actions.BenefitImport.rows")
    assert not public_api.covered("lyt_toolkit.actions.BenefitImport.planned")


def test_the_report_separates_breaking_removals_from_additions() -> None:
    text = "\n".join(
        public_api.report(
            ["lyt_toolkit.new_name"],
            ["lyt_toolkit.old_name", "lyt_toolkit.actions.BenefitImport.plan [deprecated]"],
        )
    )
    assert "without a deprecation" in text and "  - lyt_toolkit.old_name" in text
    assert "covered by a deprecation" in text and "  + lyt_toolkit.new_name" in text
    assert public_api.REGENERATE in text


def test_marking_a_name_deprecated_is_not_a_breaking_removal() -> None:
    line = "lyt_toolkit.inputs.BenefitImport.rows"
    assert public_api.breaking([line + public_api.DEPRECATED_MARK], [line]) == []
    assert public_api.breaking([], [line]) == [line]


def test_parameters_are_listed_by_kind_position_and_default() -> None:
    def f(a: int, b: int = 1, /, c: int = 2, *args: int, d: int, e: int = 3, **kw: int) -> None:
        pass

    assert public_api.parameter_lines("f", f) == [
        "f(#0 a /)",
        "f(#1 b= /)",
        "f(#2 c=)",
        "f(*args)",
        "f(* d)",
        "f(* e=)",
        "f(**kw)",
    ]


def test_writing_refuses_to_drop_an_uncovered_line(
    now: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = tmp_path / "public_api.txt"
    old = [*now, "lyt_toolkit.gone", "lyt_toolkit.actions.BenefitImport.plan"]
    listing.write_text("".join(f"{line}\n" for line in sorted(old)), encoding="utf-8")
    monkeypatch.setattr(public_api, "LISTING", listing)
    messages: list[str] = []
    assert public_api.write(out=messages.append) == 1
    assert "  - lyt_toolkit.gone" in messages and "lyt_toolkit.gone" in listing.read_text()
    assert public_api.write(allow_breaking=True, out=messages.append) == 0
    assert public_api.committed() == now
