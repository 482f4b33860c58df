"""lyt_toolkit's public API as sorted lines, and the committed listing it is checked against.

What is listed (one line each, sorted, written to ``public_api.txt`` beside this file):

- every name in the ``__all__`` of ``lyt_toolkit``, of each public package or module
  directly under it (names not starting with ``_``; ``lyt_toolkit.cli`` is the command,
  listed by its options instead) and of :data:`EXTRA_MODULES`:
  ``lyt_toolkit.reports.write_reports``;
- each parameter of a listed function, method or class constructor, with its kind and
  position: ``name(#2 summary)`` (positional, third), ``name(* snapshot=)`` (keyword-only,
  with a default), ``name(*args)``, ``name(**kwargs)``; ``=`` marks a default (its value is
  not listed);
- every public attribute of a listed class that the package defines: methods,
  properties, class attributes, dataclass and pydantic fields, enum members and the
  attributes its methods assign (``self.status = ...``), as ``name.attribute`` (members
  inherited from other libraries, such as ipywidgets' or pydantic's, are not listed);
- every ``lyt`` subcommand and option: ``lyt sandbox serve --port``;
- every entry of ``lyt_toolkit._deprecation.DEPRECATIONS`` not yet due for removal, as
  ``deprecated: NAME (since X, removed in Y)``; a listed name that is deprecated ends
  ``[deprecated]``.

Regenerate after a deliberate change (the diff of the listing is the review):

    .venv/bin/python -m tests.api.public_api --write

or ``LYT_WRITE_PUBLIC_API=1 .venv/bin/pytest tests/api/test_public_api.py``. Without
``--write`` the command prints the differences and exits 1 if there are any. Writing
refuses to drop a line no deprecation entry covers unless ``--allow-breaking`` is given.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import enum
import functools
import importlib
import inspect
import pkgutil
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from lyt_toolkit._deprecation import deprecated_attribute

LISTING = Path(__file__).with_name("public_api.txt")
ROOT = "lyt_toolkit"
EXTRA_MODULES = ("lyt_toolkit.models.enums", "lyt_toolkit.models.ids")
"""Public modules below a package whose names its ``__all__`` does not carry."""
NOT_LISTED = frozenset({"lyt_toolkit.cli"})
"""Public packages whose Python names are not API: the command line is, listed by option."""
REGENERATE = ".venv/bin/python -m tests.api.public_api --write"
DEPRECATED_MARK = " [deprecated]"


def public_modules() -> list[str]:
    """``lyt_toolkit``, every public package or module directly under it, and the extras."""
    package = importlib.import_module(ROOT)
    names = [ROOT]
    for info in pkgutil.iter_modules(package.__path__):
        name = f"{ROOT}.{info.name}"
        if not info.name.startswith("_") and name not in NOT_LISTED:
            names.append(name)
    return sorted([*names, *EXTRA_MODULES])


def _deprecations() -> tuple[Any, ...]:
    from lyt_toolkit._deprecation import DEPRECATIONS

    return DEPRECATIONS


def _version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("."))


def current_deprecations() -> list[Any]:
    """Entries of ``DEPRECATIONS`` whose removal version is after the package's version."""
    from lyt_toolkit import __version__

    now = _version_tuple(__version__)
    return [d for d in _deprecations() if _version_tuple(d.removed_in) > now]


# -- signatures ------------------------------------------------------------------------------


def parameter_lines(name: str, func: Any, *, drop_first: bool = False) -> list[str]:
    """One line per parameter of ``func``: kind, position and whether it has a default."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return []
    params = list(signature.parameters.values())
    if drop_first and params:
        params = params[1:]
    lines = []
    position = 0
    for p in params:
        default = "=" if p.default is not inspect.Parameter.empty else ""
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            text = f"*{p.name}"
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            text = f"**{p.name}"
        elif p.kind is inspect.Parameter.KEYWORD_ONLY:
            text = f"* {p.name}{default}"
        else:
            slash = " /" if p.kind is inspect.Parameter.POSITIONAL_ONLY else ""
            text = f"#{position} {p.name}{default}{slash}"
            position += 1
        lines.append(f"{name}({text})")
    return lines


# -- classes ---------------------------------------------------------------------------------


def _ours(klass: type) -> bool:
    return klass.__module__ == ROOT or klass.__module__.startswith(ROOT + ".")


@functools.cache
def _assigned_attributes(klass: type) -> dict[str, type | None]:
    """Names a method of ``klass`` assigns on ``self`` (``self.name = ...``), each with the
    package's class it is built from when it is one (``self.rewards = Rewards(t)``)."""
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):
        return {}
    scope = vars(sys.modules[klass.__module__])
    names: dict[str, type | None] = {}
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = list(node.targets), node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        built = None
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            found = scope.get(value.func.id)
            if inspect.isclass(found) and _ours(found):
                built = found
        for target in targets:
            for leaf in ast.walk(target):
                if (
                    isinstance(leaf, ast.Attribute)
                    and isinstance(leaf.value, ast.Name)
                    and leaf.value.id == "self"
                ) and names.get(leaf.attr) is None:
                    names[leaf.attr] = built if leaf is target else None
    return names


NOT_MEMBERS = frozenset({"model_config"})
"""Attributes our classes set for a library (pydantic's configuration), not for users."""


def class_lines(
    name: str, klass: type, *, within: tuple[type, ...] = (), nested: bool = False
) -> list[str]:
    """The public attributes of ``klass`` that the package defines, and their signatures.

    An attribute a method builds from another class of the package (a client's resource
    group, a widget's section) lists that class's attributes under it too.
    """
    lines: list[str] = []
    own = [k for k in klass.__mro__ if _ours(k)]
    is_enum = issubclass(klass, enum.Enum)
    members: dict[str, Any] = {}
    built: dict[str, type] = {}
    for k in reversed(own):
        for attr, value in vars(k).items():
            members[attr] = value
            half = getattr(value, "built_for", None)  # a group both clients declare once
            if callable(half):
                built[attr] = half(klass)
        for attr in getattr(k, "__annotations__", {}):
            members.setdefault(attr, None)
        for attr, made in _assigned_attributes(k).items():
            members.setdefault(attr, None)
            if made is not None:
                built[attr] = made
    if dataclasses.is_dataclass(klass):
        for field in dataclasses.fields(klass):
            members.setdefault(field.name, None)
    model_fields = getattr(klass, "model_fields", None)
    if isinstance(model_fields, dict):
        for field in model_fields:
            members.setdefault(field, None)
    if issubclass(klass, enum.Enum):
        for member in klass.__members__:
            members.setdefault(member, None)
    for attr in sorted(members):
        if attr.startswith("_") or attr in NOT_MEMBERS:
            continue
        raw = members[attr]
        mark = DEPRECATED_MARK if isinstance(raw, deprecated_attribute) else ""
        lines.append(f"{name}.{attr}{mark}")
        if isinstance(raw, staticmethod):
            lines += parameter_lines(f"{name}.{attr}", raw.__func__)
        elif isinstance(raw, classmethod):
            lines += parameter_lines(f"{name}.{attr}", raw.__func__, drop_first=True)
        elif inspect.isfunction(raw):
            lines += parameter_lines(f"{name}.{attr}", raw, drop_first=True)
        made = built.get(attr)
        if made is not None and made not in within and made is not klass:
            lines += class_lines(f"{name}.{attr}", made, within=(*within, klass), nested=True)
    if not nested and not is_enum and _constructor_is_ours(klass, own):
        lines += parameter_lines(name, klass)
    return lines


def _constructor_is_ours(klass: type, own: list[type]) -> bool:
    if dataclasses.is_dataclass(klass):
        return True
    return any("__init__" in vars(k) or "__new__" in vars(k) for k in own)


# -- modules ---------------------------------------------------------------------------------


def module_lines(module_name: str) -> list[str]:
    """The lines of one public module: its ``__all__`` and what each name holds."""
    module = importlib.import_module(module_name)
    exported = getattr(module, "__all__", None)
    if exported is None:
        raise AssertionError(f"{module_name} declares no __all__: every public package must")
    lines: list[str] = []
    for export in sorted(exported):
        name = f"{module_name}.{export}"
        lines.append(name)
        value = getattr(module, export)
        if inspect.isclass(value):
            lines += class_lines(name, value)
        elif inspect.isfunction(value) or inspect.isbuiltin(value):
            lines += parameter_lines(name, value)
    return lines


def cli_lines() -> list[str]:
    """``lyt`` and every subcommand and option, as typed on the command line."""
    from lyt_toolkit.cli import build_parser

    lines: list[str] = []

    def walk(parser: argparse.ArgumentParser, prefix: str) -> None:
        lines.append(prefix)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command, sub in action.choices.items():
                    walk(sub, f"{prefix} {command}")
            elif isinstance(action, argparse._HelpAction):
                continue
            elif action.option_strings:
                lines.extend(f"{prefix} {option}" for option in action.option_strings)
            else:
                lines.append(f"{prefix} {action.metavar or action.dest.upper()}")

    walk(build_parser(), "lyt")
    return lines


def _subject(line: str) -> str:
    return line.removesuffix(DEPRECATED_MARK)


def listing() -> list[str]:
    """The public API now: sorted, unique lines."""
    return list(_listing())


@functools.cache
def _listing() -> tuple[str, ...]:
    """``listing``, worked out once a process (the package does not change while it runs;
    importing and reading every public module takes seconds)."""
    lines: set[str] = set()
    for module_name in public_modules():
        lines.update(module_lines(module_name))
    lines.update(cli_lines())
    deprecated = current_deprecations()
    names = {d.name for d in deprecated}
    marked = {
        line + DEPRECATED_MARK if line in names and not line.endswith(DEPRECATED_MARK) else line
        for line in lines
    }
    marked.update(
        f"deprecated: {d.name} (since {d.since}, removed in {d.removed_in})" for d in deprecated
    )
    return tuple(sorted(marked))


def committed() -> list[str]:
    """The committed listing, ``public_api.txt`` (empty if there is none yet)."""
    if not LISTING.exists():
        return []
    return [line for line in LISTING.read_text(encoding="utf-8").splitlines() if line]


def covered(line: str) -> bool:
    """Whether ``line`` may disappear: it was listed as deprecated, or a deprecation entry
    (current or past) names it or the class or function it belongs to."""
    if line.endswith(DEPRECATED_MARK) or line.startswith("deprecated: "):
        return True  # listed as deprecated: announced
    subject = _subject(line)
    for entry in _deprecations():
        if subject == entry.name or subject.startswith((entry.name + ".", entry.name + "(")):
            return True
    return False


def breaking(added: Iterable[str], removed: Iterable[str]) -> list[str]:
    """The removed lines nothing covers: no deprecation, and not still listed as deprecated
    (a name marked deprecated leaves its unmarked line)."""
    still = set(added)
    return [line for line in removed if not covered(line) and line + DEPRECATED_MARK not in still]


def differences(now: Iterable[str], before: Iterable[str]) -> tuple[list[str], list[str]]:
    """``(added, removed)``: lines only in ``now``, lines only in ``before``."""
    now_set, before_set = set(now), set(before)
    return sorted(now_set - before_set), sorted(before_set - now_set)


def report(added: list[str], removed: list[str]) -> Iterator[str]:
    """The differences as text for a person."""
    unannounced = breaking(added, removed)
    if unannounced:
        yield "Removed from the public API without a deprecation (a breaking change):"
        yield from (f"  - {line}" for line in unannounced)
        yield (
            "  Restore them, or keep them working with a deprecation "
            "(lyt_toolkit/_deprecation.py) until its removal version."
        )
    deprecated = [line for line in removed if line not in unannounced]
    if deprecated:
        yield "Removed or changed, covered by a deprecation:"
        yield from (f"  - {line}" for line in deprecated)
    if added:
        yield "Added to the public API:"
        yield from (f"  + {line}" for line in added)
    if added or removed:
        yield f"If every change is deliberate, regenerate the listing: {REGENERATE}"
        yield "and add each to CHANGELOG.md under [Unreleased]."


def write(allow_breaking: bool = False, out: Callable[[str], None] = print) -> int:
    """Rewrite the listing; refuses (exit 1) to drop an uncovered line without
    ``allow_breaking``."""
    now = listing()
    added, removed = differences(now, committed())
    if breaking(added, removed) and not allow_breaking:
        for line in report(added, removed):
            out(line)
        out("Not written: pass --allow-breaking to drop those lines anyway.")
        return 1
    LISTING.write_text("".join(line + "\n" for line in now), encoding="utf-8")
    out(f"{LISTING}: {len(now)} lines (+{len(added)} -{len(removed)})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.api.public_api", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--write", action="store_true", help="rewrite public_api.txt")
    parser.add_argument(
        "--allow-breaking",
        action="store_true",
        help="with --write: drop lines no deprecation covers (a breaking change)",
    )
    args = parser.parse_args(argv)
    if args.write:
        return write(args.allow_breaking)
    added, removed = differences(listing(), committed())
    for line in report(added, removed):
        print(line)
    return 1 if added or removed else 0


if __name__ == "__main__":
    sys.exit(main())
