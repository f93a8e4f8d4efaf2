"""What players and moderators reach for, through the sandbox: the vote matrix on
/resistance history and at the end of the game, archives, stats, rules, daily deadlines."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import discord
import pytest

from db import repo
from games.refutation.players import RfGame
from games.resistance.players import Game
from playtest.players import until
from tests.harness import running_bot

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
    french, english = french_and_english(game)
    assert "no finished game" in await game.slash(english, "stats player")
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
    assert "Mission 3 succeeded with 0 sabotages." in png["description"]
    assert "History of the game" in post.content
    assert png["content_type"] == "image/png" and png["width"] <= 1200
    record = next(a for a in post.attachments if a["filename"].endswith(".md"))
    assert record["filename"].startswith("resistance-game-") and record["size"] > 500
    text = post.file(record["filename"]).decode("utf-8")
    assert text.count("**Proposal ") == 3 and "Mission 3 succeeds" in text
    for user in game.players:  # every vote by name, every role
        assert user.name in text
    for spy in game.spies():
        assert any(spy.name in line and "| Spy |" in line for line in text.splitlines())

    # The archive: anyone finds the game by number or date and gets its record privately.
    french, english = french_and_english(game)
    outsider = table.users[9]
    choices = await table.sb.autocomplete(
        outsider, "resistance archive", channel=table.channel, focused="game", game=""
    )
    ((label, game_id),) = [(c["name"], c["value"]) for c in choices]
    assert label.startswith(f"#{game_id} · 20") and "Resistance wins" in label
    for user, words, filename in (
        (english, "The record of game", "resistance-game-"),
        (french, "Le compte rendu de la partie", "resistance-partie-"),
    ):
        ix = await table.sb.slash(user, "resistance archive", channel=table.channel, game=game_id)
        message = await ix.reply_message(10.0)
        assert message.ephemeral and words in message.content
        names = sorted(a["filename"] for a in message.attachments)
        assert names[0].startswith(filename) and names[0].endswith(".md")
        assert names[1].endswith(".png")
    refused = await game.slash(english, "resistance archive", game=game_id + 100)
    assert f"no finished game {game_id + 100}" in refused
    refused = await game.slash(french, "refutation archive", game=game_id)
    assert "pas de partie" in refused  # a Resistance game is not a Refutation Game

    # The game counts in the statistics at once: privately per player, publicly as a board.
    spy = game.spies()[0]
    mine = await game.slash(spy, "stats player")
    assert "1 game, 0 won (0%)" in mine and "spy win rate 0%" in mine
    loyal = next(u for u in good if u.locale != "fr")
    theirs = await game.slash(french, "stats player", user=loyal)
    assert "1 partie, 1 gagnée (100\u202f%)" in theirs
    ix = await table.sb.slash(outsider, "stats top", channel=table.channel, min_games=1)
    board = await ix.reply_message(10.0)
    assert not board.ephemeral and "Leaderboard — The Resistance" in board.content
    assert board.content.count(" won of 1 ") == 5
    await game.slash(table.mod, "settings language", language="fr")
    ix = await table.sb.slash(outsider, "stats top", channel=table.channel, min_games=2)
    board = await ix.reply_message(10.0)
    assert "Classement" in board.content and "Personne" in board.content


async def test_a_cancelled_refutation_game_leaves_its_record(table: Any, bot: Any) -> None:
    players = table.users[:3]
    game = RfGame(table, players)
    await game.open()
    await game.start()
    assert "cancelled" in await game.slash(table.mod, "refutation cancel")
    post = await until(
        lambda: next((m for m in table.sb.channel_messages(table.channel) if m.attachments), None),
        what="the record of the cancelled game",
    )
    (record,) = post.attachments
    assert record["filename"].startswith("refutation-game-") and "record" in post.content
    text = post.file().decode("utf-8")
    assert "ended by a moderator" in text and all(u.name in text for u in players)
    french = next(u for u in players if u.locale == "fr")
    choices = await table.sb.autocomplete(
        french, "refutation archive", channel=table.channel, focused="game", game="20"
    )
    ((label, game_id),) = [(c["name"], c["value"]) for c in choices]
    assert "annulée" in label
    ix = await table.sb.slash(french, "refutation archive", channel=table.channel, game=game_id)
    message = await ix.reply_message(10.0)
    assert "Le compte rendu de la partie" in message.content
    assert message.attachments[0]["filename"] == f"refutation-partie-{game_id}.md"
    assert "arrêtée par un modérateur" in message.file().decode("utf-8")
    english = next(u for u in players if u.locale != "fr")
    ix = await table.sb.slash(english, "refutation archive", channel=table.channel, game=game_id)
    message = await ix.reply_message(10.0)
    assert message.ephemeral and "The record of game" in message.content
    assert "## Refutations" in message.file(f"refutation-game-{game_id}.md").decode("utf-8")


async def test_rules_privately_in_the_readers_language_with_the_options_here(
    table: Any, bot: Any
) -> None:
    game = Game(table, table.users[:5])
    french, english = french_and_english(game)
    whole = await rules(table, english, "resistance rules", "No game is running")
    assert "forum (play-by-post) adaptation" in whole
    assert "mission 4 with 7 players or more" in whole
    assert "Avalon" not in whole.replace("which Avalon always plays", "")
    # No game here: both tables of team sizes, each named.
    forum = "5 players: 2-2-3-3-3 · 6–7 players: 2-3-3-4-4 · 8–10 players: 3-4-4-5-5"
    box = "5 players: 2-3-2-3-3 · 6 players: 2-3-4-3-4 · 7 players: 2-3-3-4-4 · 8–10 players"
    assert f"The forum adaptation's table, played by default: {forum}." in whole
    assert f"(`team_table:box`), which Avalon always plays: {box}: 3-4-4-5-5." in whole
    await game.open(vote_hours=12.0)
    whole = await rules(table, french, "resistance rules", "Options de la partie")
    # A game here: the table in force only.
    assert "(missions 1 à 5, la table de l’adaptation pour le forum)\u00a0: 5 joueurs" in whole
    assert "2-2-3-3-3" in whole and "2-3-2-3-3" not in whole
    # each option by the name a French player types (/resistance nouvelle heures_vote:…), its
    # value as French writes it, in the alphabetical order of those names
    assert "adaptation pour le forum" in whole and "`heures_vote` = 12," in whole
    assert "`vote_hours`" not in whole and "`variante` = classique" in whole
    assert "`clôture_anticipée` = non, `dame_du_lac` = non, `fermer_débat` = oui" in whole
    # The Resistance game here is not a Refutation Game.
    whole = await rules(table, french, "refutation rules", "Aucune partie en cours")
    assert "page de référence" in whole
    whole = await rules(table, english, "refutation rules", "No game is running")
    assert "reference page" in whole and "cooperative" in whole


async def test_rules_give_the_table_in_force(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    _, english = french_and_english(game)
    await game.open(team_table="box")
    whole = await rules(table, english, "resistance rules", "Options of the game")
    assert (
        "**Team sizes** (missions 1–5, the published game's table): 5 players: 2-3-2-3-3 · "
        "6 players: 2-3-4-3-4 · 7 players: 2-3-3-4-4 · 8–10 players: 3-4-4-5-5." in whole
    )
    assert "2-2-3-3-3" not in whole and "`team_table` = box" in whole
    assert "cancelled" in await game.slash(table.mod, "resistance cancel")
    await game.open(variant="avalon")
    whole = await rules(table, english, "resistance rules", "Options of the game")
    assert "(missions 1–5, Avalon's table): 5 players: 2-3-2-3-3 · 6 players: 2-3-4-3-4" in whole


async def rules(table: Any, user: Any, command: str, last: str) -> str:
    """Every private message of the answer (the first, then the followups) until ``last``."""
    ix = await table.sb.slash(user, command, channel=table.channel)
    first = await ix.reply_message(10.0)
    assert first.ephemeral

    def whole() -> str | None:
        messages = [first, *ix.followups]
        assert all(len(m.content) <= 2000 for m in messages)
        text = "\n".join(m.content for m in messages)
        return text if last in text else None

    text: str = await until(whole, what=f"the end of {command}")
    return text


async def test_daily_deadline_time_in_the_servers_time_zone(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    english = next(u for u in game.players if u.locale != "fr")
    choices = await table.sb.autocomplete(
        table.mod, "settings timezone", channel=table.channel, focused="zone", zone="new york"
    )
    assert choices[0]["value"] == "America/New_York"
    refused = await game.slash(table.mod, "settings timezone", zone="Mars/Olympus")
    assert "not a time zone I know" in refused
    done = await game.slash(table.mod, "settings timezone", zone="america/new_york")
    assert "**America/New_York**" in done
    shown = await game.slash(table.mod, "settings show")
    assert "Time zone: America/New_York" in shown

    refused = await game.slash(table.mod, "resistance new", deadline_time="9pm")
    assert "is not a time of day" in refused
    async with bot.sessions() as s:
        assert await repo.active_game_in_channel(s, table.channel.id) is None  # nothing opened
    await game.open(deadline_time="21:00", min_hours=12.0)
    await game.start()
    before = datetime.now(UTC)
    since = len(game.public())
    await game.propose(game.resistance()[:2])
    async with bot.sessions() as s:
        game_row = await repo.active_game_in_channel(s, table.channel.id)
        assert game_row is not None and game_row.options["deadline_time"] == "21:00"
        deadlines = {d.kind: d.due_at for d in await repo.open_deadlines(s, game_row.id)}
    due = deadlines["rs_vote"]
    local = due.astimezone(ZoneInfo("America/New_York"))
    assert (local.hour, local.minute) == (21, 0)
    assert timedelta(hours=12) <= due - before <= timedelta(hours=36, minutes=1)
    assert deadlines["rs_reminder"] == due - timedelta(hours=2)  # reminders count back from it
    announced = await game.new_public(since, "proposes")
    assert f"<t:{int(due.timestamp())}:F>" in announced
    whole = await rules(table, english, "resistance rules", "Options of the game")
    assert "`deadline_time` = 21:00" in whole and "`timezone` = America/New_York" in whole

    # In French: a French-speaking moderator gets French answers.
    admins = table.guild.add_role(
        "Admins", permissions=discord.Permissions(manage_guild=True).value
    )
    moderatrice = table.sb.add_user("Modératrice", locale="fr")
    table.guild.add_member(moderatrice, roles=[admins])
    refused = await game.slash(moderatrice, "settings timezone", zone="Nulle/Part")
    assert "«\u202fNulle/Part\u202f» n’est pas un fuseau horaire" in refused
    done = await game.slash(moderatrice, "settings timezone", zone="Europe/Paris")
    assert "**Europe/Paris**" in done and "Les échéances quotidiennes" in done
    assert "Fuseau horaire\u00a0: Europe/Paris" in await game.slash(moderatrice, "settings show")
    whole = await rules(table, moderatrice, "resistance rules", "Options de la partie")
    assert "`heure_échéance` = 21:00" in whole and "`fuseau_horaire` = Europe/Paris" in whole


async def test_without_attach_files_the_end_of_game_text_still_comes(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    await game.open(lock_during_vote=False)
    await game.start()
    # The bot loses Attach Files in this channel during the game.
    table.channel.set_permissions(
        table.guild.bot_role, allow=0, deny=discord.Permissions(attach_files=True).value
    )
    good = game.resistance()
    for mission in (1, 2, 3):
        await game.round(good[: game.team_size(mission)])
    history = await game.new_public(0, "History of the game")
    assert "Proposal 3" in history
    assert not any(m.attachments for m in table.sb.channel_messages(table.channel))


async def test_stats_are_the_same_after_a_restart(table: Any) -> None:
    """The figures live nowhere but in the games and their events: a new process agrees."""
    players = table.users[:5]
    roles = {str(u.id): ("spy" if i < 2 else "resistance") for i, u in enumerate(players)}
    answers = []
    for run in range(2):
        async with running_bot(table.sb, table.url()) as bot:
            if run == 0:  # one ended game, won by the spies, written by the first process
                async with bot.sessions.begin() as s:
                    game = await repo.create_game(
                        s,
                        kind="resistance",
                        guild_id=table.guild.id,
                        channel_id=table.channel.id,
                        created_by=table.mod.id,
                    )
                    await s.flush()
                    for u in players:
                        await repo.add_player(s, game.id, u.id, u.name)
                    team = [players[0].id, players[2].id]
                    result = {
                        "mission": 1,
                        "team": team,
                        "success": False,
                        "supports": 1,
                        "sabotages": 1,
                        "sabotages_needed": 1,
                    }
                    await repo.append_event(s, game.id, "mission_result", result)
                    over = {"winner": "spies", "reason": "three_failures", "roles": roles}
                    await repo.append_event(s, game.id, "game_over", over)
                    game.status = "ended"
            ix = await table.sb.slash(players[0], "stats player", channel=table.channel)
            mine = (await ix.reply_message(10.0)).content
            ix = await table.sb.slash(players[2], "stats top", channel=table.channel)
            board = (await ix.reply_message(10.0)).content
            answers.append((mine, board))
    assert answers[0] == answers[1]
    mine, board = answers[0]
    assert "1 game, 1 won (100%)" in mine and "1 joined — 0 succeeded, 1 failed" in mine
    assert board.index(players[0].name) < board.index(players[2].name)  # winners first
