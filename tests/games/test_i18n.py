"""The built-in games' catalogues together (bot/i18n.py over each game's): every option is named
as the reader's commands name it, no French message names an option by its English key, and a
variant with a name of its own names the game."""

from __future__ import annotations

import re

from bot.i18n import catalogue, choice_label, every_branch, option_label
from games.builtin import builtin_registry


def test_an_option_is_named_as_the_readers_command_names_its_parameter() -> None:
    """French: the localized name of the parameter, the same in /<game> new and /settings
    <game> (a French player reads the word she types); English, or a game whose catalogue names
    none: the key."""
    fr = catalogue("fr")
    commands = {
        "resistance": ("resistance.new", "settings.resistance"),
        "refutation": ("refutation.new", "settings.refutation.defaults"),
        "werewolf": ("werewolf.new", "settings.werewolf.defaults"),
    }
    for kind, schema in builtin_registry().schemas().items():
        for option in schema.options:
            label = option_label(kind, option.name, "fr")
            assert option_label(kind, option.name, "en") == option.name
            names = {
                fr[key]
                for command in commands[kind]
                if (key := f"commands.{command}.params.{option.name}.name") in fr
            }
            if option.new or option.settings:
                assert names == {label}, (kind, option.name, names, label)
            else:
                assert label == option.name  # the config's deck: no command, no label
    assert option_label("resistance", "timezone", "fr") == "fuseau_horaire"  # /settings's own
    assert option_label("no_such_game", "vote_hours", "fr") == "vote_hours"
    assert choice_label("reject", "fr") == "contre" and choice_label("reject", "en") == "reject"
    assert choice_label("chess", "fr") == "chess"


def test_french_messages_name_options_as_the_french_commands_do() -> None:
    """No French message names an option by its English key (`vote_hours`) where French
    commands call it otherwise (`heures_vote`): rules, refusals, answers."""
    english = {
        option.name: label
        for kind, schema in builtin_registry().schemas().items()
        for option in schema.options
        if (label := option_label(kind, option.name, "fr")) != option.name
    }
    assert len(english) > 10
    prose = {  # placeholders aside: {target} is a player, not the option
        key: re.sub(r"\{[^{}]*\}", "", every_branch(text))
        for key, text in catalogue("fr").items()
        if not key.startswith("commands.")
    }
    found = {
        key: sorted(name for name in english if re.search(rf"\b{name}\b", text))
        for key, text in prose.items()
    }
    assert not {k: v for k, v in found.items() if v}


def test_a_variant_with_a_name_of_its_own_names_the_game() -> None:
    from bot.i18n import game_name

    assert game_name("resistance", "fr") == "The Resistance"
    assert game_name("resistance", "fr", {"variant": "avalon"}) == "Avalon"
    assert game_name("resistance", "en", {"variant": "classic"}) == "The Resistance"
    assert game_name("refutation", "fr", {"variant": "avalon"}) == "The Refutation Game"
