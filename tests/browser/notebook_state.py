"""Re-execute notebooks and store the state of their widgets in them (``make notebook-state``).

    .venv/bin/python tests/browser/notebook_state.py notebooks/*.ipynb

With the state in ``metadata.widgets``, a trusted notebook shows its widgets as they were
at the end of the run before anyone runs it (JupyterLab, nbviewer, GitHub's renderer
read it). Each notebook is executed on a copy in memory, in ``notebooks/`` as nbval
does, with nbclient's ``store_widget_state``. The state is then made reviewable:

- only the models the displayed widgets reach are kept (not every comm left open);
- consecutive stream outputs are joined, as a print may arrive in one chunk or two;
- model IDs become ``uuid5`` names of (notebook, position in a walk from the displayed
  widgets), so a re-run changes the state only where a widget shows something new
  (request IDs in a results download do change on every run);
- it is refused, and nothing is written, when the state holds a sandbox
  credential, an absolute path of this machine or a loopback URL with its port.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
REFERENCE = re.compile(r"IPY_MODEL_([0-9a-f]{32})")
ID_NAMESPACE = uuid.UUID("6f1c3a52-43d5-4a8e-9a35-5e8e0c0b7a11")
"""Fixed, so the stored IDs depend only on the notebook's name and its widgets."""
LOOPBACK_URL = re.compile(r"https?://(127\.0\.0\.1|localhost):\d+")

Notebook = dict[str, Any]


def widget_views(notebook: Notebook) -> Iterator[tuple[int, str]]:
    """(cell index, model ID) of every widget view among the notebook's outputs."""
    for index, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None:
                yield index, view["model_id"]


def widget_cells(notebook: Notebook) -> dict[int, int]:
    """Cell index -> how many widget views that cell displays."""
    counts: dict[int, int] = {}
    for index, _ in widget_views(notebook):
        counts[index] = counts.get(index, 0) + 1
    return counts


def stored_state(notebook: Notebook) -> dict[str, Any]:
    """Model ID -> stored model (empty when the notebook stores no widget state)."""
    widgets = notebook.get("metadata", {}).get("widgets", {})
    state: dict[str, Any] = widgets.get(WIDGET_STATE, {}).get("state", {})
    return state


def reachable(state: dict[str, Any], roots: Iterable[str]) -> list[str]:
    """Model IDs reached from ``roots`` through ``IPY_MODEL_`` references, in walk order
    (depth first, references in the order of the model's sorted JSON). Missing IDs are
    listed too, so a caller can report them."""
    seen: list[str] = []

    def walk(model_id: str) -> None:
        if model_id in seen:
            return
        seen.append(model_id)
        text = json.dumps(state.get(model_id, {}), sort_keys=True)
        for referenced in REFERENCE.findall(text):
            walk(referenced)

    for root in roots:
        walk(root)
    return seen


def normalised(notebook: Notebook, name: str) -> Notebook:
    """The notebook with its widget state pruned to what its views reach and IDs renamed.

    Idempotent: a notebook this wrote comes back unchanged.
    """
    state = stored_state(notebook)
    order = reachable(state, (model_id for _, model_id in widget_views(notebook)))
    missing = [model_id for model_id in order if model_id not in state]
    if missing:
        raise ValueError(f"{name}: widget models displayed or referenced but not stored: {missing}")
    names = {old: uuid.uuid5(ID_NAMESPACE, f"{name}:{n}").hex for n, old in enumerate(order)}
    text = json.dumps(notebook)
    for old, new in names.items():
        text = text.replace(old, new)
    renamed: Notebook = json.loads(text)
    if not order:
        renamed["metadata"].pop("widgets", None)
        return renamed
    kept = stored_state(renamed)
    renamed["metadata"]["widgets"][WIDGET_STATE]["state"] = {
        names[old]: kept[names[old]] for old in order
    }
    return renamed


def leaks(notebook: Notebook, forbidden: Iterable[str]) -> list[str]:
    """What must never be committed that the stored widget state holds (the outputs
    are nbval's and ``tests/notebooks``' business)."""
    text = json.dumps(stored_state(notebook))
    found = [f"{value[:12]}..." for value in forbidden if value and value in text]
    if LOOPBACK_URL.search(text):
        found.append("a loopback URL with its port")
    return found


def _forbidden() -> list[str]:
    from lyt_toolkit.sandbox.config import DEFAULT_CREDENTIALS, SandboxCredentials

    env = SandboxCredentials.from_env()
    values = [DEFAULT_CREDENTIALS["app_token"], DEFAULT_CREDENTIALS["management_token"]]
    values += [env.app_token, env.management_token]
    here = Path(__file__).resolve().parents[2]
    return [*values, str(here), str(Path.home()), tempfile.gettempdir() + "/"]


def store(path: Path) -> None:
    """Execute ``path`` on a copy, normalise its widget state, check it, write it back."""
    import nbformat
    from nbclient import NotebookClient
    from nbconvert.preprocessors import CoalesceStreamsPreprocessor

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
        record_timing=False,
    )
    client.execute()
    # A print may reach the kernel's stdout in one chunk or two: store one stream output.
    CoalesceStreamsPreprocessor().preprocess(notebook, {})
    result = normalised(json.loads(nbformat.writes(notebook)), path.stem)
    problems = leaks(result, _forbidden())
    if problems:
        raise SystemExit(f"{path}: not written, it would commit {', '.join(problems)}")
    nbformat.write(nbformat.from_dict(result), path)
    print(f"{path}: {len(stored_state(result))} widget models stored")


if __name__ == "__main__":
    for argument in sys.argv[1:]:
        store(Path(argument))
