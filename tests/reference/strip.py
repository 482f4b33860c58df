"""Write the reference OpenAPI subsets into this folder, keeping facts only.

Usage: ``python tests/reference/strip.py [SOURCE_DIR]`` (default ``../shared/reference``
beside the clone). Only the title and version of ``info`` are kept; every
``description``, ``summary``, ``example``, ``examples`` and ``externalDocs`` keyword is
dropped, and OAuth scopes keep their names only. Names, shapes, types, enums and paths
stay. A key inside a ``properties`` mapping is a field name, never a keyword, so it is kept.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = HERE.parents[2] / "shared" / "reference"
PROSE = frozenset({"description", "summary", "example", "examples", "externalDocs"})
NAME_MAPS = frozenset({"properties", "patternProperties", "schemas", "paths", "responses"})


def strip(node: Any, *, names: bool = False, scopes: bool = False) -> Any:
    """``node`` without prose; ``names`` marks a mapping whose keys are names.

    OAuth ``scopes`` map each scope name to prose: the names stay, the prose goes.
    """
    if isinstance(node, list):
        return [strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    if scopes:
        return {name: "" for name in node}
    return {
        key: strip(value, names=key in NAME_MAPS and not names, scopes=key == "scopes")
        for key, value in node.items()
        if names or key not in PROSE
    }


def main(source: Path = DEFAULT_SOURCE) -> None:
    for path in sorted(source.glob("*.openapi.json")):
        document = strip(json.loads(path.read_text(encoding="utf-8")))
        info = document.get("info", {})
        document["info"] = {"title": info.get("title", path.stem), "version": info.get("version")}
        text = json.dumps(document, indent=1, ensure_ascii=False, sort_keys=False) + "\n"
        (HERE / path.name).write_text(text, encoding="utf-8")
        print(f"{path.name}: {path.stat().st_size} -> {len(text.encode())} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_SOURCE)
