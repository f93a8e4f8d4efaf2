"""Moderating the table, through the sandbox with the real bot on SQLite and the test-only poll:
each player's posts counted from the message events and written in batches
(``/<game> activity``), the prods of a silent player, ``/games``, and a lobby's role mention."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select

from bot.app import GameBot
from bot.i18n import t
from db import repo
from db.models import Activity
from playtest.players import TableGame, text_of, until
from tests.clock import FakeClock
from tests.e2e.poll_game.plugin import PLUGIN
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(120)


@asynccontextmanager
async def poll_bot(table: Any) -> AsyncIterator[GameBot]:
    """The real bot with the poll alone (the core's tests name no real game)."""
    async with running_bot(table.sb, table.url(), plugins=[PLUGIN]) as bot:
        yield bot


class Poll(TableGame):
    """A poll opened and started by the table's moderator."""

    async def open(self, **options: Any) -> Any:
        since = len(self.sb.channel_messages(self.channel))
        await self.slash(self.t.mod, "poll new", question="Pizza?", **options)
        lobby = await until(
            lambda: next(
                (m for m in self.sb.channel_messages(self.channel)[since:] if m.labels), None
            ),
            what="the lobby",
        )
        for user in self.players:
            await self.reply(await self.sb.click(user, lobby, label=lobby.labels[0]))  # Join
        return lobby

    def lobby_in(self, place: Any) -> Any:
        return next((m for m in self.sb.channel_messages(place) if m.labels), None)

    async def start(self) -> None:
        await self.slash(self.t.mod, "poll start")
        for user in self.players:
            await until(partial(self.ballot, user), what=f"{user.name}'s ballot")

    def ballot(self, user: Any) -> Any:
        """The player's latest DM with the two buttons."""
        return next((m for m in reversed(self.sb.dms(user)) if len(m.labels) == 2), None)


async def untimed(bot: GameBot) -> None:
    """No timed write of the posts during the test: only the ones it makes happen."""
    await bot.posts.stop()
    bot.posts.every = 3600.0
    bot.posts.start()


async def say(table: Any, bot: GameBot, who: Any, text: str) -> None:
    """``who`` posts in the game's channel, and the bot has counted it (at its clock's time)
    when this returns (:func:`untimed` first: no write empties the list meanwhile)."""
    before = len(bot.posts.pending)
    await table.sb.say(who, table.channel, text)
    await until(lambda: len(bot.posts.pending) > before, what=f"{who.name}'s message event")


async def test_activity_counts_the_posts_of_a_game_in_a_forum_post(table: Any) -> None:
    """A game opened in a new forum post: its posts are the post's (the thread's) messages."""
    alice, bob = table.users[:2]
    async with poll_bot(table) as bot:
        await untimed(bot)
        ix = await table.sb.slash(
            table.mod, "poll new", channel=table.channel, forum=table.forum, question="Tea?"
        )
        await ix.reply_message(10.0)
        post = await until(lambda: table.sb.thread_of(table.forum), what="the game's post")
        poll = Poll(table, [alice, bob], channel=post)
        lobby = await until(partial(poll.lobby_in, post), what="the lobby in the post")
        for user in (alice, bob):
            await poll.reply(await table.sb.click(user, lobby, label=lobby.labels[0]))
        await poll.start()
        await table.sb.say(alice, post, "in the post")
        await table.sb.say(alice, table.channel, "not in the game's place")
        await until(lambda: len(bot.posts.pending) == 2, what="the two message events")
        shown = (await poll.slash(table.mod, "poll activity")).split("\n")
        assert shown[1].startswith("alice") and " 1 · 1 · 1" in shown[1]
        assert " 0 · 0 · 0" in shown[2]


async def written(bot: GameBot) -> list[Activity]:
    async with bot.sessions() as s:
        return list((await s.scalars(select(Activity))).all())


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_activity_counts_each_players_posts_without_a_write_per_message(
    table: Any, lang: str
) -> None:
    alice, bob, chloe, david = table.users[:4]
    table.mod.locale = "fr" if lang == "fr" else "en-US"
    poll = Poll(table, [alice, bob, chloe])
    other = table.guild.add_text_channel("off-topic")
    async with poll_bot(table) as bot:
        await untimed(bot)
        await poll.open(vote_hours=1.0)
        await poll.start()
        for who, where in ((alice, table.channel), (alice, table.channel), (bob, table.channel)):
            await table.sb.say(who, where, "a post")
        await table.sb.say(david, table.channel, "not a player")
        await table.sb.say(alice, other, "elsewhere")
        await until(lambda: len(bot.posts.pending) == 5, what="the five message events")
        assert await written(bot) == []  # a message costs no write of its own

        shown = await poll.slash(table.mod, "poll activity")
        rows = {r.user_id: r for r in await written(bot)}
        assert set(rows) == {alice.id, bob.id}  # players only, in the game's place only
        assert (rows[alice.id].posts, rows[alice.id].round_posts) == (2, 2)
        lines = shown.split("\n")
        assert lines[0] == t("activity.title", lang, game=t("poll.game_name", lang))
        never = t("activity.never", lang)
        quiet = t(
            "activity.line", lang, name="Chloé", today=0, round=0, total=0, last=never, missed=0
        )
        assert lines[1].startswith("alice") and " 2 · 2 · 2" in lines[1]
        assert lines[2].startswith("Bob") and " 1 · 1 · 1" in lines[2]
        assert lines[3] == quiet
        assert "<t:" in lines[1] and david.name not in shown

        refused = await poll.slash(alice, "poll activity")
        assert refused == t("common.error.not_moderator", "en")

        # What was written survives the bot: a new process counts on from it.
        await table.sb.say(bob, table.channel, "again")
        await until(lambda: len(bot.posts.pending) == 1, what="Bob's message event")
    async with poll_bot(table) as bot:  # the first one wrote Bob's post when it stopped
        rows = {r.user_id: r for r in await written(bot)}
        assert rows[bob.id].posts == 2


def daytime_zone(now: datetime, hour: int) -> str:
    """A fixed-offset zone (``Etc/GMT…``) where ``now`` is ``hour`` o'clock (or within it)."""
    offset = (hour - now.hour) % 24
    offset = offset - 24 if offset > 14 else offset
    return f"Etc/GMT{-offset:+d}"


def prods_of(table: Any, user: Any, marker: str) -> list[str]:
    return [text_of(m) for m in table.sb.dms(user) if marker in text_of(m)]


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_silent_player_is_prodded_then_the_moderator_told_outside_quiet_hours(
    table: Any, lang: str
) -> None:
    alice, bob, chloe = table.users[:3]  # Chloé reads French
    table.mod.locale = "fr" if lang == "fr" else "en-US"
    clock = FakeClock(datetime.now(UTC))
    poll = Poll(table, [alice, bob, chloe])
    async with running_bot(table.sb, table.url(), plugins=[PLUGIN], clock=clock) as bot:
        await untimed(bot)
        await poll.slash(table.mod, "settings language", language=lang)
        await poll.slash(table.mod, "settings timezone", zone=daytime_zone(clock(), 10))
        await poll.open(vote_hours=48.0, prod_hours=2.0)
        await poll.start()
        link = f"https://discord.com/channels/{table.guild.id}/{table.channel.id}"
        prod_en = t("prods.prod", "en", game="Poll", hours="2", where=link)
        prod_fr = t("prods.prod", "fr", game="Sondage", hours="2", where=link)
        clock.advance(hours=1)
        await say(table, bot, alice, "here")
        clock.advance(hours=1)
        await bot.scheduler.sweep()  # two hours in: Bob and Chloé have said nothing
        await until(lambda: prods_of(table, chloe, "👋"), what="Chloé's prod")
        await until(lambda: prods_of(table, bob, "👋"), what="Bob's prod")
        assert prods_of(table, bob, "👋") == [prod_en]
        assert prods_of(table, chloe, "👋") == [prod_fr]  # in her language
        assert prods_of(table, alice, "👋") == []  # she posted an hour ago
        shown = await poll.slash(table.mod, "poll activity")
        assert t("activity.prodded", lang, at="").strip() in shown.split("\n")[2]  # Bob

        clock.advance(hours=1)
        await say(table, bot, bob, "sorry, I am back")  # the ladder starts again
        await bot.scheduler.sweep()  # alice's two hours
        await until(lambda: prods_of(table, alice, "👋"), what="alice's prod")
        clock.advance(hours=1)
        await bot.scheduler.sweep()  # Chloé silent two hours after her prod: the moderator
        told = await until(lambda: prods_of(table, table.mod, "🔕"), what="the moderator's DM")
        command = "/sondage remplacer" if lang == "fr" else "/poll substitute"
        assert told[0] == t(
            "prods.report",
            lang,
            name="Chloé",
            game=t("poll.game_name", lang),
            hours="4",
            command=command,
            standby=t("prods.nobody_on_list", lang),
            where=link,
        )
        assert len(prods_of(table, bob, "👋")) == 1 and len(told) == 1

        # Night in the server's zone: nothing is sent, the next run waits for 08:00 there.
        zone = daytime_zone(clock(), 23)
        await poll.slash(table.mod, "settings timezone", zone=zone)
        clock.advance(hours=2)
        await bot.scheduler.sweep()
        async with bot.sessions() as s:
            (prod,) = await repo.open_deadlines(s, kinds=["pl_prod"])
        local = prod.due_at.astimezone(ZoneInfo(zone))
        assert (local.hour, local.minute) == (8, 0) and prod.due_at > clock()
        assert len(prods_of(table, bob, "👋")) == 1


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_new_lobby_mentions_the_lobby_role_once_and_only_it(table: Any, lang: str) -> None:
    table.mod.locale = "fr" if lang == "fr" else "en-US"
    wanted = table.guild.add_role("Players wanted")
    poll = Poll(table, table.users[:3])
    async with poll_bot(table):
        await poll.slash(table.mod, "settings language", language=lang)
        reply = await poll.slash(table.mod, "settings lobby_role", role=wanted)
        assert reply == t("settings.lobby_role_set", lang, role="Players wanted")
        shown = await poll.slash(table.mod, "settings show")
        assert t("settings.show.lobby_role", lang, role=f"<@&{wanted.id}>") in shown
        since = len(table.sb.channel_messages(table.channel))
        await poll.open(vote_hours=1.0)
        await poll.start()
        called = [m for m in table.sb.channel_messages(table.channel)[since:] if m.mention_roles]
        game = t("poll.game_name", lang)
        assert [text_of(m) for m in called] == [
            t("listing.lobby_call", lang, role=f"<@&{wanted.id}>", game=game)
        ]
        assert called[0].mention_roles == [wanted.id] and called[0].mentions == []
        assert [int(r) for r in called[0].allowed_mentions["roles"]] == [wanted.id]


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_games_lists_the_servers_lobbies_first_then_a_players_own_soonest_first(
    table: Any, lang: str
) -> None:
    alice, bob, chloe = table.users[:3]
    reader = chloe if lang == "fr" else alice  # Chloé reads French
    lobby_channel = table.guild.add_text_channel("next-game")
    running = Poll(table, [alice, bob, chloe])
    waiting = Poll(table, [reader], channel=lobby_channel)
    async with poll_bot(table):
        assert await running.slash(reader, "games") == t("listing.none", lang)
        await running.open(vote_hours=2.0)
        await running.start()
        await waiting.open(vote_hours=1.0)
        link = f"https://discord.com/channels/{table.guild.id}"
        here = (await running.slash(reader, "games")).split("\n")
        game = t("poll.game_name", lang)
        assert here[0] == t("listing.here_title", lang)
        assert here[1] == t(
            "listing.lobby", lang, game=game, count=1, max=10, link=f"{link}/{lobby_channel.id}"
        )
        assert here[2].startswith("▶️") and here[2].endswith(f"{link}/{table.channel.id}")
        assert "<t:" in here[2]

        # mine:true, or in a DM: what waits on the reader, soonest first, the lobby last.
        mine = (await running.slash(reader, "games", mine=True)).split("\n")
        assert mine[0] == t("listing.mine_title", lang)
        answer = t("poll.waiting", lang, question="Pizza?")
        assert answer in mine[1] and "(Play-by-post)" in mine[1] and "<t:" in mine[1]
        assert mine[2].startswith(game) and t("listing.wait_start", lang) in mine[2]
        ix = await table.sb.slash(reader, "games")  # in a DM with the bot
        assert text_of(await ix.reply_message(10.0)).split("\n") == mine

        ballot = running.ballot(reader)
        await running.reply(await table.sb.click(reader, ballot, label=ballot.labels[0]))
        after = (await running.slash(reader, "games", mine=True)).split("\n")
        assert len(after) == 2 and t("listing.wait_start", lang) in after[1]
        assert await running.slash(table.users[5], "games", mine=True) == t(
            "listing.none_mine", "en"
        )


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_the_record_totals_each_players_posts_and_missed_deadlines(
    table: Any, lang: str
) -> None:
    alice, bob, chloe = table.users[:3]
    table.mod.locale = "fr" if lang == "fr" else "en-US"
    poll = Poll(table, [alice, bob, chloe])
    async with poll_bot(table) as bot:
        await untimed(bot)
        await poll.open(vote_hours=1.0)
        await poll.start()
        for who in (alice, alice, bob):
            await say(table, bot, who, "a post")
        for who in (alice, bob):
            ballot = poll.ballot(who)
            await poll.reply(await table.sb.click(who, ballot, label=ballot.labels[0]))
        await poll.slash(table.mod, "poll resolve")  # Chloé lets the poll pass
        async with bot.sessions() as s:
            (game,) = await repo.running_games(s, statuses=["ended"])
        ix = await table.sb.slash(table.mod, "poll archive", channel=table.channel, game=game.id)
        reply = await ix.reply_message(10.0)
        record = next(a["filename"] for a in reply.attachments if a["filename"].endswith(".md"))
        text = reply.file(record).decode("utf-8")
        line = partial(t, "activity.record_line", lang)
        assert f"## {t('activity.record_title', lang)}" in text
        assert (
            f"- {line(name='alice', posts=2, missed=0)}\n"
            f"- {line(name='Bob', posts=1, missed=0)}\n"
            f"- {line(name='Chloé', posts=0, missed=1)}\n"
        ) in text


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_every_moderator_action_is_logged_with_its_reason_and_posted(
    table: Any, lang: str
) -> None:
    alice, bob, chloe, david = table.users[:4]
    table.mod.locale = "fr" if lang == "fr" else "en-US"
    log_channel = table.guild.add_text_channel("mod-log")
    poll = Poll(table, [alice, bob, chloe])
    async with poll_bot(table):
        await poll.slash(table.mod, "settings language", language=lang)
        named = {"channel": log_channel}  # the option's name is the sandbox's own keyword's
        await poll.slash(table.mod, "settings mod_log", named=named, reason="audits")
        await poll.open(vote_hours=1.0)
        await poll.start()
        await poll.slash(table.mod, "poll extend", hours=2.0, reason="a *slow* table")
        await poll.slash(table.mod, "poll substitute", old=chloe, new=david)
        await poll.slash(alice, "poll resolve", reason="not a moderator")  # refused: no entry
        await poll.slash(table.mod, "poll resolve")

        def posted() -> list[str]:
            return [text_of(m) for m in table.sb.channel_messages(log_channel)]

        await until(lambda: len(posted()) == 4, what="four entries in the moderators' log")
        settings, extended, substituted, resolved = posted()
        game = t("poll.game_name", lang)
        assert t("modlog.action.settings", lang, setting="mod_log", value="\\#mod-log") in settings
        assert settings.endswith(t("modlog.why", lang, reason="audits"))
        assert f"{game} #1" in extended or f"{game} nº\u00a01" in extended
        assert extended.endswith(
            t("modlog.action.extend", lang, hours="2")
            + t("modlog.why", lang, reason="a \\*slow\\* table")  # escaped
        )
        assert substituted.endswith(t("modlog.action.substitute", lang, old="Chloé", new="david"))
        assert resolved.endswith(t("modlog.action.resolve", lang))
        assert all(m.mentions == [] for m in table.sb.channel_messages(log_channel))

        ix = await table.sb.slash(table.mod, "poll archive", channel=table.channel, game=1)
        reply = await ix.reply_message(10.0)
        record = next(a["filename"] for a in reply.attachments if a["filename"].endswith(".md"))
        text = reply.file(record).decode("utf-8")
        assert f"## {t('modlog.record_title', lang)}" in text
        assert t("modlog.action.substitute", lang, old="Chloé", new="david") in text


async def test_a_change_of_a_games_defaults_is_logged_with_its_reason(table: Any) -> None:
    log_channel = table.guild.add_text_channel("mod-log")
    poll = Poll(table, [])
    async with poll_bot(table):
        await poll.slash(table.mod, "settings mod_log", named={"channel": log_channel})
        await poll.slash(table.mod, "settings poll", vote_hours=2.0, reason="weekends")

        def posted() -> list[str]:
            return [text_of(m) for m in table.sb.channel_messages(log_channel)]

        await until(lambda: len(posted()) == 2, what="the two settings' entries")
        value = "vote\\_hours = 2.0"  # escaped, as every name and value is
        changed = t("modlog.action.settings", "en", setting="poll", value=value)
        assert posted()[-1].endswith(changed + t("modlog.why", "en", reason="weekends"))
