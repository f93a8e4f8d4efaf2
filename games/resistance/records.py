"""What a game of The Resistance leaves behind: its record (Markdown), the vote matrix picture,
the end-of-game post and ``/resistance history`` — built from the stored state and the public
event log only, so any process, after any restart, gives the same record of the same game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sqlalchemy.ext.asyncio import AsyncSession

from bot import modlog, posts
from bot.archive import Events, header, listing, md, names_of, role_name, substituted
from bot.effects import Attachment, Post
from bot.i18n import t
from bot.plugins import Archive
from bot.records import Picture, public_events
from db import repo
from db.models import Game
from games.resistance import render, vote_matrix
from games.resistance import rules as rs
from games.resistance.options import RESISTANCE_OPTIONS

if TYPE_CHECKING:
    from bot.service import Actor, Reply
    from games.resistance.service import ResistanceService

KIND = "resistance"


async def resistance_events(s: AsyncSession, game: Game) -> list[rs.ResistanceEvent]:
    """The public events of a game of The Resistance."""
    return [e for e in await public_events(s, game) if isinstance(e, rs.ResistanceEvent)]


async def resistance_matrix(s: AsyncSession, game: Game, state: Any) -> vote_matrix.Matrix:
    """The vote matrix of a game of The Resistance (any phase), from its public events."""
    names = {p.id: p.name for p in state.players}
    return vote_matrix.build(await resistance_events(s, game), names, list(state.leader_order))


MATRIX = Picture("rs_matrix", "resistance.matrix.filename", resistance_matrix, vote_matrix)
"""The vote matrix, attached to the end's post (``Attachment("rs_matrix", ...)``), to the
archive's record and to ``/resistance history``."""


async def end_post(service: Any, s: AsyncSession, game: Game, state: Any) -> Post:
    """The end-of-game post: the history, with the vote matrix and the record attached. The
    files are built when the post is delivered (the picture off the loop), from the stored
    state and events of the ended game, which no longer change."""
    lang = game.lang
    text = render.history_text(state, await resistance_events(s, game), lang)
    files = (Attachment(MATRIX.name, (game.id, lang)), Attachment("record", (game.id, lang)))
    return Post(posts.where(game), text, files=files)


async def history(service: ResistanceService, actor: Actor, game_id: int) -> Reply:
    """``/resistance history``: the text history and the vote matrix, in the reader's language."""
    from bot.service import Reply

    async with service.app.sessions() as s:
        game = await repo.get_game(s, game_id)
        assert game is not None
        state = service.load(game)
        text = render.history_text(state, await resistance_events(s, game), actor.lang)
        logged = await modlog.history_part(s, game, actor.lang)  # the moderators' actions
        matrix = await resistance_matrix(s, game, state)
    if logged:
        text = f"{text}\n\n{logged}"
    return Reply(text, files=[await MATRIX.file(matrix, actor.lang, game_id)])


def outcome(state: Any, lang: str) -> str:
    """How the game ended, in one line (the archive's autocomplete and header)."""
    if state.options.is_avalon:
        return render.outcome_head(state, lang).replace("**", "")
    if state.winner is None:
        return t("resistance.end.cancelled", lang).replace("**", "")
    reason = t(f"resistance.end.reason.{state.win_reason}", lang)
    return t(f"resistance.end.{state.winner.value}", lang, reason=reason).replace("**", "")


def markdown(game: Game, state: Any, events: Events, lang: str) -> str:
    """Every proposal, every vote by name, every mission result and every role."""
    names = names_of(state, events)
    lines = header(game, lang, outcome(state, lang), RESISTANCE_OPTIONS)
    lines += players_table(state, events, names, lang)
    lines += ["", f"## {t('archive.proposals', lang)}"]
    mission_seen: set[int] = set()
    for e in events:
        if isinstance(e, rs.TeamProposed | rs.LeaderSkipped) and e.mission not in mission_seen:
            mission_seen.add(e.mission)
            lines += ["", f"### {t('resistance.matrix.mission', lang, mission=e.mission)}"]
        lines += event_lines(e, names, lang)
    return "\n".join(lines) + "\n"


def players_table(state: Any, events: Events, names: Mapping[int, str], lang: str) -> list[str]:
    """The players in the leader list's order, each with whom they replaced and their role."""
    lines = ["", f"## {t('archive.players', lang)}", ""]
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
        role = role_name(KIND, (state.characters.get(pid) or state.roles[pid]).value, lang)
        lines.append(f"| {n} | {name} | {role} |")
    return lines


def event_lines(e: Any, names: Mapping[int, str], lang: str) -> list[str]:
    """One public event's lines in the record."""
    match e:
        case rs.TeamProposed():
            leader, team = md(names.get(e.leader, "?")), listing(e.team, names)
            return [
                "",
                t(
                    "resistance.archive.proposal",
                    lang,
                    proposal=e.proposal,
                    leader=leader,
                    team=team,
                ),
            ]
        case rs.TeamVoteResult():
            key = "accepted" if e.accepted else "rejected"
            return [f"- {t(f'resistance.archive.{key}', lang)}"] + [
                "- "
                + t(f"resistance.result.{part}", lang, count=len(ids), names=listing(ids, names))
                for part, ids in (
                    ("accept", e.accept),
                    ("reject", e.reject),
                    ("no_vote", e.no_vote),
                )
            ]
        case rs.MissionResult():
            return ["- " + render.mission_line(e, "result", lang)]
        case rs.LeaderSkipped():
            return ["", t("resistance.archive.skipped", lang, name=md(names.get(e.leader, "?")))]
        case rs.PlayerSubstituted():
            return ["", substituted(e, names, lang)]
        case rs.ResistanceEvent():
            line = render.history_line(e, lambda i: md(names.get(i, str(i))), lang)
            return ["", line.lstrip("• ")] if line else []
    return []


ARCHIVE = Archive(markdown=markdown, outcome=outcome, files=MATRIX.archive_files)
