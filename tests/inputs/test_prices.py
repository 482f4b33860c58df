"""The prices file of ``lyt report economics --prices``: read exactly, refused with the place."""

from __future__ import annotations

from pathlib import Path

import pytest

from lyt_toolkit.inputs import InputFileError
from lyt_toolkit.inputs.prices import read_prices


def test_prices_are_read_as_ids_and_minor_units(tmp_path: Path) -> None:
    path = tmp_path / "prices.csv"
    path.write_text("id,value,note\nprod_mug,1250,a mug\nsku_bag, 399.5 ,\n", encoding="utf-8")
    prices = read_prices(path)
    assert prices["id"].tolist() == ["prod_mug", "sku_bag"]
    assert prices["value"].tolist() == [1250.0, 399.5]
    assert (str(prices["id"].dtype), str(prices["value"].dtype)) == ("string", "Float64")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("id,price\nprod_mug,1\n", "missing column(s) value"),
        ("id,value\nprod_mug,12€\n", "row 1, column value: '12€' is not a number"),
        ("id,value\nprod_mug,-1\n", "row 1, column value: must not be negative"),
        ("id,value\n,1\n", "row 1, column id: is empty"),
        ("id,value\nprod_mug,1\nprod_mug,2\n", "row 2, column id: 'prod_mug' is priced again"),
    ],
)
def test_a_bad_prices_file_is_refused_naming_file_row_and_column(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "prices.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError) as caught:
        read_prices(path)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)
