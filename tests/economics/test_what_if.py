"""``whatif.what_if`` on a program whose figures are computed by hand (``what_if_program``),
pulled over HTTP: the money before and after, who can make each edit, the findings."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from frame_reads import cell

from lyt_toolkit import ProgramSnapshot, actions
from lyt_toolkit.actions import EditError
from lyt_toolkit.economics import DEFINITION_CHANGE, HEADLINE_CHANGE, MISPRICING_CHANGE
from lyt_toolkit.economics.intervals import difference_estimates, estimates_and_members
from lyt_toolkit.frames.sample import Sample, SampleDraw, estimate_totals
from lyt_toolkit.whatif import EDITS, Baseline, MadeBy, reward_price, what_if

from .programs import GEMS, STARS


def _price_and_draft(snapshot: ProgramSnapshot) -> actions.ProgramEdit:
    """The $10 Voucher's Stars cost 25 % dearer (1,000 -> 1,250: no call makes it) and the
    $5 Voucher moved to draft (a call makes it)."""
    edit = actions.edit(snapshot)
    costs = edit.reward_costs
    stars = (costs["reward_id"] == "lrew_e002") & (costs["card_definition_id"] == STARS)
    costs.loc[stars, "points"] = 1250
    rewards = edit.rewards
    rewards.loc[rewards["id"] == "lrew_e001", "status"] = "DRAFT"
    return edit


def _figures(frame: pd.DataFrame) -> dict[str, tuple[float, float, float]]:
    rows = frame.set_index("figure")
    return {f: tuple(rows.loc[f, ["before", "after", "change"]]) for f in rows.index}


def test_the_money_moves_as_computed_by_hand(holding: ProgramSnapshot) -> None:
    result = what_if(holding, _price_and_draft(holding))
    # Stars' ACTIVE values per point: 0.02 (ratio) and 1250 / 1000... the $10 Voucher now
    # 1000 for 1250 = 0.8, the $5 Voucher gone to draft: median (0.02 + 0.8) / 2 = 0.41.
    # Gems: 4.0 and Gems to Stars 80 x 0.41 / 100 = 0.328: median 2.164.
    figures = _figures(result.headline)
    assert figures["liability_median"] == pytest.approx((1980, 1500 * 0.41 + 200 * 2.164, -932.2))
    assert figures["liability_low"] == pytest.approx((190, 1500 * 0.02 + 200 * 0.328, -94.4))
    assert figures["liability_high"] == pytest.approx((2675, 1500 * 0.8 + 200 * 4.0, -675))
    assert figures["outstanding_points"] == (1700, 1700, 0)
    # Gems now return most: 1 per 200 of spend x 2.164 (Stars: 0.025 x 0.41).
    assert figures["highest_effective_return"] == pytest.approx((0.025, 0.005 * 2.164, -0.01418))
    definitions = result.card_definitions.set_index("card_definition_id")
    assert definitions.loc[STARS, "value_median_after"] == pytest.approx(0.41)
    assert definitions.loc[STARS, "return_median_after"] == pytest.approx(0.01025)
    assert definitions.loc[GEMS, "value_median_change"] == pytest.approx(2.164 - 2.4)
    assert definitions.loc[GEMS, "liability_median_before"] == pytest.approx(480)
    assert definitions.loc[STARS, "earn_points_per_unit_change"] == 0
    # Stars keeps two observations: too few to call anything mispriced, so the old $20
    # voucher's finding (20 per point against a median of 1) resolves.
    assert result.mispricing[["change", "reward_id"]].values.tolist() == [["resolved", "lrew_e007"]]
    for frame, schema in (
        (result.headline, HEADLINE_CHANGE),
        (result.card_definitions, DEFINITION_CHANGE),
        (result.mispricing, MISPRICING_CHANGE),
        (result.edits, EDITS),
    ):
        assert list(frame.columns) == schema.names
        assert frame.dtypes.to_dict() == schema.dtypes


def test_a_price_alone_moves_the_median_and_the_mispricing_ratio(holding: ProgramSnapshot) -> None:
    edit = actions.edit(holding)
    costs = edit.reward_costs
    costs.loc[(costs["reward_id"] == "lrew_e002") & (costs["card_definition_id"] == STARS),
              "points"] = 1250  # fmt: skip
    result = what_if(holding, edit)
    # Stars: 0.02, 1.25, 0.8: median 0.8; Gems: 4.0 and 80 x 0.8 / 100 = 0.64: median 2.32.
    figures = _figures(result.headline)
    assert figures["liability_median"] == pytest.approx((1980, 1200 + 464, -316))
    mispricing = result.mispricing.set_index("reward_id")
    assert mispricing.loc["lrew_e007", "change"] == "changed"
    assert mispricing.loc["lrew_e007", "ratio_before"] == pytest.approx(20)
    assert mispricing.loc["lrew_e007", "ratio_after"] == pytest.approx(25)


def test_each_edit_says_whether_the_service_or_only_its_dashboard_can_make_it(
    holding: ProgramSnapshot,
) -> None:
    result = what_if(holding, _price_and_draft(holding))
    edits = result.edits.set_index("kind")
    assert edits.loc["rewards", "made_by"] == MadeBy.SERVICE
    assert edits.loc["rewards", "call"] == "move_reward_to_draft"
    assert (edits.loc["rewards", "before"], edits.loc["rewards", "after"]) == ("ACTIVE", "DRAFT")
    assert edits.loc["reward_costs", "made_by"] == MadeBy.DASHBOARD
    assert "no call" in cell(edits, "reward_costs", "reason")
    assert pd.isna(cell(edits, "reward_costs", "call"))
    plan = result.plan
    assert len(plan.changes) == 1 and len(plan.unsupported) == 1
    assert plan.summary().startswith("Plan: 0 to create, 1 to change, 0 to delete; 1 change")
    text = str(result)
    assert "2 edits: 1 the service can make (1 call), 1 only in its dashboard" in text


def test_the_findings_that_appear_and_resolve_are_listed(holding: ProgramSnapshot) -> None:
    edit = _price_and_draft(holding)
    rewards = edit.rewards
    rewards.loc[rewards["id"] == "lrew_e003", "name"] = "Coupon"  # now two rewards named so
    result = what_if(holding, edit)
    changes = result.findings.groupby("change")["rule"].apply(set).to_dict()
    assert "duplicate-reward-name" in changes["appeared"]
    assert "reward-mispriced" in changes["resolved"]
    assert "audit findings: " in str(result)


def test_no_edit_moves_nothing(holding: ProgramSnapshot) -> None:
    result = what_if(holding, actions.edit(holding))
    assert (result.headline["change"].fillna(0) == 0).all()
    assert result.after is result.before
    assert result.edits.empty and result.mispricing.empty and result.findings.empty
    assert "No edits" in str(result)


def test_an_edit_as_frames_or_a_snapshot_gives_the_same_figures(holding: ProgramSnapshot) -> None:
    edit = _price_and_draft(holding)
    baseline = Baseline(holding)
    by_edit = baseline.what_if(edit).headline
    by_frames = baseline.what_if({"rewards": edit.rewards, "reward_costs": edit.reward_costs})
    pd.testing.assert_frame_equal(by_frames.headline, by_edit)
    edited = ProgramSnapshot.from_frames(edit.frames(), pulled_at=holding.pulled_at)
    pd.testing.assert_frame_equal(baseline.what_if(edited).headline, by_edit)


def test_a_cell_the_plan_cannot_read_is_refused_naming_frame_row_and_column(
    holding: ProgramSnapshot,
) -> None:
    edit = actions.edit(holding)
    edit.reward_costs["points"] = edit.reward_costs["points"].astype(object)
    edit.reward_costs.loc[edit.reward_costs.index[2], "points"] = "lots"
    with pytest.raises(EditError, match=r"reward_costs row 2, column 'points'"):
        what_if(holding, edit)


def test_an_edit_of_another_snapshot_or_of_no_kind_is_refused(holding: ProgramSnapshot) -> None:
    other = ProgramSnapshot.from_frames(holding.frames(), pulled_at=holding.pulled_at)
    with pytest.raises(ValueError, match="an edit of another snapshot"):
        what_if(holding, actions.edit(other))
    with pytest.raises(ValueError, match=r"unknown frames \['coupons'\]"):
        what_if(holding, {"coupons": holding.rewards})
    with pytest.raises(TypeError, match="edit: expected"):
        what_if(holding, [holding.rewards])  # type: ignore[arg-type]


def test_the_jupyter_view_highlights_what_moved_and_escapes_names(holding: ProgramSnapshot) -> None:
    edit = _price_and_draft(holding)
    rewards = edit.rewards
    rewards.loc[rewards["id"] == "lrew_e003", "name"] = "<b>Mug</b>"
    page = what_if(holding, edit)._repr_html_()
    assert "&lt;b&gt;Mug&lt;/b&gt;" in page and "<b>Mug</b>" not in page
    assert "background:#fff3cd" in page  # the moved figures
    assert "Edits and who can make them" in page and "move_reward_to_draft" in page
    assert "1,980" in page


def test_on_a_sample_the_change_has_its_own_paired_interval_holding_the_truth(
    generated: ProgramSnapshot,
) -> None:
    """Over 100 samples, the interval of the change (each member paired with itself) holds
    the full snapshot's change about 95 times in 100, and is narrower than the two sides'
    intervals taken as independent. The rewards are read whole, so the values per point of
    both sides are the full snapshot's: each sample sums its members' points at them.

    A member's figures are its own whichever sample draws it, so they are worked out once,
    for every member (``estimates_and_members`` of a census), and each sample takes its
    members' rows (its design drawn as ``sampled`` draws it, from the members list cut into
    strata once: ``SampleDraw.reseeded``); each member's change is taken once too, as
    ``difference_estimates`` takes it, and each sample's two sides and change are totalled
    in one ``estimate_totals``. On the first sample they are checked against the sample's
    own ``estimates_and_members`` and ``difference_estimates``, intervals and all, and
    against the what-if's headline."""
    liable = generated.cards.groupby("card_definition_id")["balance_points"].sum()
    price = reward_price(card_definition_id=str(liable.idxmax()))
    full = what_if(generated, price.frames(generated, 0.2))
    truth = _figures(full.headline)["liability_median"][2]
    key = ("liability_median", "", pd.NaT)
    census = generated.sampled(Sample(len(generated.members)))
    assert census.sample is not None and census.sample.census
    everyone = {
        side: estimates_and_members(census, economics.point_values)[1][[key]]
        for side, economics in (("before", full.before), ("after", full.after))
    }
    members = everyone["before"].index.union(everyone["after"].index)
    wide = pd.concat(  # each member's before, after and change (after - before, as paired)
        [everyone[side].reindex(members, fill_value=0.0) for side in ("before", "after")],
        axis=1,
        keys=["b", "a"],
    )
    wide[("c", *key)] = wide[("a", *key)] - wide[("b", *key)]
    held = narrower = 0
    strata = SampleDraw(generated.members, Sample(60, seed=1))  # cut into strata once
    for seed in range(100):
        design = strata.reseeded(seed).first  # what sampled draws (checked on seed 0)
        drawn = wide[members.isin(design.units["member_id"].astype("string"))]
        totals = estimate_totals(design, drawn)
        sides, (low, high) = totals.iloc[:2], totals[["low", "high"]].iloc[2]
        held += low <= truth <= high
        narrower += (high - low) / 2 < math.hypot(*(sides["high"] - sides["low"]) / 2)
        if seed == 0:  # the sample's own figures and intervals, and the what-if's headline
            sampled = generated.sampled(Sample(60, seed=seed))
            assert sampled.sample is not None
            pd.testing.assert_frame_equal(sampled.sample.units, design.units)
            own = [
                estimates_and_members(sampled, economics.point_values)
                for economics in (full.before, full.after)
            ]
            units = design.units["member_id"].astype("string")
            for (estimates, by_member), mine, (_, side) in zip(
                own, everyone.values(), sides.iterrows(), strict=True
            ):
                mine = mine[mine.index.isin(units)]
                pd.testing.assert_frame_equal(by_member[[key]].sort_index(), mine.sort_index())
                assert _program_interval(estimates) == (
                    pytest.approx(side["low"]),
                    pytest.approx(side["high"]),
                )
            paired = difference_estimates(design, own[0][1], own[1][1], pd.Series(dtype="string"))
            assert _program_interval(paired) == (pytest.approx(low), pytest.approx(high))
            row = what_if(sampled, price.frames(sampled, 0.2)).headline.set_index("figure")
            assert (row.loc[key[0], "change_ci_low"], row.loc[key[0], "change_ci_high"]) == (
                pytest.approx(low),
                pytest.approx(high),
            )
    assert truth < 0  # dearer rewards: each point is worth less
    assert 90 <= held <= 100
    assert narrower == 100


def _program_interval(estimates: pd.DataFrame) -> tuple[float, float]:
    """The program's liability_median interval of an ``ESTIMATES`` frame."""
    rows = estimates[
        (estimates["figure"] == "liability_median") & estimates["card_definition_id"].isna()
    ]
    return float(rows["ci_low"].iloc[0]), float(rows["ci_high"].iloc[0])


@pytest.mark.parametrize(
    ("kind", "column", "value", "message"),
    [
        ("benefits", "proportional_every", 0, "must be a positive number, not 0"),
        ("benefits", "proportional_every", -100, "must be a positive number, not -100"),
        ("benefits", "proportional_value", -2, "must be a number at least 0, not -2"),
        ("reward_costs", "points", -5, "must be a number at least 0, not -5"),
    ],
)
def test_a_value_the_service_forbids_is_refused_naming_the_field(
    holding: ProgramSnapshot, kind: str, column: str, value: int, message: str
) -> None:
    edit = actions.edit(holding)
    frame = getattr(edit, kind)
    row = frame.index[frame[column].notna()][0]
    frame.loc[row, column] = value
    with pytest.raises(EditError, match=rf"{kind} row {row}, column '{column}': {message}"):
        what_if(holding, edit)
    with pytest.raises(EditError, match=rf"column '{column}': {message}"):
        Baseline(holding).what_if({kind: frame})


def test_the_other_values_the_service_forbids_are_refused_too(holding: ProgramSnapshot) -> None:
    for kind, column in (
        ("benefits", "points_value"),
        ("benefits", "stock_quantity"),
        ("benefits", "digital_gift_voucher_balance"),
        ("rewards", "digital_points"),
        ("rewards", "digital_gift_voucher_balance"),
    ):
        edit = actions.edit(holding)
        getattr(edit, kind).loc[getattr(edit, kind).index[0], column] = -1
        with pytest.raises(EditError, match=rf"column '{column}': must be a number at least 0"):
            what_if(holding, edit)


def test_a_price_cut_to_nothing_and_a_free_reward_are_still_allowed(
    holding: ProgramSnapshot,
) -> None:
    edit = actions.edit(holding)
    edit.reward_costs.loc[edit.reward_costs.index[0], "points"] = 0
    earning = edit.benefits["proportional_value"].notna().idxmax()
    edit.benefits.loc[earning, "proportional_value"] = 0
    assert what_if(holding, edit).headline is not None
