"""The Refutation Game's words: cards as embeds, the turn prompt, the public posts of what
happened, the end, the status. Pure functions of the state (its deck included), events and a
language; the service passes what it read elsewhere (a deadline, a channel, counts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import discord

from bot import limits
from bot.i18n import t
from bot.names import listing, ordered, shown
from bot.render.common import ts
from games.refutation.rules import Card, CardKind, Deck, Phase, Refutation, Result
from games.refutation.rules import Player as EnginePlayer
from games.refutation.rules.events import (
    CardReturned,
    CardWatched,
    FeedRefreshed,
    GameOver,
    ReferenceConsulted,
    RefutationEvent,
    RefutationFailed,
    RefutationSucceeded,
    TurnSkipped,
)

PASS = "pass"
"""The value of the secret-choice menu's option that plays no card."""
ABSTAIN = "abstain"
"""The value of the vote's abstention."""
TECHNIQUE_COLOUR = 0x99AAB5

Post = tuple[str, list[discord.Embed]]
"""A public post: its text and its cards (the dispatcher splits it within Discord's limits)."""


def m(key: str, lang: str, /, **params: object) -> str:
    """A message of this game's Discord side (catalogue file ``refutation.toml``)."""
    return t(f"refutation.{key}", lang, **params)


def stars(n: int) -> str:
    return "★" * n + "☆" * (3 - n)


def option_data(option: discord.SelectOption) -> list[str]:
    """A select option as the data a ``View`` record carries: label, value, description."""
    return [option.label, option.value, option.description or ""]


def name(state: Refutation, player_id: int | None) -> str:
    """One player's name as written in a message (escaped)."""
    if player_id is None or not state.is_player(player_id):
        return "?"
    return shown(state.player(player_id).name)


def in_order(state: Refutation, lang: str) -> list[EnginePlayer]:
    """The players in the reader's alphabetical order (then by user id)."""
    return ordered(state.players, lang, lambda p: (p.id, p.name))


# -- cards -------------------------------------------------------------------------------------


def family_name(deck: Deck, card: Card, lang: str) -> str:
    if card.family is None:
        return m("card.technique_family", lang)
    return deck.families[card.family].name(lang)


def card_embed(deck: Deck, number: int, lang: str) -> discord.Embed:
    card = deck.card(number)
    if card.family is None:
        colour = TECHNIQUE_COLOUR
    else:
        colour = int(deck.families[card.family].colour.lstrip("#"), 16)
    embed = discord.Embed(
        title=f"#{card.number} · {card.title(lang)}",
        description=card.text(lang),
        colour=colour,
        url=card.source,
    )
    if card.claim:  # a disinformation card: where it circulates, then the science
        embed.add_field(name=m("card.claim", lang), value=card.claim, inline=False)
    embed.add_field(name=m("card.source", lang), value=cited(card, card.source, lang), inline=False)
    embed.set_footer(
        text=f"{m(f'card.kind_{card.kind.value}', lang)} — {family_name(deck, card, lang)}"
    )
    return embed


def cited(card: Card, link: str, lang: str, key: str = "card.cited") -> str:
    """A card's source, with the paragraph, table or figure it names when it cites a report."""
    locator = card.locator(lang)
    return m(key, lang, source=link, locator=locator) if locator else link


def label(deck: Deck, number: int, lang: str, limit: int = limits.BUTTON_LABEL) -> str:
    return limits.cut(f"{number} — {deck.title(number, lang)}", limit)


def reference_embed(
    deck: Deck,
    number: int,
    lang: str,
    under_vote: Mapping[int, tuple[int, int]] | None = None,
) -> discord.Embed:
    """A card's reference page: the card, then the cards it refutes or that refute it, best
    first, in as many fields as Discord's 1,024 characters a field need.

    ``under_vote``: targets whose refutation vote is open (target -> (refutation number,
    channel)). RULES.md: during its vote a target's stars are shown only to the whole table, by
    the Reference page button (which elects), never in a private lookup."""
    hidden = under_vote or {}
    card = deck.card(number)
    embed = card_embed(deck, number, lang)
    heading = "card.refuted_by" if card.kind is CardKind.DISINFORMATION else "card.refutes"
    if number in hidden:
        n, where = hidden[number]
        values = [m("card.page_hidden", lang, n=n, where=f"<#{where}>")]
    else:
        lines = [
            m(
                "card.page_line",
                lang,
                card=r.card,
                title=deck.title(r.card, lang),
                stars=m("card.stars_hidden", lang) if r.card in hidden else stars(r.stars),
            )
            for r in deck.reference_page(number)
        ]
        values = limits.field_values(lines) or [m("card.page_empty", lang)]
    for value in values:
        embed.add_field(name=m(heading, lang), value=value, inline=False)
    return embed


def card_option(deck: Deck, number: int, lang: str) -> discord.SelectOption:
    """A card as an option of the secret-choice menu."""
    return discord.SelectOption(
        label=label(deck, number, lang, limits.SELECT_OPTION_LABEL),
        value=str(number),
        description=limits.cut(
            family_name(deck, deck.card(number), lang), limits.SELECT_OPTION_DESCRIPTION
        ),
    )


def pass_option(lang: str) -> discord.SelectOption:
    return discord.SelectOption(
        label=m("refute.pass", lang),
        value=PASS,
        description=m("refute.pass_description", lang),
    )


def choice_options(state: Refutation, player_id: int, lang: str) -> list[discord.SelectOption]:
    """The secret-choice menu of one player: their eligible cards, then "pass"."""
    options = [card_option(state.deck, c, lang) for c in state.eligible_cards(player_id)]
    options.append(pass_option(lang))
    return options


def hand(state: Refutation, player_id: int, lang: str, head: str) -> Post:
    """A player's hand, privately: ``head`` and one embed per card (or "no cards")."""
    cards = state.hands[player_id]
    if not cards:
        return m("hand.empty", lang), []
    return head, [card_embed(state.deck, c, lang) for c in cards]


# -- the table ---------------------------------------------------------------------------------


def feed_text(state: Refutation, lang: str) -> str:
    if not state.feed:
        return m("feed.empty", lang, draw=len(state.draw))
    return m("feed.title", lang, draw=len(state.draw))


def start_text(state: Refutation, lang: str) -> str:
    options = state.options
    return m(
        "start.public",
        lang,
        count=len(state.players),
        players=listing([(p.id, p.name) for p in state.players], lang, bold=True),
        target=options.target,
        variant=m("start.variant", lang) if options.techniques else "",
    )


def turn_post(state: Refutation, lang: str, due: datetime | None = None) -> Post:
    """The turn prompt with the feed: posted at start and after every change. ``due``: the
    turn's deadline (None: the game has no turn deadline)."""
    active = state.active_player
    if state.must_place:
        prompt = m("turn.must_place", lang, name=name(state, active))
    else:
        prompt = m(
            "turn.prompt",
            lang,
            turn=state.turn,
            player=active,
            name=name(state, active),
            refuted=len(state.refuted),
            target=state.options.target,
        )
    if due is not None:
        prompt += "\n" + m("turn.deadline", lang, deadline=ts(due))
    embeds = [card_embed(state.deck, c, lang) for c in state.feed]
    return f"{prompt}\n\n{feed_text(state, lang)}", embeds


def refute_post(state: Refutation, player: int, lang: str, due: datetime) -> Post:
    """A refutation opens: who refutes which card, its family, the deadline; the card."""
    deck, number = state.deck, state.target_card
    assert number is not None
    text = m(
        "refute.public",
        lang,
        name=name(state, player),
        n=state.refutation_count,
        number=number,
        target=name(state, state.target_player),
        family=family_name(deck, deck.card(number), lang),
        technique=m("refute.technique", lang) if state.options.techniques else "",
        deadline=ts(due),
    )
    return text, [card_embed(deck, number, lang)]


def choice_dm(state: Refutation, player_id: int, lang: str, where: str, due: datetime) -> Post:
    """A player's secret-choice DM: the target card and whether they hold a card to play."""
    deck, number = state.deck, state.target_card
    assert number is not None
    text = m(
        "refute.dm",
        lang,
        n=state.refutation_count,
        where=where,
        number=number,
        title=deck.title(number, lang),
        family=family_name(deck, deck.card(number), lang),
        deadline=ts(due),
    )
    if not state.eligible_cards(player_id):
        text += "\n" + m("refute.dm_none", lang)
    return text, [card_embed(deck, number, lang)]


def reveal_post(state: Refutation, lang: str) -> Post:
    """The chosen cards, revealed, with who played each."""
    deck = state.deck
    lines = [m("reveal.public", lang, n=state.refutation_count, number=state.target_card)]
    lines += [
        m("reveal.line", lang, card=card, title=deck.title(card, lang), name=name(state, pid))
        for card, pid in state.revealed.items()
    ]
    return "\n".join(lines), [card_embed(deck, card, lang) for card in state.revealed]


def vote_text(
    state: Refutation, lang: str, due: datetime, cards: Sequence[int], first: bool
) -> str:
    """The vote message (``first``: the vote opens, else a runoff between ``cards``)."""
    if first:
        return m("reveal.vote", lang, deadline=ts(due), number=state.target_card)
    return m("reveal.runoff_vote", lang, deadline=ts(due), cards=", ".join(str(c) for c in cards))


def vote_buttons(state: Refutation, cards: Sequence[int], lang: str) -> list[list[int | str]]:
    """The vote message's buttons: (card, label)."""
    return [[c, label(state.deck, c, lang)] for c in cards]


def reference_text(
    state: Refutation,
    player: int,
    number: int,
    revealed: Sequence[int],
    consulted: ReferenceConsulted,
    lang: str,
) -> str:
    """The Reference page, publicly: the target, the stars of each revealed card, and what
    follows (an election, a runoff, or nothing)."""
    deck = state.deck
    card = deck.card(number)
    lines = [
        m(
            "reference.public",
            lang,
            name=name(state, player),
            number=number,
            title=card.title(lang),
            source=cited(card, f"<{card.source}>", lang, "card.cited_inline"),
        )
    ]
    if card.claim:
        lines.append(m("reference.claim", lang, claim=f"<{card.claim}>"))
    for c in revealed:
        n_stars = deck.stars(number, c)
        key = "reference.line" if n_stars else "reference.not_listed"
        lines.append(m(key, lang, card=c, title=deck.title(c, lang), stars=stars(n_stars)))
    if consulted.elected is not None:
        lines.append(m("reference.elected", lang, card=consulted.elected))
    elif consulted.restricted_to:
        cards = ", ".join(str(c) for c in consulted.restricted_to)
        lines.append(m("reference.runoff", lang, cards=cards))
    else:
        lines.append(m("reference.none_listed", lang))
    return "\n".join(lines)


def counts_text(state: Refutation, counts: Mapping[int, int], lang: str) -> str:
    listed = ", ".join(m("result.count", lang, card=c, votes=n) for c, n in counts.items())
    others = len(state.players) - sum(counts.values())
    return m("result.counts", lang, counts=listed or m("end.none", lang), others=others)


def event_posts(state: Refutation, events: Sequence[RefutationEvent], lang: str) -> list[Post]:
    """The public messages for what the engine reported, in order."""
    deck = state.deck
    posts: list[Post] = []
    lines: list[str] = []
    embeds: list[discord.Embed] = []
    for e in events:
        if e.private_to is not None:
            continue
        match e:
            case CardReturned(player=player, card=card):
                lines.append(m("watch.returned", lang, name=name(state, player), number=card))
            case TurnSkipped(player=player, turn=turn, by_moderator=by_moderator):
                key = "turn.skipped_by_moderator" if by_moderator else "turn.skipped"
                lines.append(m(key, lang, name=name(state, player), turn=turn))
            case FeedRefreshed():
                player = state.active_player
                lines.append(m("watch.refreshed", lang, name=name(state, player)))
            case CardWatched(player=player, card=card):
                lines.append(m("watch.public", lang, name=name(state, player), number=card))
                embeds.append(card_embed(deck, card, lang))
            case RefutationSucceeded(card=card, disinformation=disinformation):
                text = m(
                    "result.refuted",
                    lang,
                    n=state.refutation_count,
                    card=card,
                    title=deck.title(card, lang),
                    name=name(state, e.player),
                    number=disinformation,
                    disinformation=deck.title(disinformation, lang),
                    refuted=len(state.refuted),
                    target=state.options.target,
                )
                extra = (
                    m("result.by_reference", lang)
                    if e.by_reference
                    else counts_text(state, e.votes, lang)
                )
                posts.append((f"{text}\n{extra}", [card_embed(deck, card, lang)]))
            case RefutationFailed(reason=reason, disinformation=number, target_player=target):
                key = "reveal.none" if reason == "no_cards" else "result.not_refuted"
                text = m(
                    key, lang, n=state.refutation_count, number=number, target=name(state, target)
                )
                if reason != "no_cards":
                    text += "\n" + counts_text(state, e.votes, lang)
                posts.append((text, []))
            case GameOver():
                posts.append((end_text(state, lang), []))
    if lines:
        posts.insert(0, ("\n".join(lines), embeds))
    return posts


def end_text(state: Refutation, lang: str) -> str:
    deck = state.deck
    if state.result is Result.WON:
        head = m("end.won", lang, refuted=len(state.refuted))
    elif state.result is Result.LOST:
        head = m("end.lost", lang)
    else:
        head = m("end.ended", lang)
    lines = [head, "", m("end.refutations", lang)]
    for p in in_order(state, lang):
        cards = state.credits[p.id]
        if not cards:
            lines.append(m("end.player_none", lang, name=shown(p.name)))
            continue
        labels = ", ".join(label(deck, c, lang) for c in cards)
        lines.append(m("end.player_line", lang, name=shown(p.name), count=len(cards), cards=labels))
    lines += ["", m("end.refuted_title", lang, count=len(state.refuted))]
    if not state.refuted:
        lines.append(m("end.none", lang))
    for number in state.refuted:
        lines.append(
            m(
                "end.refuted_line",
                lang,
                number=number,
                title=deck.title(number, lang),
                source=deck.card(number).source,
            )
        )
    return "\n".join(lines)


def status_text(
    state: Refutation,
    lang: str,
    *,
    due: datetime | None = None,
    answered: int = 0,
) -> str:
    """``/refutation status``: the step (``answered``: secret choices or valid votes on record,
    ``due``: its deadline, or the turn's), the feed, the cards in play, the refuted pile, the
    deck, the hands."""
    deck = state.deck
    none = m("end.none", lang)
    lines: list[str] = []
    n = state.refutation_count
    if state.phase is Phase.OVER:
        lines.append(m("status.over", lang))
    elif state.phase is Phase.TURN:
        active = state.active_player
        key = "status.must_place" if state.must_place else "status.turn"
        line = m(key, lang, turn=state.turn, player=active, name=name(state, active))
        if due is not None:
            line += " " + m("status.turn_deadline", lang, deadline=ts(due))
        lines.append(line)
    else:
        common = {
            "n": n,
            "number": state.target_card,
            "target": name(state, state.target_player),
            "total": len(state.players),
            "deadline": ts(due) if due else none,
        }
        if state.phase is Phase.CHOICE:
            lines.append(m("status.choice", lang, chosen=answered, **common))
        else:
            lines.append(m("status.vote", lang, voted=answered, **common))
    lines.append(
        m("status.feed", lang, cards=", ".join(label(deck, c, lang) for c in state.feed) or none)
    )
    in_play = [
        m("status.in_front", lang, number=card, name=name(state, pid))
        for pid, card in state.in_front.items()
        if card is not None
    ]
    lines.append(m("status.in_play", lang, cards="; ".join(in_play) or none))
    lines.append(
        m(
            "status.refuted",
            lang,
            count=len(state.refuted),
            target=state.options.target,
            cards=", ".join(label(deck, c, lang) for c in state.refuted) or none,
        )
    )
    lines.append(m("status.deck", lang, count=len(state.draw)))
    hands = ", ".join(f"{shown(p.name)} {len(state.hands[p.id])}" for p in in_order(state, lang))
    lines.append(m("status.hands", lang, hands=hands))
    return "\n".join(lines)
