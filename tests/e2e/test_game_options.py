"""Each game's options, declared once (bot/options.py), as Discord receives them: the options of
``/<game> new`` and of the guild's defaults command are the schema's, in its order, with its
types, bounds, choices and descriptions; a value outside them sent anyway changes nothing."""

from __future__ import annotations

import textwrap
from typing import Any

import discord
import pytest

from bot.options import REFUTATION_OPTIONS, RESISTANCE_OPTIONS, Option, OptionsSchema, Place
from db import repo
from tests.e2e.test_option_bounds import all_leaves

pytestmark = pytest.mark.timeout(120)

# Discord's option types: https://discord.com/developers/docs/interactions/application-commands
TYPES: dict[type[Any], int] = {str: 3, int: 4, bool: 5, float: 10}

COMMANDS: list[tuple[str, OptionsSchema, Place, list[str]]] = [
    ("resistance new", RESISTANCE_OPTIONS, "new", ["tag"]),
    ("refutation new", REFUTATION_OPTIONS, "new", ["tag"]),
    ("settings resistance", RESISTANCE_OPTIONS, "settings", []),
    ("settings refutation defaults", REFUTATION_OPTIONS, "settings", []),
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
    out = {k: opt[k] for k in ("name", "type", "description", "min_value", "max_value") if k in opt}
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
    assert "missing_vote doit être l’une de ces valeurs\u00a0: reject, accept" in reply.text
    assert sb.channel_messages(table.channel) == []


async def test_a_registered_game_gets_its_settings_command_from_its_schema(table: Any) -> None:
    """The poll (a game registered by the test, tests/e2e/poll_game) has no command in
    cogs/settings.py: ``/settings poll`` is made from its schema, its values kept in the JSON
    column under ``poll``, and a new poll starts from them."""
    from bot.harness import running_bot
    from bot.plugins import builtin_plugins
    from tests.e2e.play import TableGame
    from tests.e2e.poll_game.plugin import PLUGIN, POLL_OPTIONS

    async with running_bot(table.sb, table.url(), plugins=[*builtin_plugins(), PLUGIN]) as bot:
        options = dict(all_leaves(table.sb, table.guild))["settings poll"]
        assert [received(o) for o in options] == [declared(o) for o in POLL_OPTIONS.at("settings")]
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
