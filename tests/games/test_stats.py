"""Statistics from a table of games of both built-in games with known outcomes, on SQLite and
PostgreSQL (bot/stats.py over each game's Stats hook)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import stats
from db import repo
from games.builtin import builtin_plugins
from games.refutation.rules import Player as RfPlayer
from games.refutation.rules import Result
from games.refutation.rules import events as rf
from games.refutation.tests.rules.helpers import arrange, disinfo, new_game, refutation
from games.resistance.rules import Character, EndReason, Role, Winner
from games.resistance.rules import Player as ResPlayer
from games.resistance.rules import events as rs
from games.resistance.tests.rules.helpers import make_game, play_round
from rulebase import Event

Sessions = async_sessionmaker[AsyncSession]
GUILD, OTHER = 1000, 2000
A, B, C, D, E = 1, 2, 3, 4, 5


def over(winner: str, spies: set[int], characters: dict[int, str] | None = None) -> dict[str, Any]:
    """A ``game_over`` row as the engine writes it."""
    roles = {str(p): Role.SPY if p in spies else Role.RESISTANCE for p in (A, B, C, D, E)}
    reason = EndReason.THREE_FAILURES if winner == "spies" else EndReason.THREE_SUCCESSES
    return rs.GameOver(
        winner=Winner(winner),
        reason=reason,
        roles=roles,
        characters={str(p): Character(c) for p, c in characters.items()} if characters else None,
    ).payload()


def mission(n: int, team: list[int], success: bool) -> dict[str, Any]:
    return rs.MissionResult(
        mission=n,
        team=tuple(team),
        success=success,
        supports=0,
        sabotages=0,
        sabotages_needed=1,
    ).payload()


def refuted(result: str, credits: dict[int, list[int]]) -> dict[str, Any]:
    """A Refutation Game's ``game_over`` row as the engine writes it."""
    return rf.GameOver(
        result=Result(result),
        by_moderator=False,
        refuted=(),
        credits={p: tuple(cards) for p, cards in credits.items()},
        refutations=tuple(
            rf.Refuted(disinformation=0, card=c, player=p, by_reference=False)
            for p, cards in credits.items()
            for c in cards
        ),
    ).payload()


# (guild, kind, final status, public events): the table of games with known outcomes.
GAMES: list[tuple[int, str, str, list[tuple[str, dict[str, Any]]]]] = [
    # 1. Spies A, B win; missions: A+C fail, C+D succeed, A+B+E fail, B+C+E fail.
    (
        GUILD,
        "resistance",
        "ended",
        [
            ("mission_result", mission(1, [A, C], False)),
            ("mission_result", mission(2, [C, D], True)),
            ("mission_result", mission(3, [A, B, E], False)),
            ("mission_result", mission(4, [B, C, E], False)),
            ("game_over", over("spies", {A, B})),
        ],
    ),
    # 2. Spies C, D lose (Resistance wins); two missions succeed with A and E.
    (
        GUILD,
        "resistance",
        "ended",
        [
            ("mission_result", mission(1, [A, E], True)),
            ("mission_result", mission(2, [A, E, B], True)),
            ("mission_result", mission(3, [A, E, B], True)),
            ("game_over", over("resistance", {C, D})),
        ],
    ),
    # 3. Avalon: A is Merlin, B the Assassin; evil (B, E) wins by the assassination.
    (
        GUILD,
        "resistance",
        "ended",
        [
            (
                "game_over",
                over(
                    "spies",
                    {B, E},
                    {A: "merlin", B: "assassin", C: "servant", D: "percival", E: "morgana"},
                ),
            )
        ],
    ),
    # Cancelled, running and another server's games never count.
    (GUILD, "resistance", "cancelled", [("game_over", over("spies", {A, B}))]),
    (GUILD, "resistance", "running", [("mission_result", mission(1, [A, B], True))]),
    (OTHER, "resistance", "ended", [("game_over", over("resistance", {A, B}))]),
    # The Refutation Game: a win (A credited 2, B 1), a loss (C credited 1).
    (
        GUILD,
        "refutation",
        "ended",
        [("game_over", refuted("won", {A: [31, 32], B: [33], C: []}))],
    ),
    (
        GUILD,
        "refutation",
        "ended",
        [("game_over", refuted("lost", {A: [], C: [34]}))],
    ),
    (
        GUILD,
        "refutation",
        "cancelled",
        [("game_over", refuted("ended", {A: [1, 2, 3]}))],
    ),
]

NAMES = {A: "Amélie", B: "Bob", C: "Chloé", D: "david", E: "Émile"}


async def seed(sessions: Sessions) -> None:
    for n, (guild, kind, status, events) in enumerate(GAMES):
        async with sessions.begin() as s:
            game = await repo.create_game(
                s, kind=kind, guild_id=guild, channel_id=100 + n, created_by=9
            )
            await s.flush()
            for uid, name in NAMES.items():
                await repo.add_player(s, game.id, uid, name)
            for kind_, payload in events:
                await repo.append_event(s, game.id, kind_, payload)
            # A private event that must never count (a secret choice).
            await repo.append_event(s, game.id, "game_over", over("spies", {C}), private_to=C)
            game.status = status


PLUGINS = builtin_plugins()


async def test_known_games_give_known_figures(sessions: Sessions) -> None:
    await seed(sessions)
    async with sessions() as s:
        figures = await stats.guild_stats(s, GUILD, PLUGINS)
    a, b, c, d, e = (figures[p] for p in (A, B, C, D, E))
    assert a.name == "Amélie" and e.name == "Émile"
    # The Resistance: three ended games each.
    assert [(p["resistance"].played, p["resistance"].won) for p in (a, b, c, d, e)] == [
        (3, 2),  # spy won, resistance won, Merlin lost
        (3, 3),  # spy won, resistance won, assassin won
        (3, 0),
        (3, 0),
        (3, 2),  # resistance lost, resistance won, Morgana won
    ]
    ra, rb, rc, rd, re_ = (p["resistance"] for p in (a, b, c, d, e))
    assert (ra.sides["spy"].played, ra.sides["spy"].won) == (1, 1)
    assert (rb.sides["spy"].played, rb.sides["spy"].won) == (2, 2) and b[
        "resistance"
    ].spy_rate == 1.0
    assert (rc.sides["spy"].played, rc.sides["spy"].won) == (1, 0) and c[
        "resistance"
    ].spy_rate == 0.0
    assert ra.spy_rate == 1.0 and re_.spy_rate == 1.0 and rd.spy_rate == 0.0
    # By role: the sides of classic games, Avalon's characters as they are stored.
    assert {r: (x.played, x.won) for r, x in ra.roles.items()} == {
        "spy": (1, 1),
        "resistance": (1, 1),
        "merlin": (1, 0),
    }
    assert {r: (x.played, x.won) for r, x in re_.roles.items()} == {
        "resistance": (2, 1),
        "morgana": (1, 1),
    }
    # Missions joined and their outcomes (the running game's mission does not count).
    assert (
        ra.missions,
        ra.missions_succeeded,
        ra.missions_failed,
    ) == (5, 3, 2)
    assert (
        rc.missions,
        rc.missions_succeeded,
        rc.missions_failed,
    ) == (3, 1, 2)
    assert (
        rd.missions,
        rd.missions_succeeded,
        rd.missions_failed,
    ) == (1, 1, 0)
    # The Refutation Game (the cancelled game does not count).
    assert (a["refutation"].played, a["refutation"].won, a["refutation"].credited) == (2, 1, 2)
    assert (b["refutation"].played, b["refutation"].won, b["refutation"].credited) == (1, 1, 1)
    assert (c["refutation"].played, c["refutation"].won, c["refutation"].credited) == (2, 1, 1)
    assert D not in {p for p, x in figures.items() if "refutation" in x and x["refutation"].played}
    # Another server sees only its own game.
    async with sessions() as s:
        other = await stats.guild_stats(s, OTHER, PLUGINS)
    assert other[A]["resistance"].played == 1 and "refutation" not in other[A]


async def test_the_leaderboard_and_its_minimum(sessions: Sessions) -> None:
    await seed(sessions)
    async with sessions() as s:
        figures = await stats.guild_stats(s, GUILD, PLUGINS)
    board = stats.leaderboard(figures, "resistance", 3)
    assert [p.user_id for p in board] == [B, A, E, C, D]  # 3 wins, 2 (by name), 0 (by name)
    assert [p.user_id for p in stats.leaderboard(figures, "refutation", 2)] == [A, C]
    assert stats.leaderboard(figures, "resistance", 4) == []
    text = stats.top_text(figures, "refutation", 1, "fr")
    assert "1. **Bob** — 1 gagnée sur 1 (100\u202f%)" in text  # same wins, better rate
    assert "2. **Amélie** — 1 gagnée sur 2 (50\u202f%)" in text
    assert "au moins 1 partie" in text
    english = stats.player_text(figures[B], "Bob", "en")
    assert "3 games, 3 won (100%)" in english and "spy win rate 100%" in english
    assert "Assassin 1/1" in english
    assert "X\\*" in stats.player_text(None, "X*", "en")


def test_a_substituted_player_counts_for_what_they_did_not_for_the_result() -> None:
    """README, Statistics: substituted out, a player counts for their missions and their
    refutations, not for the game's result; the substitute counts for the result only. Played
    with the real engines: a refutation by P1, P1 substituted, a refutation by P2 wins."""
    game = new_game(3, target=5)
    p1, p2, p3 = game.player_ids
    newcomer = RfPlayer(200001, "New")
    d_a0, d_a1 = disinfo(0, 0), disinfo(0, 1)
    r_a0, r_a1, r_a2, r_a3 = (refutation(0, j) for j in range(4))
    for card in (disinfo(1, 1), disinfo(1, 2), disinfo(1, 3)):  # three already refuted
        game.draw.remove(card) if card in game.draw else game.feed.remove(card)
        game.refuted.append(card)
    events: list[Event] = []
    arrange(
        game,
        active=p1,
        in_front={p2: d_a0},
        hands={p1: [r_a0, refutation(1, 0)], p2: [r_a1], p3: [r_a2, r_a3]},
    )
    events += game.refute(p1, p2)
    choices: tuple[tuple[int, int | None], ...] = ((p1, r_a0), (p2, None), (p3, None))
    for pid, choice in choices:
        events += game.choose(pid, choice)
    events += game.reveal()
    for pid in (p1, p2, p3):
        events += game.vote(pid, r_a0)
    events += game.close_vote()
    events += game.substitute(p1, newcomer)
    arrange(game, active=p2, in_front={p3: d_a1})
    events += game.refute(p2, p3)
    choices = ((newcomer.id, None), (p2, r_a1), (p3, None))
    for pid, choice in choices:
        events += game.choose(pid, choice)
    events += game.reveal()
    for pid in (newcomer.id, p2, p3):
        events += game.vote(pid, r_a1)
    events += game.close_vote()
    assert events[-1].kind == "game_over" and game.result is Result.WON

    figures = stats.tally(PLUGINS, {"refutation": [e for e in events if e.private_to is None]})
    left, sub, second = (figures[p]["refutation"] for p in (p1, newcomer.id, p2))
    assert (left.played, left.won, left.credited) == (
        0,
        0,
        1,
    )
    assert (sub.played, sub.won, sub.credited) == (
        1,
        1,
        0,
    )
    assert (
        second.played,
        second.won,
        second.credited,
    ) == (
        1,
        1,
        1,
    )
    assert "0 games, 0 won — 1 refutation credited" in stats.player_text(figures[p1], "P1", "en")

    # The Resistance, the same rule: the leaver's missions count, the result is the seat's.
    res = make_game(5)  # the spies sit last; each team is the first seats
    leaver = res.players[0].id
    res_events = play_round(res)
    res_events += res.substitute(leaver, ResPlayer(200002, "New"))
    res_events += play_round(res) + play_round(res)
    assert res_events[-1].kind == "game_over"
    figures = stats.tally(PLUGINS, {"resistance": [e for e in res_events if e.private_to is None]})
    assert (figures[leaver]["resistance"].missions, figures[leaver]["resistance"].played) == (1, 0)
    assert (figures[200002]["resistance"].missions, figures[200002]["resistance"].won) == (2, 1)
    assert "• Missions: 1 joined" in stats.player_text(figures[leaver], "Leaver", "en")
