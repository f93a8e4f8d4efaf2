"""Avalon through the sandbox: real discord.py, real SQLite, restarts in the middle of the Lady
of the Lake and of the assassination, and a scan of the channel for leaked secrets."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.resistance.players import AVALON_END_MARKERS, EVIL, RESULT_MARKERS, AvalonGame, Game
from games.resistance.tests.e2e.test_resistance_games import (
    assert_transcript_keeps_secrets as assert_resistance_transcript_keeps_secrets,
)
from playtest.players import text_of, until
from tests.harness import running_bot

pytestmark = pytest.mark.timeout(240)

# Role words, sides and the Lady's verdicts, in both languages.
SECRET_WORDS = re.compile(
    r"\b(merlin|percival|perceval|morgana|morgane|mordred|oberon|assassin|servant|serviteur|vassal|"
    r"servante|minion|good|evil|bien|mal|spy|spies|espion|espions)\b",
    re.I,
)


def assert_transcript_keeps_secrets(game: AvalonGame) -> None:
    """The Resistance's scan with Avalon's words and end; and the pinned leader list."""
    assert_resistance_transcript_keeps_secrets(game, SECRET_WORDS, AVALON_END_MARKERS)
    for pin in game.sb.pins(game.channel):
        assert not SECRET_WORDS.search(text_of(pin)), text_of(pin)


def first_line(game: AvalonGame, user: Any) -> str:
    dm = game.role_dm(user)
    assert dm is not None
    return dm.splitlines()[0]


async def test_avalon_options_are_checked(table: Any, bot: Any) -> None:
    game = AvalonGame(table, table.users[:7])
    reply = await game.slash(table.mod, "resistance new", percival=True)
    assert "belongs to the Avalon variant" in reply
    reply = await game.slash(table.mod, "resistance new", variant="avalon", morgana=True)
    assert "Morgana only plays with Percival" in reply
    assert not [m for m in table.sb.channel_messages(table.channel) if m.labels]
    # Four special evil roles need four spies: ten players, not seven.
    await game.open_avalon(percival=True, morgana=True, mordred=True, oberon=True)
    reply = await game.slash(table.mod, "resistance start")
    assert "7 players have 3 spies, too few for 4 special evil roles" in reply
    assert "at least 10 players" in reply
    assert all(game.role_dm(u) is None for u in game.players)


async def test_ten_players_every_role_the_lady_and_the_assassination(table: Any, sb: Any) -> None:
    players = table.users[:10]
    game = AvalonGame(table, players)
    async with running_bot(sb, table.url()):
        await game.open_avalon(
            percival=True,
            morgana=True,
            mordred=True,
            oberon=True,
            lady_of_the_lake=True,
            lock_during_vote=False,
        )
        await game.start()
        assert sorted(game.characters.values()) == sorted(
            ["merlin", "percival", *["servant"] * 4, "assassin", "morgana", "mordred", "oberon"]
        )
        start = await game.new_public(0, "**Avalon** begins")
        assert "Roles in play: Merlin, Percival, the Assassin, Morgana, Mordred, Oberon" in start
        # The game is named Avalon everywhere, as the channel says: the lobby, the DMs.
        assert "**Avalon** — new game!" in game.public()[0]
        chloe = next(u for u in players if u.name == "Chloé")
        first_dm = text_of(sb.dms(chloe)[0])
        assert first_dm.startswith("La partie d’Avalon dans "), first_dm
        assert "The Resistance" not in " ".join(text_of(m) for u in players for m in sb.dms(u))

        # What each role DM shows.
        merlin, percival = game.one("merlin"), game.one("percival")
        morgana, mordred, oberon = game.one("morgana"), game.one("mordred"), game.one("oberon")
        assassin = game.one("assassin")
        evil = {u.name for u in players if game.characters[u.id] in EVIL}
        assert game.named_in(first_line(game, merlin)) == evil - {mordred.name}
        assert game.named_in(first_line(game, percival)) == {merlin.name, morgana.name}
        for user in players:
            role = game.characters[user.id]
            if role in EVIL - {"oberon"}:
                expected = evil - {user.name, oberon.name}
                assert game.named_in(first_line(game, user)) == expected, role
            elif role in ("oberon", "servant"):
                assert game.named_in(game.role_dm(user) or "") == set(), role

        # The Lady starts with the last player on the leader list.
        pinned = text_of(sb.pins(table.channel)[-1])
        order = re.findall(r"^\d+\. (?:\*\*)?(.+?)(?:\*\* ←.*)?$", pinned, re.M)
        first_holder = game.lady_holder()
        assert order[-1] == first_holder.name

        good = game.resistance()
        result = await game.round(good[:3])
        assert "Mission 1 succeeds" in result
        since = len(game.public())
        dms_before = len(sb.dms(first_holder))
        result = await game.round(good[:4])
        assert "Mission 2 succeeds" in result
        turn = await game.new_public(since, "examines one player")
        assert f"**{first_holder.name}** examines" in turn
        menu = await game.wait_menu(first_holder, "lady", dms_before)
        others = [u.name for u in players if u is not first_holder]
        assert game.menu_names(menu) == sorted(others, key=str.casefold)

    # A restart while the holder chooses: the DM's menu still works.
    async with running_bot(sb, table.url()):
        target = next(u for u in players if u is not first_holder and u.name in evil)
        refused = await game.slash(target, "resistance lady", player=first_holder)
        assert "Only the holder of the Lady of the Lake examines" in refused
        since = len(game.public())
        reply = await game.pick(first_holder, menu, target)
        assert target.name in reply
        assert ("servant of Mordred" in reply) or ("sert le **Mal**" in reply), reply
        examined = await game.new_public(since, "examined")
        assert f"**{first_holder.name}** examined **{target.name}**" in examined
        assert game.lady_holder() is target
        again = await game.pick(first_holder, menu, target)
        assert "earlier choice" in again or "choix précédent" in again

        # Mission 3 fails; the new holder lets the deadline pass (a moderator resolves it).
        saboteur = next(u for u in players if u.name in evil)
        result = await game.round([saboteur, *good[:3]], sabotage=[saboteur])
        assert "Mission 3 fails" in result
        reply = await game.slash(target, "resistance lady", player=first_holder)
        assert "has already held the Lady of the Lake" in reply or "déjà détenu" in reply
        since = len(game.public())
        closed = await game.slash(table.mod, "resistance resolve")
        assert closed == "The Lady of the Lake's choice is closed now."  # not "The vote is…"
        passed = await game.new_public(since, "did not use the Lady of the Lake in time")
        assert f"**{target.name}** did not use" in passed
        assert game.lady_holder() not in (first_holder, target)

        # Mission 4 succeeds: three successes, the assassination.
        since = len(game.public())
        dms_before = len(sb.dms(assassin))
        result = await game.round(good[:5])
        assert "Mission 4 succeeds" in result
        await game.new_public(since, "evil has one last chance")
        kill_menu = await game.wait_menu(assassin, "kill", dms_before)
        named = set(game.menu_names(kill_menu))
        assert named == {u.name for u in players} - {assassin.name, morgana.name, mordred.name}
        assert oberon.name in named and merlin.name in named
        reply = await game.slash(assassin, "resistance assassinate", player=mordred)
        assert "cannot be named" in reply or "ne peut pas être désigné" in reply
        assert game.ended() is None

    # A restart during the assassination: the Assassin names Merlin from the old DM.
    async with running_bot(sb, table.url()):
        reply = await game.pick(assassin, kill_menu, merlin)
        assert merlin.name in reply
        end = await game.new_public(0, "Evil wins")
        assert f"named **{merlin.name}**: that was Merlin!" in end
        assert "the Assassin found Merlin" in end
        assert f"Merlin: {merlin.name}" in end and f"Oberon: {oberon.name}" in end
        assert f"Percival: {percival.name}" in end
        history = await game.new_public(0, "History of the game")
        assert f"Lady of the Lake: {first_holder.name} examined {target.name}" in history
        assert "**Roles**" in history and f"Mordred: {mordred.name}" in history
    assert_transcript_keeps_secrets(game)


async def round_early(game: AvalonGame, team: list[Any]) -> str:
    """A round that closes early (everyone has voted), without a moderator."""
    since = len(game.public())
    await game.propose(team)
    await game.vote(accept=game.players)
    await game.vote(support=team)
    return await game.new_public(since, *RESULT_MARKERS)


async def test_five_players_the_assassin_names_no_one_good_wins(table: Any, bot: Any) -> None:
    players = table.users[:5]
    game = AvalonGame(table, players)
    await game.open_avalon(vote_hours=6 / 3600, early_close=True, reminder_hours=0.0)
    await game.start()
    assert sorted(game.characters.values()) == sorted(
        ["merlin", "servant", "servant", "assassin", "minion"]
    )
    good = game.resistance()
    for mission in (1, 2, 3):
        result = await round_early(game, good[: game.team_size(mission)])
        assert f"Mission {mission} succeeds" in result
    await game.new_public(0, "evil has one last chance")
    assassin, minion = game.one("assassin"), game.one("minion")
    reply = await game.slash(minion, "resistance assassinate", player=good[0])
    assert "Only the Assassin names Merlin" in reply
    status = await game.slash(good[0], "resistance status")
    assert "the assassination" in status
    # A newcomer takes the Assassin's seat: the role and the menu come to them; the leaver's
    # menu stops working.
    newcomer = table.users[5]
    seen = len(table.sb.dms(newcomer))
    reply = await game.slash(table.mod, "resistance substitute", old=assassin, new=newcomer)
    assert newcomer.name in reply
    await game.wait_menu(newcomer, "kill", seen)
    assert any("the Assassin" in text_of(m) for m in table.sb.dms(newcomer)[seen:])
    refused = await game.pick(assassin, game.menu_dm(assassin, "kill"), good[0])
    assert "aren't a player" in refused
    # Moderation applies to the assassination: a reminder to the Assassin alone, a longer wait.
    everyone = [*players, newcomer]
    dms = {u.id: len(table.sb.dms(u)) for u in everyone}
    reply = await game.slash(table.mod, "resistance remind")
    assert "Reminder sent to 1 player" in reply

    def reminded() -> list[Any]:
        return [
            u
            for u in everyone
            if any("name Merlin" in text_of(m) for m in table.sb.dms(u)[dms[u.id] :])
        ]

    assert await until(reminded, what="the Assassin's reminder") == [newcomer]
    reply = await game.slash(table.mod, "resistance extend", hours=0.001)
    assert "Deadline moved" in reply
    await game.new_public(0, "extended the deadline")
    end = await game.new_public(0, "Good wins", timeout=20)
    assert "The Assassin named no one in time" in end
    assert f"Assassin: {newcomer.name}" in end
    # The history still names the leaver in the votes before the substitution.
    history = await game.new_public(0, "History of the game")
    before, after = history.split(f"{newcomer.name} replaced {assassin.name}")
    assert assassin.name in before and f"Assassin: {newcomer.name}" in after
    assert "the Assassin named no one in time" in end
    late = await game.pick(assassin, game.menu_dm(assassin, "kill"), good[0])
    assert "ended game" in late or "partie terminée" in late
    assert_transcript_keeps_secrets(game)


async def test_server_defaults_make_avalon_the_default(table: Any, bot: Any) -> None:
    reply = await AvalonGame(table, []).slash(
        table.mod, "settings resistance", variant="avalon", percival=True, lady_of_the_lake=True
    )
    assert "variant" in reply and "avalon" in reply
    game = AvalonGame(table, table.users[:6])
    await game.open()  # no option typed: the server's defaults
    await game.start()
    start = await game.new_public(0, "**Avalon** begins")
    assert "Roles in play: Merlin, Percival, the Assassin" in start
    assert "The Lady of the Lake starts with" in start
    assert sorted(set(game.characters.values())) == [
        "assassin",
        "merlin",
        "minion",
        "percival",
        "servant",
    ]
    # A classic game typed on the same server drops the server's Avalon options.
    other = Game(table, table.users[6:11], table.guild.add_text_channel("classic"))
    await other.open(variant="classic")
    await other.start()
    assert "Avalon" not in "\n".join(other.public())
    assert len(other.spies()) == 2  # the classic role DMs: Spy or Resistance


async def test_the_lobby_says_avalon_and_its_roles_in_the_servers_language(
    table: Any, bot: Any
) -> None:
    """Who joins an Avalon game knows it: the lobby names the variant, its roles and the Lady
    (never next to a player's name); a classic game's lobby says nothing of Avalon."""

    def lobby_of(channel: Any) -> str:
        return text_of([m for m in table.sb.channel_messages(channel) if m.labels][-1])

    game = AvalonGame(table, table.users[:7])
    await game.open_avalon(percival=True, morgana=True, lady_of_the_lake=True)
    text = await until(lambda: "Players (7" in lobby_of(table.channel) and lobby_of(table.channel))
    line = next(x for x in text.splitlines() if "variant." in x)
    assert line == "🏰 **Avalon** variant. Special roles: Merlin, Percival, the Assassin, Morgana."
    assert "🌊 With the Lady of the Lake." in text.splitlines()
    assert_transcript_keeps_secrets(game)

    await game.slash(table.mod, "resistance cancel")
    await game.slash(table.mod, "settings language", language="fr")
    await game.slash(table.mod, "resistance new", variant="avalon", mordred=True, oberon=True)
    text = await until(lambda: "Joueurs (0" in lobby_of(table.channel) and lobby_of(table.channel))
    assert "🏰 Variante **Avalon**. Rôles spéciaux\u00a0: Merlin, l’Assassin, Mordred, Oberon." in (
        text.splitlines()
    )
    assert "Dame du Lac" not in text
    assert text.startswith("**Avalon** — nouvelle partie\u202f!"), text  # the variant’s own name

    await game.slash(table.mod, "resistance cancel")
    await game.slash(table.mod, "resistance new")
    text = await until(lambda: "Avalon" not in lobby_of(table.channel) and lobby_of(table.channel))
    assert text.count("\n") == 1, text
