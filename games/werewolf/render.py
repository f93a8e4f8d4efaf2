"""Werewolf's texts: the role DM, the vote count, the deaths, the end's night log, the status
and the history. Pure functions of the engine's state and events, in the reader's language; a
public text names a role only once the rules have revealed it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

from bot.i18n import t
from bot.names import listing, shown
from bot.render.common import ts
from games.werewolf.rules import (
    Death,
    NightRecord,
    Phase,
    Role,
    Seen,
    Tally,
    Werewolf,
    WerewolfEvent,
)
from games.werewolf.rules.events import (
    CaptainElected,
    CaptainNamed,
    Dawn,
    DayEnded,
    HunterShot,
    PlayerSubstituted,
)


def role_name(role: Role, lang: str) -> str:
    return t(f"werewolf.role.{role.value}.name", lang)


#: no player has left the game (who left: their id -> their name, from the players table)
NOBODY_LEFT: Mapping[int, str] = {}


def name(state: Werewolf, pid: int, gone: Mapping[int, str] = NOBODY_LEFT) -> str:
    """A player's name; one replaced since (the record of past nights and days keeps them)
    from ``gone``."""
    return shown(state.player(pid).name if state.is_player(pid) else gone.get(pid, "?"))


def names(state: Werewolf, ids: Iterable[int], lang: str) -> str:
    return listing([(pid, state.player(pid).name) for pid in ids], lang)


def seen_line(state: Werewolf, seen: Seen, lang: str, gone: Mapping[int, str] = NOBODY_LEFT) -> str:
    who = name(state, seen.target, gone)
    return t(
        "werewolf.seer.line", lang, number=seen.night, name=who, role=role_name(seen.role, lang)
    )


def role_text(state: Werewolf, pid: int, lang: str) -> str:
    """A player's role DM: the role, what it does, and all it knows now (the other wolves,
    the lover, what the seer saw, the potions)."""
    view = state.private_view(pid)
    role = view.role
    lines = [t("werewolf.dm.role", lang, role=role_name(role, lang))]
    lines.append(t(f"werewolf.role.{role.value}.text", lang))
    if role is Role.WEREWOLF:
        lines.append(t("werewolf.dm.wolves", lang, names=names(state, view.wolves, lang)))
    if view.lover is not None:
        lines.append(t("werewolf.dm.lover", lang, name=name(state, view.lover)))
    lines += [seen_line(state, seen, lang) for seen in view.seen]
    if view.life_potion is not None:
        left = potions(bool(view.life_potion), bool(view.death_potion), lang)
        lines.append(t("werewolf.dm.potions", lang, choices=left))
    if state.captain == pid:
        lines.append(t("werewolf.role.captain.text", lang))
    if not view.alive:
        lines.append(t("werewolf.dm.dead", lang))
    return "\n".join(lines)


def potions(life: bool, death: bool, lang: str) -> str:
    """The witch's potions left, named."""
    left = [t(f"werewolf.dm.{p}", lang) for p, has in (("life", life), ("death", death)) if has]
    return ", ".join(left) or t("werewolf.dm.no_potion", lang)


def death_line(
    state: Werewolf, death: Death, lang: str, gone: Mapping[int, str] = NOBODY_LEFT
) -> str:
    who = name(state, death.player, gone)
    key = f"werewolf.death.{death.cause.value}"
    if death.role is None:
        return t(key, lang, name=who)
    return t(key + "_role", lang, name=who, role=role_name(death.role, lang))


def deaths_text(
    state: Werewolf, deaths: Sequence[Death], lang: str, gone: Mapping[int, str] = NOBODY_LEFT
) -> list[str]:
    return [death_line(state, d, lang, gone) for d in deaths]


def tally_line(
    state: Werewolf, tally: Tally, lang: str, gone: Mapping[int, str] = NOBODY_LEFT
) -> str:
    """One name of a count with its voters in order; a vote that counted twice (the captain's)
    marked."""
    double = tally.votes > len(tally.voters)
    voters = ", ".join(
        t("werewolf.count.captain", lang, name=name(state, v, gone))
        if double and v == state.captain
        else name(state, v, gone)
        for v in tally.voters
    )
    target = (
        t("werewolf.count.none", lang)
        if tally.target is None
        else f"**{name(state, tally.target, gone)}**"
    )
    return t("werewolf.count.line", lang, choice=target, votes=tally.votes, names=voters)


def count_text(state: Werewolf, lang: str, due: datetime | None, last: Sequence[Tally] = ()) -> str:
    """The live vote count of the election or the day: each name with its voters in the order
    they voted (the captain's vote marked double), who has not voted, the deadline; once the
    vote has closed (the vote that made a majority), its ``last`` count, closed."""
    view = state.public_view()
    closed = view.phase not in (Phase.ELECTION, Phase.DAY)
    votes = last if closed else view.votes
    key = "werewolf.count.title_election" if view.day == 0 else "werewolf.count.title"
    lines = [t(key, lang, number=view.day)]
    lines += [tally_line(state, tally, lang) for tally in votes]
    if not votes:
        lines.append(t("werewolf.count.empty", lang))
    if view.not_voted:
        lines.append(t("werewolf.count.not_voted", lang, names=names(state, view.not_voted, lang)))
    if closed:
        lines.append(t("werewolf.count.closed", lang))
    elif due is not None:
        lines.append(t("werewolf.count.deadline", lang, deadline=ts(due)))
    return "\n".join(lines)


def day_result(
    state: Werewolf, ended: DayEnded, lang: str, gone: Mapping[int, str] = NOBODY_LEFT
) -> str:
    key = "werewolf.day.ended_majority" if ended.majority else "werewolf.day.ended"
    lines = [t(key, lang, number=ended.day)]
    lines += [tally_line(state, tally, lang, gone) for tally in ended.votes]
    if ended.eliminated is None:
        lines.append(t("werewolf.day.nobody", lang))
    lines += deaths_text(state, ended.deaths, lang, gone)
    return "\n".join(lines)


def dawn_text(state: Werewolf, dawn: Dawn, lang: str, gone: Mapping[int, str] = NOBODY_LEFT) -> str:
    lines = [t("werewolf.dawn.title", lang, number=dawn.night)]
    lines += deaths_text(state, dawn.deaths, lang, gone) or [t("werewolf.dawn.nobody", lang)]
    return "\n".join(lines)


def shot_text(
    state: Werewolf, shot: HunterShot, lang: str, gone: Mapping[int, str] = NOBODY_LEFT
) -> str:
    hunter = name(state, shot.hunter, gone)
    if shot.target is None:
        return t("werewolf.hunter.missed", lang, name=hunter)
    lines = [t("werewolf.hunter.shot", lang, name=hunter)]
    return "\n".join(lines + deaths_text(state, shot.deaths, lang, gone))


def captain_text(state: Werewolf, event: CaptainElected | CaptainNamed, lang: str) -> str:
    if event.captain is None:
        return t("werewolf.captain.none", lang)
    return t("werewolf.captain.is", lang, name=name(state, event.captain))


def night_lines(
    state: Werewolf, night: NightRecord, lang: str, gone: Mapping[int, str]
) -> list[str]:
    """One night of the end's night log."""
    lines = [t("werewolf.log.night", lang, number=night.night)]
    for wolf, target in night.picks.items():
        pick = {"player": name(state, wolf, gone), "name": name(state, target, gone)}
        lines.append(t("werewolf.log.pick", lang, **pick))
    victim = "—" if night.victim is None else name(state, night.victim, gone)
    lines.append(t("werewolf.log.victim", lang, name=victim))
    if night.healed:
        lines.append(t("werewolf.log.healed", lang))
    if night.poisoned is not None:
        lines.append(t("werewolf.log.poisoned", lang, name=name(state, night.poisoned, gone)))
    if night.seen is not None:
        lines.append(seen_line(state, night.seen, lang, gone))
    if night.lovers:
        lovers = " ♥ ".join(name(state, pid, gone) for pid in night.lovers)
        lines.append(t("werewolf.log.lovers", lang, names=lovers))
    return lines


def end_text(state: Werewolf, lang: str, gone: Mapping[int, str] = NOBODY_LEFT) -> str:
    """The end: who wins, every role, the night log, the day-by-day votes."""
    winner = state.winner
    lines = [t(f"werewolf.end.{winner.value if winner else 'cancelled'}", lang)]
    if state.winners():
        lines.append(t("werewolf.end.winners", lang, names=names(state, state.winners(), lang)))
    lines.append(t("werewolf.end.roles", lang))
    for p in state.players:
        role = role_name(state.roles[p.id], lang)
        lines.append(t("werewolf.end.role_line", lang, name=shown(p.name), role=role))
    lines.append(t("werewolf.end.nights", lang))
    for night in state.nights:
        lines += night_lines(state, night, lang, gone)
    lines.append(t("werewolf.end.days", lang))
    for day in state.days:
        lines.append(t("werewolf.log.day", lang, number=day.day))
        lines += [tally_line(state, tally, lang, gone) for tally in day.votes]
    return "\n".join(lines)


def phase_line(state: Werewolf, lang: str) -> str:
    phase = state.phase
    if phase is Phase.HUNTER and state.shooter is not None:
        return t("werewolf.status.hunter", lang, name=name(state, state.shooter))
    if phase is Phase.SUCCESSION and state.successor_of is not None:
        return t("werewolf.status.succession", lang, name=name(state, state.successor_of))
    number = state.night if phase is Phase.NIGHT else state.day
    return t(f"werewolf.status.{phase.value}", lang, number=number)


def status_text(state: Werewolf, lang: str, due: datetime | None, gone: Mapping[int, str]) -> str:
    """``/werewolf status``: the phase, the living and the dead (roles as revealed), the
    captain, the deadline; never what anyone holds."""
    lines = [phase_line(state, lang)]
    lines.append(t("werewolf.status.alive", lang, names=names(state, state.alive, lang)))
    lines += deaths_text(state, state.deaths, lang, gone)
    if state.captain is not None:
        lines.append(t("werewolf.captain.is", lang, name=name(state, state.captain)))
    if due is not None:
        lines.append(t("werewolf.count.deadline", lang, deadline=ts(due)))
    return "\n".join(lines)


def history_text(
    state: Werewolf, events: Iterable[WerewolfEvent], lang: str, gone: Mapping[int, str]
) -> str:
    """``/werewolf history``: every public moment so far, in order."""
    lines = [t("werewolf.history.title", lang)]
    for e in events:
        if isinstance(e, Dawn):
            lines.append(dawn_text(state, e, lang, gone))
        elif isinstance(e, DayEnded):
            lines.append(day_result(state, e, lang, gone))
        elif isinstance(e, HunterShot):
            lines.append(shot_text(state, e, lang, gone))
        elif isinstance(e, CaptainElected | CaptainNamed):
            lines.append(captain_text(state, e, lang))
        elif isinstance(e, PlayerSubstituted):
            old = shown(e.old_name or gone.get(e.old, "?"))
            new = shown(e.name)
            lines.append(t("werewolf.moderation.substituted_public", lang, old=old, new=new))
    return "\n".join(lines)
