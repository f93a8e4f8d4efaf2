"""Each game's options, declared once (bot/options.py), as Discord receives them: the options of
``/<game> new`` and of the guild's defaults command are the schema's, in its order, with its
types, bounds, choices and descriptions; a value outside them sent anyway changes nothing."""

from __future__ import annotations

import re
import textwrap
from typing import Any

import discord
import pytest
from pyuca import Collator

from bot.options import Option, OptionsSchema, Place
from db import repo
from games.refutation.options import REFUTATION_OPTIONS
from games.resistance.options import RESISTANCE_OPTIONS
from playtest.players import TableGame
from tests.e2e.test_option_bounds import all_leaves

pytestmark = pytest.mark.timeout(120)

# A reference collator of its own (the DUCET), as tests/bot/test_names.py
REFERENCE = Collator()

# Discord's option types: https://discord.com/developers/docs/interactions/application-commands
TYPES: dict[type[Any], int] = {str: 3, int: 4, bool: 5, float: 10}

COMMANDS: list[tuple[str, OptionsSchema, Place, list[str]]] = [
    ("resistance new", RESISTANCE_OPTIONS, "new", ["tag", "forum"]),
    ("refutation new", REFUTATION_OPTIONS, "new", ["tag", "forum"]),
    ("settings resistance", RESISTANCE_OPTIONS, "settings", ["reason"]),
    ("settings refutation defaults", REFUTATION_OPTIONS, "settings", ["reason"]),
]


def declared(option: Option) -> dict[str, Any]:
    """What the schema says Discord should receive for ``option``."""
    out: dict[str, Any] = {
        "name": option.name,
        "type": TYPES[option.type],
        # discord.py shortens a description to Discord's 100 characters, as textwrap does
        "description": textwrap.shorten(option.description, width=100, placeholder="…"),
    }
    if option.min is not None:
        out["min_value"], out["max_value"] = option.min, option.max
    if option.choices:
        out["choices"] = [(str(c), c) for c in option.choices]
    return out


def received(opt: dict[str, Any]) -> dict[str, Any]:
    keys = ("name", "type", "description", "min_value", "max_value")
    out: dict[str, Any] = {k: opt[k] for k in keys if k in opt}
    if opt.get("choices"):
        out["choices"] = [(c["name"], c["value"]) for c in opt["choices"]]
    return out


async def test_the_commands_declare_the_schemas_options(table: Any, bot: Any) -> None:
    leaves = dict(all_leaves(table.sb, table.guild))
    for path, schema, place, own in COMMANDS:
        options = leaves[path]
        assert [o["name"] for o in options] == [*schema.names(place), *own], path
        assert all(not o.get("required") for o in options), path
        got = [received(o) for o in options if o["name"] not in own]
        assert got == [declared(o) for o in schema.at(place)], path


async def test_a_value_outside_the_choices_is_refused_and_changes_nothing(
    table: Any, bot: Any
) -> None:
    """A modified client sends a value the command's choices do not offer: a private answer
    (in the player's language), nothing saved, no game opened."""
    sb = table.sb
    sb.enforce_option_bounds = False  # the driver no longer refuses it as Discord's client does
    ix = await sb.slash(table.mod, "settings resistance", channel=table.channel, variant="chess")
    reply = await ix.reply_message(10)
    assert reply is not None and reply.ephemeral
    assert "variant must be one of: classic, avalon" in reply.text
    async with bot.sessions() as s:
        assert (await repo.get_guild_settings(s, table.guild.id)).game_defaults == {}
    ix = await sb.slash(table.mod, "refutation new", channel=table.channel, target=6)
    reply = await ix.reply_message(10)
    assert reply is not None and reply.ephemeral
    assert "target must be one of: 5, 7, 9" in reply.text
    async with bot.sessions() as s:
        assert await repo.active_game_in_channel(s, table.channel.id) is None
    role = table.guild.add_role("Mods FR", permissions=discord.Permissions(manage_guild=True).value)
    french = sb.add_user("Modératrice", locale="fr")
    table.guild.add_member(french, roles=[role])
    ix = await sb.slash(french, "resistance new", channel=table.channel, missing_vote="abstain")
    reply = await ix.reply_message(10)
    assert reply is not None and reply.ephemeral
    # the option and its choices by the names her client shows (/resistance nouvelle vote_absent)
    assert "vote_absent doit être l’une de ces valeurs\u00a0: contre, pour" in reply.text
    assert sb.channel_messages(table.channel) == []


async def test_a_registered_game_gets_its_settings_command_from_its_schema(table: Any) -> None:
    """The poll (a game registered by the test, tests/e2e/poll_game) has no command in
    cogs/settings.py: ``/settings poll`` is made from its schema, its values kept in the JSON
    column under ``poll``, and a new poll starts from them."""
    from games.builtin import builtin_plugins
    from playtest.players import TableGame
    from tests.e2e.poll_game.plugin import PLUGIN, POLL_OPTIONS
    from tests.harness import running_bot

    async with running_bot(table.sb, table.url(), plugins=[*builtin_plugins(), PLUGIN]) as bot:
        options = dict(all_leaves(table.sb, table.guild))["settings poll"]
        *schema_options, reason = options  # then the moderators' log's reason
        assert [received(o) for o in schema_options] == [
            declared(o) for o in POLL_OPTIONS.at("settings")
        ]
        assert reason["name"] == "reason"
        game = TableGame(table, [])
        reply = await game.slash(table.mod, "settings poll", vote_hours=2)
        assert "vote_hours" in reply and "2" in reply
        shown = (await game.slash(table.mod, "settings show")).splitlines()
        assert any(line.startswith("Poll") and "vote_hours" in line for line in shown), shown
        async with bot.sessions() as s:
            saved = await repo.get_guild_settings(s, table.guild.id)
        assert saved.game_defaults == {"poll": {"vote_hours": 2.0}}
        await game.slash(table.mod, "poll new", question="Tea?")
        async with bot.sessions() as s:
            poll = await repo.active_game_in_channel(s, table.channel.id)
        assert poll is not None and poll.options["vote_hours"] == 2.0
        # Refused out of bounds by a modified client, privately; nothing saved.
        table.sb.enforce_option_bounds = False
        refused = await game.slash(table.mod, "settings poll", vote_hours=400)
        assert "must be between 0.0005 and 336" in refused
        async with bot.sessions() as s:
            saved = await repo.get_guild_settings(s, table.guild.id)
        assert saved.game_defaults == {"poll": {"vote_hours": 2.0}}
        # In French: the poll's option by the name its own catalogue gives /poll nouveau's
        # parameter, in the listing, in the refusal and in the command her client shows (the
        # poll's catalogue has no [settings.poll]: /settings poll borrows /poll's name and
        # /poll nouveau's parameter names, bot.i18n.param_keys).
        french = french_moderator(table)
        shown = (await game.slash(french, "settings show")).splitlines()
        listed = next(line for line in shown if line.startswith("Options par défaut de Sondage"))
        assert listed.endswith("\u00a0: `heures_vote` = 2, `relancer_après` = 0"), listed
        refused = await game.slash(french, "settings poll", vote_hours=400)
        assert "heures_vote doit être entre 0,0005 et 336 (vous avez donné 400)" in refused
        assert "vote_hours" not in refused
        async with bot.sessions() as s:
            saved = await repo.get_guild_settings(s, table.guild.id)
        assert saved.game_defaults == {"poll": {"vote_hours": 2.0}}
        settings = table.sb.find_command("settings", table.guild)
        command = next(o for o in settings["options"] if o["name"] == "poll")
        assert command["name_localizations"] == {"fr": "sondage"}
        assert command["description_localizations"] == {
            "fr": "Options par défaut des nouvelles parties de Sondage"
        }
        assert command["description"] == "Default options for new games of Poll"
        option, prods, _ = command["options"]  # vote_hours, every game's prod_hours, reason
        assert prods["name_localizations"] == {"fr": "relancer_après"}
        assert option["name_localizations"] == {"fr": "heures_vote"}
        assert option["description_localizations"] == {
            "fr": "Heures pour répondre une fois le sondage lancé (24 par défaut)"
        }


def french_moderator(table: Any) -> Any:
    """A member with Manage Server whose Discord client is in French."""
    role = table.guild.add_role("Modos", permissions=discord.Permissions(manage_guild=True).value)
    french = table.sb.add_user("Modératrice", locale="fr")
    table.guild.add_member(french, roles=[role])
    return french


def labels(line: str) -> list[str]:
    """The option names of one listing line: "`name` = value, …"."""
    return re.findall(r"`([^`]+)` = ", line)


async def test_french_settings_show_names_each_option_as_her_command_does(
    table: Any, bot: Any
) -> None:
    """/settings show in French: each option by the name her client shows for the command's
    parameter (/réglages résistance heures_vote…), its value written the French way, in the
    alphabetical order of those names; in English, as before."""
    game = TableGame(table, [])
    french = french_moderator(table)
    answer = await game.slash(
        french, "settings resistance", vote_hours=6.5, missing_vote="accept", early_close=True
    )
    assert answer.startswith("Options par défaut de The Resistance\u00a0: "), answer
    assert "`heures_vote` = 6,5" in answer and "`vote_absent` = pour" in answer
    shown = (await game.slash(french, "settings show")).splitlines()
    resistance = next(line for line in shown if "The Resistance" in line)
    refutation = next(line for line in shown if "The Refutation Game" in line)
    for expected in (
        "`clôture_anticipée` = oui",
        "`heures_vote` = 6,5",
        "`vote_absent` = pour",
        "`heures_rappel` = 2",
        "`heure_échéance` = —",
        "`modérateurs_voient_rôles` = non",
        "`variante` = classique",
        "`dame_du_lac` = non",
    ):
        assert expected in resistance, (expected, resistance)
    assert "`objectif` = 5" in refutation and "`heures_choix` = 24" in refutation, refutation
    for line in (resistance, refutation):
        names = labels(line)
        assert names == sorted(names, key=REFERENCE.sort_key), names
        english = {o.name for o in (*RESISTANCE_OPTIONS.options, *REFUTATION_OPTIONS.options)}
        # mordred, oberon and techniques are the same word in both languages
        assert set(names) & english <= {"mordred", "oberon", "techniques"}, names
    assert len(labels(resistance)) == len(RESISTANCE_OPTIONS.at("config"))

    in_english = await game.slash(table.mod, "settings show")
    assert "`early_close` = True" in in_english and "`vote_hours` = 6.5" in in_english
    assert "`missing_vote` = accept" in in_english and "`heures_vote`" not in in_english


async def test_french_out_of_range_refusals_name_the_option_as_her_command_does(
    table: Any, bot: Any
) -> None:
    """A modified French client sends values outside an option's bounds: the private refusal
    names the parameter as her client shows it, with numbers written the French way, and
    nothing changes."""
    sb = table.sb
    sb.enforce_option_bounds = False
    game = TableGame(table, [])
    french = french_moderator(table)
    refused = await game.slash(french, "settings resistance", vote_hours=400)
    assert "heures_vote doit être entre 0,0005 et 336 (vous avez donné 400)" in refused, refused
    refused = await game.slash(french, "settings refutation defaults", min_hours=336.5)
    assert "heures_min doit être entre 0 et 336 (vous avez donné 336,5)" in refused, refused
    async with bot.sessions() as s:
        assert (await repo.get_guild_settings(s, table.guild.id)).game_defaults == {}
    refused = await game.slash(french, "refutation new", choice_hours=0)
    assert "heures_choix doit être entre 0,0005 et 336 (vous avez donné 0)" in refused, refused
    async with bot.sessions() as s:
        assert await repo.active_game_in_channel(s, table.channel.id) is None
    assert sb.channel_messages(table.channel) == []
    # the same refusal in English names the option by its key, numbers as typed
    refused = await game.slash(table.mod, "settings resistance", vote_hours=400)
    assert "vote_hours must be between 0.0005 and 336 (you gave 400)" in refused, refused


async def test_a_french_avalon_only_refusal_names_the_option_as_her_command_does(
    table: Any, bot: Any
) -> None:
    game = TableGame(table, [])
    french = french_moderator(table)
    refused = await game.slash(french, "resistance new", percival=True)
    assert (
        "L’option `perceval` appartient à la variante Avalon\u00a0: ajoutez `variante:avalon`"
        in refused
    ), refused
    refused = await game.slash(table.mod, "resistance new", percival=True)
    assert "The option `percival` belongs to the Avalon variant: add `variant:avalon`" in refused
    async with bot.sessions() as s:
        assert await repo.active_game_in_channel(s, table.channel.id) is None
