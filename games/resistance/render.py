"""The Resistance's words, Avalon's included: roles, the leader list, calls, results, the end,
the history, the status. Pure functions of the state, events and a language; the service
passes what it read elsewhere (a deadline, a link, the votes on record)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime

from bot.i18n import DEFAULT_LANG, t
from bot.names import listing, shown
from bot.render.common import ts
from games.resistance.rules import (
    AVALON_TABLE,
    Assassination,
    AssassinationStarted,
    Character,
    EndReason,
    GameOver,
    LadyExamined,
    LadyPassed,
    LeaderSkipped,
    MissionResult,
    Options,
    Phase,
    PlayerSubstituted,
    Resistance,
    ResistanceEvent,
    Role,
    TeamProposed,
    TeamTable,
    TeamVoteResult,
    Winner,
)

#: The order roles are listed in (the end reveal, the roles in play).
ROLE_ORDER = (
    Character.MERLIN,
    Character.PERCIVAL,
    Character.SERVANT,
    Character.ASSASSIN,
    Character.MORGANA,
    Character.MORDRED,
    Character.OBERON,
    Character.MINION,
)


def key(name: str) -> str:
    """An Avalon message's catalogue key."""
    return "resistance.avalon." + name


def name(state: Resistance, player_id: int) -> str:
    """One player's name as written in a message (escaped)."""
    return shown(state.player(player_id).name)


def names(state: Resistance, ids: Sequence[int], lang: str, *, bold: bool = False) -> str:
    """Players' names in the reader's alphabetical order, escaped, comma-separated."""
    return listing([(i, state.player(i).name) for i in ids], lang, bold=bold)


# -- start and roles ---------------------------------------------------------------------------


def start_text(state: Resistance, lang: str) -> str:
    if not state.options.is_avalon:
        return t("resistance.start.public", lang, count=len(state.players), spies=len(state.spies))
    present = set(state.characters.values())
    named = [
        c for c in ROLE_ORDER if c in present and c not in (Character.SERVANT, Character.MINION)
    ]
    roles = ", ".join(
        [t(key(f"role_name.{c.value}"), lang) for c in named]
        + [
            t(key(f"role_plural.{c.value}"), lang)
            for c in (Character.SERVANT, Character.MINION)
            if c in present
        ]
    )
    lines = [
        t(key("start.public"), lang, count=len(state.players), spies=len(state.spies), roles=roles)
    ]
    if state.lady_holder is not None:
        lines.append(t(key("start.lady"), lang, holder=name(state, state.lady_holder)))
    return "\n".join(lines)


def role_text(state: Resistance, player_id: int, lang: str) -> str:
    """A player's role DM: their side and the spies they know (Avalon: their role)."""
    if state.options.is_avalon:
        return avalon_role_text(state, player_id, lang)
    view = state.private_view(player_id)
    if view.role is Role.SPY:
        return t("resistance.role.spy", lang, spies=names(state, view.spies, lang))
    return t("resistance.role.resistance", lang)


def avalon_role_text(state: Resistance, player_id: int, lang: str) -> str:
    """The role DM: the role, whom it sees, and what the Lady showed this player."""
    view = state.private_view(player_id)
    character = view.character
    assert character is not None
    # In alphabetical order (bot/names.py: the same for French and English).
    evil = names(state, view.spies, DEFAULT_LANG)
    if character is Character.PERCIVAL:
        which = "percival_two" if state.options.morgana else "percival_one"
        candidates = names(state, view.merlin_candidates, DEFAULT_LANG)
        lines = [t(key(f"role.{which}"), lang, candidates=candidates)]
    else:
        lines = [t(key(f"role.{character.value}"), lang, evil=evil)]
    if character is Character.MERLIN and state.options.mordred:
        lines.append(t(key("role.mordred_hidden"), lang))
    if view.role is Role.SPY and character is not Character.OBERON and state.options.oberon:
        lines.append(t(key("role.oberon_hidden"), lang))
    if view.role is Role.SPY:
        lines.append(t(key("role.evil_public"), lang))
    for target, side in view.lady_results:
        lines.append(lady_result_text(state, target, side, lang))
    return "\n".join(lines)


def lady_result_text(state: Resistance, target: int, side: Role, lang: str) -> str:
    return t(
        key("lady.result"), lang, name=name(state, target), side=t(key(f"side.{side.value}"), lang)
    )


def roles_text(state: Resistance, lang: str) -> str:
    """One line per Avalon role: who held it."""
    lines = []
    for character in ROLE_ORDER:
        ids = [pid for pid, c in state.characters.items() if c is character]
        if ids:
            lines.append(
                t(
                    key("end.role_line"),
                    lang,
                    role=t(key(f"role_group.{character.value}"), lang),
                    names=names(state, ids, DEFAULT_LANG),
                )
            )
    return "\n".join(lines)


def moderator_roles_text(state: Resistance, lang: str) -> str:
    """Every role, for a moderator allowed to see them."""
    if state.options.is_avalon:
        return "\n".join([t(key("role.moderator"), lang), roles_text(state, lang)])
    return t("resistance.role.moderator", lang, spies=names(state, state.spies, lang))


# -- the leader list and the calls ---------------------------------------------------------------


def track_text(state: Resistance, lang: str) -> str:
    marks = ["✅" if ok else "❌" for ok in state.results]
    marks += ["▫️"] * (5 - len(marks))
    return t(
        "resistance.round.track",
        lang,
        track=" ".join(marks),
        mission=min(state.mission, 5),
        rejections=state.rejections,
    )


def lady_list_line(state: Resistance, lang: str) -> str | None:
    holder = state.lady_holder
    if holder is None:
        return None
    return t(key("lady.leaders"), lang, name=name(state, holder))


def leader_list_text(state: Resistance, lang: str) -> str:
    lines = [t("resistance.leaders.title", lang)]
    for n, pid in enumerate(state.leader_order, 1):
        if pid == state.leader and state.phase is not Phase.OVER:
            lines.append(t("resistance.leaders.active", lang, n=n, name=name(state, pid)))
        else:
            lines.append(f"{n}. {name(state, pid)}")
    lady = lady_list_line(state, lang)
    if lady:
        lines.append(lady)
    lines.append("")
    lines.append(track_text(state, lang))
    return "\n".join(lines)


def sizes_text(sizes: Sequence[int]) -> str:
    """A table's team sizes of missions 1..5: ``2-3-2-3-3``."""
    return "-".join(str(n) for n in sizes)


def table_name(table: TeamTable, avalon: bool, lang: str) -> str:
    """A table of team sizes by name: the forum adaptation's, the published game's, or (the
    same table in an Avalon game) Avalon's."""
    which = "avalon" if avalon and table is AVALON_TABLE else table.value
    return t(f"resistance.table.{which}", lang)


def options_table_name(options: Options, lang: str) -> str:
    return table_name(options.table, options.is_avalon, lang)


def teams_text(state: Resistance, lang: str) -> str:
    """The table in force: ``Team sizes: 2-3-2-3-3 (Avalon's table)``."""
    return t(
        "resistance.status.teams",
        lang,
        sizes=sizes_text(state.team_sizes),
        table=options_table_name(state.options, lang),
    )


def debate_text(state: Resistance, lang: str) -> str:
    return t(
        "resistance.round.debate",
        lang,
        mission=state.mission,
        attempt=state.rejections + 1,
        leader=f"<@{state.leader}>",
        size=state.team_size,
    )


def leader_dm(
    state: Resistance, lang: str, link: str, due: datetime | None, chosen: Sequence[int] = ()
) -> str:
    """The new leader's DM, over the menu: their turn, a link to the game, the table in force,
    the skip's deadline if any and, once picked in the menu, the team chosen."""
    lines = [
        t(
            "resistance.dm.leader",
            lang,
            mission=state.mission,
            attempt=state.rejections + 1,
            size=state.team_size,
            link=link,
        ),
        teams_text(state, lang),
    ]
    if due is not None:
        lines.append(t("resistance.dm.leader_deadline", lang, deadline=ts(due)))
    if chosen:
        lines.append(t("resistance.menu.chosen", lang, team=names(state, chosen, lang, bold=True)))
    return "\n".join(lines)


def leader_reminder_dm(state: Resistance, lang: str, link: str, due: datetime) -> str:
    return t(
        "resistance.dm.leader_reminder",
        lang,
        mission=state.mission,
        size=state.team_size,
        link=link,
        deadline=ts(due),
    )


def proposal_text(state: Resistance, leader: int, lang: str, due: datetime) -> str:
    """The channel's news of a proposed team and its vote's deadline."""
    return t(
        "resistance.proposal.public",
        lang,
        leader=name(state, leader),
        mission=state.mission,
        team=names(state, state.team or (), lang, bold=True),
        deadline=ts(due),
    )


def vote_dm(state: Resistance, lang: str, on_team: bool, due: datetime, where: str) -> str:
    """A player's vote DM (a team member's also asks for the mission choice)."""
    return t(
        "resistance.dm.vote_team" if on_team else "resistance.dm.vote",
        lang,
        mission=state.mission,
        team=names(state, state.team or (), lang, bold=True),
        deadline=ts(due),
        where=where,
    )


def on_record(
    state: Resistance,
    player: int,
    lang: str,
    vote: str | None,
    choice: str | None,
    note: str | None,
) -> str:
    """What a voter has on record (their team vote and, on the team, their mission choice)."""

    def shown_choice(value: str | None) -> str:
        return t(f"resistance.choice.{value}" if value else "resistance.choice.none", lang)

    lines = [t("resistance.vote.on_record", lang, vote=shown_choice(vote))]
    if player in (state.team or ()):
        lines.append(t("resistance.vote.mission_on_record", lang, choice=shown_choice(choice)))
    if note:
        lines.append(note)
    lines.append(t("resistance.vote.can_change", lang))
    return "\n".join(lines)


# -- results and the end -------------------------------------------------------------------------


def mission_line(result: MissionResult, section: str, lang: str) -> str:
    """A mission's outcome and its counts (``section``: ``result`` for the channel's post,
    ``history`` for the history's line)."""
    outcome = "mission_success" if result.success else "mission_failed"
    return t(
        f"resistance.{section}.{outcome}",
        lang,
        mission=result.mission,
        supports=result.supports,
        sabotages=result.sabotages,
    )


def result_text(state: Resistance, events: Sequence[ResistanceEvent], lang: str) -> str:
    """The public result of a vote (or a skipped leader), with the mission track."""
    lines: list[str] = []
    for e in events:
        if e.private_to is not None:
            continue
        match e:
            case TeamVoteResult(accepted=accepted, proposal=proposal, mission=mission):
                status = "accepted" if accepted else "rejected"
                lines.append(
                    t(f"resistance.result.{status}", lang, proposal=proposal, mission=mission)
                )
                for part, ids in (
                    ("accept", e.accept),
                    ("reject", e.reject),
                    ("no_vote", e.no_vote),
                ):
                    listed = names(state, ids, lang)
                    lines.append(t(f"resistance.result.{part}", lang, names=listed, count=len(ids)))
            case MissionResult():
                lines.append(mission_line(e, "result", lang))
            case LeaderSkipped(leader=leader):
                lines.append(t("resistance.result.leader_skipped", lang, name=name(state, leader)))
    lines.append(track_text(state, lang))
    return "\n".join(lines)


def outcome_head(state: Resistance, lang: str) -> str:
    """Who won an Avalon game and why (the game is over)."""
    if state.winner is None:
        return t("resistance.end.cancelled", lang)
    side = "good" if state.winner is Winner.RESISTANCE else "evil"
    return t(key(f"end.{side}"), lang, reason=t(key(f"end.reason.{state.win_reason}"), lang))


def end_text(state: Resistance, lang: str) -> str:
    """Who won and why, and every role."""
    if state.options.is_avalon:
        return "\n".join([outcome_head(state, lang), roles_text(state, lang)])
    if state.winner is None:
        head = t("resistance.end.cancelled", lang)
    else:
        head = t(
            f"resistance.end.{state.winner.value}",
            lang,
            reason=t(f"resistance.end.reason.{state.win_reason}", lang),
        )
    spies = names(state, state.spies, lang)
    resistance = names(state, [p.id for p in state.players if p.id not in state.spies], lang)
    return "\n".join([head, t("resistance.end.roles", lang, spies=spies, resistance=resistance)])


def avalon_public_line(state: Resistance, event: ResistanceEvent, lang: str) -> str | None:
    """The channel's line for a step of Avalon (the Lady, the assassination), else None."""

    def named(pid: int) -> str:
        return name(state, pid)

    match event:
        case LadyExamined(holder=holder, target=target):
            return t(key("lady.examined"), lang, holder=named(holder), target=named(target))
        case LadyPassed(holder=holder, to=to):
            return t(key("lady.passed"), lang, holder=named(holder), to=named(to))
        case Assassination(assassin=assassin, target=target, merlin=merlin, hit=hit):
            return t(
                key("assassination.hit" if hit else "assassination.miss"),
                lang,
                assassin=named(assassin),
                target=named(target),
                merlin=named(merlin),
            )
        case GameOver(reason=EndReason.NO_ASSASSINATION):
            return t(key("assassination.none"), lang)
    return None


def lady_turn_text(state: Resistance, lang: str, due: datetime) -> str:
    """The channel's news of an Avalon step: the Lady's choice or the assassination."""
    if state.phase is Phase.LADY:
        holder = state.lady_holder
        assert holder is not None
        return t(
            key("lady.turn"),
            lang,
            holder=name(state, holder),
            eligible=names(state, state.lady_eligible, DEFAULT_LANG),
            deadline=ts(due),
        )
    return t(key("assassination.started"), lang, deadline=ts(due))


# -- the history ---------------------------------------------------------------------------------


def history_line(event: ResistanceEvent, named: Callable[[int], str], lang: str) -> str | None:
    """One line of the history (and of the game's record) for an Avalon event, else None."""
    match event:
        case LadyExamined(holder=holder, target=target):
            return t(key("history.lady_examined"), lang, holder=named(holder), target=named(target))
        case LadyPassed(holder=holder, to=to):
            return t(key("history.lady_passed"), lang, holder=named(holder), to=named(to))
        case AssassinationStarted():
            return t(key("history.assassination_started"), lang)
        case Assassination(assassin=assassin, target=target, merlin=merlin, hit=hit):
            return t(
                key(f"history.assassination_{'hit' if hit else 'miss'}"),
                lang,
                assassin=named(assassin),
                target=named(target),
                merlin=named(merlin),
            )
    return None


def history_text(state: Resistance, events: Sequence[ResistanceEvent], lang: str) -> str:
    """Every proposal, vote and mission so far, from the public event log."""
    lines = [t("resistance.history.title", lang)]
    # Players who left by substitution still appear in earlier proposals and votes.
    gone = {e.old: e.old_name or str(e.old) for e in events if isinstance(e, PlayerSubstituted)}

    def named(i: int) -> str:
        return state.player(i).name if state.is_player(i) else gone.get(i, str(i))

    lines += [line for event in events if (line := history_entry(state, event, named, lang))]
    if len(lines) == 1:
        lines.append(t("resistance.history.none", lang))
    if state.options.is_avalon and state.is_over:  # the roles, never before the end
        lines += [t(key("history.roles"), lang), roles_text(state, lang)]
    return "\n".join(lines)


def history_entry(
    state: Resistance, event: ResistanceEvent, named: Callable[[int], str], lang: str
) -> str | None:
    """One public event's line of the history (``named``: a player's name, one who left by
    substitution included); None for an event the history does not tell."""

    def listed(ids: Sequence[int]) -> str:
        """In the reader's alphabetical order, escaped (bot/names.py)."""
        return listing([(i, named(i)) for i in ids], lang)

    match event:
        case TeamProposed():
            return t(
                "resistance.history.proposal",
                lang,
                proposal=event.proposal,
                mission=event.mission,
                leader=shown(named(event.leader)),
                team=listed(event.team),
            )
        case TeamVoteResult(accepted=accepted):
            status = "accepted" if accepted else "rejected"
            return t(
                f"resistance.history.{status}",
                lang,
                accept=listed(event.accept),
                reject=listed(event.reject),
                no_vote=listed(event.no_vote),
            )
        case MissionResult():
            return mission_line(event, "history", lang)
        case LeaderSkipped(leader=leader):
            return t("resistance.history.leader_skipped", lang, name=shown(named(leader)))
        case PlayerSubstituted(name=new_name, old=old, old_name=old_name):
            new, old_shown = shown(new_name), shown(old_name or str(old))
            return t("resistance.history.substituted", lang, new=new, old=old_shown)
    return history_line(
        event, lambda pid: name(state, pid) if state.is_player(pid) else str(pid), lang
    )


# -- the status ----------------------------------------------------------------------------------


def status_text(
    state: Resistance,
    lang: str,
    *,
    team_votes: Mapping[int, str] | None = None,
    due: datetime | None = None,
) -> str:
    """``/resistance status``: the track, the leader, the phase; during a vote the team, how
    many voted and who has not (never who on the team has not chosen), and the open deadline
    (``due``: the vote's, the leader's skip, or the Avalon step's). ``state`` has the ballots
    on record applied; ``team_votes``: the team votes on record."""
    view = state.public_view()
    lines = [
        track_text(state, lang),
        t("resistance.status.leader", lang, name=name(state, view.leader)),
        t(f"resistance.status.phase_{view.phase.value}", lang),
        teams_text(state, lang),
    ]
    if view.phase is Phase.DEBATE:
        lines.append(t("resistance.status.size", lang, mission=view.mission, size=view.team_size))
    if view.phase is Phase.VOTE:
        lines.append(t("resistance.status.team", lang, team=names(state, state.team or (), lang)))
        count = len(team_votes or {})
        lines.append(t("resistance.status.votes_in", lang, count=count, total=len(state.players)))
        lines.append(
            t("resistance.status.waiting", lang, names=names(state, view.waiting_for, lang))
        )
    if due and view.phase in (Phase.VOTE, Phase.DEBATE):
        lines.append(t("resistance.status.deadline", lang, deadline=ts(due)))
    if state.lady_holder is not None:
        lines.append(t(key("lady.status"), lang, name=name(state, state.lady_holder)))
    if due and view.phase in (Phase.LADY, Phase.ASSASSINATION):
        lines.append(t("resistance.status.deadline", lang, deadline=ts(due)))
    return "\n".join(lines)
