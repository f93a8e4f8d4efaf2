"""Werewolf's options: the rule options' defaults and bounds are the engine's."""

from __future__ import annotations

import pytest

from bot.options import OptionError
from games.werewolf.options import WEREWOLF_OPTIONS, rule_options
from games.werewolf.rules import MAX_WOLVES, WOLF_COUNT, Options, wolves_for


def test_the_defaults_are_the_engines() -> None:
    defaults = WEREWOLF_OPTIONS.defaults()
    assert rule_options(defaults) == Options()
    assert defaults["night_hours"] == defaults["day_hours"] == 24.0
    assert defaults["majority_ends_day"] and defaults["early_close"] and defaults["reveal_roles"]


def test_wolves_zero_is_the_table_and_the_bounds_are_the_engines() -> None:
    options = rule_options({**WEREWOLF_OPTIONS.defaults(), "wolves": 0})
    assert options.wolves is None and wolves_for(12, options) == WOLF_COUNT[12]
    assert wolves_for(12, rule_options({"wolves": 5})) == 5
    (wolves,) = [o for o in WEREWOLF_OPTIONS.options if o.name == "wolves"]
    assert (wolves.min, wolves.max) == (0, MAX_WOLVES)
    with pytest.raises(OptionError):
        wolves.validate(MAX_WOLVES + 1, "werewolf")
