"""A game's record as Markdown: what moderators keep once a game is over.

Pure functions of the stored state and the public event log (plus the game's row): the end of
the game attaches the record, and ``/resistance archive`` or ``/refutation archive`` rebuild the
same record later, in the reader's language. Roles appear only once the game is over (the
records of running games are never built).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from bot.i18n import MissingMessage, game_name, t
from bot.names import ordered, sort_key
from bot.options import OptionsSchema
from bot.render import resistance as render
from db.models import Game
from games.common import Event
from games.refutation.rules import events as rf
from games.resistance import rules as rs

Events = Sequence[Event]
Substituted = rs.PlayerSubstituted | rf.PlayerSubstituted

_MD_SPECIAL = re.compile(r"([\\`*_\[\]|<>~#])")


def md(text: object) -> str:
    """Text shown as typed in Markdown: its special characters escaped, on one line."""
    flat = " ".join(str(text).split())
    return _MD_SPECIAL.sub(r"\\\1", flat)


def when(at: datetime | None) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC") if at is not None else "—"


def role_name(kind: str, role: str, lang: str) -> str:
    """A role's name from the catalogue (``archive.role.<kind>.<role>``); a role the catalogue
    does not know yet (a new variant) shows as stored."""
    try:
        return t(f"archive.role.{kind}.{role}", lang)
    except MissingMessage:
        return role.replace("_", " ").capitalize()


def header(game: Game, lang: str, outcome: str) -> list[str]:
    title = game_name(game.kind, lang)
    lines = [
        f"# {t('archive.title', lang, game=title, number=game.id)}",
        "",
        f"- {t('archive.started', lang, at=when(game.started_at))}",
        f"- {t('archive.ended', lang, at=when(game.ended_at))}",
        f"- {t('archive.outcome', lang, outcome=outcome)}",
    ]
    options = ", ".join(f"`{k}` = {md(v)}" for k, v in option_pairs(game, lang))
    lines.append(f"- {t('archive.options', lang, options=options or '—')}")
    return lines


def option_pairs(game: Game, lang: str) -> list[tuple[str, str]]:
    """The game's options as the reader reads them (bot.records.option_pairs: French names and
    values), by the built-in schema of its kind (a game without one: names and values only)."""
    from bot.plugins import builtin_schemas
    from bot.records import option_pairs as pairs  # bot.records imports this module

    schema = builtin_schemas().get(game.kind) or OptionsSchema(game.kind, ())
    return pairs(game.kind, schema, dict(game.options), lang)


def names_of(state: Any, events: Events) -> dict[int, str]:
    """Everyone who sat at the table, substituted players included."""
    names = {p.id: p.name for p in state.players}
    for e in events:
        if isinstance(e, Substituted):
            names.setdefault(e.old, e.old_name or str(e.old))
            names.setdefault(e.new, e.name)
    return names


def substituted(e: Substituted, names: Mapping[int, str], lang: str) -> str:
    return t("archive.substituted", lang, new=md(e.name), old=md(names.get(e.old, "?")))


def listing(ids: Sequence[Any], names: Mapping[int, str]) -> str:
    """Players' names in alphabetical order (bot/names.py), each escaped for Markdown."""
    shown = sorted((int(i) for i in ids), key=lambda i: sort_key(i, names.get(i, str(i))))
    return ", ".join(md(names.get(i, str(i))) for i in shown) or "—"


# -- The Resistance --------------------------------------------------------------------------


def resistance_outcome(state: Any, lang: str) -> str:
    if state.options.is_avalon:
        return render.outcome_head(state, lang).replace("**", "")
    if state.winner is None:
        return t("resistance.end.cancelled", lang).replace("**", "")
    reason = t(f"resistance.end.reason.{state.win_reason}", lang)
    return t(f"resistance.end.{state.winner.value}", lang, reason=reason).replace("**", "")


def resistance_markdown(game: Game, state: Any, events: Events, lang: str) -> str:
    """Every proposal, every vote by name, every mission result and every role."""
    names = names_of(state, events)
    lines = header(game, lang, resistance_outcome(state, lang))
    lines += ["", f"## {t('archive.players', lang)}", ""]
    lines.append(f"| # | {t('archive.player', lang)} | {t('archive.role_column', lang)} |")
    lines.append("|---|---|---|")
    replaced: dict[int, list[str]] = {}
    for e in events:
        if isinstance(e, rs.PlayerSubstituted):
            replaced.setdefault(e.new, []).append(names[e.old])
    for n, pid in enumerate(state.leader_order, 1):
        name = md(state.player(pid).name)
        if pid in replaced:
            name += " " + t("archive.replaced", lang, names=", ".join(map(md, replaced[pid])))
        role = role_name("resistance", (state.characters.get(pid) or state.roles[pid]).value, lang)
        lines.append(f"| {n} | {name} | {role} |")
    lines += ["", f"## {t('archive.proposals', lang)}"]
    mission_seen: set[int] = set()
    for e in events:
        if isinstance(e, rs.TeamProposed | rs.LeaderSkipped) and e.mission not in mission_seen:
            mission_seen.add(e.mission)
            lines += ["", f"### {t('resistance.matrix.mission', lang, mission=e.mission)}"]
        match e:
            case rs.TeamProposed():
                lines += [
                    "",
                    t(
                        "archive.resistance.proposal",
                        lang,
                        proposal=e.proposal,
                        leader=md(names.get(e.leader, "?")),
                        team=listing(e.team, names),
                    ),
                ]
            case rs.TeamVoteResult():
                key = "accepted" if e.accepted else "rejected"
                lines.append(f"- {t(f'archive.resistance.{key}', lang)}")
                for part, ids in (
                    ("accept", e.accept),
                    ("reject", e.reject),
                    ("no_vote", e.no_vote),
                ):
                    lines.append(
                        "- "
                        + t(
                            f"resistance.result.{part}",
                            lang,
                            count=len(ids),
                            names=listing(ids, names),
                        )
                    )
            case rs.MissionResult():
                lines.append("- " + render.mission_line(e, "result", lang))
            case rs.LeaderSkipped():
                lines += [
                    "",
                    t("archive.resistance.skipped", lang, name=md(names.get(e.leader, "?"))),
                ]
            case rs.PlayerSubstituted():
                lines += ["", substituted(e, names, lang)]
            case rs.ResistanceEvent():
                line = render.history_line(e, lambda i: md(names.get(i, str(i))), lang)
                if line:
                    lines += ["", line.lstrip("• ")]
    return "\n".join(lines) + "\n"


# -- The Refutation Game ---------------------------------------------------------------------


def refutation_outcome(state: Any, lang: str) -> str:
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
    return t("archive.refutation.card", lang, number=number, title=md(title))


def counts(state: Any, votes: Mapping[Any, Any], lang: str) -> str:
    shown = ", ".join(
        t("archive.refutation.count", lang, card=card, votes=n) for card, n in votes.items()
    )
    return shown or "—"


def refutation_markdown(game: Game, state: Any, events: Events, lang: str) -> str:
    """Every refutation: who refuted what, the cards revealed and who played them, the votes
    (counts per card, as announced) or the reference page, the result; the credits."""
    names = names_of(state, events)
    lines = header(game, lang, refutation_outcome(state, lang))
    lines += ["", f"## {t('archive.players', lang)}", ""]
    lines.append(f"| {t('archive.player', lang)} | {t('archive.refutation.credited', lang)} |")
    lines.append("|---|---|")
    for p in ordered(state.players, lang, lambda p: (p.id, p.name)):
        cards = ", ".join(card_label(state, c, lang) for c in state.credits.get(p.id, [])) or "—"
        lines.append(f"| {md(p.name)} | {len(state.credits.get(p.id, []))} — {cards} |")
    lines += ["", f"## {t('archive.refutation.title', lang)}"]
    for e in events:
        match e:
            case rf.CardWatched():
                lines += [
                    "",
                    t(
                        "archive.refutation.watched",
                        lang,
                        name=md(names.get(e.player, "?")),
                        card=card_label(state, e.card, lang),
                    ),
                ]
            case rf.RefutationStarted():
                lines += [
                    "",
                    f"### {t('archive.refutation.heading', lang, n=e.refutation)}",
                    "",
                    t(
                        "archive.refutation.started",
                        lang,
                        name=md(names.get(e.player, "?")),
                        card=card_label(state, e.card, lang),
                        target=md(names.get(e.target_player, "?")),
                    ),
                ]
            case rf.CardsRevealed():
                if not e.cards:
                    lines.append(f"- {t('archive.refutation.no_cards', lang)}")
                for card, pid in e.cards.items():
                    lines.append(
                        "- "
                        + t(
                            "archive.refutation.revealed",
                            lang,
                            card=card_label(state, card, lang),
                            name=md(names.get(pid, "?")),
                        )
                    )
            case rf.ReferenceConsulted():
                lines.append(
                    "- "
                    + t("archive.refutation.reference", lang, name=md(names.get(e.player, "?")))
                )
            case rf.RefutationSucceeded():
                how = (
                    t("archive.refutation.by_reference", lang)
                    if e.by_reference
                    else t("archive.refutation.votes", lang, counts=counts(state, e.votes, lang))
                )
                lines.append(
                    "- "
                    + t(
                        "archive.refutation.succeeded",
                        lang,
                        card=card_label(state, e.card, lang),
                        name=md(names.get(e.player, "?")),
                        how=how,
                    )
                )
            case rf.RefutationFailed():
                votes = t("archive.refutation.votes", lang, counts=counts(state, e.votes, lang))
                lines.append("- " + t("archive.refutation.failed", lang, votes=votes))
            case rf.PlayerSubstituted():
                lines += ["", substituted(e, names, lang)]
    return "\n".join(lines) + "\n"


def markdown(game: Game, state: Any, events: Events, lang: str) -> str:
    if game.kind == "refutation":
        return refutation_markdown(game, state, events, lang)
    return resistance_markdown(game, state, events, lang)


def filename(game: Game, lang: str) -> str:
    return t("archive.filename", lang, kind=game.kind, number=game.id)
