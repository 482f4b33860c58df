"""The reference check's quick answer for a good file never hides a problem."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lyt_toolkit.sandbox.programcheck import _references, dangling_references

_IDS = st.sampled_from(["p1", "p2", "s1", "gone", "prod_5h1pp1ng"])
_KEYS = st.sampled_from(["product_id", "sku_id", "product", "sku", "metadata", "id", "x"])
_VALUES = st.recursive(
    _IDS | st.integers() | st.none(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=10,
)


def _walked(sections: dict[str, list[Any]], missing: frozenset[str]) -> list[str]:
    """The problems found by walking every record, path by path (no quick answer)."""
    ids = {
        k: {r["id"] for r in rs if isinstance(r, dict) and "id" in r} for k, rs in sections.items()
    }
    return [
        f"{section}[{index}] {record.get('id')}: {path}: {value} is not in {target}"
        for section, records in sections.items()
        for index, record in enumerate(records)
        if isinstance(record, dict)
        for path, target, value in _references(record, "")
        if value not in ids.get(target, ()) and value != "prod_5h1pp1ng" and value not in missing
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.dictionaries(_KEYS.filter(lambda k: k != "id"), _VALUES, max_size=4), max_size=3),
    st.frozensets(_IDS, max_size=2),
)
def test_dangling_references_agree_with_the_walk(
    orders: list[Any], missing: frozenset[str]
) -> None:
    sections = {
        "products": [{"id": "p1"}, {"id": "p2"}],
        "skus": [{"id": "s1", "product_id": "p1"}],
        "orders": orders,
    }
    assert dangling_references(sections, missing) == _walked(sections, missing)


def test_a_reference_in_metadata_is_not_checked_but_one_beside_it_is() -> None:
    sections: dict[str, list[dict[str, Any]]] = {
        "products": [{"id": "p1"}],
        "skus": [{"id": "s1", "product_id": "gone", "metadata": {"product_id": "gone too"}}],
    }
    assert dangling_references(sections, frozenset()) == [
        "skus[0] s1: product_id: gone is not in products"
    ]
    sections["skus"][0]["product_id"] = "p1"
    assert dangling_references(sections, frozenset()) == []
