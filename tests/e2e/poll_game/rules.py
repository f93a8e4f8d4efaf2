"""The poll's rules, pure: standard library and ``rulebase`` only, no Discord, no database.

Each player answers one of two choices privately (and may change their answer until the poll
closes); the poll closes at its deadline or once everyone has answered, and then its result is
public: how many chose each side, and who.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rulebase import Event, GameError, Player

CHOICES = ("first", "second")
MIN_PLAYERS, MAX_PLAYERS = 2, 10


@dataclass(frozen=True)
class PollEvent(Event):
    """Something that happened in a poll (``rulebase.Event``: typed, stored as JSON)."""

    KINDS: ClassVar[dict[str, type[Event]]] = {}


@dataclass(frozen=True)
class PollOpened(PollEvent):
    kind = "poll_opened"
    players: tuple[int, ...]


@dataclass(frozen=True)
class PollVoted(PollEvent):
    """Private to the voter: their first answer."""

    kind = "poll_voted"
    choice: str


@dataclass(frozen=True)
class PollVoteChanged(PollEvent):
    """Private to the voter: a changed answer."""

    kind = "poll_vote_changed"
    choice: str


@dataclass(frozen=True)
class PollClosed(PollEvent):
    """Who chose what (user ids, seat order)."""

    kind = "poll_closed"
    first: tuple[int, ...]
    second: tuple[int, ...]


@dataclass(frozen=True)
class PlayerSubstituted(PollEvent):
    kind = "player_substituted"
    old: int
    new: int


@dataclass(frozen=True)
class PollCancelled(PollEvent):
    kind = "poll_cancelled"


@dataclass(frozen=True)
class FactionOpened(PollEvent):
    """Private to the picker: the faction (seat order) and that the pick is theirs."""

    kind = "poll_faction_opened"
    faction: tuple[int, ...]


@dataclass(frozen=True)
class PlayerPicked(PollEvent):
    """Private to the picker: the player they silenced."""

    kind = "poll_player_picked"
    target: int


@dataclass(frozen=True)
class PickMissed(PollEvent):
    kind = "poll_pick_missed"


@dataclass(frozen=True)
class PairOpened(PollEvent):
    """Private to the pairer: the pair is theirs to make."""

    kind = "poll_pair_opened"


@dataclass(frozen=True)
class PlayersPaired(PollEvent):
    """Private to the pairer: the two players they paired."""

    kind = "poll_players_paired"
    pair: tuple[int, int]


@dataclass(frozen=True)
class Result:
    """The closed poll: who chose what (user ids, by choice) and who did not answer."""

    voters: Mapping[str, tuple[int, ...]]
    silent: tuple[int, ...]

    def count(self, choice: str) -> int:
        return len(self.voters[choice])


@dataclass
class Poll:
    players: list[Player]
    votes: dict[int, str] = field(default_factory=dict)
    closed: bool = False
    #: the faction (seat order; its first member picks a player to silence), the pick
    faction: list[int] = field(default_factory=list)
    picked: int | None = None
    pick_open: bool = False
    #: the pair the first player makes in secret (a pick of two), once it is open
    pair: list[int] = field(default_factory=list)
    pair_open: bool = False

    @classmethod
    def setup(cls, players: Sequence[Player]) -> tuple[Poll, list[PollEvent]]:
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise GameError(
                "poll.error.player_count",
                {"min": MIN_PLAYERS, "max": MAX_PLAYERS, "count": len(players)},
            )
        if len({p.id for p in players}) != len(players):
            raise GameError("poll.error.player_twice")
        poll = cls(list(players))
        return poll, [PollOpened(players=tuple(p.id for p in players))]

    # -- reading --------------------------------------------------------------------------

    def is_player(self, user_id: int) -> bool:
        return any(p.id == user_id for p in self.players)

    def player(self, user_id: int) -> Player:
        for p in self.players:
            if p.id == user_id:
                return p
        raise GameError("poll.error.not_a_player")

    def owing(self) -> list[int]:
        """Who has not answered yet."""
        return [p.id for p in self.players if p.id not in self.votes]

    def all_voted(self) -> bool:
        return not self.owing()

    def result(self) -> Result:
        voters = {
            c: tuple(p.id for p in self.players if self.votes.get(p.id) == c) for c in CHOICES
        }
        return Result(voters, tuple(self.owing()))

    # -- acting ---------------------------------------------------------------------------

    def verify_vote(self, user_id: int, choice: str) -> None:
        """Whether ``user_id`` may answer ``choice`` now (raises the refusal otherwise)."""
        if self.closed:
            raise GameError("poll.error.closed")
        if choice not in CHOICES:
            raise GameError("poll.error.bad_choice")
        self.player(user_id)

    def vote(self, user_id: int, choice: str) -> list[PollEvent]:
        """Record (or change) a player's answer: private until the poll closes."""
        self.verify_vote(user_id, choice)
        changed = user_id in self.votes
        self.votes[user_id] = choice
        answered = PollVoteChanged if changed else PollVoted
        return [answered(choice=choice, private_to=user_id)]

    # -- the faction and its secret pick ---------------------------------------------------

    @property
    def picker(self) -> int | None:
        return self.faction[0] if self.faction else None

    def open_faction(self) -> list[PollEvent]:
        """The first half of the table (two at least) is a faction; its first member picks,
        in secret, a player who may no longer post in the poll's channel."""
        self.faction = [p.id for p in self.players[: max(2, len(self.players) // 2)]]
        self.pick_open = True
        return [FactionOpened(faction=tuple(self.faction), private_to=self.picker)]

    def pick(self, user_id: int, target: int) -> list[PollEvent]:
        if not self.pick_open or self.closed:
            raise GameError("poll.error.pick_closed")
        if user_id != self.picker:
            raise GameError("poll.error.not_picker")
        if target == user_id or not self.is_player(target):
            raise GameError("poll.error.bad_pick")
        self.picked, self.pick_open = target, False
        return [PlayerPicked(target=target, private_to=user_id)]

    def close_pick(self) -> list[PollEvent]:
        """The pick's deadline passed: nobody is silenced."""
        if not self.pick_open:
            return []
        self.pick_open = False
        return [PickMissed()]

    # -- the pair: two players paired in secret by the first ------------------------------

    @property
    def pairer(self) -> int:
        return self.players[0].id

    def open_pair(self) -> list[PollEvent]:
        self.pair_open = True
        return [PairOpened(private_to=self.pairer)]

    def verify_pair(self, user_id: int, pair: Sequence[int]) -> None:
        """Whether ``user_id`` may pair ``pair`` now: the pairer, two players of the poll."""
        if not self.pair_open or self.closed:
            raise GameError("poll.error.pair_closed")
        if user_id != self.pairer:
            raise GameError("poll.error.not_pairer")
        if len(set(pair)) != 2 or len(pair) != 2 or not all(map(self.is_player, pair)):
            raise GameError("poll.error.bad_pair", {"count": len(set(pair))})

    def make_pair(self, user_id: int, pair: Sequence[int]) -> list[PollEvent]:
        self.verify_pair(user_id, pair)
        self.pair, self.pair_open = list(pair), False
        return [PlayersPaired(pair=(pair[0], pair[1]), private_to=user_id)]

    def close(self) -> list[PollEvent]:
        if self.closed:
            raise GameError("poll.error.closed")
        self.closed = True
        result = self.result()
        return [PollClosed(first=result.voters["first"], second=result.voters["second"])]

    def substitute(self, old_id: int, new: Player) -> list[PollEvent]:
        """``new`` takes ``old_id``'s seat; the leaver's answer goes with them."""
        if self.closed:
            raise GameError("poll.error.closed")
        self.player(old_id)
        if self.is_player(new.id):
            raise GameError("poll.error.player_twice")
        self.players = [new if p.id == old_id else p for p in self.players]
        self.faction = [new.id if i == old_id else i for i in self.faction]
        self.votes.pop(old_id, None)
        return [PlayerSubstituted(old=old_id, new=new.id)]

    def cancel(self) -> list[PollEvent]:
        self.closed = True
        return [PollCancelled()]

    # -- storage --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": [p.to_dict() for p in self.players],
            "votes": {str(k): v for k, v in self.votes.items()},
            "closed": self.closed,
            "faction": list(self.faction),
            "picked": self.picked,
            "pick_open": self.pick_open,
            "pair": list(self.pair),
            "pair_open": self.pair_open,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Poll:
        return cls(
            players=[Player.from_dict(p) for p in d["players"]],
            votes={int(k): str(v) for k, v in d.get("votes", {}).items()},
            closed=bool(d.get("closed", False)),
            faction=[int(i) for i in d.get("faction", [])],
            picked=int(d["picked"]) if d.get("picked") is not None else None,
            pick_open=bool(d.get("pick_open", False)),
            pair=[int(i) for i in d.get("pair", [])],
            pair_open=bool(d.get("pair_open", False)),
        )
