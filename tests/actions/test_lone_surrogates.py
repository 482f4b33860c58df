"""An edited frame set in pandas whose text cell holds a lone surrogate (``"\\ud800"``: no
request, file or grid can carry one; an object column can hold it) is an ``EditError`` naming
the frame, row and column, as any other value its column cannot hold; it used to escape from
``ChangePlan.from_frames`` as a bare ``UnicodeEncodeError``."""

from __future__ import annotations

import pytest

from lyt_toolkit import ProgramSnapshot
from lyt_toolkit.actions import ChangePlan, EditError
from lyt_toolkit.frames import SCHEMAS


def _base() -> ProgramSnapshot:
    """A one-reward snapshot, no service needed."""
    reward = {"id": "lrew_1", "name": "Mug", "type": "MATERIAL", "status": "ACTIVE"}
    rewards = SCHEMAS["rewards"].build([{n: reward.get(n) for n in SCHEMAS["rewards"].names}])
    return ProgramSnapshot.from_frames(
        {"rewards": rewards}, source="http://service.test", pulled_at="2026-01-15T12:00:00Z"
    )


def test_an_edited_text_cell_holding_a_lone_surrogate_is_refused_naming_row_and_column() -> None:
    base = _base()
    edited = base.rewards.copy()
    edited["name"] = edited["name"].astype(object)
    edited.loc[0, "name"] = "Mug \ud800"
    with pytest.raises(EditError) as refused:
        ChangePlan.from_frames(base, {"rewards": edited})
    message = str(refused.value)
    assert (
        message
        == "rewards row 0, column 'name': 'Mug \\ud800' holds a lone surrogate, not UTF-8 text"
    )
