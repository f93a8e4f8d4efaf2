"""The poll, a game registered from the test, played end to end through the sandbox with the real
discord.py client and a real SQLite file: lobby, start, DM choice, deadline, public result, a bot
restart in the middle, and a second poll in the same channel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from typing import Any

import pytest

from bot.app import GameBot
from db import repo
from games.builtin import builtin_plugins
from playtest.players import TableGame, text_of, until
from tests.e2e.poll_game.plugin import PLUGIN
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(120)


@asynccontextmanager
async def poll_bot(table: Any) -> AsyncIterator[GameBot]:
    """The real bot with the built-in games and the poll."""
    async with running_bot(table.sb, table.url(), plugins=[*builtin_plugins(), PLUGIN]) as bot:
        yield bot


class PollTable(TableGame):
    """A poll driven through the sandbox by its moderator and players."""

    async def open(self, question: str, **options: Any) -> Any:
        since = len(self.sb.channel_messages(self.channel))
        reply = await self.slash(self.t.mod, "poll new", question=question, **options)
        assert reply == "The lobby of Poll is open in this channel.", reply
        lobby = await until(
            lambda: next(
                (m for m in self.sb.channel_messages(self.channel)[since:] if m.labels), None
            ),
            what="the lobby",
        )
        for user in self.players:
            ix = await self.sb.click(user, lobby, label="Join")
            await self.reply(ix)
        return lobby

    def ballot(self, user: Any) -> Any:
        """The player's latest DM with the two buttons."""
        return next((m for m in reversed(self.sb.dms(user)) if len(m.labels) == 2), None)

    async def start(self) -> str:
        reply = await self.slash(self.t.mod, "poll start")
        for user in self.players:
            await until(partial(self.ballot, user), what=f"{user.name}'s ballot")
        return reply

    async def answer(self, user: Any, label: str) -> str:
        ix = await self.sb.click(user, self.ballot(user), label=label)
        return await self.reply(ix)


async def test_a_poll_across_a_restart_closes_at_its_deadline(table: Any) -> None:
    alice, bob, chloe = table.users[0], table.users[1], table.users[2]
    poll = PollTable(table, [alice, bob, chloe])
    async with poll_bot(table) as bot:
        lobby = await poll.open(
            "Pizza or *sushi*?", first="Pizza", second="Sushi", vote_hours=0.006
        )
        assert "Pizza or \\*sushi\\*?" in text_of(lobby)  # the question is escaped
        assert "Players (3, 2 to 10): alice, Bob, Chloé" in text_of(
            poll.sb.channel_messages(poll.channel)[-1]
        )
        assert await poll.start() == "The poll has started: every player has the question by DM."
        opened = poll.public()[-1]
        assert "the poll is open to 3 players" in opened
        # Each player's DM, in their language, with the moderator's two answers as buttons.
        assert poll.ballot(alice).labels == ["Pizza", "Sushi"]
        assert "Answer with a button below" in text_of(poll.ballot(alice))
        assert "Répondez avec un bouton" in text_of(poll.ballot(chloe))
        assert await poll.answer(alice, "Sushi") == "Your answer is on record: **Sushi**."
        assert await poll.answer(alice, "Pizza") == "Your answer is changed: **Pizza**."
        async with bot.sessions() as s:
            game = await repo.active_game_in_channel(s, table.channel.id)
            assert game is not None and game.kind == "poll"
            game_id = game.id
            (deadline,) = await repo.open_deadlines(s, game_id, kinds=["pl_vote"])
    # Nothing public says who answered what while the poll runs: the lobby and the opening.
    assert len(poll.public()) == 2 and poll.public()[-1] == opened

    # A new process, the same database: the buttons of the first one's DMs still work, and it
    # resolves the deadline the first one set.
    async with poll_bot(table) as bot:
        assert await poll.answer(bob, "Sushi") == "Your answer is on record: **Sushi**."
        since = len(poll.public())
        result = await poll.new_public(since, "the poll is closed", timeout=60)
        async with bot.sessions() as s:
            game = await repo.get_game(s, game_id)
            assert game is not None and game.status == "ended"
            assert await repo.open_deadlines(s, game_id) == []
        assert bot.clock() >= deadline.due_at
        assert result == (
            "📊 **Pizza or \\*sushi\\*?** — the poll is closed.\n"
            "**Pizza**: 1 (alice)\n"
            "**Sushi**: 1 (Bob)\n"
            "No answer: Chloé"
        )
        # Too late: the poll is over; the answer is refused privately and nothing changes.
        assert await poll.answer(chloe, "Pizza") == "Ce sondage est clos."
        assert len(poll.public()) == since + 1


async def test_a_second_poll_in_the_same_channel_closes_when_everyone_answered(
    table: Any,
) -> None:
    players = [table.users[3], table.users[1], table.users[0]]  # david, Bob, alice
    poll = PollTable(table, players)
    async with poll_bot(table):
        await poll.open("First question", vote_hours=0.5)
        await poll.start()
        assert "Sans réponse" not in " ".join(poll.public())
        assert "Only moderators" in await poll.slash(players[0], "poll resolve")
        assert await poll.slash(table.mod, "poll resolve") == "The poll is closed now."
        first = poll.public()[-1]
        assert first.endswith("No answer: alice, Bob, david")
        assert "**Yes**: 0 (—)" in first  # the catalogue's answers when none is given

        # Again, in the same channel: it closes as soon as everyone has answered, long before
        # its deadline; the names are in alphabetical order (not the order of the answers).
        await poll.open("Second question", vote_hours=1.0)
        await poll.start()
        for user in players:
            await poll.answer(user, "No")
        result = await poll.new_public(0, "Second question** — the poll is closed")
        assert result.splitlines()[1:] == ["**Yes**: 0 (—)", "**No**: 3 (alice, Bob, david)"]
        status = await poll.slash(players[0], "poll status")
        assert status == "There is no game of this kind running in this channel."


async def test_a_closed_poll_has_a_record_and_counts_in_the_statistics(table: Any) -> None:
    """The contract test of the plugin hooks: the poll, a game registered from its own folder,
    gets /poll archive and its lines of /stats player and /stats top through the same hooks as
    the built-in games (GamePlugin.archive, GamePlugin.stats), with nothing of it in the core."""
    alice, bob, chloe = table.users[0], table.users[1], table.users[2]
    poll = PollTable(table, [alice, bob, chloe])
    async with poll_bot(table) as bot:
        await poll.open("Tea or *coffee*?", first="Tea", second="Coffee", vote_hours=1.0)
        await poll.start()
        await poll.answer(alice, "Tea")
        await poll.answer(bob, "Tea")
        await poll.answer(chloe, "Coffee")
        await poll.new_public(0, "the poll is closed")
        async with bot.sessions() as s:
            (game,) = await repo.running_games(s, [table.guild.id], statuses=("ended",))
            game_id = game.id

        # The record, privately, as a Markdown file: the question and who chose what.
        ix = await table.sb.slash(alice, "poll archive", channel=table.channel, game=game_id)
        reply = await ix.reply_message(10.0)
        assert reply is not None and reply.ephemeral
        assert f"The record of game {game_id} (Poll" in reply.content
        assert "Tea 2 · Coffee 1" not in reply.content  # the outcome names the choices as such
        assert "Yes 2 · No 1" in reply.content
        record = reply.file().decode("utf-8")
        assert f"# Poll — game {game_id}" in record
        assert "## Tea or \\*coffee\\*?" in record
        assert "- Tea: alice, Bob" in record and "- Coffee: Chloé" in record
        # The autocomplete offers it by number, date and outcome (the poll's own words).
        choices = await table.sb.autocomplete(
            alice, "poll archive", channel=table.channel, focused="game", game=""
        )
        assert any(str(game_id) in c["name"] and "Yes 2 · No 1" in c["name"] for c in choices)

        # The statistics: the poll's line in /stats player, and its leaderboard.
        ix = await table.sb.slash(alice, "stats player", channel=table.channel)
        mine = text_of(await ix.reply_message(10.0))
        assert "**Poll**: 1 poll answered, 1 with the majority" in mine
        ix = await table.sb.slash(chloe, "stats top", channel=table.channel, game="poll")
        top = text_of(await ix.reply_message(10.0))
        assert "Leaderboard — Poll" in top
        assert top.index("alice") < top.index("Chloé") and "Bob" in top
