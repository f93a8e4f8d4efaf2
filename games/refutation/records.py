"""What a Refutation Game leaves behind: its record (Markdown), built from the stored state and
the public event log only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.archive import Events, header, md, names_of, substituted
from bot.i18n import t
from bot.names import ordered
from bot.plugins import Archive
from db.models import Game
from games.refutation.options import REFUTATION_OPTIONS
from games.refutation.rules import events as rf


def outcome(state: Any, lang: str) -> str:
    """How the game ended, in one line (the archive's autocomplete and header)."""
    result = getattr(state.result, "value", None)
    if result == "won":
        return t("refutation.end.won", lang, refuted=len(state.refuted)).replace("**", "")
    if result == "lost":
        return t("refutation.end.lost", lang).replace("**", "")
    return t("refutation.end.ended", lang).replace("**", "")


def card_label(state: Any, number: Any, lang: str) -> str:
    try:
        title = state.deck.title(int(number), lang)
    except (KeyError, ValueError, LookupError):
        title = "?"
    return t("refutation.archive.card", lang, number=number, title=md(title))


def counts(state: Any, votes: Mapping[Any, Any], lang: str) -> str:
    shown = ", ".join(
        t("refutation.archive.count", lang, card=card, votes=n) for card, n in votes.items()
    )
    return shown or "—"


def markdown(game: Game, state: Any, events: Events, lang: str) -> str:
    """Every refutation: who refuted what, the cards revealed and who played them, the votes
    (counts per card, as announced) or the reference page, the result; the credits."""
    names = names_of(state, events)
    lines = header(game, lang, outcome(state, lang), REFUTATION_OPTIONS)
    lines += ["", f"## {t('archive.players', lang)}", ""]
    lines.append(f"| {t('archive.player', lang)} | {t('refutation.archive.credited', lang)} |")
    lines.append("|---|---|")
    for p in ordered(state.players, lang, lambda p: (p.id, p.name)):
        cards = ", ".join(card_label(state, c, lang) for c in state.credits.get(p.id, [])) or "—"
        lines.append(f"| {md(p.name)} | {len(state.credits.get(p.id, []))} — {cards} |")
    lines += ["", f"## {t('refutation.archive.title', lang)}"]
    for e in events:
        lines += event_lines(e, state, names, lang)
    return "\n".join(lines) + "\n"


def event_lines(e: Any, state: Any, names: Mapping[int, str], lang: str) -> list[str]:
    """One public event's lines in the record; none for an event it does not tell."""

    def name(player: int) -> str:
        return md(names.get(player, "?"))

    def card(number: Any) -> str:
        return card_label(state, number, lang)

    match e:
        case rf.CardWatched():
            watched = t("refutation.archive.watched", lang, name=name(e.player), card=card(e.card))
            return ["", watched]
        case rf.TurnSkipped():
            key = "skipped_by_moderator" if e.by_moderator else "skipped"
            return ["", t(f"refutation.archive.{key}", lang, name=name(e.player), turn=e.turn)]
        case rf.RefutationStarted():
            target = name(e.target_player)
            return [
                "",
                f"### {t('refutation.archive.heading', lang, n=e.refutation)}",
                "",
                t(
                    "refutation.archive.started",
                    lang,
                    name=name(e.player),
                    card=card(e.card),
                    target=target,
                ),
            ]
        case rf.CardsRevealed():
            if not e.cards:
                return [f"- {t('refutation.archive.no_cards', lang)}"]
            return [
                "- " + t("refutation.archive.revealed", lang, card=card(c), name=name(pid))
                for c, pid in e.cards.items()
            ]
        case rf.ReferenceConsulted():
            return ["- " + t("refutation.archive.reference", lang, name=name(e.player))]
        case rf.RefutationSucceeded():
            how = (
                t("refutation.archive.by_reference", lang)
                if e.by_reference
                else t("refutation.archive.votes", lang, counts=counts(state, e.votes, lang))
            )
            succeeded = t(
                "refutation.archive.succeeded",
                lang,
                card=card(e.card),
                name=name(e.player),
                how=how,
            )
            return ["- " + succeeded]
        case rf.RefutationFailed():
            votes = t("refutation.archive.votes", lang, counts=counts(state, e.votes, lang))
            return ["- " + t("refutation.archive.failed", lang, votes=votes)]
        case rf.PlayerSubstituted():
            return ["", substituted(e, names, lang)]
    return []


ARCHIVE = Archive(markdown=markdown, outcome=outcome)
