"""Rules fidelity through the sandbox: names in the reader's order and escaped, what the public
status shows, who is pinged and told by DM, every end posts the reveal and the history, and the
Refutation Game refuses a goal the table cannot reach."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.names import names, shown
from games.refutation.players import DECK, RfGame, best_card
from games.refutation.tests.e2e.test_refutation_games import setup_target
from games.resistance.players import Game
from playtest.players import text_of, until

pytestmark = pytest.mark.timeout(150)

FORUM = ["zoé", "Œdipe", "Ève", "Émile", "Çedric", "Bruno", "alice"]
IN_ORDER = "alice, Bruno, Çedric, Émile, Ève, Œdipe, zoé"
HOSTILE = ["**x** ← leader", "[Free Nitro](https://evil.example)"]
BOLD = re.compile(r"(?<!\\)\*\*")  # a bold marker that renders (not an escaped \*\*)


def members(table: Any, names: list[str], locale: str = "fr") -> list[Any]:
    users = []
    for name in names:
        user = table.sb.add_user(name, locale=locale)
        table.guild.add_member(user)
        users.append(user)
    return users


async def french(table: Any) -> None:
    ix = await table.sb.slash(table.mod, "settings language", channel=table.channel, language="fr")
    await ix.reply_message(10.0)


def bot_messages(game: Any) -> list[Any]:
    return [m for m in game.sb.channel_messages(game.channel) if m.author_is_bot]


def pinged(message: Any) -> list[int]:
    """Who Discord notifies for this message: the sandbox applies its allowed_mentions."""
    return list(message.mentions)


def calls(game: Any, marker: str) -> list[Any]:
    return [m for m in bot_messages(game) if marker in (m.content or "")]


def only_calls_ping(game: Any, marker: str) -> None:
    """Every call to act pings exactly the member it names; no other message pings anyone."""
    for message in bot_messages(game):
        if marker in (message.content or ""):
            named = [int(x) for x in re.findall(r"<@!?(\d+)>", message.content)]
            assert len(named) == 1 and pinged(message) == named, message.content
            allowed = message.allowed_mentions or {}
            assert allowed.get("parse") == [] and [int(u) for u in allowed["users"]] == named
        else:
            assert pinged(message) == [], message.content


async def open_lobby(game: Any, command: str, **options: Any) -> None:
    """Open a game and let its players join with the lobby's Join button (any language)."""
    since = len(game.sb.channel_messages(game.channel))
    await game.slash(game.t.mod, command, **options)
    lobby = await until(
        lambda: next((m for m in game.sb.channel_messages(game.channel)[since:] if m.labels), None),
        what="the lobby message",
    )
    join = lobby.buttons[0]["custom_id"]
    for user in game.players:
        await game.reply(await game.sb.click(user, lobby, custom_id=join))


def game_link(table: Any) -> str:
    return f"https://discord.com/channels/{table.guild.id}/{table.channel.id}"


async def test_french_names_order_escape_status_pings_and_the_cancelled_end(
    table: Any, bot: Any
) -> None:
    await french(table)
    players = members(table, FORUM + HOSTILE)
    game = Game(table, players)
    game.by_name |= {shown(u.name): u for u in players}
    await open_lobby(game, "resistance new")
    lobby = text_of(next(m for m in bot_messages(game) if m.labels))
    assert IN_ORDER in lobby, lobby
    assert r"\*\*x\*\* ← leader" in lobby and r"\[Free Nitro]" in lobby
    assert not re.search(r"(?<!\\)\*\*x", lobby)  # no bold
    assert not re.search(r"(?<!\\)\[Free Nitro\]\(", lobby)  # no masked link
    await game.start()

    # One bold leader on the pinned list, whatever the names.
    pinned = text_of(table.sb.pins(table.channel)[-1])
    assert len(BOLD.findall(pinned)) == 4, pinned  # the title and the active leader
    # The call pings the leader (only), who also gets a DM with the channel's link.
    leader = game.leader()
    only_calls_ping(game, "proposez une équipe")
    assert calls(game, "proposez une équipe")[-1].mentions == [leader.id]
    dm = await table.sb.wait_for_dm(leader, "C’est à vous")
    assert game_link(table) in text_of(dm)

    # A vote with one missing team vote and one team member who has voted but not chosen.
    others = [u for u in players if u is not leader]
    chooser, silent, late = others[0], others[1], others[2]
    team = [leader, chooser, silent]
    await game.propose(team)
    await game.vote(accept=[u for u in players if u is not late], support=[leader, chooser])
    outsider = table.users[0]  # English
    status = await game.slash(outsider, "resistance status")
    waiting = next(x for x in status.splitlines() if x.startswith("Not voted yet"))
    assert waiting == f"Not voted yet: {shown(late.name)}", status
    assert "Votes in: 8/9" in status
    # The moderator's reminder still tells the silent team member, privately.
    await game.slash(table.mod, "resistance remind")
    await table.sb.wait_for_dm(silent, "Rappel")
    assert not any("Rappel" in text_of(m) for m in bot_messages(game))

    await game.vote(accept=[late])
    result = await game.resolve()
    accepted = next(x for x in result.splitlines() if x.startswith("Pour (9)"))
    assert accepted.endswith(IN_ORDER), accepted
    assert accepted == "Pour (9)\u00a0: " + ", ".join(
        names([(u.id, u.name) for u in players], "fr")
    )
    new_leader = await until(lambda: game.leader() if game.leader() is not leader else None)
    await until(lambda: len(calls(game, "proposez une équipe")) == 2, what="the second call")
    assert calls(game, "proposez une équipe")[-1].mentions == [new_leader.id]
    await table.sb.wait_for_dm(new_leader, "C’est à vous")
    only_calls_ping(game, "proposez une équipe")

    # Cancelled: the roles and the history are posted, every list in the reader's order.
    since = len(game.public())
    assert "cancelled" in await game.slash(table.mod, "resistance cancel")
    end = await game.new_public(since, "annulée par un modérateur")
    history = await game.new_public(since, "Historique de la partie")
    assert "Proposition 1" in history and IN_ORDER in history
    order = [shown(n) for n in sorted(FORUM, key=IN_ORDER.split(", ").index)]
    for line in end.splitlines():
        if line.startswith(("Espions", "Résistants")):
            listed = [n for n in line.split("\u00a0: ", 1)[1].split(", ") if n in order]
            assert listed == sorted(listed, key=order.index), line


async def test_leader_reminders_and_the_timeout_end_post_the_history(table: Any, bot: Any) -> None:
    game = Game(table, table.users[:5])
    # The lead passes after 3 s; the reminder comes 1 s before.
    await game.open(leader_hours=3 / 3600, reminder_hours=1 / 3600)
    await game.start()
    end = await game.new_public(0, "The spies win", timeout=60)
    assert "five teams were rejected" in end
    history = await game.new_public(0, "History of the game")
    assert history.count("was skipped as leader") == 5
    skipped = [text for text in game.public() if "did not propose a team in time" in text]
    assert len(skipped) == 5
    # Each skipped leader was pinged by the call, then reminded by DM before the skip.
    debate = calls(game, "propose a team of")
    assert len(debate) == 5
    only_calls_ping(game, "propose a team of")
    for message in debate:
        leader = table.sb.user(message.mentions[0])
        dms = [text_of(m) for m in table.sb.dms(leader)]
        called = ("It is your turn", "C’est à vous")
        reminded = ("you are still the leader", "vous êtes toujours le Leader")
        assert any(any(c in x for c in called) and game_link(table) in x for x in dms), dms
        assert any(any(r in x for r in reminded) for x in dms), dms


async def test_refutation_goal_pings_and_sorted_summary(table: Any, bot: Any) -> None:
    players = members(table, ["zoé", "Émile"], locale="en-US")
    game = RfGame(table, players)
    await game.open(target=9)
    # 2 players hold 8 cards: a goal of 9 is refused before anyone is asked anything.
    reply = await game.slash(table.mod, "refutation start")
    assert "cannot be reached" in reply, reply
    assert "The largest possible goal for this table is 7" in reply, reply
    assert all(table.sb.dms(u) == [] for u in players)
    assert "new game" in await game.status()  # still in the lobby

    bruno = members(table, ["Bruno"], locale="en-US")[0]
    assert "You are in" in await game.slash(bruno, "refutation join")
    game = RfGame(table, [*players, bruno])  # 3 players hold 12 cards: 9 can be reached
    await game.start()
    start = next(x for x in game.public() if "begins with 3 players" in x)
    assert "**Bruno**, **Émile**, **zoé**" in start
    active = game.active()
    only_calls_ping(game, "it is your turn")
    await table.sb.wait_for_dm(active, "It is your turn")
    assert game_link(table) in text_of(table.sb.dms(active)[-1])
    # A watch passes the turn: the next player is pinged, and only them.
    since = len(game.public())
    await game.watch(active, game.feed()[0])
    await game.new_public(since, "it is your turn")
    following = game.active()
    assert following is not active
    assert calls(game, "it is your turn")[-1].mentions == [following.id]
    await table.sb.wait_for_dm(following, "It is your turn")
    only_calls_ping(game, "it is your turn")
    # Ended by a moderator: the summary, players in alphabetical order.
    since = len(game.public())
    await game.slash(table.mod, "refutation cancel")
    end = await game.new_public(since, "The game was ended")
    lines = [x for x in end.splitlines() if x.startswith("• **")]
    assert [x.split("**")[1] for x in lines] == ["Bruno", "Émile", "zoé"]


async def card_page(table: Any, user: Any, channel: Any, number: int) -> str:
    ix = await table.sb.slash(user, "refutation card", channel=channel, number=number)
    message = await ix.reply_message(10.0)
    assert message is not None and message.ephemeral
    return text_of(message)


def someone_can_refute(card: int, hands: dict[Any, list[int]]) -> bool:
    return any(best_card(h, card) is not None for h in hands.values())


async def test_the_targets_stars_open_only_with_the_public_button(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3)]  # private answers in English
    outsider = table.users[9]
    elsewhere = table.guild.add_text_channel("elsewhere")
    await until(lambda: bot.get_channel(elsewhere.id) is not None, what="the new channel")
    game = RfGame(table, players)
    await game.open(techniques=True)
    await game.start()
    active, owner, target, hands = await setup_target(game, someone_can_refute)
    holder, card = next((u, best_card(h, target)) for u, h in hands.items() if best_card(h, target))
    assert card is not None
    other = next(d.number for d in DECK.disinformation() if d.number != target)
    before = await card_page(table, outsider, table.channel, target)
    assert "★" in before  # before the refutation, the page is free to read
    await game.refute(active, owner)
    await game.choose_all({holder: card})

    # The vote is open: the target's stars, privately, nowhere; the button is named.
    for user, channel in ((holder, table.channel), (holder, elsewhere), (outsider, table.channel)):
        page = await card_page(table, user, channel, target)
        assert "★" not in page and "☆" not in page, page
        assert "Reference page" in page and f"<#{table.channel.id}>" in page, page
    # The revealed card's page hides only the target's line; other cards stay free.
    page = await card_page(table, holder, table.channel, card)
    line = next(x for x in page.splitlines() if x.startswith(f"Card {target} — "))
    assert "stars hidden during the vote" in line and "★" not in line
    assert "★" in await card_page(table, holder, table.channel, other)

    # The public button shows the page to everyone and elects as the rules say.
    since = len(game.public())
    assert "reference page" in await game.click_vote(holder, "ref")
    shown_page = await game.new_public(since, "opens the reference page")
    assert "★" in shown_page and f"Card {card} has the most stars" in shown_page
    claim = DECK.card(target).claim
    assert claim and f"Where the claim circulates: <{claim}>" in shown_page  # the myth's record
    result = await game.new_public(since, "succeeds:")
    assert "elected by the reference page" in result
    assert "★" in await card_page(table, holder, table.channel, target)  # free again
