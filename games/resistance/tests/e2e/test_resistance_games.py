"""Whole games of The Resistance through the sandbox: real discord.py, real SQLite."""

from __future__ import annotations

import re
from typing import Any

import pytest

from games.resistance.players import END_MARKERS, Game
from playtest.players import text_of

pytestmark = pytest.mark.timeout(180)

ROLE_WORDS = re.compile(r"\b(spy|spies|espion|espions|résistant|resistance member)\b", re.I)


def assert_transcript_keeps_secrets(
    game: Game, words: re.Pattern[str] = ROLE_WORDS, markers: tuple[str, ...] = END_MARKERS
) -> None:
    """Before the end (a message with one of ``markers``) no channel line names a player next
    to a role word (``words``) or a sabotage."""
    transcript = game.public()
    end = next((i for i, x in enumerate(transcript) if any(m in x for m in markers)), None)
    before = transcript if end is None else transcript[:end]
    names = [u.name for u in game.players]
    for text in before:
        for line in text.splitlines():
            named = [n for n in names if n in line]
            if words.search(line):
                assert not named, f"a role next to a name before the end: {line!r}"
            if re.search(r"sabot", line, re.I):
                assert not named, f"a sabotage next to a name: {line!r}"


def assert_alphabetical(result: str, lang_word: str) -> None:
    line = next(x for x in result.splitlines() if x.startswith(lang_word))
    names = line.split(":", 1)[1].strip()
    if names != "—":
        listed = [n.strip() for n in names.split(",")]
        assert listed == sorted(listed, key=str.casefold), line


async def test_five_players_resistance_wins_after_a_rejected_team(table: Any, bot: Any) -> None:
    players = table.users[:5]
    game = Game(table, players)
    await game.open()
    await game.start()
    pins = table.sb.pins(table.channel)
    assert len(pins) == 1 and "Leader list" in text_of(pins[0])
    good = game.resistance()

    # A rejected team first: everyone rejects, names listed alphabetically, the lead passes.
    first_leader = game.leader()
    result = await game.round(good[:2], accepted=False)
    assert "Team rejected" in result
    assert_alphabetical(result, "Rejected")
    assert "Rejected (5)" in result
    assert game.leader() != first_leader
    assert "rejected teams 1/5" in text_of(table.sb.pins(table.channel)[-1])

    # Then three missions of loyal members only: the Resistance wins.
    for mission in (1, 2, 3):
        result = await game.round(good[: game.team_size(mission)])
        assert "Team accepted" in result and f"Mission {mission} succeeds" in result
        assert "0 sabotages." in result
    end = await game.new_public(0, "The Resistance wins")
    assert "three missions succeeded" in end
    spy_names = sorted((u.name for u in game.spies()), key=str.casefold)
    assert ", ".join(spy_names) in end  # every role revealed at the end
    history = await game.new_public(0, "History of the game")
    assert history.count("Proposal") == 4
    assert_transcript_keeps_secrets(game)


async def test_seven_players_mission_four_needs_two_sabotages(table: Any, bot: Any) -> None:
    players = table.users[:7]
    game = Game(table, players)
    await game.open()
    await game.start()
    spies, good = game.spies(), game.resistance()
    assert len(spies) == 3

    # Mission 1 succeeds, missions 2 and 3 fail with one spy each.
    await game.round(good[:2])
    result = await game.round([spies[0], *good[:2]], sabotage=[spies[0]])
    assert "Mission 2 fails" in result and "1 sabotage." in result
    result = await game.round([spies[1], *good[:2]], sabotage=[spies[1]])
    assert "Mission 3 fails" in result
    # Mission 4 at 7 players: one sabotage is not enough.
    result = await game.round([spies[0], *good[:3]], sabotage=[spies[0]])
    assert "Mission 4 succeeds" in result and "1 sabotage." in result
    # Mission 5: two saboteurs, the spies win.
    result = await game.round([spies[0], spies[1], *good[:2]], sabotage=spies[:2])
    assert "Mission 5 fails" in result and "2 sabotages." in result
    end = await game.new_public(0, "The spies win")
    assert "three missions failed" in end
    assert_transcript_keeps_secrets(game)


async def test_ten_players_five_rejections_hand_the_spies_the_game(table: Any, bot: Any) -> None:
    players = table.users[:10]
    game = Game(table, players)
    await game.open(lock_during_vote=False)
    await game.start()
    assert len(game.spies()) == 4
    leaders = []
    for _ in range(5):
        leaders.append(game.leader())
        result = await game.round(players[:3], accepted=False)
        assert "Team rejected" in result
    assert len(set(leaders)) == 5  # the lead passed after every rejection
    end = await game.new_public(0, "The spies win")
    assert "five teams were rejected" in end
    assert_transcript_keeps_secrets(game)


async def test_the_end_history_still_names_a_substituted_player(table: Any, bot: Any) -> None:
    """The votes before a substitution name the player who left (the end post used to fail on
    their id, no longer a player)."""
    players = table.users[:5]
    game = Game(table, players)
    await game.open(lock_during_vote=False)
    await game.start()
    await game.round(players[:2], accepted=False)
    leaver, newcomer = players[0], table.users[5]
    reply = await game.slash(table.mod, "resistance substitute", old=leaver, new=newcomer)
    assert newcomer.name in reply
    game.players = [newcomer if u is leaver else u for u in game.players]
    game.by_name[newcomer.name] = newcomer
    for _ in range(4):
        await game.round(game.players[1:3], accepted=False)
    await game.new_public(0, "The spies win")
    history = await game.new_public(0, "History of the game")
    before, _ = history.split(f"{newcomer.name} replaced {leaver.name}")
    assert f"against: {leaver.name}" in before or f", {leaver.name}" in before
    assert history.count("• Proposal") == 5
