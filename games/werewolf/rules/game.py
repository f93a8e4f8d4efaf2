"""Werewolf: the game state and its actions.

Every action comes in three forms, as The Resistance's: ``verify_X`` raises a
:class:`GameError` explaining why the action is not allowed, ``can_X`` says whether it is, and
``X`` verifies, changes the state and returns the resulting events. A refused action leaves the
state exactly as it was. A saved game (:meth:`to_dict`) holds its whole state, read back
without replaying, and its setup and log of actions, which :meth:`replay` applies again to the
same state (the property tests hold the two together).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from rulebase import can, json_copy
from rulebase.engine import ActionRecords, Bound, ComparedByState, is_id, param, seated_twice

from .errors import (
    AlreadyActed,
    AlreadyAPlayer,
    BadPlayerCount,
    DuplicatePlayer,
    FirstNightOnly,
    GameIsOver,
    InvalidAction,
    NoDeathPotion,
    NoLifePotion,
    NotAPlayer,
    NotAWolf,
    NotCupid,
    NotTheCaptain,
    NotTheHunter,
    NotTheSeer,
    NotTheWitch,
    NoVictim,
    PlayerIsDead,
    SameLover,
    TargetIsDead,
    TargetIsSelf,
    TargetIsWolf,
    TooFewWolves,
    TooManyRoles,
    TooManyWolves,
    UnknownPlayer,
    VictimNotSettled,
    VictimSettled,
    WrongPhase,
)
from .events import (
    CaptainElected,
    CaptainNamed,
    CupidLinked,
    CupidTurn,
    Dawn,
    DayBegan,
    DayEnded,
    DenOpened,
    ElectionOpened,
    GameCancelled,
    GameOver,
    GameStarted,
    HunterShot,
    HunterTurn,
    InLove,
    NightFell,
    PlayerSubstituted,
    RoleDealt,
    SeerSaw,
    SeerTurn,
    SuccessionOpened,
    VictimChosen,
    VoteCast,
    WitchChose,
    WitchTurn,
    WolfPicked,
)
from .events import WerewolfEvent as Event
from .model import (
    Cause,
    Death,
    EndReason,
    NightRecord,
    Options,
    Phase,
    Player,
    Role,
    Seen,
    Side,
    Tally,
    Winner,
)
from .tables import MAX_PLAYERS, MIN_PLAYERS, MIN_WOLVES, WOLF_COUNT, max_wolves, players_for
from .views import PrivateView, PublicView

STATE_VERSION = 1


def _copied(actions: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A copy of an action log: flat records, a substitute's ``new`` player the one nested
    object (cheaper than a deep copy; a long game logs a thousand actions)."""
    return [
        {**action, "new": dict(action["new"])} if "new" in action else dict(action)
        for action in actions
    ]


def _value(value: Winner | EndReason | None) -> str | None:
    return None if value is None else value.value


def wolves_for(count: int, options: Options) -> int:
    """The wolves a game of ``count`` players (MIN_PLAYERS..MAX_PLAYERS) plays:
    ``options.wolves``, else the table's."""
    if options.wolves is not None:
        return options.wolves
    return WOLF_COUNT[count]


def verify_setup(count: int, options: Options) -> None:
    """Raise the GameError that stops a game of ``count`` players with ``options``, naming what
    to change: the player count, the wolves, the special roles."""
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise BadPlayerCount(min=MIN_PLAYERS, max=MAX_PLAYERS, count=count)
    wolves = wolves_for(count, options)
    if wolves < MIN_WOLVES:
        raise TooFewWolves(value=wolves, min=MIN_WOLVES)
    if wolves > max_wolves(count):
        raise TooManyWolves(
            value=wolves, count=count, max=max_wolves(count), needed=players_for(wolves, 0)
        )
    specials = len(options.specials())
    plain = count - wolves - specials
    if plain < specials:
        raise TooManyRoles(
            roles=specials,
            others=max(plain, 0),
            count=count,
            needed=players_for(wolves, specials),
        )


def deal(ids: Sequence[int], options: Options, rng: random.Random) -> dict[int, Role]:
    """A random deal: the wolves, one card of each special role chosen, villagers for the rest."""
    seats = list(ids)
    rng.shuffle(seats)
    cards = [Role.WEREWOLF] * wolves_for(len(seats), options) + list(options.specials())
    cards += [Role.VILLAGER] * (len(seats) - len(cards))
    return dict(zip(seats, cards, strict=True))


def _verify_players(players: Sequence[Player]) -> None:
    twice = seated_twice(players)
    if twice is not None:
        raise DuplicatePlayer(name=twice.name, player=twice.id)


def _verify_deal(players: Sequence[Player], roles: Mapping[int, Role], options: Options) -> None:
    """A known deal checked: GameError for what a table could ask, ValueError for a deal no
    caller should build (the wrong wolves, a special role missing or twice)."""
    _verify_players(players)
    verify_setup(len(players), options)
    if set(roles) != {p.id for p in players}:
        raise ValueError("roles must name exactly the players")
    cards = list(roles.values())
    if cards.count(Role.WEREWOLF) != wolves_for(len(players), options):
        raise ValueError("the deal does not hold the game's wolves")
    for role in (Role.SEER, Role.WITCH, Role.HUNTER, Role.CUPID):
        if cards.count(role) != (1 if role in options.specials() else 0):
            raise ValueError(f"the deal must hold {role.value} once if the option is on")


class Werewolf(ComparedByState):
    """One game of Werewolf. Create it with :meth:`setup` (a random deal) or directly with a
    known deal; restore it with :meth:`from_dict` or :meth:`replay`."""

    def __init__(
        self,
        players: Sequence[Player],
        roles: Mapping[int, Role | str],
        options: Options = Options(),
    ) -> None:
        """A new game with a given deal: at the captain's election, or at the first night."""
        players = tuple(players)
        role_of = {int(pid): Role(role) for pid, role in roles.items()}
        _verify_deal(players, role_of, options)
        self._players = players
        self._roles = {p.id: role_of[p.id] for p in players}
        self._options = options
        self._setup: dict[str, Any] = {
            "players": [p.to_dict() for p in players],
            "roles": {str(p.id): self._roles[p.id].value for p in players},
            "options": options.to_dict(),
        }
        self._alive: list[int] = [p.id for p in players]
        self._deaths: list[Death] = []
        self._night = 0
        self._day = 0
        self._captain: int | None = None
        self._lovers: tuple[int, int] | None = None
        self._life_potion = self._death_potion = Role.WITCH in options.specials()
        self._seen: list[Seen] = []
        self._nights: list[NightRecord] = []
        self._votes: dict[int, int | None] = {}
        self._shooter: int | None = None
        self._successor_of: int | None = None
        self._next = Phase.DAY
        self._winner: Winner | None = None
        self._win_reason: EndReason | None = None
        self._actions: list[dict[str, Any]] = []
        self._picks: dict[int, int] = {}
        self._victim: int | None = None
        self._poisoned: int | None = None
        self._settled = self._looked = self._brewed = self._healed = False
        started = GameStarted(
            players=tuple(self._alive),
            wolves=len(self.wolves),
            specials=options.specials(),
            captain=options.captain,
        )
        self._history: list[Event] = [started]
        if options.captain:
            self._phase = Phase.ELECTION
            self._history.append(ElectionOpened(candidates=self.alive))
        else:
            self._open_night()

    # ------------------------------------------------------------------ creation

    @classmethod
    def setup(
        cls, players: Sequence[Player], rng: random.Random, options: Options = Options()
    ) -> tuple[Werewolf, list[Event]]:
        """Deal the roles at random (the setup checked first, naming what to change)."""
        players = tuple(players)
        _verify_players(players)
        verify_setup(len(players), options)
        game = cls(players, deal([p.id for p in players], options, rng), options)
        return game, game.start_events()

    def start_events(self) -> list[Event]:
        """``game_started``, one private ``role_dealt`` per player (seat order), then the
        election's opening or the first night's with its private turns."""
        dealt = [self.role_dealt_event(p.id) for p in self._players]
        opening = list(self._history[:2])
        turns = self._night_turns() if self._phase is Phase.NIGHT else []
        return [opening[0], *dealt, *opening[1:], *turns]

    def role_dealt_event(self, player: int) -> RoleDealt:
        """A player's private role message: the role and all it knows now."""
        self._verify_is_player(player)
        role = self._roles[player]
        witch = role is Role.WITCH
        return RoleDealt(
            player=player,
            role=role,
            wolves=tuple(w for w in self.wolves if w != player) if role is Role.WEREWOLF else (),
            seen=tuple(self._seen) if role is Role.SEER else (),
            lover=self.lover_of(player),
            life_potion=self._life_potion if witch else None,
            death_potion=self._death_potion if witch else None,
            private_to=player,
        )

    def setup_record(self) -> dict[str, Any]:
        setup: dict[str, Any] = json_copy(self._setup)
        return setup

    @classmethod
    def from_setup_record(cls, record: Mapping[str, Any]) -> Werewolf:
        return cls(
            [Player.from_dict(p) for p in record["players"]],
            {int(pid): Role(role) for pid, role in record["roles"].items()},
            Options.from_dict(record.get("options", {})),
        )

    @classmethod
    def replay(cls, setup: Mapping[str, Any], actions: Iterable[Mapping[str, Any]]) -> Werewolf:
        """The state reached by applying ``actions`` (the :attr:`actions` log) from ``setup``."""
        game = cls.from_setup_record(setup)
        for action in actions:
            apply_action(game, action)
        return game

    def to_dict(self) -> dict[str, Any]:
        """The whole state, JSON-compatible, with the log that replays it."""
        return {
            "version": STATE_VERSION,
            "setup": self.setup_record(),
            "players": [p.to_dict() for p in self._players],
            "roles": {str(pid): role.value for pid, role in self._roles.items()},
            "alive": list(self._alive),
            "deaths": [d.to_dict() for d in self._deaths],
            "clock": [self._phase.value, self._night, self._day, self._next.value],
            "captain": self._captain,
            "lovers": None if self._lovers is None else list(self._lovers),
            "potions": [self._life_potion, self._death_potion],
            "seen": [s.to_dict() for s in self._seen],
            "nights": [n.to_dict() for n in self._nights],
            "votes": [[voter, target] for voter, target in self._votes.items()],
            "picks": [[wolf, target] for wolf, target in self._picks.items()],
            "tonight": [self._victim, self._settled, self._looked, self._brewed, self._healed],
            "poisoned": self._poisoned,
            "pending": [self._shooter, self._successor_of],
            "end": [_value(self._winner), _value(self._win_reason)],
            "history": [event.to_dict() for event in self._history],
            "actions": self.actions,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Werewolf:
        """The game :meth:`to_dict` wrote, read back without replaying it."""
        version = d.get("version", STATE_VERSION)
        if version != STATE_VERSION:
            raise ValueError(f"unsupported Werewolf state version {version!r}")
        game = cls.from_setup_record(d["setup"])
        game._players = tuple(Player.from_dict(p) for p in d["players"])
        game._roles = {int(pid): Role(role) for pid, role in d["roles"].items()}
        game._alive = [int(pid) for pid in d["alive"]]
        game._deaths = [Death.from_dict(x) for x in d["deaths"]]
        phase, game._night, game._day, after = d["clock"]
        game._phase, game._next = Phase(phase), Phase(after)
        game._captain = d["captain"]
        game._lovers = None if d["lovers"] is None else (d["lovers"][0], d["lovers"][1])
        game._life_potion, game._death_potion = d["potions"]
        game._seen = [Seen.from_dict(x) for x in d["seen"]]
        game._nights = [NightRecord.from_dict(x) for x in d["nights"]]
        game._votes = {voter: target for voter, target in d["votes"]}
        game._picks = {wolf: target for wolf, target in d["picks"]}
        game._victim, game._settled, game._looked, game._brewed, game._healed = d["tonight"]
        game._poisoned = d["poisoned"]
        game._shooter, game._successor_of = d["pending"]
        winner, reason = d["end"]
        game._winner = None if winner is None else Winner(winner)
        game._win_reason = None if reason is None else EndReason(reason)
        game._history = [Event.from_dict(e) for e in d["history"]]
        game._actions = _copied(d["actions"])
        return game

    # ------------------------------------------------------------------ read-only state

    @property
    def players(self) -> tuple[Player, ...]:
        """The players in seat order."""
        return self._players

    def player(self, player_id: int) -> Player:
        for player in self._players:
            if player.id == player_id:
                return player
        raise UnknownPlayer(player=param(player_id))

    def is_player(self, player_id: object) -> bool:
        return is_id(player_id) and player_id in self._roles

    @property
    def options(self) -> Options:
        return self._options

    @property
    def roles(self) -> dict[int, Role]:
        """Every role (secret: a death reveals one if ``reveal_roles``, the end all)."""
        return dict(self._roles)

    def holder(self, role: Role) -> int | None:
        """Who holds a special role (alive or dead), None if the game has none."""
        return next((pid for pid, r in self._roles.items() if r is role), None)

    @property
    def wolves(self) -> tuple[int, ...]:
        """Every wolf, seat order (secret)."""
        return tuple(p.id for p in self._players if self._roles[p.id] is Role.WEREWOLF)

    @property
    def living_wolves(self) -> tuple[int, ...]:
        return tuple(pid for pid in self._alive if self._roles[pid] is Role.WEREWOLF)

    @property
    def alive(self) -> tuple[int, ...]:
        """The living players, seat order."""
        return tuple(self._alive)

    def is_alive(self, player_id: object) -> bool:
        return is_id(player_id) and player_id in self._alive

    @property
    def deaths(self) -> tuple[Death, ...]:
        """Every death in order, as announced (a role only if ``reveal_roles``)."""
        return tuple(self._deaths)

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def night(self) -> int:
        """The current night (or the last one), 0 before the first."""
        return self._night

    @property
    def day(self) -> int:
        return self._day

    @property
    def captain(self) -> int | None:
        return self._captain

    @property
    def lovers(self) -> tuple[int, int] | None:
        """The lovers Cupid linked (secret until the end or a grief)."""
        return self._lovers

    def lover_of(self, player: int) -> int | None:
        if self._lovers is None or player not in self._lovers:
            return None
        first, second = self._lovers
        return second if player == first else first

    @property
    def life_potion(self) -> bool:
        return self._life_potion

    @property
    def death_potion(self) -> bool:
        return self._death_potion

    @property
    def seen(self) -> tuple[Seen, ...]:
        """What the seer saw, night by night (secret)."""
        return tuple(self._seen)

    @property
    def picks(self) -> dict[int, int]:
        """Tonight's picks, wolf -> target, in the order they were last made (the wolves')."""
        return dict(self._picks)

    @property
    def victim(self) -> int | None:
        """Tonight's settled victim (the wolves', and the witch's once it is settled)."""
        return self._victim

    @property
    def victim_settled(self) -> bool:
        return self._settled

    @property
    def votes(self) -> dict[int, int | None]:
        """The election's or the day's votes, voter -> name (None: no elimination); public."""
        return dict(self._votes)

    @property
    def shooter(self) -> int | None:
        """The dead hunter whose shot the game waits for (phase HUNTER)."""
        return self._shooter

    @property
    def successor_of(self) -> int | None:
        """The dead captain whose successor the game waits for (phase SUCCESSION)."""
        return self._successor_of

    @property
    def nights(self) -> tuple[NightRecord, ...]:
        """Every finished night, for the end's night log (secret until then)."""
        return tuple(self._nights)

    @property
    def days(self) -> tuple[DayEnded, ...]:
        """Every finished day's count and result, in order (public)."""
        return tuple(e for e in self._history if isinstance(e, DayEnded))

    @property
    def winner(self) -> Winner | None:
        return self._winner

    @property
    def win_reason(self) -> EndReason | None:
        return self._win_reason

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The replayable log: one JSON-compatible dict per successful action."""
        return _copied(self._actions)

    @property
    def history(self) -> tuple[Event, ...]:
        """The game's public record, in order: every public event but the single votes (each
        day's count is in its ``day_ended``; the live count is :meth:`vote_count`)."""
        return tuple(self._history)

    def winners(self) -> tuple[int, ...]:
        """Who wins, seat order: the winning side's players but a mixed couple's, who win only
        as the lovers; nobody before the end or when nobody wins."""
        couple = set(self._lovers) if self._lovers and self._mixed_couple() else set()
        side = {Winner.VILLAGE: Side.VILLAGE, Winner.WOLVES: Side.WOLVES}.get(
            self._winner or Winner.NOBODY
        )
        if self._winner is Winner.LOVERS:
            return tuple(p.id for p in self._players if p.id in couple)
        return tuple(
            p.id
            for p in self._players
            if side is not None and self._roles[p.id].side is side and p.id not in couple
        )

    def vote_count(self) -> tuple[Tally, ...]:
        """The count of the election or the day: each name (None: no elimination) with its
        voters in the order they voted and its votes (the captain's twice), most votes first;
        between equals, the name that reached its votes first."""
        order = list(self._votes)
        lines: dict[int | None, list[int]] = {}
        for voter in order:
            lines.setdefault(self._votes[voter], []).append(voter)
        tallies = [
            Tally(target=target, voters=tuple(voters), votes=sum(map(self._weight, voters)))
            for target, voters in lines.items()
        ]
        return tuple(sorted(tallies, key=lambda t: (-t.votes, order.index(t.voters[-1]))))

    def night_done(self) -> bool:
        """Every night role has acted: the victim settled, the seer looked, the witch chose
        (if she has anything to choose), Cupid linked (night 1); dead roles owe nothing."""
        if self._phase is not Phase.NIGHT or not self._settled:
            return False
        return all(not self._owes_tonight(pid) for pid in self._alive)

    def owing(self) -> tuple[int, ...]:
        """The living players who owe an action or a vote now, seat order (private: each
        one's reminder); in a last act, the dead hunter or captain it waits for."""
        if self._phase is Phase.HUNTER and self._shooter is not None:
            return (self._shooter,)
        if self._phase is Phase.SUCCESSION and self._successor_of is not None:
            return (self._successor_of,)
        if self._phase in (Phase.ELECTION, Phase.DAY):
            return tuple(pid for pid in self._alive if pid not in self._votes)
        if self._phase is Phase.NIGHT:
            return tuple(pid for pid in self._alive if self._owes_tonight(pid))
        return ()

    def _owes_tonight(self, player: int) -> bool:
        role = self._roles[player]
        if role is Role.WEREWOLF:
            return not self._settled and player not in self._picks
        if role is Role.SEER:
            return not self._looked
        if role is Role.WITCH:
            return self._settled and not self._brewed and self._witch_has_a_choice()
        if role is Role.CUPID:
            return self._night == 1 and self._lovers is None
        return False

    def _witch_has_a_choice(self) -> bool:
        return self._death_potion or (self._life_potion and self._victim is not None)

    # ------------------------------------------------------------------ views

    def public_view(self) -> PublicView:
        voting = self._phase in (Phase.ELECTION, Phase.DAY)
        return PublicView(
            players=self._players,
            alive=self.alive,
            deaths=self.deaths,
            phase=self._phase,
            night=self._night,
            day=self._day,
            captain=self._captain,
            votes=self.vote_count() if voting else (),
            not_voted=self.owing() if voting else (),
            hunter=self._shooter,
            successor_of=self._successor_of,
            wolves=len(self.wolves),
            specials=self._options.specials(),
            winner=self._winner,
            win_reason=self._win_reason,
            roles=self.roles if self.is_over else {},
        )

    def private_view(self, player: int) -> PrivateView:
        dealt = self.role_dealt_event(player)
        wolf = dealt.role is Role.WEREWOLF
        knows_victim = wolf or (dealt.role is Role.WITCH and self._settled)
        return PrivateView(
            player=player,
            role=dealt.role,
            alive=self.is_alive(player),
            wolves=dealt.wolves,
            lover=dealt.lover,
            seen=dealt.seen,
            life_potion=dealt.life_potion,
            death_potion=dealt.death_potion,
            picks=self.picks if wolf else {},
            victim=self._victim if knows_victim else None,
            victim_settled=self._settled if knows_victim else False,
            vote=self._votes.get(player),
            owes=player in self.owing(),
        )

    # ------------------------------------------------------------------ the votes

    def verify_elect(self, voter: int, candidate: int) -> None:
        self._verify_actor(voter, Phase.ELECTION)
        self._verify_target(candidate)

    def can_elect(self, voter: int, candidate: int) -> bool:
        return can(self.verify_elect, voter, candidate)

    def elect(self, voter: int, candidate: int) -> list[Event]:
        """A living player votes for a captain (cast or changed); with ``early_close`` the
        election ends when every living player has voted."""
        self.verify_elect(voter, candidate)
        events: list[Event] = [self._cast(voter, candidate)]
        self._log({"action": "elect", "voter": voter, "candidate": candidate})
        if self._options.early_close and len(self._votes) == len(self._alive):
            events += self._close_election()
        return events

    def verify_vote(self, voter: int, target: int | None) -> None:
        self._verify_actor(voter, Phase.DAY)
        if target is not None:
            self._verify_target(target)

    def can_vote(self, voter: int, target: int | None) -> bool:
        return can(self.verify_vote, voter, target)

    def vote(self, voter: int, target: int | None) -> list[Event]:
        """A living player votes for a name or for no elimination (None), cast or changed;
        with ``majority_ends_day``, a majority on one name ends the day at once."""
        self.verify_vote(voter, target)
        events: list[Event] = [self._cast(voter, target)]
        self._log({"action": "vote", "voter": voter, "target": target})
        if self._options.majority_ends_day and target is not None and self._majority(target):
            events += self._close_day(majority=True)
        return events

    def _cast(self, voter: int, target: int | None) -> VoteCast:
        had = voter in self._votes
        previous = self._votes.pop(voter, None)
        self._votes[voter] = target
        cast = VoteCast(
            voter=voter,
            target=target,
            previous=previous,
            changed=had and previous != target,
            votes=self.vote_count(),
        )
        return cast

    def _weight(self, voter: int) -> int:
        return 2 if voter == self._captain else 1

    def _majority(self, target: int) -> bool:
        """More than half the votes the living could cast (the captain's twice) on ``target``."""
        possible = len(self._alive) + (1 if self._captain in self._alive else 0)
        weight = sum(self._weight(v) for v, t in self._votes.items() if t == target)
        return 2 * weight > possible

    def _close_election(self) -> list[Event]:
        count = self.vote_count()
        self._captain = count[0].target if count else None
        self._votes.clear()
        elected = CaptainElected(captain=self._captain, votes=count)
        self._record(elected)
        return [elected, *self._start_night()]

    def _close_day(self, *, majority: bool) -> list[Event]:
        count = self.vote_count()
        top = [t for t in count if t.votes == count[0].votes] if count else []
        eliminated = top[0].target if len(top) == 1 else None
        self._votes.clear()
        deaths = self._die([(eliminated, Cause.ELIMINATED)] if eliminated is not None else [])
        ended = DayEnded(
            day=self._day, votes=count, eliminated=eliminated, majority=majority, deaths=deaths
        )
        self._record(ended)
        self._next = Phase.NIGHT
        return [ended, *self._advance()]

    # ------------------------------------------------------------------ the wolves

    def verify_pick(self, wolf: int, target: int) -> None:
        self._verify_actor(wolf, Phase.NIGHT)
        if self._roles[wolf] is not Role.WEREWOLF:
            raise NotAWolf()
        if self._settled:
            raise VictimSettled()
        self._verify_target(target)
        if self._roles[target] is Role.WEREWOLF:
            raise TargetIsWolf(name=self.player(target).name, player=target)

    def can_pick(self, wolf: int, target: int) -> bool:
        return can(self.verify_pick, wolf, target)

    def pick(self, wolf: int, target: int) -> list[Event]:
        """A living wolf picks tonight's victim (new or changed), shown to the wolves; the
        victim is settled as soon as every living wolf picks the same player."""
        self.verify_pick(wolf, target)
        self._picks.pop(wolf, None)
        self._picks[wolf] = target
        self._log({"action": "pick", "wolf": wolf, "target": target})
        events = self._to_wolves(
            lambda den, to: WolfPicked(
                den=den, wolf=wolf, target=target, picks=dict(self._picks), private_to=to
            )
        )
        wolves = self.living_wolves
        if all(self._picks.get(w) == target for w in wolves):
            events += self._settle(target, agreed=True)
        return events

    def verify_close_wolves(self) -> None:
        self._verify_not_over()
        self._verify_phase(Phase.NIGHT)
        if self._settled:
            raise VictimSettled()

    def can_close_wolves(self) -> bool:
        return can(self.verify_close_wolves)

    def close_wolves(self) -> list[Event]:
        """The wolves' deadline: the most-picked player is the victim; a tie, or no pick, and
        there is none."""
        self.verify_close_wolves()
        self._log({"action": "close_wolves"})
        return self._settle_by_count()

    def _settle_by_count(self, *, last: bool = False) -> list[Event]:
        counts: dict[int, int] = {}
        for target in self._picks.values():
            counts[target] = counts.get(target, 0) + 1
        most = max(counts.values(), default=0)
        top = [target for target, n in counts.items() if n == most]
        return self._settle(top[0] if most and len(top) == 1 else None, agreed=False, last=last)

    def _settle(self, victim: int | None, *, agreed: bool, last: bool = False) -> list[Event]:
        """The victim settled: told to the wolves, then the witch's turn (with time left: not
        at the night's ``last`` moment)."""
        self._victim, self._settled = victim, True
        events = self._to_wolves(
            lambda den, to: VictimChosen(den=den, victim=victim, agreed=agreed, private_to=to)
        )
        witch = self.holder(Role.WITCH)
        if not last and witch is not None and self.is_alive(witch) and self._witch_has_a_choice():
            events.append(
                WitchTurn(
                    player=witch,
                    victim=victim,
                    life_potion=self._life_potion,
                    death_potion=self._death_potion,
                    targets=tuple(pid for pid in self._alive if pid != witch),
                    private_to=witch,
                )
            )
        return events + self._dawn_if_done()

    def _to_wolves(self, make: Callable[[tuple[int, ...], int], Event]) -> list[Event]:
        den = self.living_wolves
        return [make(den, wolf) for wolf in den]

    # ------------------------------------------------------------------ the night roles

    def verify_look(self, seer: int, target: int) -> None:
        self._verify_actor(seer, Phase.NIGHT)
        if self._roles[seer] is not Role.SEER:
            raise NotTheSeer()
        if self._looked:
            raise AlreadyActed()
        self._verify_other(seer, target)

    def can_look(self, seer: int, target: int) -> bool:
        return can(self.verify_look, seer, target)

    def look(self, seer: int, target: int) -> list[Event]:
        """The seer learns one living player's role, privately."""
        self.verify_look(seer, target)
        seen = Seen(night=self._night, target=target, role=self._roles[target])
        self._seen.append(seen)
        self._looked = True
        self._log({"action": "look", "seer": seer, "target": target})
        saw = SeerSaw(player=seer, target=target, role=seen.role, private_to=seer)
        return [saw, *self._dawn_if_done()]

    def verify_brew(self, witch: int, heal: bool, poison: int | None) -> None:
        self._verify_actor(witch, Phase.NIGHT)
        if self._roles[witch] is not Role.WITCH:
            raise NotTheWitch()
        if not self._settled:
            raise VictimNotSettled()
        if self._brewed:
            raise AlreadyActed()
        if heal and not self._life_potion:
            raise NoLifePotion()
        if heal and self._victim is None:
            raise NoVictim()
        if poison is not None:
            if not self._death_potion:
                raise NoDeathPotion()
            self._verify_other(witch, poison)

    def can_brew(self, witch: int, heal: bool, poison: int | None) -> bool:
        return can(self.verify_brew, witch, heal, poison)

    def brew(self, witch: int, heal: bool, poison: int | None) -> list[Event]:
        """The witch's one choice of the night, once the victim is settled: the life potion on
        the victim (``heal``), the death potion on a living player (``poison``), both, or
        neither. Each potion serves once a game."""
        self.verify_brew(witch, bool(heal), poison)
        self._brewed = True
        if heal:
            self._life_potion, self._healed = False, True
        if poison is not None:
            self._death_potion, self._poisoned = False, poison
        self._log({"action": "brew", "witch": witch, "heal": bool(heal), "poison": poison})
        chose = WitchChose(
            player=witch,
            healed=self._victim if heal else None,
            poisoned=poison,
            private_to=witch,
        )
        return [chose, *self._dawn_if_done()]

    def verify_link(self, cupid: int, first: int, second: int) -> None:
        self._verify_actor(cupid, Phase.NIGHT)
        if self._roles[cupid] is not Role.CUPID:
            raise NotCupid()
        if self._night != 1:
            raise FirstNightOnly()
        if self._lovers is not None:
            raise AlreadyActed()
        self._verify_target(first)
        self._verify_target(second)
        if first == second:
            raise SameLover()

    def can_link(self, cupid: int, first: int, second: int) -> bool:
        return can(self.verify_link, cupid, first, second)

    def link(self, cupid: int, first: int, second: int) -> list[Event]:
        """Cupid, on the first night, makes two players lovers (himself included if he
        likes); each learns who the other is, not the other's role."""
        self.verify_link(cupid, first, second)
        self._lovers = (first, second)
        self._log({"action": "link", "cupid": cupid, "first": first, "second": second})
        return [
            CupidLinked(player=cupid, lovers=(first, second), private_to=cupid),
            InLove(player=first, lover=second, private_to=first),
            InLove(player=second, lover=first, private_to=second),
            *self._dawn_if_done(),
        ]

    def _dawn_if_done(self) -> list[Event]:
        if self._options.early_close and self.night_done():
            return self._dawn()
        return []

    def _dawn(self) -> list[Event]:
        """The night's dead together (the victim unless healed, the poisoned), their lovers'
        grief; the night goes to the night log."""
        killed = [self._victim] if self._victim is not None and not self._healed else []
        if self._poisoned is not None and self._poisoned not in killed:
            killed.append(self._poisoned)
        self._nights.append(
            NightRecord(
                night=self._night,
                picks=dict(self._picks),
                victim=self._victim,
                healed=self._healed,
                poisoned=self._poisoned,
                seen=self._seen[-1] if self._looked else None,
                lovers=self._lovers if self._lovers and self._night == 1 else (),
            )
        )
        self._reset_night()
        deaths = self._die([(pid, Cause.NIGHT) for pid in killed])
        dawn = Dawn(night=self._night, deaths=deaths)
        self._record(dawn)
        self._next = Phase.DAY
        return [dawn, *self._advance()]

    # ------------------------------------------------------------------ the last acts

    def verify_shoot(self, hunter: int, target: int) -> None:
        self._verify_not_over()
        self._verify_is_player(hunter)
        self._verify_phase(Phase.HUNTER)
        if hunter != self._shooter:
            raise NotTheHunter()
        self._verify_target(target)

    def can_shoot(self, hunter: int, target: int) -> bool:
        return can(self.verify_shoot, hunter, target)

    def shoot(self, hunter: int, target: int) -> list[Event]:
        """The dead hunter takes a living player with him."""
        self.verify_shoot(hunter, target)
        self._shooter = None
        deaths = self._die([(target, Cause.SHOT)])
        shot = HunterShot(hunter=hunter, target=target, deaths=deaths)
        self._record(shot)
        self._log({"action": "shoot", "hunter": hunter, "target": target})
        return [shot, *self._advance()]

    def verify_name_successor(self, captain: int, successor: int) -> None:
        self._verify_not_over()
        self._verify_is_player(captain)
        self._verify_phase(Phase.SUCCESSION)
        if captain != self._successor_of:
            raise NotTheCaptain()
        self._verify_target(successor)

    def can_name_successor(self, captain: int, successor: int) -> bool:
        return can(self.verify_name_successor, captain, successor)

    def name_successor(self, captain: int, successor: int) -> list[Event]:
        """The dead captain names a living player captain."""
        self.verify_name_successor(captain, successor)
        self._successor_of, self._captain = None, successor
        named = CaptainNamed(previous=captain, captain=successor)
        self._record(named)
        self._log({"action": "name_successor", "captain": captain, "successor": successor})
        return [named, *self._advance()]

    # ------------------------------------------------------------------ deadlines

    def verify_resolve(self) -> None:
        self._verify_not_over()

    def can_resolve(self) -> bool:
        return can(self.verify_resolve)

    def resolve(self) -> list[Event]:
        """The deadline of what is open: the election's or the day's count; the night's end
        (the wolves' victim settled first if it is not); a hunter who did not shoot, a captain
        who named no one (no captain then)."""
        self.verify_resolve()
        self._log({"action": "resolve"})
        if self._phase is Phase.ELECTION:
            return self._close_election()
        if self._phase is Phase.DAY:
            return self._close_day(majority=False)
        if self._phase is Phase.NIGHT:
            return self._end_night()
        missed: Event
        if self._phase is Phase.HUNTER:
            assert self._shooter is not None
            missed = HunterShot(hunter=self._shooter, target=None, deaths=())
            self._shooter = None
        else:
            assert self._successor_of is not None
            missed = CaptainNamed(previous=self._successor_of, captain=None)
            self._successor_of = None
        self._record(missed)
        return [missed, *self._advance()]

    def _end_night(self) -> list[Event]:
        night = self._night
        events = [] if self._settled else self._settle_by_count(last=True)
        if self._phase is Phase.NIGHT and self._night == night:
            events += self._dawn()
        return events

    # ------------------------------------------------------------------ moderation

    def verify_substitute(self, old: int, new: Player) -> None:
        self._verify_not_over()
        if not self.is_player(old):
            raise UnknownPlayer(player=param(old))
        if not isinstance(new, Player) or not is_id(new.id):
            raise InvalidAction(action="substitute")
        if self.is_player(new.id):
            raise AlreadyAPlayer(name=new.name, player=new.id)

    def can_substitute(self, old: int, new: Player) -> bool:
        return can(self.verify_substitute, old, new)

    def substitute(self, old: int, new: Player) -> list[Event]:
        """``new`` takes ``old``'s seat with everything it holds and knows: the role, life or
        death, the fellow wolves, the seer's results, the potions, the lover, the captaincy,
        tonight's pick and today's vote. The past (deaths, night log) keeps ``old``."""
        self.verify_substitute(old, new)

        def swap(pid: int) -> int:
            return new.id if pid == old else pid

        self._players = tuple(new if p.id == old else p for p in self._players)
        self._roles = {swap(pid): role for pid, role in self._roles.items()}
        self._alive = [swap(pid) for pid in self._alive]
        self._seen = [Seen(s.night, swap(s.target), s.role) for s in self._seen]
        if self._lovers is not None:
            self._lovers = (swap(self._lovers[0]), swap(self._lovers[1]))
        self._picks = {swap(w): swap(t) for w, t in self._picks.items()}
        self._votes = {swap(v): None if t is None else swap(t) for v, t in self._votes.items()}
        self._victim = None if self._victim is None else swap(self._victim)
        self._poisoned = None if self._poisoned is None else swap(self._poisoned)
        self._captain = None if self._captain is None else swap(self._captain)
        self._shooter = None if self._shooter is None else swap(self._shooter)
        self._successor_of = None if self._successor_of is None else swap(self._successor_of)
        announced = PlayerSubstituted(old=old, new=new.id, name=new.name)
        self._record(announced)
        self._log({"action": "substitute", "old": old, "new": new.to_dict()})
        return [announced, self.role_dealt_event(new.id)]

    def verify_cancel(self) -> None:
        self._verify_not_over()

    def can_cancel(self) -> bool:
        return can(self.verify_cancel)

    def cancel(self) -> list[Event]:
        """End the game with no winner; every role and the night log are revealed."""
        self.verify_cancel()
        self._end(None, EndReason.CANCELLED)
        event = GameCancelled(roles=self.roles, nights=self.nights)
        self._record(event)
        self._log({"action": "cancel"})
        return [event]

    # ------------------------------------------------------------------ comparison

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain values (for comparing two games; saved: :meth:`to_dict`)."""
        return {
            "setup": self._setup,
            "players": [p.to_dict() for p in self._players],
            "roles": dict(self._roles),
            "alive": list(self._alive),
            "deaths": list(self._deaths),
            "phase": self._phase,
            "clock": (self._night, self._day, self._next),
            "captain": self._captain,
            "lovers": self._lovers,
            "potions": (self._life_potion, self._death_potion),
            "seen": list(self._seen),
            "nights": list(self._nights),
            "votes": list(self._votes.items()),
            "tonight": (list(self._picks.items()), self._victim, self._settled, self._looked),
            "witch": (self._brewed, self._healed, self._poisoned),
            "pending": (self._shooter, self._successor_of),
            "end": (self._winner, self._win_reason),
            "history": [e.to_dict() for e in self._history],
            "actions": self._actions,
        }

    def compared(self) -> dict[str, Any]:
        """Two games are equal when their states are (:meth:`snapshot`)."""
        return self.snapshot()

    def __repr__(self) -> str:
        return (
            f"<Werewolf {len(self._players)} players, {len(self._alive)} alive, "
            f"phase={self._phase.value}, night={self._night}, day={self._day}>"
        )

    # ------------------------------------------------------------------ internals

    def _verify_not_over(self) -> None:
        if self._phase is Phase.OVER:
            raise GameIsOver()

    def _verify_is_player(self, player: object) -> None:
        if not self.is_player(player):
            raise NotAPlayer(player=param(player))

    def _verify_phase(self, expected: Phase) -> None:
        if self._phase is not expected:
            raise WrongPhase(phase=self._phase.value, expected=expected.value)

    def _verify_actor(self, player: int, phase: Phase) -> None:
        """A living player of this game, acting in ``phase``."""
        self._verify_not_over()
        self._verify_is_player(player)
        if player not in self._alive:
            raise PlayerIsDead(name=self.player(player).name, player=player)
        self._verify_phase(phase)

    def _verify_target(self, target: int) -> None:
        if not self.is_player(target):
            raise UnknownPlayer(player=param(target))
        if target not in self._alive:
            raise TargetIsDead(name=self.player(target).name, player=target)

    def _verify_other(self, actor: int, target: int) -> None:
        self._verify_target(target)
        if target == actor:
            raise TargetIsSelf()

    def _record(self, event: Event) -> None:
        """Keep a public event in the history (events are frozen)."""
        self._history.append(event)

    def _log(self, action: dict[str, Any]) -> None:
        self._actions.append(action)

    def _reset_night(self) -> None:
        self._picks = {}
        self._victim = self._poisoned = None
        self._settled = self._looked = self._brewed = self._healed = False

    def _open_night(self) -> NightFell:
        self._night += 1
        self._phase = Phase.NIGHT
        self._reset_night()
        fell = NightFell(night=self._night)
        self._record(fell)
        return fell

    def _start_night(self) -> list[Event]:
        return [self._open_night(), *self._night_turns()]

    def _night_turns(self) -> list[Event]:
        """The night's private openings: the den, the seer's turn, Cupid's (night 1)."""
        others = [pid for pid in self._alive if self._roles[pid] is not Role.WEREWOLF]
        night = self._night
        events = self._to_wolves(
            lambda den, to: DenOpened(den=den, night=night, targets=tuple(others), private_to=to)
        )
        for role, event in ((Role.SEER, SeerTurn), (Role.CUPID, CupidTurn)):
            pid = self.holder(role)
            if pid is None or pid not in self._alive or (role is Role.CUPID and night != 1):
                continue
            targets = tuple(p for p in self._alive if role is Role.CUPID or p != pid)
            events.append(event(player=pid, targets=targets, private_to=pid))
        return events

    def _start_day(self) -> list[Event]:
        self._day += 1
        self._phase = Phase.DAY
        self._votes.clear()
        began = DayBegan(day=self._day, alive=self.alive)
        self._record(began)
        return [began]

    def _die(self, killed: Sequence[tuple[int, Cause]]) -> tuple[Death, ...]:
        """Kill these living players, then a lover's grief; a dead hunter owes his shot, a dead
        captain a successor."""
        queue, deaths = list(killed), []
        while queue:
            pid, cause = queue.pop(0)
            if pid not in self._alive:
                continue
            self._alive.remove(pid)
            role = self._roles[pid]
            deaths.append(Death(player=pid, cause=cause, role=role if self._reveal() else None))
            lover = self.lover_of(pid)
            if lover is not None and lover in self._alive:
                queue.append((lover, Cause.GRIEF))
            if role is Role.HUNTER:
                self._shooter = pid
            if pid == self._captain:
                self._captain, self._successor_of = None, pid
        self._deaths.extend(deaths)
        return tuple(deaths)

    def _reveal(self) -> bool:
        return self._options.reveal_roles

    def _advance(self) -> list[Event]:
        """After deaths: the hunter's shot, then the end if the game is decided, then the
        captain's successor, then the next day or night."""
        if self._shooter is not None and self._alive:
            self._phase = Phase.HUNTER
            turn = HunterTurn(hunter=self._shooter, targets=self.alive)
            self._record(turn)
            return [turn]
        self._shooter = None
        end = self._check_end()
        if end is not None:
            return [end]
        if self._successor_of is not None:
            self._phase = Phase.SUCCESSION
            opened = SuccessionOpened(captain=self._successor_of, candidates=self.alive)
            self._record(opened)
            return [opened]
        return self._start_day() if self._next is Phase.DAY else self._start_night()

    def _mixed_couple(self) -> bool:
        if self._lovers is None:
            return False
        first, second = self._lovers
        return self._roles[first].side is not self._roles[second].side

    def decided(self) -> tuple[Winner, EndReason] | None:
        """Who has won with the living as they are, or None: nobody alive, nobody wins; the
        lovers of a wolf–villager couple, when they are the last two; the village, when no
        wolf is alive; the wolves, when they are at least as many as the others."""
        alive = set(self._alive)
        wolves = len(self.living_wolves)
        if not alive:
            return Winner.NOBODY, EndReason.ALL_DEAD
        if self._mixed_couple() and self._lovers is not None and alive == set(self._lovers):
            return Winner.LOVERS, EndReason.LOVERS_LAST
        if wolves == 0:
            return Winner.VILLAGE, EndReason.NO_WOLVES
        if wolves >= len(alive) - wolves:
            return Winner.WOLVES, EndReason.WOLVES_PARITY
        return None

    def _check_end(self) -> GameOver | None:
        found = self.decided()
        if found is None:
            return None
        self._end(*found)
        over = GameOver(
            winner=found[0],
            reason=found[1],
            winners=self.winners(),
            roles=self.roles,
            lovers=self._lovers or (),
            nights=self.nights,
        )
        self._record(over)
        return over

    def _end(self, winner: Winner | None, reason: EndReason) -> None:
        self._phase = Phase.OVER
        self._winner, self._win_reason = winner, reason
        self._votes.clear()
        self._shooter = self._successor_of = None


# ---------------------------------------------------------------------- action records

#: Each action's record: its name -> the id fields it takes, in the method's order.
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "elect": ("voter", "candidate"),
    "vote": ("voter", "target"),
    "pick": ("wolf", "target"),
    "close_wolves": (),
    "look": ("seer", "target"),
    "brew": ("witch", "heal", "poison"),
    "link": ("cupid", "first", "second"),
    "shoot": ("hunter", "target"),
    "name_successor": ("captain", "successor"),
    "resolve": (),
    "substitute": ("old", "new"),
    "cancel": (),
}

ACTION_NAMES: tuple[str, ...] = tuple(ACTION_FIELDS)

#: The fields that may be None (no elimination, no poison) or are not ids.
_OPTIONAL_IDS = frozenset({("vote", "target"), ("brew", "poison")})


def _field(name: str, key: str, action: Mapping[str, Any]) -> Any:
    value: object = action.get(key)
    if name == "brew" and key == "heal":
        if not isinstance(value, bool):
            raise InvalidAction(action=name)
        return value
    if name == "substitute" and key == "new":
        if not isinstance(value, Mapping) or not is_id(value.get("id")):
            raise InvalidAction(action=name)
        if not isinstance(value.get("name"), str):
            raise InvalidAction(action=name)
        return Player.from_dict(value)
    if value is None and (name, key) in _OPTIONAL_IDS:
        return None
    if not is_id(value):
        raise InvalidAction(action=name)
    return value


def _bind(action: Mapping[str, Any]) -> Bound:
    """The method name of an action record and its arguments."""
    if not isinstance(action, Mapping):
        raise InvalidAction(action=str(action))
    name = action.get("action")
    if not isinstance(name, str) or name not in ACTION_FIELDS:
        raise InvalidAction(action=str(name))
    return name, tuple(_field(name, key, action) for key in ACTION_FIELDS[name])


_RECORDS: ActionRecords[Werewolf, Event] = ActionRecords(_bind)

#: Raise the GameError that applying an action record (as logged in :attr:`Werewolf.actions`)
#: would raise; nothing if it is allowed.
verify_action = _RECORDS.verify
can_apply = _RECORDS.can
#: Apply one action record: its events.
apply_action = _RECORDS.apply
