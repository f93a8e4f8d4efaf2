"""The Resistance's options (games/resistance/options.py): the config's check of the Avalon
roles is the one the commands answer with."""

from __future__ import annotations

import pytest

from bot.options import OptionError
from games.resistance.options import RESISTANCE_OPTIONS


def test_the_config_and_the_commands_share_one_check() -> None:
    """The refusal the config prints is the schema's, and so is the message a command answers
    (``OptionsSchema.verify`` and ``Option.validate``, called by /settings and /<game> new)."""
    with pytest.raises(OptionError) as config:
        RESISTANCE_OPTIONS.parse_config({"morgana": True})
    merged = {**RESISTANCE_OPTIONS.defaults(), "variant": "avalon", "morgana": True}
    with pytest.raises(OptionError) as command:
        RESISTANCE_OPTIONS.verify(merged)
    assert str(config.value) == "[games.resistance] " + str(command.value)
    assert command.value.key == "resistance.error.morgana_needs_percival"
    RESISTANCE_OPTIONS.verify({**merged, "percival": True})
    with pytest.raises(OptionError) as typed:
        RESISTANCE_OPTIONS.given({"deadline_time": "9pm"}, "new")
    assert typed.value.key == "daily.bad_time" and typed.value.params["value"] == "9pm"
