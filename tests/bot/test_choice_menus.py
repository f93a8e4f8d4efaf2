"""The secret choices' menus (cogs/choice.py) as Discord receives them: a select, or buttons
whose custom_id carries the value, each read back by its template after a restart."""

from __future__ import annotations

from bot import limits
from cogs.choice import ChoiceButton, ChoiceSelect, choice_view

BIG = 2**63 - 1  # the longest ids a custom_id may carry


def test_a_select_offers_each_option_under_one_custom_id() -> None:
    options = [["Alice", "11", "the first"], ["Bob", "12"]]
    view = choice_view("pl_pick", BIG, 3, options, "Whom?", False)
    (row,) = view.to_components()
    (select,) = row["components"]
    assert select["custom_id"] == f"choice:pl_pick:{BIG}:3"
    assert [(o["label"], o["value"], o.get("description")) for o in select["options"]] == [
        ("Alice", "11", "the first"),
        ("Bob", "12", None),
    ]
    assert (select["min_values"], select["max_values"], select["placeholder"]) == (1, 1, "Whom?")
    match = ChoiceSelect.__discord_ui_compiled_template__.fullmatch(select["custom_id"])
    assert match is not None and (match["name"], match["game"], match["step"]) == (
        "pl_pick",
        str(BIG),
        "3",
    )
    assert limits.components_breaches(view.to_components()) == []


def test_buttons_carry_their_value_in_their_custom_id() -> None:
    view = choice_view("ww_witch", 7, 2, [["Heal", "heal"], ["Let die", "none"]], "", True)
    (row,) = view.to_components()
    ids = [b["custom_id"] for b in row["components"]]
    assert ids == ["choice:ww_witch:7:2:heal", "choice:ww_witch:7:2:none"]
    assert [b["label"] for b in row["components"]] == ["Heal", "Let die"]
    pattern = ChoiceButton.__discord_ui_compiled_template__
    found = [pattern.fullmatch(i) for i in ids]
    assert [(m["name"], m["step"], m["value"]) for m in found if m] == [
        ("ww_witch", "2", "heal"),
        ("ww_witch", "2", "none"),
    ]
    # a select's custom_id is not a button's, nor the other way round
    assert ChoiceSelect.__discord_ui_compiled_template__.fullmatch(ids[0]) is None
    assert pattern.fullmatch("choice:ww_witch:7:2") is None
