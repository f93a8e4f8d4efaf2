"""Whole games of The Refutation Game through the sandbox: real discord.py, real SQLite."""

from __future__ import annotations

from typing import Any

import pytest

from games.refutation.players import (
    DECK,
    RfGame,
    assert_no_hand_in_public,
    auto_turn,
    best_card,
    eligible,
    in_front,
    is_technique,
    playable,
)
from playtest.players import text_of, until
from tests.harness import running_bot

# each test with every bypass, then with none (tests/e2e/support.py)
pytestmark = [pytest.mark.timeout(90), pytest.mark.usefixtures("public_paths")]


async def test_three_players_refute_five_with_the_technique_variant(table: Any, bot: Any) -> None:
    players = table.users[:3]
    game = RfGame(table, players)
    await game.open(techniques=True, target=5)
    assert "started" in await game.start()
    hands = {u: game.hand(u) for u in players}
    assert all(len(h) == 5 and sum(is_technique(c) for c in h) == 1 for h in hands.values())
    chloe = next(u for u in players if u.name == "Chloé")
    assert any("Votre main" in m.content for m in table.sb.dms(chloe))  # DMs in her language
    start_dms = {u.id: list(h) for u, h in hands.items()}
    assert len(game.feed()) == 3

    for _ in range(30):
        if game.ended():
            break
        await auto_turn(game, hands)
        if "(1/5)" in game.public()[-2] and not game.ended():
            for user in players:  # the hands as the bot keeps them, privately
                assert sorted(await game.hand_now(user)) == sorted(hands[user])
    end = await game.new_public(0, "The table wins")
    assert "5 disinformation cards refuted" in end
    for user in players:
        assert f"**{user.name}**" in end
    assert end.count("https://") >= 5  # every refuted card with its source
    assert "no game of this kind running" in await game.status()  # the channel is free again
    assert_no_hand_in_public(game, start_dms)


async def setup_target(
    game: RfGame, want: Any, *, techniques: bool = True
) -> tuple[Any, Any, int, dict[Any, list[int]]]:
    """Watch feed cards until a disinformation that ``want(target, hands)`` accepts is in front
    of a player; returns (next active player, its owner, the card, hands)."""
    hands = {u: game.hand(u) for u in game.players}
    for _ in range(8):
        _, active = game.turn()
        fronts = await in_front(game)
        for owner, card in fronts.items():
            if want(card, hands):
                return active, owner, card, hands
        feed = game.feed()
        card = next((d for d in feed if want(d, hands)), feed[0])
        since = len(game.public())
        reply = await game.watch(active, card, return_current=active in fronts)
        assert "now in front of you" in reply, reply
        await game.new_public(since, "it is your turn")
    raise AssertionError("no suitable disinformation came up")


def two_relevant(card: int, hands: dict[Any, list[int]]) -> bool:
    """Two players hold eligible cards of different relevance against ``card``."""
    stars = sorted(DECK.stars(card, c) for c in playable(hands, card).values())
    return len(stars) >= 2 and stars[-1] > stars[-2]


async def test_the_reference_page_decides(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3)]  # private answers in English
    game = RfGame(table, players)
    await game.open(techniques=True)
    await game.start()
    active, owner, target, hands = await setup_target(game, two_relevant)
    best = playable(hands, target)
    ranked = sorted(
        (u for u in players if u in best),
        key=lambda u: -DECK.stars(target, best[u]),
    )
    top, second = ranked[0], ranked[1]
    reply = await game.refute(active, owner)
    assert "Refutation #1 is open" in reply
    reveal = await game.choose_all({top: best[top], second: best[second]})
    assert f"played by **{top.name}**" in reveal and f"played by **{second.name}**" in reveal
    # One vote for the weaker card first; then the reference page elects the stronger one.
    vote = await game.click_vote(second, best[second])
    assert "Your vote in refutation #1" in vote
    since = len(game.public())
    assert "reference page" in await game.click_vote(top, "ref")
    page = await game.new_public(since, "opens the reference page")
    assert f"Card {best[top]} has the most stars" in page
    assert "https://" in page
    result = await game.new_public(since, "succeeds:", "fails:")
    assert "succeeds" in result and f"card {best[top]}" in result
    assert "elected by the reference page" in result
    assert "(1/5)" in result
    assert best[top] not in await game.hand_now(top)
    assert best[second] in await game.hand_now(second)  # back to its owner
    assert owner not in await in_front(game)
    assert_no_hand_in_public(game)


def two_eligible(card: int, hands: dict[Any, list[int]]) -> bool:
    return sum(1 for h in hands.values() if best_card(h, card) is not None) >= 2


async def test_a_tie_refutes_nothing(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3)]  # private answers in English
    game = RfGame(table, players)
    await game.open(techniques=True)
    await game.start()
    active, owner, target, hands = await setup_target(game, two_eligible)
    cards = playable(hands, target)
    a, b = [u for u in players if u in cards][:2]
    third = next(u for u in players if u not in (a, b))
    await game.refute(active, owner)
    await game.choose_all({a: cards[a], b: cards[b]})
    result = await game.vote_all({a: cards[a], b: cards[b], third: "abstain"})
    assert "fails" in result and "no card has more than half" in result
    assert f"card {cards[a]}: 1" in result and f"card {cards[b]}: 1" in result
    assert (await in_front(game))[owner] == target  # the disinformation stays
    assert cards[a] in await game.hand_now(a) and cards[b] in await game.hand_now(b)
    assert "Refuted pile (0/5)" in await game.status()
    assert game.turn()[1] is not active  # the marker passed
    assert_no_hand_in_public(game)


async def test_refresh_then_forced_placement_and_return_current(table: Any, bot: Any) -> None:
    players = table.users[:2]
    game = RfGame(table, players)
    await game.open()
    await game.start()
    _, first = game.turn()
    other = next(u for u in players if u is not first)
    old_feed = game.feed()

    # Refresh with a card of the old feed: it went under the deck, so the player must pick again.
    since = len(game.public())
    reply = await game.watch(first, old_feed[0], refresh=True)
    assert "not in the new feed" in reply
    await game.new_public(since, "refreshes the feed")
    await until(lambda: game.feed() != old_feed, what="the new feed")
    new_feed = game.feed()
    assert not set(new_feed) & set(old_feed)
    status = await game.status()
    assert "must watch one of its cards" in status
    # Now they must place: no refutation, no second refresh.
    assert "you must watch one of its cards" in await game.slash(
        first, "refutation refute", target=other
    )
    assert "only once per turn" in await game.watch(first, new_feed[1], refresh=True)
    # Autocomplete offers the new feed.
    choices = await table.sb.autocomplete(
        first, "refutation watch", channel=table.channel, focused="card", card=""
    )
    assert [c["value"] for c in choices] == new_feed
    assert "now in front of you" in await game.watch(first, new_feed[1])
    assert (await in_front(game))[first] == new_feed[1]

    # The other player watches; then the first one comes back with a card in front.
    await game.watch(other, game.feed()[0])
    await until(lambda: game.turn()[1] is first, what="the first player's turn")
    feed = game.feed()
    count = len(game.public())
    refused = await game.watch(first, feed[0])
    assert f"You already have disinformation card {new_feed[1]}" in refused
    assert len(game.public()) == count and (await in_front(game))[first] == new_feed[1]
    since = len(game.public())
    assert "now in front of you" in await game.watch(first, feed[0], return_current=True)
    text = await game.new_public(since, "back under the deck")
    assert f"puts card {new_feed[1]} back under the deck" in text
    assert (await in_front(game))[first] == feed[0]
    assert_no_hand_in_public(game)


async def test_a_restart_during_the_secret_choice_keeps_every_choice(table: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3)]
    game = RfGame(table, players)
    async with running_bot(table.sb, table.url(), seed=3):
        await game.open(techniques=True, choice_hours=48.0)
        await game.start()
        active, owner, target, hands = await setup_target(game, two_eligible)
        cards = playable(hands, target)
        a, b = [u for u in players if u in cards][:2]
        third = next(u for u in players if u not in (a, b))
        await game.refute(active, owner)
        assert "On record" in await game.choose(a, cards[a])
        assert "you pass" in await game.choose(third, "pass")
        old_dm = game.choice_dm(b)
    count = len(game.public())
    async with running_bot(table.sb, table.url(), seed=4):
        status = await game.status()
        assert "secret choice, 2/3 decided" in status
        assert "On record" in await game.choose(b, cards[b], message=old_dm)
        reveal = await game.new_public(count, "Revealed cards")
        assert f"Card {cards[a]} — " in reveal and f"Card {cards[b]} — " in reveal
        assert f"played by **{a.name}**" in reveal and f"played by **{b.name}**" in reveal
        result = await game.vote_all({u: cards[a] for u in players})
        assert "succeeds" in result
    assert_no_hand_in_public(game)


async def test_bad_inputs_get_a_private_message_and_change_nothing(
    table: Any, bot: Any, tmp_path: Any
) -> None:
    players = [table.users[i] for i in (0, 1, 3)]
    outsider = table.users[5]
    game = RfGame(table, players)
    await game.open(techniques=False)
    await game.start()
    _, active = game.turn()
    idle = next(u for u in players if u is not active)

    async def refused(user: Any, command: str, expected: str, **options: Any) -> None:
        before_status, before_count = await game.status(), len(game.public())
        ix = await table.sb.slash(user, command, channel=table.channel, **options)
        message = await ix.reply_message(10.0)
        assert message is not None and message.ephemeral
        assert expected in text_of(message), text_of(message)
        assert len(game.public()) == before_count
        assert await game.status() == before_status

    feed = game.feed()
    await refused(idle, "refutation watch", "It is not your turn", card=feed[0])
    await refused(outsider, "refutation watch", "does not play in this game", card=feed[0])
    await refused(active, "refutation watch", "Card 999 is not in the feed", card=999)
    await refused(active, "refutation refute", "has no disinformation card", target=idle)
    await refused(active, "refutation refute", "does not play", target=table.mod)
    await refused(idle, "refutation start", "Only moderators")
    await refused(idle, "refutation choose", "No refutation is waiting", card="pass")

    # A card goes in front of the active player; the next one refutes it.
    await game.watch(active, feed[0])
    await until(lambda: game.turn()[1] is not active, what="the next turn")
    _, refuter = game.turn()
    target = (await in_front(game))[active]
    hands = {u: game.hand(u) for u in players}
    assert "is open" in await game.refute(refuter, active)
    offered = await table.sb.autocomplete(
        active, "refutation choose", channel=table.channel, focused="card", card=""
    )
    expected = [str(c) for c in hands[active] if eligible(c, target, False)] + ["pass"]
    assert [c["value"] for c in offered] == expected
    wrong = next(
        ((u, c) for u in players for c in hands[u] if not eligible(c, target, False)), None
    )
    assert wrong is not None
    await refused(wrong[0], "refutation choose", f"Card {wrong[1]} cannot refute", card=wrong[1])
    elsewhere = next(c for c in hands[idle] if c not in hands[active])
    await refused(
        active, "refutation choose", f"Card {elsewhere} is not in your hand", card=str(elsewhere)
    )
    await refused(outsider, "refutation choose", "does not play", card="pass")
    await refused(active, "refutation choose", "is not a card number", card="banana")

    # Whoever holds an eligible card plays it, the others pass: then the vote.
    choices = {u: best_card(hands[u], target, False) for u in players}
    reveal = await game.choose_all(choices)
    first_dm = game.choice_dm(players[0])
    assert "Revealed cards" in reveal, reveal
    revealed = next(c for c in choices.values() if c is not None)
    not_revealed = next(c for c in hands[idle] if c not in choices.values())
    await refused(
        idle, "refutation vote", f"Card {not_revealed} was not revealed", card=str(not_revealed)
    )
    offered = await table.sb.autocomplete(
        idle, "refutation vote", channel=table.channel, focused="card", card=""
    )
    assert [c["value"] for c in offered][-1] == "abstain" and str(revealed) in str(offered)
    vote = game.vote_message()
    ix = await table.sb.click(outsider, vote, custom_id=vote.buttons[0]["custom_id"])
    assert "does not play" in await game.reply(ix)
    await game.vote_all({u: revealed for u in players})
    # The old DM menu of that refutation is stale now.
    ix = await table.sb.select(players[0], first_dm, values=["pass"])
    assert "earlier refutation or an ended game" in await game.reply(ix)

    # A deck is chosen by name, never by path: a path is an unknown name, refused privately
    # without saying whether such a file exists; the setting is unchanged.
    for hostile in ("/etc/passwd", "/dev/zero", "../../games/refutation/decks/default"):
        ix = await table.sb.slash(
            table.mod, "settings refutation deck", channel=table.channel, name=hostile
        )
        answer = text_of(await ix.reply_message(10.0))
        assert ix.ephemeral and "There is no deck named" in answer, answer
    ix = await table.sb.slash(table.mod, "settings show", channel=table.channel)
    assert "the default climate deck" in text_of(await ix.reply_message(10.0))

    # After the game ends, the old buttons answer that they are stale.
    assert "cancelled" in await game.slash(table.mod, "refutation cancel")
    await game.new_public(0, "The game was ended")
    ix = await table.sb.select(players[0], first_dm, values=["pass"])
    assert "earlier refutation or an ended game" in await game.reply(ix)
    assert_no_hand_in_public(game)


async def test_deadlines_close_the_choice_and_the_vote(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3)]
    game = RfGame(table, players)
    seconds = 2.0  # at least the declared minimum of 0.0005 h
    await game.open(techniques=True, choice_hours=seconds / 3600, vote_hours=seconds / 3600)
    await game.start()
    since = len(game.public())
    _, _, target = await game.watch_then_refute()
    hands = {u: game.hand(u) for u in players}
    player = next(u for u in players if best_card(hands[u], target) is not None)
    card = best_card(hands[player], target)
    assert card is not None
    assert "Deadline: <t:" in await game.status()
    # Only one player chooses; the deadline reveals anyway.
    await game.choose(player, card)
    reveal = await game.new_public(since, "Revealed cards", timeout=seconds + 10)
    assert f"played by **{player.name}**" in reveal
    await until(game.vote_message, what="the vote message")
    # Only one vote: one of one cast is a majority when the deadline closes the vote.
    assert "Your vote" in await game.click_vote(player, card)
    result = await game.new_public(since, "succeeds:", "fails:", timeout=seconds + 10)
    assert "succeeds" in result and "abstentions or no vote: 2" in result
    assert game.vote_message() is None  # the closed vote's buttons are gone


def tied_pair(card: int, hands: dict[Any, list[int]]) -> tuple[Any, int, Any, int] | None:
    """Two players holding eligible cards with the same stars (> 0) on ``card``."""
    options = [
        (u, c, DECK.stars(card, c))
        for u, hand in hands.items()
        for c in hand
        if eligible(c, card) and DECK.stars(card, c) > 0
    ]
    for i, (u1, c1, s1) in enumerate(options):
        for u2, c2, s2 in options[i + 1 :]:
            if u1 is not u2 and s1 == s2:
                return u1, c1, u2, c2
    return None


async def test_a_tie_on_the_reference_page_restricts_the_vote(table: Any, bot: Any) -> None:
    players = [table.users[i] for i in (0, 1, 3, 4)]
    game = RfGame(table, players)
    await game.open(techniques=True)
    await game.start()
    active, owner, target, hands = await setup_target(
        game, lambda card, hands: tied_pair(card, hands) is not None
    )
    pair = tied_pair(target, hands)
    assert pair is not None
    u1, c1, u2, c2 = pair
    third = next(u for u in players if u not in (u1, u2))
    extra = next(
        (c for c in hands[third] if eligible(c, target) and not DECK.stars(target, c)), None
    )
    await game.refute(active, owner)
    await game.choose_all({u1: c1, u2: c2, third: extra})
    since = len(game.public())
    await game.click_vote(third, "ref")
    page = await game.new_public(since, "are tied on the page")
    assert f"{c1}" in page and f"{c2}" in page
    runoff = await until(
        lambda: next((m for m in game.messages()[since:] if m.buttons), None),
        what="the runoff vote",
    )
    assert "Vote** again among cards" in text_of(runoff)
    assert not any(str(b["custom_id"]).endswith(":ref") for b in runoff.buttons)
    if extra is not None:
        assert "only the tied cards" in await game.slash(u1, "refutation vote", card=str(extra))
    votes: dict[Any, int | str] = {u: "abstain" for u in players}
    votes.update({u1: c1, u2: c1})
    result = await game.vote_all(votes)
    assert "succeeds" in result and f"card {c1}: 2" in result
    assert_no_hand_in_public(game)


async def test_public_messages_follow_the_server_language(table: Any, bot: Any) -> None:
    ix = await table.sb.slash(table.mod, "settings language", channel=table.channel, language="fr")
    await ix.reply_message(10.0)
    players = [table.users[i] for i in (0, 2)]
    chloe = players[1]
    game = RfGame(table, players)
    reply = await game.slash(table.mod, "refutation new")
    lobby = await until(lambda: next((m for m in game.messages() if m.labels), None))
    for user in players:
        await game.reply(await table.sb.click(user, lobby, custom_id=lobby.buttons[0]["custom_id"]))
    await game.slash(table.mod, "refutation start")
    prompt = await game.new_public(0, "à vous de jouer")
    assert "Le fil des désinformations du moment" in prompt
    assert "Votre main" in text_of(await table.sb.wait_for_dm(chloe, "Votre main"))
    assert "Your hand" in text_of(await table.sb.wait_for_dm(players[0], "Your hand"))
    ix = await table.sb.slash(chloe, "refutation card", channel=table.channel, number=1)
    page = text_of(await ix.reply_message(10.0))
    assert "L’hiver le plus froid" in page and "Réfutée par" in page and "★★★" in page
    assert "ouvert" in reply or "open" in reply


async def test_a_game_ended_with_nothing_refuted_says_so_plainly(table: Any, bot: Any) -> None:
    """The end summary of a game cancelled before any refutation: "0" for each player (not
    "0 — —") and "—" under the refuted pile (not a title followed by nothing)."""
    game = RfGame(table, table.users[:3])
    await game.open()
    await game.start()
    await game.slash(table.mod, "refutation cancel")
    end = await game.new_public(0, "The game was ended")
    assert end.splitlines()[2:] == [
        "Refutations by player:",
        "• **alice**: 0",
        "• **Bob**: 0",
        "• **Chloé**: 0",
        "",
        "Refuted disinformation (0):",
        "—",
    ]


async def test_no_one_sees_the_targets_stars_privately_from_elsewhere(table: Any, bot: Any) -> None:
    """RULES.md, Refutation 5: during the vote the target's stars are shown only by the public
    Reference page button. A non-player looking the card up from another channel of the guild
    (where no game runs) or from another server gets no stars either, in their language;
    before and after, the page is free to read."""
    players = [table.users[i] for i in (0, 1, 3)]  # private answers in English
    outsider, chloe = table.users[9], table.users[2]  # non-players; Chloé reads French
    elsewhere = table.guild.add_text_channel("elsewhere")
    other_server = table.sb.add_guild("Another server")
    other_server.add_member(outsider)
    away = other_server.add_text_channel("away")
    await until(lambda: bot.get_channel(elsewhere.id) is not None, what="the new channel")
    await until(lambda: bot.get_channel(away.id) is not None, what="the other server")

    async def page(user: Any, number: int, channel: Any = elsewhere) -> str:
        ix = await table.sb.slash(user, "refutation card", channel=channel, number=number)
        message = await ix.reply_message(10.0)
        assert message is not None and message.ephemeral
        return text_of(message)

    game = RfGame(table, players)
    await game.open(techniques=True)
    await game.start()
    active, owner, target, hands = await setup_target(
        game, lambda d, hs: any(best_card(h, d) is not None for h in hs.values())
    )
    holder, card = next((u, best_card(h, target)) for u, h in hands.items() if best_card(h, target))
    assert card is not None
    assert "★" in await page(outsider, target)  # no vote yet: the page is free to read
    await game.refute(active, owner)
    await game.choose_all({holder: card})

    hidden = await page(outsider, target)
    assert "★" not in hidden and "☆" not in hidden, hidden
    assert "Reference page" in hidden and f"<#{table.channel.id}>" in hidden, hidden
    hidden = await page(chloe, target)
    assert "★" not in hidden and "☆" not in hidden, hidden
    assert "Page de référence" in hidden and f"<#{table.channel.id}>" in hidden, hidden
    # Nor from another server that shares the deck (/refutation is not available in DMs).
    hidden = await page(outsider, target, away)
    assert "★" not in hidden and "☆" not in hidden, hidden
    assert f"<#{table.channel.id}>" in hidden, hidden
    line = next(x for x in (await page(outsider, card)).splitlines() if f"Card {target} — " in x)
    assert "stars hidden during the vote" in line and "★" not in line, line

    await game.click_vote(holder, "ref")
    await game.new_public(0, "succeeds:")
    assert "★" in await page(outsider, target)  # the vote is over: free again
