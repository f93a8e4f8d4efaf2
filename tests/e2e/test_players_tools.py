"""What players and moderators reach for, through the sandbox: the vote matrix on
/resistance history and at the end of the game (then archives, stats, rules, timezones)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.play import Game, until

pytestmark = pytest.mark.timeout(180)


def french_and_english(game: Game) -> tuple[Any, Any]:
    french = next(u for u in game.players if u.locale == "fr")
    english = next(u for u in game.players if u.locale != "fr")
    return french, english


async def test_history_attaches_the_vote_matrix_in_the_readers_language(
    table: Any, bot: Any
) -> None:
    game = Game(table, table.users[:5])
    await game.open()
    await game.start()
    await game.round(game.resistance()[:2], accepted=False)
    french, english = french_and_english(game)
    for user, filename, words in (
        (english, "votes-game-", "Vote matrix, 5 players"),
        (french, "votes-partie-", "Tableau des votes, 5 joueurs"),
    ):
        ix = await table.sb.slash(user, "resistance history", channel=table.channel)
        message = await ix.reply_message(10.0)
        assert message.ephemeral
        (attachment,) = message.attachments
        assert attachment["filename"].startswith(filename) and attachment["filename"].endswith(
            ".png"
        )
        assert attachment["size"] > 1000
        assert attachment["description"].startswith(words)
        assert "Proposal 1" in message.content or "Proposition 1" in message.content


async def test_the_end_of_game_post_carries_the_vote_matrix(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.open(lock_during_vote=False)
    await game.start()
    good = game.resistance()
    for mission in (1, 2, 3):
        await game.round(good[: game.team_size(mission)])
    post = await until(
        lambda: next(
            (
                m
                for m in table.sb.channel_messages(table.channel)
                if any(a["filename"].endswith(".png") for a in m.attachments)
            ),
            None,
        ),
        what="the end-of-game post with the vote matrix",
    )
    png = next(a for a in post.attachments if a["filename"].endswith(".png"))
    assert png["filename"].startswith("votes-game-")
    assert "Mission 3 succeeded with 0 sabotage(s)" in png["description"]
    assert "History of the game" in post.content
