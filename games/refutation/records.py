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
        match e:
            case rf.CardWatched():
                lines += [
                    "",
                    t(
                        "refutation.archive.watched",
                        lang,
                        name=md(names.get(e.player, "?")),
                        card=card_label(state, e.card, lang),
                    ),
                ]
            case rf.TurnSkipped():
                key = "skipped_by_moderator" if e.by_moderator else "skipped"
                name = md(names.get(e.player, "?"))
                lines += ["", t(f"refutation.archive.{key}", lang, name=name, turn=e.turn)]
            case rf.RefutationStarted():
                lines += [
                    "",
                    f"### {t('refutation.archive.heading', lang, n=e.refutation)}",
                    "",
                    t(
                        "refutation.archive.started",
                        lang,
                        name=md(names.get(e.player, "?")),
                        card=card_label(state, e.card, lang),
                        target=md(names.get(e.target_player, "?")),
                    ),
                ]
            case rf.CardsRevealed():
                if not e.cards:
                    lines.append(f"- {t('refutation.archive.no_cards', lang)}")
                for card, pid in e.cards.items():
                    lines.append(
                        "- "
                        + t(
                            "refutation.archive.revealed",
                            lang,
                            card=card_label(state, card, lang),
                            name=md(names.get(pid, "?")),
                        )
                    )
            case rf.ReferenceConsulted():
                lines.append(
                    "- "
                    + t("refutation.archive.reference", lang, name=md(names.get(e.player, "?")))
                )
            case rf.RefutationSucceeded():
                how = (
                    t("refutation.archive.by_reference", lang)
                    if e.by_reference
                    else t("refutation.archive.votes", lang, counts=counts(state, e.votes, lang))
                )
                lines.append(
                    "- "
                    + t(
                        "refutation.archive.succeeded",
                        lang,
                        card=card_label(state, e.card, lang),
                        name=md(names.get(e.player, "?")),
                        how=how,
                    )
                )
            case rf.RefutationFailed():
                votes = t("refutation.archive.votes", lang, counts=counts(state, e.votes, lang))
                lines.append("- " + t("refutation.archive.failed", lang, votes=votes))
            case rf.PlayerSubstituted():
                lines += ["", substituted(e, names, lang)]
    return "\n".join(lines) + "\n"


ARCHIVE = Archive(markdown=markdown, outcome=outcome)
