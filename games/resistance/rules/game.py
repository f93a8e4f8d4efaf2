"""The Resistance, forum (play-by-post) adaptation: the game state and its actions.

Every action comes in three forms, after pokerkit: ``verify_X`` raises a :class:`GameError`
explaining why the action is not allowed, ``can_X`` says whether it is, and ``X`` verifies,
changes the state and returns the resulting :class:`Event` list. A refused action leaves the
state exactly as it was.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rulebase import can, json_copy
from rulebase.engine import ActionRecords, Bound, ComparedByState, is_id, param, seated_twice

from . import avalon
from .errors import (
    AlreadyAPlayer,
    BadAssassinationTarget,
    BadPlayerCount,
    DuplicatePlayer,
    GameIsOver,
    InvalidAction,
    InvalidChoice,
    InvalidVote,
    LadyIneligible,
    NotAPlayer,
    NotAssassin,
    NotLadyHolder,
    NotLeader,
    NotOnTeam,
    NoVoteToResolve,
    UnknownPlayer,
    WrongPhase,
    WrongTeamSize,
)
from .events import (
    Assassination,
    AssassinationStarted,
    AssassinTurn,
    GameCancelled,
    GameOver,
    GameStarted,
    LadyExamined,
    LadyPassed,
    LadyResult,
    LadyTurn,
    LeaderChanged,
    LeaderSkipped,
    MissionChoiceMade,
    MissionResult,
    PlayerSubstituted,
    RoleDealt,
    SabotageRecordedAsSupport,
    TeamProposed,
    TeamVoteResult,
    VoteCast,
)
from .events import ResistanceEvent as Event
from .model import (
    Character,
    EndReason,
    MissingVote,
    MissionChoice,
    Options,
    Phase,
    Player,
    Role,
    TeamVote,
    Winner,
)
from .tables import (
    MAX_PLAYERS,
    MAX_REJECTIONS,
    MIN_PLAYERS,
    MISSIONS_TO_WIN,
    SPY_COUNT,
    TEAM_SIZES,
    TeamTable,
    sabotages_needed,
)
from .views import PrivateView, PublicView

STATE_VERSION = 1


def name_sort_key(player: Player) -> tuple[str, int]:
    """Alphabetical order of the forum: display name, case-insensitive, then id."""
    return (player.name.casefold(), player.id)


def _as_team_vote(value: object) -> TeamVote:
    if isinstance(value, TeamVote):
        return value
    if isinstance(value, str):
        try:
            return TeamVote(value)
        except ValueError:
            pass
    raise InvalidVote(value=str(value))


def _as_choice(value: object) -> MissionChoice:
    if isinstance(value, MissionChoice):
        return value
    if isinstance(value, str):
        try:
            return MissionChoice(value)
        except ValueError:
            pass
    raise InvalidChoice(value=str(value))


def _verify_players(players: Sequence[Player]) -> None:
    twice = seated_twice(players)
    if twice is not None:
        raise DuplicatePlayer(name=twice.name, player=twice.id)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise BadPlayerCount(min=MIN_PLAYERS, max=MAX_PLAYERS, count=len(players))


def _verify_deal(
    players: Sequence[Player],
    roles: Mapping[int, Role | str],
    leader_order: Sequence[int],
    options: Options,
    characters: Mapping[int, Character | str] | None,
) -> tuple[dict[int, Role], dict[int, Character]]:
    """A known deal checked (the players, the spy count, the leader order, Avalon's roles on
    their players' sides): each player's side and, in Avalon, character. Raises ``GameError``
    for what a player could ask, ``ValueError`` for a deal no caller should build."""
    _verify_players(players)
    avalon.verify_options(options, len(players))
    ids = [p.id for p in players]
    if set(roles) != set(ids):
        raise ValueError("roles must name exactly the players")
    role_of = {pid: Role(roles[pid]) for pid in ids}
    spy_count = sum(1 for role in role_of.values() if role is Role.SPY)
    if spy_count != SPY_COUNT[len(ids)]:
        raise ValueError(f"{len(ids)} players need {SPY_COUNT[len(ids)]} spies, not {spy_count}")
    if sorted(leader_order) != sorted(ids):
        raise ValueError("the leader order must hold every player exactly once")
    character_of: dict[int, Character] = {}
    if options.is_avalon:
        if characters is None or set(characters) != set(ids):
            raise ValueError("an Avalon game needs a role for exactly the players")
        character_of = {pid: Character(characters[pid]) for pid in ids}
        if any(character_of[pid].side is not role_of[pid] for pid in ids):
            raise ValueError("each Avalon role must be on its player's side")
        avalon.verify_deal(character_of, options)
    elif characters:
        raise ValueError("a classic game has no Avalon roles")
    return role_of, character_of


class Resistance(ComparedByState):
    """One game of The Resistance. Create it with :meth:`setup` (random deal) or directly with a
    known deal; restore it with :meth:`from_dict` or :meth:`replay`."""

    def __init__(
        self,
        players: Sequence[Player],
        roles: Mapping[int, Role | str],
        leader_order: Sequence[int],
        options: Options = Options(),
        characters: Mapping[int, Character | str] | None = None,
    ) -> None:
        """A new game, at the first debate, with a given deal (no randomness here).

        An Avalon game (``options.variant``) needs ``characters``, each player's Avalon role,
        on the side ``roles`` gives them; a classic game takes none."""
        players = tuple(players)
        role_of, character_of = _verify_deal(players, roles, leader_order, options, characters)
        self._players: tuple[Player, ...] = players
        self._roles: dict[int, Role] = role_of
        self._leader_order: tuple[int, ...] = tuple(leader_order)
        self._options = options
        self._setup: dict[str, Any] = {
            "players": [p.to_dict() for p in players],
            "roles": {str(pid): role.value for pid, role in role_of.items()},
            "leader_order": list(self._leader_order),
            "options": options.to_dict(),
        }
        if options.is_avalon:
            self._setup["characters"] = {str(pid): c.value for pid, c in character_of.items()}
        self._characters: dict[int, Character] = character_of
        self._lady_holders: list[int] = (
            [self._leader_order[-1]] if options.is_avalon and options.lady_of_the_lake else []
        )
        self._lady_examined: list[tuple[int, int]] = []
        self._leader_index = 0
        self._mission = 1
        self._rejections = 0
        self._results: list[bool] = []
        self._phase = Phase.DEBATE
        self._team: tuple[int, ...] | None = None
        self._proposal_number = 0
        self._votes: dict[int, TeamVote] = {}
        self._choices: dict[int, MissionChoice] = {}
        self._winner: Winner | None = None
        self._win_reason: EndReason | None = None
        self._history: list[Event] = []
        self._actions: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ creation

    @classmethod
    def setup(
        cls, players: Sequence[Player], rng: random.Random, options: Options = Options()
    ) -> tuple[Resistance, list[Event]]:
        """Deal the roles and draw the leader order at random; the game starts at mission 1."""
        players = tuple(players)
        _verify_players(players)
        avalon.verify_options(options, len(players))
        ids = [p.id for p in players]
        spies = set(rng.sample(ids, SPY_COUNT[len(ids)]))
        order = list(ids)
        rng.shuffle(order)
        roles = {pid: Role.SPY if pid in spies else Role.RESISTANCE for pid in ids}
        characters = avalon.deal(ids, spies, options, rng) if options.is_avalon else None
        game = cls(players, roles, order, options, characters)
        return game, game.start_events()

    def start_events(self) -> list[Event]:
        """``game_started`` (public) and one private ``role_dealt`` per player, seat order."""
        avalon = self._options.is_avalon
        events: list[Event] = [
            GameStarted(
                players=tuple(p.id for p in self._players),
                leader_order=self._leader_order,
                variant=self._options.variant if avalon else None,
                lady_holder=self.lady_holder if avalon else None,
            )
        ]
        events.extend(self.role_dealt_event(p.id) for p in self._players)
        return events

    def role_dealt_event(self, player: int) -> RoleDealt:
        """The private role message of one player: their side and whom they know (classic:
        spies learn the other spies; Avalon: their role, and what it sees)."""
        self._verify_is_player(player)
        avalon = self._options.is_avalon
        return RoleDealt(
            player=player,
            role=self._roles[player],
            spies=self._other_spies(player),
            character=self._characters[player] if avalon else None,
            merlin_candidates=self._merlin_candidates(player) if avalon else None,
            private_to=player,
        )

    def setup_record(self) -> dict[str, Any]:
        """What setup drew (players, roles, leader order, options), for :meth:`replay`."""
        setup: dict[str, Any] = json_copy(self._setup)
        return setup

    @classmethod
    def from_setup_record(cls, record: Mapping[str, Any]) -> Resistance:
        """The fresh game that :meth:`setup_record` describes."""
        characters = record.get("characters")
        return cls(
            [Player.from_dict(p) for p in record["players"]],
            {int(pid): Role(role) for pid, role in record["roles"].items()},
            [int(pid) for pid in record["leader_order"]],
            Options.from_dict(record.get("options", {})),
            None
            if characters is None
            else {int(pid): Character(c) for pid, c in characters.items()},
        )

    @classmethod
    def replay(cls, setup: Mapping[str, Any], actions: Iterable[Mapping[str, Any]]) -> Resistance:
        """The state reached by applying ``actions`` (the :attr:`actions` log) from ``setup``."""
        game = cls.from_setup_record(setup)
        for action in actions:
            apply_action(game, action)
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
    def player_count(self) -> int:
        return len(self._players)

    @property
    def roles(self) -> dict[int, Role]:
        return dict(self._roles)

    @property
    def spies(self) -> tuple[int, ...]:
        return tuple(p.id for p in self._players if self._roles[p.id] is Role.SPY)

    @property
    def characters(self) -> dict[int, Character]:
        """Each player's Avalon role (empty in a classic game). Secret until the end."""
        return dict(self._characters)

    def _holding(self, character: Character) -> int | None:
        return next((pid for pid, c in self._characters.items() if c is character), None)

    @property
    def merlin(self) -> int | None:
        return self._holding(Character.MERLIN)

    @property
    def assassin(self) -> int | None:
        return self._holding(Character.ASSASSIN)

    @property
    def assassination_targets(self) -> tuple[int, ...]:
        """Whom the Assassin may name (seat order); empty in a classic game."""
        assassin = self.assassin
        if assassin is None:
            return ()
        return avalon.assassination_targets(self._characters, assassin, self._seats())

    @property
    def lady_holder(self) -> int | None:
        """Who holds the Lady of the Lake (None without the Lady)."""
        return self._lady_holders[-1] if self._lady_holders else None

    @property
    def lady_holders(self) -> tuple[int, ...]:
        """Everyone who has held the Lady, the first holder first."""
        return tuple(self._lady_holders)

    @property
    def lady_eligible(self) -> tuple[int, ...]:
        """Whom the Lady may examine now: the players who never held it, in leader order
        starting after the holder (the order the Lady passes in at the deadline)."""
        holder = self.lady_holder
        if holder is None:
            return ()
        start = self._leader_order.index(holder)
        n = len(self._leader_order)
        after = [self._leader_order[(start + k) % n] for k in range(1, n)]
        return tuple(pid for pid in after if pid not in self._lady_holders)

    @property
    def lady_examinations(self) -> tuple[tuple[int, int], ...]:
        """(holder, examined player) for every use of the Lady, in order. Public: the channel
        learns who examined whom (the result stays private)."""
        return tuple(self._lady_examined)

    @property
    def leader_order(self) -> tuple[int, ...]:
        return self._leader_order

    @property
    def leader(self) -> int:
        return self._leader_order[self._leader_index]

    @property
    def mission(self) -> int:
        """The current mission (1..5); after the end, the last mission played."""
        return self._mission

    @property
    def rejections(self) -> int:
        """Teams rejected (or leaders skipped) for the current mission."""
        return self._rejections

    @property
    def results(self) -> tuple[bool, ...]:
        """One entry per finished mission, True for a success."""
        return tuple(self._results)

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def team(self) -> tuple[int, ...] | None:
        """The proposed team (VOTE phase), else None."""
        return self._team

    @property
    def team_table(self) -> TeamTable:
        """The table of team sizes this game plays (its options': saved with its setup)."""
        return self._options.table

    @property
    def team_sizes(self) -> tuple[int, ...]:
        """The team sizes of missions 1..5 at this game's player count, in its table."""
        return TEAM_SIZES[self.team_table][len(self._players)]

    @property
    def team_size(self) -> int:
        return self.team_sizes[self._mission - 1]

    @property
    def sabotages_needed(self) -> int:
        return sabotages_needed(len(self._players), self._mission)

    @property
    def proposal_number(self) -> int:
        """Teams proposed so far in the whole game (0 before the first)."""
        return self._proposal_number

    @property
    def votes(self) -> dict[int, TeamVote]:
        """Votes on record for the current proposal (secret until the result)."""
        return dict(self._votes)

    @property
    def choices(self) -> dict[int, MissionChoice]:
        """Mission choices on record for the current proposal (always secret)."""
        return dict(self._choices)

    @property
    def winner(self) -> Winner | None:
        return self._winner

    @property
    def win_reason(self) -> EndReason | None:
        return self._win_reason

    @property
    def options(self) -> Options:
        return self._options

    @property
    def actions(self) -> list[dict[str, Any]]:
        """The replayable log: one JSON-compatible dict per successful action."""
        actions: list[dict[str, Any]] = json_copy(self._actions)
        return actions

    @property
    def history(self) -> tuple[Event, ...]:
        """Public record of the game: every team_vote_result, mission_result, leader_skipped,
        player_substituted, (Avalon) lady_examined, lady_passed, assassination_started,
        assassination, and the final game_over / game_cancelled, in order."""
        return tuple(self._history)

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    def everyone_in(self) -> bool:
        """Every player voted and every team member chose (False outside the VOTE phase)."""
        if self._phase is not Phase.VOTE or self._team is None:
            return False
        return len(self._votes) == len(self._players) and all(
            member in self._choices for member in self._team
        )

    # ------------------------------------------------------------------ views

    def owing(self) -> tuple[int, ...]:
        """Players who still owe a team vote or, on the team, a mission choice, in name order.

        Private: only each one's reminder DM may say so. Who on the team has not chosen support
        or sabotage yet is never public (``public_view().waiting_for`` has team votes only)."""
        if self._phase is not Phase.VOTE or self._team is None:
            return ()
        team = set(self._team)
        return tuple(
            p.id
            for p in sorted(self._players, key=name_sort_key)
            if p.id not in self._votes or (p.id in team and p.id not in self._choices)
        )

    def public_view(self) -> PublicView:
        waiting: list[Player] = []
        if self._phase is Phase.VOTE and self._team is not None:
            waiting = [p for p in self._players if p.id not in self._votes]
        return PublicView(
            players=self._players,
            leader_order=self._leader_order,
            leader=self.leader,
            mission=self._mission,
            results=self.results,
            rejections=self._rejections,
            phase=self._phase,
            team=self._team,
            team_size=self.team_size,
            sabotages_needed=self.sabotages_needed,
            proposal_number=self._proposal_number,
            waiting_for=tuple(p.id for p in sorted(waiting, key=name_sort_key)),
            votes_in=len(self._votes),
            winner=self._winner,
            win_reason=self._win_reason,
            roles=self.roles if self._phase is Phase.OVER else {},
            variant=self._options.variant,
            characters=self.characters if self._phase is Phase.OVER else {},
            lady_holder=self.lady_holder,
            lady_holders=self.lady_holders,
            team_table=self.team_table,
            team_sizes=self.team_sizes,
        )

    def private_view(self, player: int) -> PrivateView:
        self._verify_is_player(player)
        return PrivateView(
            player=player,
            role=self._roles[player],
            spies=self._other_spies(player),
            vote=self._votes.get(player),
            choice=self._choices.get(player),
            on_team=self._team is not None and player in self._team,
            character=self._characters.get(player),
            merlin_candidates=self._merlin_candidates(player),
            lady_results=tuple(
                (target, self._roles[target])
                for holder, target in self._lady_examined
                if holder == player
            ),
        )

    # ------------------------------------------------------------------ propose

    def verify_lead(self, player: int) -> None:
        """Raise the GameError that stops ``player`` from proposing now, whatever the team
        (the game is over, they do not play, no debate is open, someone else leads): what a
        leader's menu checks before any team is chosen."""
        self._verify_not_over()
        self._verify_is_player(player)
        self._verify_phase(Phase.DEBATE)
        if player != self.leader:
            raise NotLeader(leader=self.player(self.leader).name, leader_id=self.leader)

    def verify_propose(self, leader: int, team: Sequence[int]) -> None:
        self.verify_lead(leader)
        seen: set[int] = set()
        for member in team:
            if not self.is_player(member):
                raise UnknownPlayer(player=param(member))
            if member in seen:
                raise DuplicatePlayer(name=self.player(member).name, player=member)
            seen.add(member)
        if len(team) != self.team_size:
            raise WrongTeamSize(expected=self.team_size, given=len(team))

    def can_propose(self, leader: int, team: Sequence[int]) -> bool:
        return can(self.verify_propose, leader, team)

    def propose(self, leader: int, team: Sequence[int]) -> list[Event]:
        """The active leader names the team; the vote opens."""
        self.verify_propose(leader, team)
        members = tuple(team)
        self._team = members
        self._phase = Phase.VOTE
        self._proposal_number += 1
        self._votes.clear()
        self._choices.clear()
        self._log({"action": "propose", "leader": leader, "team": list(members)})
        return [
            TeamProposed(
                proposal=self._proposal_number,
                mission=self._mission,
                attempt=self._rejections + 1,
                leader=leader,
                team=members,
            )
        ]

    # ------------------------------------------------------------------ vote

    def verify_vote(self, player: int, vote: TeamVote) -> None:
        self._verify_not_over()
        self._verify_is_player(player)
        self._verify_phase(Phase.VOTE)
        _as_team_vote(vote)

    def can_vote(self, player: int, vote: TeamVote) -> bool:
        return can(self.verify_vote, player, vote)

    def vote(self, player: int, vote: TeamVote) -> list[Event]:
        """Cast or change a vote on the proposed team; the last one counts."""
        self.verify_vote(player, vote)
        value = _as_team_vote(vote)
        previous = self._votes.get(player)
        self._votes[player] = value
        self._log({"action": "vote", "player": player, "vote": value.value})
        return [
            VoteCast(
                player=player,
                vote=value,
                changed=previous is not None and previous is not value,
                private_to=player,
            )
        ]

    # ------------------------------------------------------------------ choose

    def verify_choose(self, player: int, choice: MissionChoice) -> None:
        self._verify_not_over()
        self._verify_is_player(player)
        self._verify_phase(Phase.VOTE)
        if self._team is None or player not in self._team:
            raise NotOnTeam(name=self.player(player).name, player=player)
        _as_choice(choice)

    def can_choose(self, player: int, choice: MissionChoice) -> bool:
        return can(self.verify_choose, player, choice)

    def recorded_choice(self, player: int, choice: MissionChoice) -> MissionChoice:
        """What :meth:`choose` would record for this choice (checked, state unchanged): a
        Resistance member's sabotage is recorded as support."""
        self.verify_choose(player, choice)
        requested = _as_choice(choice)
        return requested if self._roles[player] is Role.SPY else MissionChoice.SUPPORT

    def choose(self, player: int, choice: MissionChoice) -> list[Event]:
        """A team member chooses support or sabotage (cast or change). A Resistance member's
        sabotage is recorded as support, with a private ``sabotage_recorded_as_support``."""
        recorded = self.recorded_choice(player, choice)
        requested = _as_choice(choice)
        previous = self._choices.get(player)
        self._choices[player] = recorded
        self._log({"action": "choose", "player": player, "choice": requested.value})
        events: list[Event] = [
            MissionChoiceMade(
                player=player,
                choice=recorded,
                requested=requested,
                changed=previous is not None and previous is not recorded,
                private_to=player,
            )
        ]
        if recorded is not requested:
            events.append(SabotageRecordedAsSupport(player=player, private_to=player))
        return events

    # ------------------------------------------------------------------ resolve

    def verify_resolve(self) -> None:
        self._verify_not_over()
        if self._phase not in (Phase.VOTE, Phase.LADY, Phase.ASSASSINATION):
            raise NoVoteToResolve()

    def can_resolve(self) -> bool:
        return can(self.verify_resolve)

    def resolve(self) -> list[Event]:
        """The deadline. In a vote: publish it, run the mission if accepted, pass the lead or
        end. Avalon: the Lady's holder chose no one (the Lady passes on, no one examined); the
        Assassin named no one (good wins)."""
        self.verify_resolve()
        if self._phase is Phase.LADY:
            events = [self._pass_lady_on()]
        elif self._phase is Phase.ASSASSINATION:
            events = [self._finish(Winner.RESISTANCE, EndReason.NO_ASSASSINATION)]
        else:
            events = self._resolve_vote()
        self._log({"action": "resolve"})
        return events

    def _resolve_vote(self) -> list[Event]:
        assert self._team is not None
        team = self._team
        count = len(self._players)
        ordered = sorted(self._players, key=name_sort_key)
        accept = [p.id for p in ordered if self._votes.get(p.id) is TeamVote.ACCEPT]
        reject = [p.id for p in ordered if self._votes.get(p.id) is TeamVote.REJECT]
        no_vote = [p.id for p in ordered if p.id not in self._votes]
        accepts = len(accept)
        if self._options.missing_vote is MissingVote.ACCEPT:
            accepts += len(no_vote)
        accepted = 2 * accepts > count
        events: list[Event] = [
            TeamVoteResult(
                proposal=self._proposal_number,
                mission=self._mission,
                leader=self.leader,
                team=team,
                accepted=accepted,
                accept=tuple(accept),
                reject=tuple(reject),
                no_vote=tuple(no_vote),
                missing_vote=self._options.missing_vote,
            )
        ]
        if accepted:
            sabotages = sum(
                1
                for m in team
                if self._choices.get(m, MissionChoice.SUPPORT) is MissionChoice.SABOTAGE
            )
            needed = sabotages_needed(count, self._mission)
            success = sabotages < needed
            self._results.append(success)
            events.append(
                MissionResult(
                    mission=self._mission,
                    team=team,
                    success=success,
                    supports=len(team) - sabotages,
                    sabotages=sabotages,
                    sabotages_needed=needed,
                )
            )
            self._rejections = 0
        else:
            self._rejections += 1
        self._record(*events)
        self._end_round()
        end = self._check_end()
        if end:
            events += end
        else:
            if accepted:
                self._mission += 1
            events.append(self._pass_lead())
            if accepted and self._lady_holders and len(self._results) in avalon.LADY_MISSIONS:
                events.append(self._lady_turn())
        return events

    # ------------------------------------------------------------------ skip_leader

    def verify_skip_leader(self) -> None:
        self._verify_not_over()
        self._verify_phase(Phase.DEBATE)

    def can_skip_leader(self) -> bool:
        return can(self.verify_skip_leader)

    def skip_leader(self) -> list[Event]:
        """The leader did not propose in time: counts as a rejected team, the lead passes."""
        self.verify_skip_leader()
        self._rejections += 1
        skipped = LeaderSkipped(
            leader=self.leader, mission=self._mission, rejections=self._rejections
        )
        self._record(skipped)
        events: list[Event] = [skipped]
        end = self._check_end()
        events += end if end else [self._pass_lead()]
        self._log({"action": "skip_leader"})
        return events

    # ------------------------------------------------------------------ Lady of the Lake

    def verify_examine(self, holder: int, target: int) -> None:
        self._verify_not_over()
        self._verify_is_player(holder)
        self._verify_phase(Phase.LADY)
        current = self.lady_holder
        assert current is not None
        if holder != current:
            raise NotLadyHolder(holder=self.player(current).name, holder_id=current)
        if not self.is_player(target):
            raise UnknownPlayer(player=param(target))
        if target not in self.lady_eligible:
            raise LadyIneligible(name=self.player(target).name, player=target)

    def can_examine(self, holder: int, target: int) -> bool:
        return can(self.verify_examine, holder, target)

    def examine(self, holder: int, target: int) -> list[Event]:
        """The Lady's holder examines ``target``: the holder alone learns their side; the Lady
        passes to ``target``; the next debate opens."""
        self.verify_examine(holder, target)
        self._lady_examined.append((holder, target))
        self._lady_holders.append(target)
        self._phase = Phase.DEBATE
        public = LadyExamined(holder=holder, target=target, mission=len(self._results))
        self._record(public)
        self._log({"action": "examine", "holder": holder, "target": target})
        secret = LadyResult(
            player=holder, target=target, side=self._roles[target], private_to=holder
        )
        return [public, secret]

    # ------------------------------------------------------------------ assassination

    def verify_assassinate(self, player: int, target: int) -> None:
        self._verify_not_over()
        self._verify_is_player(player)
        self._verify_phase(Phase.ASSASSINATION)
        if player != self.assassin:
            raise NotAssassin()
        if not self.is_player(target):
            raise UnknownPlayer(player=param(target))
        if target not in self.assassination_targets:
            raise BadAssassinationTarget(name=self.player(target).name, player=target)

    def can_assassinate(self, player: int, target: int) -> bool:
        return can(self.verify_assassinate, player, target)

    def assassinate(self, player: int, target: int) -> list[Event]:
        """The Assassin names ``target``: Merlin, evil wins; anyone else, good wins."""
        self.verify_assassinate(player, target)
        merlin = self.merlin
        hit = target == merlin
        assert merlin is not None
        named = Assassination(assassin=player, target=target, merlin=merlin, hit=hit)
        self._record(named)
        if hit:
            end = self._finish(Winner.SPIES, EndReason.MERLIN_ASSASSINATED)
        else:
            end = self._finish(Winner.RESISTANCE, EndReason.ASSASSIN_MISSED)
        self._log({"action": "assassinate", "player": player, "target": target})
        return [named, end]

    # ------------------------------------------------------------------ substitute

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
        """``new`` takes ``old``'s seat, role and place in the leader list (and on the proposed
        team); ``old``'s vote and choice on the current proposal are dropped."""
        self.verify_substitute(old, new)

        def swap(pid: int) -> int:
            return new.id if pid == old else pid

        self._players = tuple(new if p.id == old else p for p in self._players)
        self._roles = {swap(pid): role for pid, role in self._roles.items()}
        self._characters = {swap(pid): c for pid, c in self._characters.items()}
        self._lady_holders = [swap(pid) for pid in self._lady_holders]
        self._lady_examined = [(swap(a), swap(b)) for a, b in self._lady_examined]
        self._leader_order = tuple(swap(pid) for pid in self._leader_order)
        if self._team is not None:
            self._team = tuple(swap(pid) for pid in self._team)
        self._votes.pop(old, None)
        self._choices.pop(old, None)
        announced = PlayerSubstituted(old=old, new=new.id, name=new.name)
        self._record(announced)
        self._log({"action": "substitute", "old": old, "new": new.to_dict()})
        return [announced, self.role_dealt_event(new.id)]

    # ------------------------------------------------------------------ cancel

    def verify_cancel(self) -> None:
        self._verify_not_over()

    def can_cancel(self) -> bool:
        return can(self.verify_cancel)

    def cancel(self) -> list[Event]:
        """End the game with no winner; the roles are revealed."""
        self.verify_cancel()
        self._end_round()
        self._phase = Phase.OVER
        self._winner = None
        self._win_reason = EndReason.CANCELLED
        event = GameCancelled(roles=self._sides(), characters=self._characters_record())
        self._record(event)
        self._log({"action": "cancel"})
        return [event]

    # ------------------------------------------------------------------ serialisation

    def to_dict(self) -> dict[str, Any]:
        """The whole state, JSON-compatible."""
        return {
            "version": STATE_VERSION,
            "setup": self.setup_record(),
            "players": [p.to_dict() for p in self._players],
            "roles": self._roles_record(),
            "leader_order": list(self._leader_order),
            "leader_index": self._leader_index,
            "mission": self._mission,
            "rejections": self._rejections,
            "results": list(self._results),
            "phase": self._phase.value,
            "team": None if self._team is None else list(self._team),
            "proposal_number": self._proposal_number,
            "votes": {str(pid): vote.value for pid, vote in self._votes.items()},
            "choices": {str(pid): choice.value for pid, choice in self._choices.items()},
            "winner": None if self._winner is None else self._winner.value,
            "win_reason": None if self._win_reason is None else self._win_reason.value,
            "history": [event.to_dict() for event in self._history],
            "actions": self.actions,
            **self._avalon_record(),
        }

    def _avalon_record(self) -> dict[str, Any]:
        """The Avalon part of :meth:`to_dict` (nothing for a classic game, whose saved state
        keeps its original shape)."""
        if not self._options.is_avalon:
            return {}
        return {
            "characters": {str(p.id): self._characters[p.id].value for p in self._players},
            "lady_holders": list(self._lady_holders),
            "lady_examined": [list(pair) for pair in self._lady_examined],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Resistance:
        version = d.get("version", STATE_VERSION)
        if version != STATE_VERSION:
            raise ValueError(f"unsupported Resistance state version {version!r}")
        game = cls.from_setup_record(d["setup"])
        game._players = tuple(Player.from_dict(p) for p in d["players"])
        game._roles = {int(pid): Role(role) for pid, role in d["roles"].items()}
        game._leader_order = tuple(int(pid) for pid in d["leader_order"])
        game._leader_index = int(d["leader_index"])
        game._mission = int(d["mission"])
        game._rejections = int(d["rejections"])
        game._results = [bool(r) for r in d["results"]]
        game._phase = Phase(d["phase"])
        game._team = None if d["team"] is None else tuple(int(pid) for pid in d["team"])
        game._proposal_number = int(d["proposal_number"])
        game._votes = {int(pid): TeamVote(v) for pid, v in d["votes"].items()}
        game._choices = {int(pid): MissionChoice(c) for pid, c in d["choices"].items()}
        game._winner = None if d["winner"] is None else Winner(d["winner"])
        game._win_reason = None if d["win_reason"] is None else EndReason(d["win_reason"])
        game._history = [Event.from_dict(e) for e in d["history"]]
        game._actions = json_copy(list(d["actions"]))
        if "characters" in d:
            game._characters = {int(pid): Character(c) for pid, c in d["characters"].items()}
        if "lady_holders" in d:
            game._lady_holders = [int(pid) for pid in d["lady_holders"]]
        game._lady_examined = [(int(a), int(b)) for a, b in d.get("lady_examined", [])]
        return game

    def compared(self) -> dict[str, Any]:
        """Two games are equal when their saved states are (:meth:`to_dict`)."""
        return self.to_dict()

    def __repr__(self) -> str:
        return (
            f"<Resistance {len(self._players)} players, phase={self._phase.value}, "
            f"mission={self._mission}, results={self._results}, rejections={self._rejections}>"
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

    def _seats(self) -> tuple[int, ...]:
        return tuple(p.id for p in self._players)

    def _other_spies(self, player: int) -> tuple[int, ...]:
        """The players ``player`` knows to be spies."""
        if self._options.is_avalon:
            return avalon.known_evil(self._characters, player, self._seats())
        if self._roles[player] is not Role.SPY:
            return ()
        return tuple(pid for pid in self.spies if pid != player)

    def _merlin_candidates(self, player: int) -> tuple[int, ...]:
        if not self._options.is_avalon:
            return ()
        return avalon.merlin_candidates(self._characters, player, self._seats())

    def _roles_record(self) -> dict[str, str]:
        return {str(p.id): self._roles[p.id].value for p in self._players}

    def _sides(self) -> dict[str, Role]:
        """Every side, for the end (keys: player ids as strings, the saved form)."""
        return {str(p.id): self._roles[p.id] for p in self._players}

    def _characters_record(self) -> dict[str, Character] | None:
        """Every Avalon role, for the end (None in a classic game)."""
        if not self._options.is_avalon:
            return None
        return {str(p.id): self._characters[p.id] for p in self._players}

    def _record(self, *events: Event) -> None:
        """Keep the public events in the history (events are frozen)."""
        self._history.extend(events)

    def _log(self, action: dict[str, Any]) -> None:
        self._actions.append(action)

    def _end_round(self) -> None:
        self._team = None
        self._votes.clear()
        self._choices.clear()
        self._phase = Phase.DEBATE

    def _pass_lead(self) -> Event:
        previous = self.leader
        self._leader_index = (self._leader_index + 1) % len(self._leader_order)
        return LeaderChanged(leader=self.leader, previous=previous)

    def _check_end(self) -> list[Event]:
        """End the game if it is decided (``game_over``), or in Avalon open the assassination
        after three successes (``assassination_started``, and the Assassin's private turn)."""
        successes = sum(1 for r in self._results if r)
        failures = len(self._results) - successes
        if successes >= MISSIONS_TO_WIN:
            if self._options.is_avalon:
                return self._start_assassination()
            winner, reason = Winner.RESISTANCE, EndReason.THREE_SUCCESSES
        elif failures >= MISSIONS_TO_WIN:
            winner, reason = Winner.SPIES, EndReason.THREE_FAILURES
        elif self._rejections >= MAX_REJECTIONS:
            winner, reason = Winner.SPIES, EndReason.FIVE_REJECTIONS
        else:
            return []
        return [self._finish(winner, reason)]

    def _finish(self, winner: Winner, reason: EndReason) -> Event:
        self._end_round()
        self._phase = Phase.OVER
        self._winner = winner
        self._win_reason = reason
        event = GameOver(
            winner=winner,
            reason=reason,
            roles=self._sides(),
            characters=self._characters_record(),
        )
        self._record(event)
        return event

    def _start_assassination(self) -> list[Event]:
        self._end_round()
        self._phase = Phase.ASSASSINATION
        started = AssassinationStarted(mission=len(self._results))
        self._record(started)
        assassin = self.assassin
        assert assassin is not None
        turn = AssassinTurn(
            player=assassin, targets=self.assassination_targets, private_to=assassin
        )
        return [started, turn]

    def _lady_turn(self) -> Event:
        """After a mission result (2, 3 or 4): the Lady's holder must examine someone."""
        self._phase = Phase.LADY
        holder = self.lady_holder
        assert holder is not None
        return LadyTurn(holder=holder, mission=len(self._results), eligible=self.lady_eligible)

    def _pass_lady_on(self) -> Event:
        """No one examined by the deadline: the Lady passes to the next eligible player."""
        holder = self.lady_holder
        to = self.lady_eligible[0]
        self._lady_holders.append(to)
        self._phase = Phase.DEBATE
        assert holder is not None
        event = LadyPassed(holder=holder, to=to, mission=len(self._results))
        self._record(event)
        return event


# ---------------------------------------------------------------------- action records

ACTION_NAMES: tuple[str, ...] = (
    "propose",
    "vote",
    "choose",
    "resolve",
    "skip_leader",
    "substitute",
    "cancel",
    "examine",
    "assassinate",
)


def _field_id(action: Mapping[str, Any], key: str) -> int:
    value: object = action.get(key)
    if not is_id(value):
        raise InvalidAction(action=str(action.get("action")))
    return value


def _bind(action: Mapping[str, Any]) -> Bound:
    """The method an action record names and its arguments."""
    if not isinstance(action, Mapping):
        raise InvalidAction(action=str(action))
    name = action.get("action")
    if name == "propose":
        team = action.get("team")
        if not isinstance(team, list | tuple) or not all(is_id(m) for m in team):
            raise InvalidAction(action="propose")
        return "propose", (_field_id(action, "leader"), list(team))
    if name == "vote":
        return "vote", (_field_id(action, "player"), action.get("vote"))
    if name == "choose":
        return "choose", (_field_id(action, "player"), action.get("choice"))
    if name == "substitute":
        new = action.get("new")
        if not isinstance(new, Mapping) or not is_id(new.get("id")):
            raise InvalidAction(action="substitute")
        if not isinstance(new.get("name"), str):
            raise InvalidAction(action="substitute")
        return "substitute", (_field_id(action, "old"), Player.from_dict(new))
    if name == "examine":
        return "examine", (_field_id(action, "holder"), _field_id(action, "target"))
    if name == "assassinate":
        return "assassinate", (_field_id(action, "player"), _field_id(action, "target"))
    if name == "resolve":
        return "resolve", ()
    if name == "skip_leader":
        return "skip_leader", ()
    if name == "cancel":
        return "cancel", ()
    raise InvalidAction(action=str(name))


_RECORDS: ActionRecords[Resistance, Event] = ActionRecords(_bind)

#: Raise the GameError that applying an action record (as logged in
#: :attr:`Resistance.actions`) would raise; nothing if it is allowed.
verify_action = _RECORDS.verify
can_apply = _RECORDS.can
#: Apply one action record: its events.
apply_action = _RECORDS.apply
