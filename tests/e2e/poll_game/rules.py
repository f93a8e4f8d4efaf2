"""The poll's rules, pure: standard library and ``games.common`` only, no Discord, no database.

Each player answers one of two choices privately (and may change their answer until the poll
closes); the poll closes at its deadline or once everyone has answered, and then its result is
public: how many chose each side, and who.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.common import GameError, Player

CHOICES = ("first", "second")
MIN_PLAYERS, MAX_PLAYERS = 2, 10


@dataclass(frozen=True)
class Event:
    """Something that happened; ``private_to``: the one player who may see it (a vote)."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    private_to: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "data": dict(self.data), "private_to": self.private_to}


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

    @classmethod
    def setup(cls, players: Sequence[Player]) -> tuple[Poll, list[Event]]:
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise GameError(
                "poll.error.player_count",
                {"min": MIN_PLAYERS, "max": MAX_PLAYERS, "count": len(players)},
            )
        if len({p.id for p in players}) != len(players):
            raise GameError("poll.error.player_twice")
        poll = cls(list(players))
        return poll, [Event("poll_opened", {"players": [p.id for p in players]})]

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

    def vote(self, user_id: int, choice: str) -> list[Event]:
        """Record (or change) a player's answer: private until the poll closes."""
        if self.closed:
            raise GameError("poll.error.closed")
        if choice not in CHOICES:
            raise GameError("poll.error.bad_choice")
        self.player(user_id)
        changed = user_id in self.votes
        self.votes[user_id] = choice
        kind = "poll_vote_changed" if changed else "poll_voted"
        return [Event(kind, {"choice": choice}, private_to=user_id)]

    def close(self) -> list[Event]:
        if self.closed:
            raise GameError("poll.error.closed")
        self.closed = True
        result = self.result()
        return [Event("poll_closed", {c: list(result.voters[c]) for c in CHOICES})]

    def substitute(self, old_id: int, new: Player) -> list[Event]:
        """``new`` takes ``old_id``'s seat; the leaver's answer goes with them."""
        if self.closed:
            raise GameError("poll.error.closed")
        self.player(old_id)
        if self.is_player(new.id):
            raise GameError("poll.error.player_twice")
        self.players = [new if p.id == old_id else p for p in self.players]
        self.votes.pop(old_id, None)
        return [Event("player_substituted", {"old": old_id, "new": new.id})]

    def cancel(self) -> list[Event]:
        self.closed = True
        return [Event("poll_cancelled")]

    # -- storage --------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": [p.to_dict() for p in self.players],
            "votes": {str(k): v for k, v in self.votes.items()},
            "closed": self.closed,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Poll:
        return cls(
            players=[Player.from_dict(p) for p in d["players"]],
            votes={int(k): str(v) for k, v in d.get("votes", {}).items()},
            closed=bool(d.get("closed", False)),
        )
