"""The Werewolf service: one method per user action, one transaction each, on the core's parts.

Every action asks the engine (games/werewolf/rules) and turns the events it returns into
Discord effects (:meth:`WerewolfService.follow`): a public event is posted in the game's
channel, a player's is a DM, a wolves' one is posted once in the den (a private thread of the
game's text channel, or of its thread's; in a forum post, where there can be none, in the
channel the server named, else each wolf's copy is a DM). The night's, the wolves', the day's
and the last act's deadlines are armed as their step opens and dropped as it closes; the dead
are silenced in a text channel (``Silence``) until the end
lets them post again (``CloseSpaces``). Secrets stay in DMs and the den: a public text names a
role only once the rules reveal it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import discord
from sqlalchemy.ext.asyncio import AsyncSession

from bot import posts
from bot.choice import Offer, SecretChoice
from bot.effects import (
    CloseSpaces,
    DirectMessage,
    EditSlot,
    Post,
    PrivateThread,
    Silence,
    ThreadMembers,
    ThreadPost,
    View,
)
from bot.errors import UserError
from bot.i18n import t
from bot.listing import Waiting
from bot.names import shown, sort_key
from bot.render.common import channel, ts
from bot.service import Actor, Effect, GameService, Outcome, Reply, Services, Step
from bot.spaces import needed_for
from db import repo
from db.models import Deadline, Game, Player
from games.werewolf import records, render
from games.werewolf.acts import choice, last_step, menu, night_step, vote_step
from games.werewolf.options import DEN_CHANNEL, rule_options
from games.werewolf.rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    GameError,
    Phase,
    Role,
    Werewolf,
    WerewolfEvent,
    verify_setup,
)
from games.werewolf.rules import Player as EnginePlayer
from games.werewolf.rules import events as ev

NIGHT, NIGHT_REMINDER, WOLVES = "ww_night", "ww_night_reminder", "ww_wolves"
DAY, DAY_REMINDER = "ww_day", "ww_day_reminder"
LAST, LAST_REMINDER = "ww_last", "ww_last_reminder"
NIGHT_KINDS, DAY_KINDS = (NIGHT, NIGHT_REMINDER, WOLVES), (DAY, DAY_REMINDER)
ALL_KINDS = (*NIGHT_KINDS, *DAY_KINDS, LAST, LAST_REMINDER)
#: The den's thread and the message of the live vote count (bot.effects slots).
DEN, COUNT = "den", "ww_count"
#: The day's vote menu: the secret choice's select and a No elimination button (components.py).
VOTE_VIEW = "ww_vote"
#: The public events that open a player's last act (the hunter's shot, the successor): a DM.
LAST_TURNS = (ev.HunterTurn, ev.SuccessionOpened)
#: The share of a step the wolves have to agree (the witch has the rest of the night), and of
#: the day's hours a hunter or a dying captain has for a last act.
SHARE = 0.5


def target(value: str) -> int:
    """A menu's or a command's player id (0, which is nobody's, for anything else)."""
    return int(value) if value.isdigit() else 0


def thread_parent(channel: Any) -> discord.TextChannel | None:
    """The text channel of a thread (not of a forum post), where its game's den opens."""
    if isinstance(channel, discord.Thread) and isinstance(channel.parent, discord.TextChannel):
        return channel.parent
    return None


def stamp(state: Werewolf) -> str:
    """The step a deadline belongs to: one of a step that is over does nothing."""
    return f"{state.phase.value}/{state.night}/{state.day}"


class WerewolfService(GameService):
    kind = "werewolf"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    reminder_kinds = frozenset({NIGHT_REMINDER, DAY_REMINDER, LAST_REMINDER})

    def __init__(self, app: Services) -> None:
        super().__init__(app)
        night = (NIGHT, NIGHT_REMINDER)
        self.kill = choice(self, "ww_kill", (WOLVES, NIGHT_REMINDER), night_step, self.pick_in)
        self.look = choice(self, "ww_look", night, night_step, self.look_in)
        self.brew = choice(self, "ww_brew", night, night_step, self.brew_in)
        self.link = choice(self, "ww_link", night, night_step, self.link_in)
        self.vote = choice(self, "ww_vote", DAY_KINDS, vote_step, self.vote_in)
        self.last = choice(self, "ww_last", (LAST, LAST_REMINDER), last_step, self.last_in)

    # -- reading --------------------------------------------------------------------------------

    def load(self, game: Game) -> Werewolf:
        if game.state is None:
            raise UserError("common.error.not_started")
        return Werewolf.from_dict(game.state)

    def bad_player_count(self, count: int) -> Exception:
        return GameError(
            "werewolf.error.bad_player_count",
            {"min": self.min_players, "max": self.max_players, "count": count},
        )

    def game_over(self) -> Exception:
        return GameError("werewolf.error.game_over")

    def in_channel(self, game: Game) -> bool:
        """A member's silence needs a text channel: a thread or a forum post has none."""
        return game.thread_id is None

    def den_place(self, game: Game) -> int | None:
        """Where the den opens: the game's text channel; for a game in a thread, the text
        channel of that thread (set at ``new``), else the one the server named for forum posts
        (``/settings werewolf den``), else none (the DM relay)."""
        if self.in_channel(game):
            return posts.where(game)
        return int(game.options.get(DEN_CHANNEL) or 0) or None

    def has_den(self, game: Game) -> bool:
        return self.den_place(game) is not None

    def opened_in(self, channel: Any, options: dict[str, Any]) -> None:
        """A game opened in a thread of a text channel keeps its den in that channel: Discord
        opens no thread in a thread."""
        parent = thread_parent(channel)
        if parent is not None:
            options[DEN_CHANNEL] = parent.id

    def needed_permissions(self, channel: Any, options: dict[str, Any]) -> list[str]:
        needed = super().needed_permissions(channel, options)
        if isinstance(channel, discord.TextChannel):
            needed += needed_for(PrivateThread, ThreadMembers, Silence)
        elif thread_parent(channel) is not None:  # the den, in the thread's channel
            needed += needed_for(PrivateThread, ThreadMembers)
        return list(dict.fromkeys(needed))

    def before_start(self, game: Game, players: list[Player]) -> None:
        verify_setup(len(players), rule_options(game.options))

    async def gone(self, s: AsyncSession, game: Game) -> dict[int, str]:
        """Who left the game (a substitution): their id -> their name, for the record."""
        return await records.gone(s, game)

    # -- the start ------------------------------------------------------------------------------

    async def deal(
        self, s: AsyncSession, game: Game, players: list[Player], actor: Actor
    ) -> Outcome:
        rng = random.Random(self.app.rng.getrandbits(64))
        seats = [EnginePlayer(p.user_id, p.display_name) for p in players]
        state, events = Werewolf.setup(seats, rng, rule_options(game.options))
        for p in players:
            p.role = state.roles[p.user_id].value
        await repo.set_status(s, game, "running", at=self.now())
        effects: list[Effect] = []
        place = self.den_place(game)
        if place is not None:
            title = t("werewolf.den.name", game.lang)
            effects.append(PrivateThread(place, DEN, title, state.wolves))
        effects += await self.follow(s, game, state, events, actor.id)
        return Outcome(t("werewolf.start.done", actor.lang), effects)

    # -- the answers ----------------------------------------------------------------------------

    async def acted(
        self,
        s: AsyncSession,
        game: Game,
        state: Werewolf,
        events: Sequence[WerewolfEvent],
        actor: Actor,
        reply: str,
    ) -> Outcome:
        return Outcome(reply, await self.follow(s, game, state, events, actor.id))

    async def pick_in(
        self, s: AsyncSession, game: Game, state: Werewolf, actor: Actor, value: str
    ) -> Outcome:
        events = state.pick(actor.id, target(value))
        reply = t("werewolf.kill.done", actor.lang, name=render.name(state, target(value)))
        return await self.acted(s, game, state, events, actor, reply)

    async def look_in(
        self, s: AsyncSession, game: Game, state: Werewolf, actor: Actor, value: str
    ) -> Outcome:
        events = state.look(actor.id, target(value))
        reply = render.seen_line(state, state.seen[-1], actor.lang)
        return await self.acted(s, game, state, events, actor, reply)

    async def brew_in(
        self, s: AsyncSession, game: Game, state: Werewolf, actor: Actor, value: str
    ) -> Outcome:
        """``skip``, ``heal``, ``p<id>`` (poison), or ``heal+p<id>`` (the command's)."""
        parts = value.split("+")
        poison = next((target(p[1:]) for p in parts if p.startswith("p")), None)
        events = state.brew(actor.id, "heal" in parts, poison)
        return await self.acted(s, game, state, events, actor, t("werewolf.witch.done", actor.lang))

    def lover_key(self, game: Game) -> str:
        return f"werewolf:lover:{game.id}"

    async def link_in(
        self, s: AsyncSession, game: Game, state: Werewolf, actor: Actor, value: str
    ) -> Outcome:
        """Cupid's lovers: both at once (the command's ``a,b``), or one menu pick after the
        other, the first kept in ``bot_state`` until the second."""
        first_kept = await repo.get_bot_state(s, self.lover_key(game))
        if "," not in value and first_kept is None:
            lover = target(value)
            # checked as a link with any other second lover would be (Cupid, night 1, alive)
            state.verify_link(actor.id, lover, next(p for p in state.alive if p != lover))
            await repo.set_bot_state(s, self.lover_key(game), str(lover))
            text = t("werewolf.cupid.second", actor.lang, name=render.name(state, lover))
            offer = self.cupid_offer(state, actor.id, actor.lang, text, without=lover)
            return Outcome(text, [menu(self.link, game, night_step(state), offer)])
        first, second = value.split(",", 1) if "," in value else (first_kept or "", value)
        events = state.link(actor.id, target(first), target(second))
        await repo.delete_bot_state(s, self.lover_key(game))
        lovers = render.names(state, (target(first), target(second)), actor.lang)
        reply = t("werewolf.cupid.done", actor.lang, names=lovers)
        return await self.acted(s, game, state, events, actor, reply)

    async def vote_in(
        self, s: AsyncSession, game: Game, state: Werewolf, actor: Actor, value: str
    ) -> Outcome:
        """The day's vote (``none``: no elimination), or the captain's election."""
        if state.phase is Phase.ELECTION:
            events = state.elect(actor.id, target(value))
        else:
            events = state.vote(actor.id, None if value == "none" else target(value))
        who = t("werewolf.count.none", actor.lang) if value == "none" else None
        shown_as = who or render.name(state, target(value))
        key = "werewolf.vote.election_done" if state.day == 0 else "werewolf.vote.done"
        reply = t(key, actor.lang, number=state.day, name=shown_as)
        return await self.acted(s, game, state, events, actor, reply)

    async def last_in(
        self, s: AsyncSession, game: Game, state: Werewolf, actor: Actor, value: str
    ) -> Outcome:
        """The hunter's shot, or the dying captain's successor."""
        if state.phase is Phase.HUNTER:
            events = state.shoot(actor.id, target(value))
        else:
            events = state.name_successor(actor.id, target(value))
        reply = t("werewolf.last.done", actor.lang, name=render.name(state, target(value)))
        return await self.acted(s, game, state, events, actor, reply)

    # -- from events to Discord -----------------------------------------------------------------

    async def follow(
        self,
        s: AsyncSession,
        game: Game,
        state: Werewolf,
        events: Sequence[WerewolfEvent],
        actor: int | None,
    ) -> list[Effect]:
        """Save the state and its events; what they show (the den, DMs, the channel), the
        deadlines of what they open and close, the end."""
        await self.save(s, game, state, events, actor)
        # the players' languages, for the DMs only: a day vote (none) reads no player
        dms = any(e.private_to is not None or isinstance(e, LAST_TURNS) for e in events)
        langs = {p.user_id: p.locale for p in await repo.players(s, game.id)} if dms else {}
        effects: list[Effect] = []
        for event in events:
            await self.timing(s, game, state, event, effects)
            effects += self.private(game, state, event, langs)
            effects += await self.public(s, game, state, event)
        if state.is_over and game.status == "running":
            effects += await self.finish(s, game, state)
        return effects

    async def timing(
        self, s: AsyncSession, game: Game, state: Werewolf, e: WerewolfEvent, out: list[Effect]
    ) -> None:
        """The deadlines an event opens or closes (the step's stamp in their payload)."""
        payload = {"at": stamp(state)}
        before = float(game.options.get("reminder_hours") or 0)
        closes = {
            ev.Dawn: NIGHT_KINDS,
            ev.CaptainElected: DAY_KINDS,
            ev.DayEnded: DAY_KINDS,
            ev.HunterShot: (LAST, LAST_REMINDER),
            ev.CaptainNamed: (LAST, LAST_REMINDER),
            ev.GameOver: ALL_KINDS,
            ev.GameCancelled: ALL_KINDS,
        }
        if type(e) in closes:
            await self.deadlines.cancel(s, game, closes[type(e)])
        if isinstance(e, ev.VictimChosen) and e.for_den:
            await self.deadlines.cancel(s, game, (WOLVES,))
        if isinstance(e, ev.NightFell):
            due = await self.deadlines.due_at(s, game, "night_hours")
            kinds = (NIGHT, NIGHT_REMINDER)
            out += await self.deadlines.arm_with_reminder(s, game, kinds, due, before, payload)
            out += await self.deadlines.arm(s, game, WOLVES, self.share(due), payload)
        elif isinstance(e, ev.ElectionOpened | ev.DayBegan):
            due = await self.deadlines.due_at(s, game, "day_hours")
            out += await self.deadlines.arm_with_reminder(s, game, DAY_KINDS, due, before, payload)
        elif isinstance(e, ev.HunterTurn | ev.SuccessionOpened):
            due = self.share(await self.deadlines.due_at(s, game, "day_hours"))
            kinds = (LAST, LAST_REMINDER)
            out += await self.deadlines.arm_with_reminder(s, game, kinds, due, before, payload)

    def share(self, due: datetime) -> datetime:
        now = self.now()
        return now + (due - now) * SHARE

    def private(
        self, game: Game, state: Werewolf, e: WerewolfEvent, langs: Mapping[int, str]
    ) -> list[Effect]:
        """A player's event as a DM (its menu, if it opens a choice); a wolves' event in the
        den once, or as a DM to each wolf where there is no den."""
        to = e.private_to
        if to is None and not isinstance(e, LAST_TURNS):
            return []
        lang = langs.get(to or 0, game.lang)
        if isinstance(e, ev.RoleDealt):
            return [DirectMessage(e.player, render.role_text(state, e.player, lang))]
        if isinstance(e, ev.InLove):
            return [
                DirectMessage(
                    e.player, t("werewolf.dm.lover", lang, name=render.name(state, e.lover))
                )
            ]
        if isinstance(e, ev.DenOpened | ev.WolfPicked | ev.VictimChosen):
            return self.den_post(game, state, e, lang)
        if isinstance(e, LAST_TURNS):
            who = e.hunter if isinstance(e, ev.HunterTurn) else e.captain
            return [self.last_menu(game, state, who, langs.get(who, game.lang))]
        offer = self.turn_offer(state, e, lang)
        act = {ev.SeerTurn: self.look, ev.WitchTurn: self.brew, ev.CupidTurn: self.link}
        if offer is None or type(e) not in act:
            return []
        return [menu(act[type(e)], game, night_step(state), offer)]

    def den_post(self, game: Game, state: Werewolf, e: WerewolfEvent, lang: str) -> list[Effect]:
        """A wolves' event: the den's menu at nightfall, each pick, the victim settled."""
        if self.has_den(game) and not e.for_den:
            return []
        lang = game.lang if self.has_den(game) else lang
        if isinstance(e, ev.DenOpened):
            text = t("werewolf.den.night", lang, number=e.night)
        elif isinstance(e, ev.WolfPicked):
            picks = "\n".join(
                t(
                    "werewolf.den.pick",
                    lang,
                    player=render.name(state, w),
                    name=render.name(state, v),
                )
                for w, v in e.picks.items()
            )
            text = f"{t('werewolf.den.picked', lang, player=render.name(state, e.wolf))}\n{picks}"
        else:
            assert isinstance(e, ev.VictimChosen)
            victim = "—" if e.victim is None else render.name(state, e.victim)
            text = t("werewolf.den.settled", lang, name=victim)
        view = None
        if isinstance(e, ev.DenOpened):
            options = tuple((state.player(p).name, str(p)) for p in self.ordered(state, e.targets))
            offer = Offer(0, text, options, t("werewolf.den.placeholder", lang))
            view = menu(self.kill, game, night_step(state), offer).view
        if self.has_den(game):
            return [ThreadPost(DEN, text, view=view)]
        assert e.private_to is not None
        return [DirectMessage(e.private_to, text, view=view)]

    def ordered(self, state: Werewolf, ids: Sequence[int]) -> list[int]:
        return sorted(ids, key=lambda i: sort_key(i, state.player(i).name))

    def options_of(self, state: Werewolf, ids: Sequence[int]) -> tuple[tuple[str, str], ...]:
        return tuple((state.player(p).name, str(p)) for p in self.ordered(state, ids))

    def turn_offer(self, state: Werewolf, e: WerewolfEvent, lang: str) -> Offer | None:
        """The seer's, the witch's or Cupid's menu of tonight."""
        placeholder = t("werewolf.menu.placeholder", lang)
        if isinstance(e, ev.SeerTurn):
            text = t("werewolf.seer.turn", lang, number=state.night)
            return Offer(e.player, text, self.options_of(state, e.targets), placeholder)
        if isinstance(e, ev.CupidTurn):
            text = t("werewolf.cupid.turn", lang)
            return self.cupid_offer(state, e.player, lang, text)
        if isinstance(e, ev.WitchTurn):
            return self.witch_offer(state, e, lang)
        return None

    def cupid_offer(
        self, state: Werewolf, cupid: int, lang: str, text: str, without: int | None = None
    ) -> Offer:
        ids = [p for p in state.alive if p != without]
        return Offer(cupid, text, self.options_of(state, ids), t("werewolf.menu.placeholder", lang))

    def witch_offer(self, state: Werewolf, e: ev.WitchTurn, lang: str) -> Offer:
        victim = None if e.victim is None else render.name(state, e.victim)
        key = "werewolf.witch.turn_victim" if victim else "werewolf.witch.turn_none"
        left = render.potions(e.life_potion, e.death_potion, lang)
        text = t(key, lang, number=state.night, name=victim or "", choices=left)
        options: list[tuple[str, str]] = [(t("werewolf.witch.skip", lang), "skip")]
        if e.life_potion and e.victim is not None:
            options.append(
                (t("werewolf.witch.heal", lang, name=state.player(e.victim).name), "heal")
            )
        if e.death_potion:
            for pid in self.ordered(state, e.targets):
                label = t("werewolf.witch.poison", lang, name=state.player(pid).name)
                options.append((label, f"p{pid}"))
        return Offer(e.player, text, tuple(options), t("werewolf.menu.placeholder", lang))

    def last_menu(self, game: Game, state: Werewolf, who: int, lang: str) -> DirectMessage:
        key = "werewolf.hunter.dm" if state.phase is Phase.HUNTER else "werewolf.captain.dm"
        text = t(key, lang, where=channel(posts.where(game)))
        offer = Offer(
            who, text, self.options_of(state, state.alive), t("werewolf.menu.placeholder", lang)
        )
        return menu(self.last, game, last_step(state), offer)

    async def public(
        self, s: AsyncSession, game: Game, state: Werewolf, e: WerewolfEvent
    ) -> list[Effect]:
        """A public event in the game's channel: its text, the vote count, the dead silenced."""
        lang, where = game.lang, posts.where(game)
        if isinstance(e, ev.ElectionOpened | ev.DayBegan):
            return [await self.count_post(s, game, state)]
        if isinstance(e, ev.VoteCast):  # the count, live: the next vote's edit supersedes it
            due = await self.deadlines.due(s, game, DAY)
            count = render.count_text(state, lang, due, e.votes)
            return [EditSlot(where, COUNT, text=count, live=True)]
        text = self.public_text(game, state, e)
        effects: list[Effect] = [] if text is None else [posts.announce(game, text)]
        if isinstance(e, ev.DayEnded | ev.CaptainElected):  # the count's last edit, closed
            last = render.count_text(state, lang, None, e.votes)
            effects.insert(0, EditSlot(where, COUNT, text=last, clear_view=True))
        deaths = getattr(e, "deaths", ())
        if deaths and not isinstance(e, ev.GameOver):
            effects += self.bury(game, state, [d.player for d in deaths])
        return effects

    def public_text(self, game: Game, state: Werewolf, e: WerewolfEvent) -> str | None:
        lang = game.lang
        if isinstance(e, ev.GameStarted):
            specials = ", ".join(render.role_name(r, lang) for r in e.specials) or "—"
            return t(
                "werewolf.start.public",
                lang,
                count=len(e.players),
                value=e.wolves,
                names=specials,
            )
        if isinstance(e, ev.NightFell):
            return t("werewolf.night.fell", lang, number=e.night)
        if isinstance(e, ev.Dawn):
            return render.dawn_text(state, e, lang)
        if isinstance(e, ev.DayEnded):
            return render.day_result(state, e, lang)
        if isinstance(e, ev.HunterTurn):
            return t("werewolf.hunter.turn", lang, name=render.name(state, e.hunter))
        if isinstance(e, ev.HunterShot):
            return render.shot_text(state, e, lang)
        if isinstance(e, ev.SuccessionOpened):
            return t("werewolf.captain.succession", lang, name=render.name(state, e.captain))
        if isinstance(e, ev.CaptainElected | ev.CaptainNamed):
            return render.captain_text(state, e, lang)
        return None

    def bury(self, game: Game, state: Werewolf, dead: Sequence[int]) -> list[Effect]:
        """The dead no longer post in the game's text channel; a dead wolf leaves the den (a
        forum post cannot silence one member: the rules say so)."""
        if not dead:
            return []
        effects: list[Effect] = []
        if self.in_channel(game):
            effects.append(Silence(posts.where(game), tuple(dead), True))
        wolves = tuple(p for p in dead if state.roles[p] is Role.WEREWOLF)
        if wolves and self.has_den(game):
            effects.append(ThreadMembers(DEN, remove=wolves))
        return effects

    async def count_post(self, s: AsyncSession, game: Game, state: Werewolf) -> Effect:
        """The day's (or the election's) message: the live vote count and the vote menu."""
        lang = game.lang
        due = await self.deadlines.due(s, game, DAY)
        options = [list(option) for option in self.options_of(state, state.alive)]
        none = t("werewolf.count.none_label", lang) if state.phase is Phase.DAY else ""
        placeholder = t("werewolf.vote.placeholder", lang)
        view = View(
            VOTE_VIEW, (self.vote.name, game.id, vote_step(state), options, placeholder, none)
        )
        text = render.count_text(state, lang, due)
        return Post(posts.where(game), text, view=view, slot=COUNT)

    async def finish(self, s: AsyncSession, game: Game, state: Werewolf) -> list[Effect]:
        """The end: every role, the night log, the day-by-day votes; the den archived, the
        silenced let post again, the day-votes picture and the record attached."""
        await repo.set_status(s, game, "ended", at=self.now())
        text = render.end_text(state, game.lang, await self.gone(s, game))
        return [posts.announce(game, text), CloseSpaces(), records.end_post(game)]

    # -- deadlines ------------------------------------------------------------------------------

    async def deadline_due(self, s: AsyncSession, game: Game, deadline: Deadline) -> Outcome | None:
        state = self.load(game)
        if (deadline.payload or {}).get("at") != stamp(state):
            return None
        if deadline.kind in self.reminder_kinds:
            return await self.remind_in(s, game, state, game.lang)
        if deadline.kind == WOLVES:
            if not state.can_close_wolves():
                return None
            return Outcome("", await self.follow(s, game, state, state.close_wolves(), None))
        return await self.close_in(s, game, state)

    async def close_in(self, s: AsyncSession, game: Game, state: Werewolf) -> Outcome:
        """The open step's deadline: the count, the night's end, a last act not taken; who
        let it pass counts a miss (``replace_after``)."""
        owing = set(state.owing())
        asked = set(state.alive)  # by night, only the night roles were asked anything
        if state.phase is Phase.NIGHT:
            asked = {p for p in asked if state.roles[p] is not Role.VILLAGER}
        effects = await self.follow(s, game, state, state.resolve(), None)
        if game.status == "running":
            effects += await self.seats.count_misses(s, game, owing, asked - owing)
        return Outcome("", effects)

    # -- moderation -----------------------------------------------------------------------------

    def step(self, state: Werewolf) -> Step | None:
        name = stamp(state)
        if state.phase is Phase.NIGHT:
            return Step(name, NIGHT_KINDS, "werewolf.moderation.extended_night")
        if state.phase in (Phase.ELECTION, Phase.DAY):
            return Step(name, DAY_KINDS, "werewolf.moderation.extended_day")
        if state.phase in (Phase.HUNTER, Phase.SUCCESSION):
            return Step(name, (LAST, LAST_REMINDER), "werewolf.moderation.extended_last")
        return None

    async def close_step(
        self, s: AsyncSession, game: Game, state: Werewolf, actor: Actor
    ) -> Outcome:
        outcome = await self.close_in(s, game, state)
        outcome.reply = t("werewolf.moderation.resolved", actor.lang)
        return outcome

    async def remind_in(self, s: AsyncSession, game: Game, state: Werewolf, lang: str) -> Outcome:
        """A DM to each player the open step waits for, in their language."""
        owing = set(state.owing())
        waiting = [p for p in await repo.players(s, game.id) if p.user_id in owing]
        kinds = self.step(state)
        due = None
        if kinds is not None:
            found = await repo.open_deadlines(s, game.id, kinds=[kinds.deadlines[0]])
            due = found[0].due_at if found else None
        where, deadline = channel(posts.where(game)), ts(due) if due else "—"
        dms: list[Effect] = [
            DirectMessage(
                p.user_id, t("werewolf.reminder.act", p.locale, deadline=deadline, where=where)
            )
            for p in waiting
        ]
        return Outcome(t("werewolf.moderation.reminded", lang, count=len(dms)), dms)

    async def remind_step(
        self, s: AsyncSession, game: Game, state: Werewolf, actor: Actor
    ) -> Outcome:
        if not state.owing():
            raise UserError("werewolf.error.nobody_to_remind")
        return await self.remind_in(s, game, state, actor.lang)

    def end_state(self, state: Werewolf) -> list[WerewolfEvent]:
        return state.cancel()

    async def cancelled(
        self, s: AsyncSession, game: Game, state: Werewolf, events: Sequence[Any]
    ) -> list[Effect]:
        """The cancelled game's end as a natural one's: every role and the night log."""
        await repo.delete_bot_state(s, self.lover_key(game))
        return [posts.announce(game, render.end_text(state, game.lang, await self.gone(s, game)))]

    async def record_post(self, s: AsyncSession, game: Game, state: Werewolf) -> Post:
        return records.end_post(game)

    def unheard(self, game: Game) -> frozenset[int]:
        """The dead of a game in a thread or forum post, which Discord cannot silence."""
        if self.in_channel(game) or game.state is None:
            return frozenset()
        state = self.load(game)
        return frozenset(p for p in state.roles if p not in state.alive)

    async def seat(
        self, s: AsyncSession, game: Game, old: Actor, new: Actor, actor: Actor
    ) -> Outcome:
        """The newcomer takes the seat and all it knows (the engine's role DM), the den's
        place, the silence of the dead, and the menu of what the seat owes now."""
        state = self.running(game)
        old_name, handed, row = await self.seats.hand_over(s, game, state, old, new)
        row.role = state.roles[new.id].value
        events = [e for e in handed if isinstance(e, WerewolfEvent)]
        effects = await self.follow(s, game, state, events, actor.id)
        names = {"old": shown(old_name), "new": shown(new.name)}
        effects.append(
            posts.announce(game, t("werewolf.moderation.substituted_public", game.lang, **names))
        )
        if self.has_den(game) and state.roles[new.id] is Role.WEREWOLF and state.is_alive(new.id):
            effects.append(ThreadMembers(DEN, add=(new.id,), remove=(old.id,)))
        if not state.is_alive(new.id):
            if self.in_channel(game):
                effects.append(Silence(posts.where(game), (old.id,), False))
            effects += self.bury(game, state, [new.id])
        effects += self.owed_menus(game, state, new.id, row.locale)
        reply = t("werewolf.moderation.substituted", actor.lang, **names)
        return Outcome(reply, effects)

    def owed_menus(self, game: Game, state: Werewolf, pid: int, lang: str) -> list[Effect]:
        """The menu of the act ``pid`` owes now (a newcomer's)."""
        if pid not in state.owing():
            return []
        if state.phase in (Phase.HUNTER, Phase.SUCCESSION):
            return [self.last_menu(game, state, pid, lang)]
        role = state.roles[pid]
        targets = tuple(p for p in state.alive if p != pid)
        turn: WerewolfEvent | None = None
        if state.phase is Phase.NIGHT and role is Role.SEER:
            turn = ev.SeerTurn(player=pid, targets=targets, private_to=pid)
        elif state.phase is Phase.NIGHT and role is Role.CUPID:
            turn = ev.CupidTurn(player=pid, targets=state.alive, private_to=pid)
        elif state.phase is Phase.NIGHT and role is Role.WITCH:
            turn = ev.WitchTurn(
                player=pid,
                victim=state.victim,
                life_potion=state.life_potion,
                death_potion=state.death_potion,
                targets=targets,
                private_to=pid,
            )
        return [] if turn is None else self.private(game, state, turn, {pid: lang})

    # -- read-only views ------------------------------------------------------------------------

    async def resync_effects(self, s: AsyncSession, game: Game) -> list[Effect]:
        """What the state says Discord shows (a permission restored since): the dead silenced
        and out of the den, the living wolves in it, the vote count as it stands."""
        if game.status != "running" or game.state is None:
            return await super().resync_effects(s, game)
        state = self.load(game)
        dead = [p.id for p in state.players if not state.is_alive(p.id)]
        effects = self.bury(game, state, dead)
        if self.has_den(game):
            effects.append(ThreadMembers(DEN, add=state.living_wolves))
        if state.phase in (Phase.ELECTION, Phase.DAY):
            due = await self.deadlines.due(s, game, DAY)
            text = render.count_text(state, game.lang, due)
            effects.append(EditSlot(posts.where(game), COUNT, text=text))
        return effects

    async def running_status(self, s: AsyncSession, game: Game, lang: str) -> str:
        state = self.load(game)
        step = self.step(state)
        due = await self.deadlines.due(s, game, step.deadlines[0]) if step else None
        return render.status_text(state, lang, due, await self.gone(s, game))

    async def waiting_on(
        self, s: AsyncSession, game: Game, user_id: int, lang: str
    ) -> list[Waiting]:
        """``/games``, privately: what the game waits for from the player now — their night
        role's act, their vote, their last act — with its deadline."""
        if game.status != "running" or game.state is None:
            return []
        state = self.load(game)
        step = self.step(state)
        if step is None or user_id not in state.owing():
            return []
        what, kind = state.phase.value, step.deadlines[0]
        if state.phase is Phase.NIGHT:
            what = state.roles[user_id].value  # their own role: the answer is theirs alone
            kind = WOLVES if what == "werewolf" else kind
        due = await self.deadlines.due(s, game, kind)
        return [Waiting(t(f"werewolf.waiting.{what}", lang), due)]

    async def read(
        self, game_id: int
    ) -> tuple[Game, Werewolf, dict[int, str], list[WerewolfEvent]]:
        """A game, its state, who left it and its public events, read once its actions settle."""
        await self.actions.settled(game_id)
        async with self.app.sessions() as s:
            game = await repo.get_game(s, game_id)
            if game is None:
                raise UserError("common.error.no_game")
            state = self.load(game)
            return game, state, await self.gone(s, game), await records.werewolf_events(s, game)

    async def player_act(self, game_id: int) -> SecretChoice:
        """The choice ``/werewolf choose`` answers: a dead hunter's or captain's last act while
        the game waits for it, else the seer's look (each refuses whoever may not make it)."""
        _, state, _, _ = await self.read(game_id)
        return self.last if state.phase in (Phase.HUNTER, Phase.SUCCESSION) else self.look

    async def votes(self, actor: Actor, game_id: int) -> str:
        """``/werewolf votes``: the count as it stands (the day's, or the election's)."""
        game, state, _, _ = await self.read(game_id)
        if state.phase not in (Phase.ELECTION, Phase.DAY):
            raise GameError("werewolf.error.wrong_phase_day")
        async with self.app.sessions() as s:
            due = await self.deadlines.due(s, game, DAY)
        return render.count_text(state, actor.lang, due)

    async def history(self, actor: Actor, game_id: int) -> Reply:
        """``/werewolf history``: every public moment so far, and the day-votes picture."""
        game, state, gone, events = await self.read(game_id)
        text = render.history_text(state, events, actor.lang, gone)
        matrix = records.matrix_of(state, events, gone)
        return Reply(text, files=[await records.matrix_file(matrix, actor.lang, game.id)])

    async def role(self, actor: Actor, game_id: int) -> str:
        _, state, _, _ = await self.read(game_id)
        if not state.is_player(actor.id):
            raise GameError("werewolf.error.not_a_player")
        return render.role_text(state, actor.id, actor.lang)
