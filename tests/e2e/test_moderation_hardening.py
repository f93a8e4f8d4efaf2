"""Hostile and careless moderation, through the sandbox: each refusal is private, clear,
localized, and changes nothing; departed players can be replaced or removed."""

from __future__ import annotations

from typing import Any

import pytest

from db import repo
from games.resistance.players import Game
from games.resistance.tests.e2e.test_resistance_flow import snapshot
from playtest.players import TableGame, until
from sandbox import Interaction
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(150)

BOT_SEAT = ("A bot cannot take a seat", "Un bot ne peut pas prendre place")
WRONG_PLACE = ("only works on the lobby itself", "ne fonctionne que sur les inscriptions")
NOT_MOD = ("Only moderators can do that", "Seuls les modérateurs peuvent faire cela")


def lobby_of(game: TableGame) -> Any:
    return next(m for m in game.sb.channel_messages(game.channel) if m.labels)


async def answer(ix: Interaction) -> str:
    message = await ix.reply_message(10)
    assert message is not None and message.ephemeral, "no private answer"
    return message.text


async def open_games(bot: Any, guild_id: int) -> list[tuple[int, str, int]]:
    async with bot.sessions() as s:
        games = await repo.running_games(s, [guild_id], statuses=("lobby", "running"))
        return [(g.id, g.status, g.created_by) for g in games]


async def test_lobby_refusals_table(table: Any, bot: Any) -> None:
    sb, guild = table.sb, table.guild
    robot = sb.add_user("Robot", bot=True)
    guild.add_member(robot)
    other = guild.add_text_channel("elsewhere")
    elsewhere = sb.add_guild("Elsewhere")
    chloe = next(u for u in table.users if u.locale == "fr")
    for user in (table.users[0], chloe):
        elsewhere.add_member(user)
    far = elsewhere.add_text_channel("far")
    game = Game(table, table.users[:2])
    await game.open()
    lobby = lobby_of(game)
    before = await snapshot(bot, table.channel.id)
    u0 = table.users[0]

    async def click(user: Any, label: str, channel: Any = None) -> Any:
        return await answer(await sb.click(user, lobby, label=label, channel=channel))

    async def slash(who: Any, command: str, channel: Any = None, **options: Any) -> Any:
        ix = await sb.slash(who, command, channel=channel or table.channel, **options)
        return await answer(ix)

    cases: list[tuple[str, Any, tuple[str, ...], str]] = [
        ("a bot clicks Join", lambda: click(robot, "Join"), BOT_SEAT, "en"),
        (
            "a bot added by a moderator",
            lambda: slash(table.mod, "resistance add", user=robot),
            BOT_SEAT,
            "en",
        ),
        (
            "Join on a copy in another channel",
            lambda: click(table.users[3], "Join", other),
            WRONG_PLACE,
            "en",
        ),
        (
            "Leave on a copy in another channel",
            lambda: click(u0, "Leave", other),
            WRONG_PLACE,
            "en",
        ),
        (
            "Join on a copy in a DM",
            lambda: click(table.users[3], "Join", sb.dm_channel(table.users[3])),
            WRONG_PLACE,
            "en",
        ),
        (
            "Leave on a copy in a DM",
            lambda: click(u0, "Leave", sb.dm_channel(u0)),
            WRONG_PLACE,
            "en",
        ),
        ("Join on a copy in another guild", lambda: click(u0, "Join", far), WRONG_PLACE, "en"),
        (
            "Join on a copy in another guild, French",
            lambda: click(chloe, "Join", far),
            WRONG_PLACE,
            "fr",
        ),
        (
            "Join on a copy in another channel, French",
            lambda: click(chloe, "Join", other),
            WRONG_PLACE,
            "fr",
        ),
        (
            "a member opens a game",
            lambda: slash(table.users[4], "resistance new", other),
            NOT_MOD,
            "en",
        ),
        (
            "a member opens a game, French",
            lambda: slash(chloe, "refutation new", other),
            NOT_MOD,
            "fr",
        ),
        ("a member starts someone's game", lambda: slash(u0, "resistance start"), NOT_MOD, "en"),
        ("a member cancels", lambda: slash(u0, "resistance cancel"), NOT_MOD, "en"),
        (
            "a member adds someone",
            lambda: slash(u0, "resistance add", user=table.users[5]),
            NOT_MOD,
            "en",
        ),
    ]
    for what, act, expected, lang in cases:
        text = await act()
        wanted = expected[0] if lang == "en" else expected[1]
        assert wanted in text, (what, text)
        assert await snapshot(bot, table.channel.id) == before, what
    assert len(await open_games(bot, guild.id)) == 1
    # The same Join, on the lobby itself, works.
    assert "You are in" in await click(table.users[3], "Join")


async def test_open_games_per_member_limit_and_members_host(table: Any, bot: Any) -> None:
    sb, guild = table.sb, table.guild
    channels = [table.channel] + [guild.add_text_channel(f"game-{i}") for i in range(4)]

    async def new(user: Any, channel: Any, kind: str = "resistance") -> str:
        ix = await sb.slash(user, f"{kind} new", channel=channel)
        return await answer(ix)

    for channel in channels[:3]:
        assert "open" in await new(table.mod, channel)
    before = await open_games(bot, guild.id)
    reply = await new(table.mod, channels[3], "refutation")
    assert "You already have 3 open games on this server" in reply, reply
    assert await open_games(bot, guild.id) == before
    # Cancelling one frees a place.
    cancel = await sb.slash(table.mod, "resistance cancel", channel=channels[0])
    assert "cancel" in (await answer(cancel)).lower()
    assert "open" in await new(table.mod, channels[3])

    # members_host: any member may open a game and moderates that game only, while it is on.
    host, other = table.users[0], table.users[1]
    assert "Only moderators" in await new(host, channels[4])
    ix = await sb.slash(table.mod, "settings members_host", channel=table.channel, enabled=True)
    assert "Any member can now open a game" in await answer(ix)
    assert "open" in await new(host, channels[4])
    ix = await sb.slash(other, "resistance cancel", channel=channels[4])
    assert "Only moderators" in await answer(ix)
    ix = await sb.slash(host, "resistance cancel", channel=channels[1])  # the mod's game
    assert "Only moderators" in await answer(ix)
    ix = await sb.slash(table.mod, "settings members_host", channel=table.channel, enabled=False)
    assert "Only moderators can open games now" in await answer(ix)
    ix = await sb.slash(host, "resistance cancel", channel=channels[4])  # no longer
    assert "Only moderators" in await answer(ix)
    ix = await sb.slash(table.mod, "settings show", channel=table.channel)
    assert "Members may host games: ❌" in await answer(ix)


async def test_the_creator_stops_moderating_when_their_role_goes(table: Any, bot: Any) -> None:
    sb, guild = table.sb, table.guild
    role = guild.add_role("GM")
    ix = await sb.slash(table.mod, "settings moderator_role", channel=table.channel, role=role)
    await answer(ix)
    gm = table.users[0]
    guild.add_member_roles(gm, role)
    ix = await sb.slash(gm, "resistance new", channel=table.channel)
    assert "open" in await answer(ix)
    guild.remove_member_roles(gm, role)
    before = await snapshot(bot, table.channel.id)
    for command in ("resistance start", "resistance cancel"):
        ix = await sb.slash(gm, command, channel=table.channel)
        assert "Only moderators" in await answer(ix), command
    assert await snapshot(bot, table.channel.id) == before


async def test_departed_leader_is_substituted_and_bots_cannot_sit(table: Any, bot: Any) -> None:
    sb, guild = table.sb, table.guild
    game = Game(table, table.users[:5])
    await game.open(lock_during_vote=False)
    await game.start()
    leader = game.leader()
    robot = sb.add_user("Robot", bot=True)
    guild.add_member(robot)
    newcomer = table.users[7]
    before = await snapshot(bot, table.channel.id)
    ix = await sb.slash(
        table.mod, "resistance substitute", channel=table.channel, old=leader, new=robot
    )
    assert "A bot cannot take a seat" in await answer(ix)
    ix = await sb.slash(
        table.mod, "resistance substitute", channel=table.channel, old=leader, new=sb.bot_user
    )
    assert "A bot cannot take a seat" in await answer(ix)
    assert await snapshot(bot, table.channel.id) == before
    # The leader leaves the server; the moderator can still hand their seat over.
    guild.remove_member(leader)
    ix = await sb.slash(
        table.mod, "resistance substitute", channel=table.channel, old=leader, new=newcomer
    )
    assert f"{newcomer.name} now plays in place of {leader.name}" in await answer(ix)
    game.players = [u if u is not leader else newcomer for u in game.players]
    game.by_name = {u.name: u for u in game.players}
    await until(lambda: game.leader() is newcomer, what="the newcomer leading")
    team = [newcomer, next(u for u in game.players if u is not newcomer)]
    reply = await game.slash(newcomer, "resistance propose", player1=team[0], player2=team[1])
    assert "Your team is proposed" in reply, reply


async def test_a_departed_member_is_removed_from_the_lobby(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:3])
    await game.open()
    gone = table.users[1]
    table.guild.remove_member(gone)
    ix = await table.sb.slash(table.mod, "resistance remove", channel=table.channel, user=gone)
    assert f"{gone.name} is no longer signed up" in await answer(ix)
    async with bot.sessions() as s:
        g = await repo.active_game_in_channel(s, table.channel.id)
        assert g is not None
        assert gone.id not in {p.user_id for p in await repo.players(s, g.id)}


async def test_remind_has_a_cooldown_per_step(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.open(lock_during_vote=False, reminder_hours=0.0)
    await game.start()
    leader = game.leader()
    await game.propose([leader, next(u for u in game.players if u is not leader)])
    assert "Reminder sent to 5 players." in await game.slash(table.mod, "resistance remind")
    dms = {u.id: len(table.sb.dms(u)) for u in game.players}
    before = await snapshot(bot, table.channel.id)
    for _ in range(3):
        reply = await game.slash(table.mod, "resistance remind")
        assert "reminded recently: you can remind them again in 60 min" in reply, reply
    assert await snapshot(bot, table.channel.id) == before
    assert {u.id: len(table.sb.dms(u)) for u in game.players} == dms  # no DM spam


async def test_remind_cooldown_is_configurable(table: Any) -> None:
    from dataclasses import replace

    from bot.config import ModerationSettings
    from tests.harness import sandbox_settings

    settings = replace(
        sandbox_settings(table.sb, table.url()),
        moderation=ModerationSettings(remind_cooldown_minutes=0.0, max_open_games_per_member=1),
    )
    async with running_bot(table.sb, table.url(), settings=settings):
        game = Game(table, table.users[:5])
        await game.open(lock_during_vote=False, reminder_hours=0.0)
        ix = await table.sb.slash(
            table.mod, "refutation new", channel=table.guild.add_text_channel("second")
        )
        assert "You already have 1 open game on this server" in await answer(ix)
        await game.start()
        leader = game.leader()
        await game.propose([leader, next(u for u in game.players if u is not leader)])
        for _ in range(2):
            assert "Reminder sent" in await game.slash(table.mod, "resistance remind")


async def test_refutation_refusals_table_en_and_fr(table: Any, bot: Any) -> None:
    """The same rules in The Refutation Game, answered in English and in French (a French
    moderator); then a departed player's seat handed over."""
    from games.refutation.players import RfGame

    sb, guild = table.sb, table.guild
    chloe = next(u for u in table.users if u.locale == "fr")
    guild.add_member_roles(chloe, guild.add_role("fr mods", permissions=1 << 5))  # Manage Server
    robot = sb.add_user("Robot", bot=True)
    guild.add_member(robot)
    players = [table.users[i] for i in (0, 1, 3)]
    game = RfGame(table, players)
    await game.open(choice_hours=48.0)
    lobby = lobby_of(game)
    await game.start()
    await game.watch_then_refute()
    assert "Reminder sent" in await game.slash(table.mod, "refutation remind")
    before = await snapshot(bot, table.channel.id)
    elsewhere = guild.add_text_channel("elsewhere")

    async def slash(who: Any, command: str, **options: Any) -> str:
        return await game.slash(who, command, **options)

    async def click(who: Any, channel: Any) -> str:
        return await answer(await sb.click(who, lobby, label="Join", channel=channel))

    cases: list[tuple[str, Any, str]] = [
        (
            "substitute by a bot",
            lambda: slash(table.mod, "refutation substitute", old=players[0], new=robot),
            "A bot cannot take a seat",
        ),
        (
            "substitute by the bot itself",
            lambda: slash(table.mod, "refutation substitute", old=players[0], new=sb.bot_user),
            "A bot cannot take a seat",
        ),
        (
            "substitute by a bot, French",
            lambda: slash(chloe, "refutation substitute", old=players[1], new=robot),
            "Un bot ne peut pas prendre place",
        ),
        (
            "add a bot, French",
            lambda: slash(chloe, "refutation add", user=robot),
            "Un bot ne peut pas prendre place",
        ),
        (
            "remind again",
            lambda: slash(table.mod, "refutation remind"),
            "reminded recently: you can remind them again in 60 min",
        ),
        (
            "remind again, French",
            lambda: slash(chloe, "refutation remind"),
            "relancés récemment\u00a0: vous pourrez les relancer dans 60\u00a0min",
        ),
        (
            "a member substitutes",
            lambda: slash(players[0], "refutation substitute", old=players[1], new=table.users[6]),
            "Only moderators",
        ),
        ("a member reminds", lambda: slash(players[2], "refutation remind"), "Only moderators"),
        (
            "Join on a copy elsewhere",
            lambda: click(table.users[6], elsewhere),
            "only works on the lobby itself",
        ),
        (
            "Join on a copy elsewhere, French",
            lambda: click(chloe, elsewhere),
            "ne fonctionne que sur les inscriptions",
        ),
        (
            "Join on a copy in a DM",
            lambda: click(table.users[6], sb.dm_channel(table.users[6])),
            "only works on the lobby itself",
        ),
    ]
    for what, act, expected in cases:
        text = await act()
        assert expected in text, (what, text)
        assert await snapshot(bot, table.channel.id) == before, what

    # A player leaves the server: the French moderator hands the seat over.
    gone, newcomer = players[2], table.users[8]
    guild.remove_member(gone)
    reply = await slash(chloe, "refutation substitute", old=gone, new=newcomer)
    assert newcomer.name in reply and gone.name in reply, reply
    async with bot.sessions() as s:
        g = await repo.active_game_in_channel(s, table.channel.id)
        assert g is not None
        seated = {p.user_id for p in await repo.players(s, g.id)}
    assert newcomer.id in seated and gone.id not in seated
