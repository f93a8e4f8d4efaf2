"""Werewolf's events: one frozen dataclass per kind, each with its audience typed.

``AUDIENCE`` says who may see a kind: the channel (``PUBLIC``, ``private_to`` None), one player
(``PLAYER``, ``private_to`` that player), or the wolves (``WOLVES``: one copy per living wolf,
each ``private_to`` its wolf, and ``den`` lists them all, so the den gets the first copy once
and a DM relay each). A kind's construction refuses the wrong ``private_to``: nothing secret can
be made public by mistake, and every store that knows only ``private_to`` keeps it private.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar

from rulebase import Event

from .model import Death, EndReason, NightRecord, Role, Seen, Tally, Winner


class Audience(StrEnum):
    PUBLIC = "public"
    PLAYER = "player"
    WOLVES = "wolves"


@dataclass(frozen=True)
class WerewolfEvent(Event):
    """Any event of Werewolf; ``decode`` knows every kind below."""

    KINDS: ClassVar[dict[str, type[Event]]] = {}
    AUDIENCE: ClassVar[Audience] = Audience.PUBLIC

    def __post_init__(self) -> None:
        public = self.AUDIENCE is Audience.PUBLIC
        if public != (self.private_to is None):
            raise ValueError(f"{self.kind} is {self.AUDIENCE.value}: private_to {self.private_to}")

    @property
    def for_den(self) -> bool:
        """A wolves' event's copy that the den shows (the first wolf's); False otherwise."""
        den: tuple[int, ...] = getattr(self, "den", ())
        return self.AUDIENCE is Audience.WOLVES and bool(den) and self.private_to == den[0]


# ---------------------------------------------------------------------------------- start


@dataclass(frozen=True)
class GameStarted(WerewolfEvent):
    """Public: the seats, how many wolves, which special roles and whether a captain."""

    kind = "game_started"
    players: tuple[int, ...]
    wolves: int
    specials: tuple[Role, ...]
    captain: bool


@dataclass(frozen=True)
class RoleDealt(WerewolfEvent):
    """Private: a player's role and what it knows — the other wolves, the lover, what the seer
    saw, the witch's potions, as a substitute inherits them."""

    kind = "role_dealt"
    AUDIENCE = Audience.PLAYER
    OPTIONAL = frozenset({"lover", "life_potion", "death_potion"})
    player: int
    role: Role
    wolves: tuple[int, ...]
    seen: tuple[Seen, ...]
    lover: int | None = None
    life_potion: bool | None = None
    death_potion: bool | None = None


# ---------------------------------------------------------------------------------- votes


@dataclass(frozen=True)
class ElectionOpened(WerewolfEvent):
    kind = "election_opened"
    candidates: tuple[int, ...]


@dataclass(frozen=True)
class VoteCast(WerewolfEvent):
    """Public: a vote of the election or of the day, cast or changed (``target`` None: no
    elimination); ``votes`` is the whole count after it."""

    kind = "vote_cast"
    voter: int
    target: int | None
    previous: int | None
    changed: bool
    votes: tuple[Tally, ...]


@dataclass(frozen=True)
class CaptainElected(WerewolfEvent):
    """Public: the election's count and its captain (None: no one voted)."""

    kind = "captain_elected"
    captain: int | None
    votes: tuple[Tally, ...]


@dataclass(frozen=True)
class DayBegan(WerewolfEvent):
    kind = "day_began"
    day: int
    alive: tuple[int, ...]


@dataclass(frozen=True)
class DayEnded(WerewolfEvent):
    """Public: the day's count and whom it eliminates (None: nobody), the deaths that follow
    (the eliminated player, a lover's grief); ``majority``: a majority ended it early."""

    kind = "day_ended"
    day: int
    votes: tuple[Tally, ...]
    eliminated: int | None
    majority: bool
    deaths: tuple[Death, ...]


# ---------------------------------------------------------------------------------- night


@dataclass(frozen=True)
class NightFell(WerewolfEvent):
    kind = "night_fell"
    night: int


@dataclass(frozen=True)
class DenOpened(WerewolfEvent):
    """To the wolves: the night's den, and whom they may pick."""

    kind = "den_opened"
    AUDIENCE = Audience.WOLVES
    den: tuple[int, ...]
    night: int
    targets: tuple[int, ...]


@dataclass(frozen=True)
class WolfPicked(WerewolfEvent):
    """To the wolves: a wolf's pick, new or changed, and every wolf's pick now."""

    kind = "wolf_picked"
    AUDIENCE = Audience.WOLVES
    den: tuple[int, ...]
    wolf: int
    target: int
    picks: Mapping[int, int]


@dataclass(frozen=True)
class VictimChosen(WerewolfEvent):
    """To the wolves: the victim settled (None: no agreement, a tie, no pick), and whether all
    living wolves agreed."""

    kind = "victim_chosen"
    AUDIENCE = Audience.WOLVES
    den: tuple[int, ...]
    victim: int | None
    agreed: bool


@dataclass(frozen=True)
class SeerTurn(WerewolfEvent):
    kind = "seer_turn"
    AUDIENCE = Audience.PLAYER
    player: int
    targets: tuple[int, ...]


@dataclass(frozen=True)
class SeerSaw(WerewolfEvent):
    kind = "seer_saw"
    AUDIENCE = Audience.PLAYER
    player: int
    target: int
    role: Role


@dataclass(frozen=True)
class WitchTurn(WerewolfEvent):
    """To the witch, once the victim is settled: the victim (None: none tonight), her potions
    left, whom the death potion may take."""

    kind = "witch_turn"
    AUDIENCE = Audience.PLAYER
    player: int
    victim: int | None
    life_potion: bool
    death_potion: bool
    targets: tuple[int, ...]


@dataclass(frozen=True)
class WitchChose(WerewolfEvent):
    kind = "witch_chose"
    AUDIENCE = Audience.PLAYER
    player: int
    healed: int | None
    poisoned: int | None


@dataclass(frozen=True)
class CupidTurn(WerewolfEvent):
    kind = "cupid_turn"
    AUDIENCE = Audience.PLAYER
    player: int
    targets: tuple[int, ...]


@dataclass(frozen=True)
class CupidLinked(WerewolfEvent):
    kind = "cupid_linked"
    AUDIENCE = Audience.PLAYER
    player: int
    lovers: tuple[int, ...]


@dataclass(frozen=True)
class InLove(WerewolfEvent):
    """To each lover: whom they love (not that player's role)."""

    kind = "in_love"
    AUDIENCE = Audience.PLAYER
    player: int
    lover: int


@dataclass(frozen=True)
class Dawn(WerewolfEvent):
    """Public: the night's dead together (never by whose hand), a lover's grief after them."""

    kind = "dawn"
    night: int
    deaths: tuple[Death, ...]


# ---------------------------------------------------------------------------------- last acts


@dataclass(frozen=True)
class HunterTurn(WerewolfEvent):
    """Public: the dead hunter takes a last shot (his death revealed him)."""

    kind = "hunter_turn"
    hunter: int
    targets: tuple[int, ...]


@dataclass(frozen=True)
class HunterShot(WerewolfEvent):
    """Public: whom the hunter took with him (None: no one by his deadline), and the deaths."""

    kind = "hunter_shot"
    hunter: int
    target: int | None
    deaths: tuple[Death, ...]


@dataclass(frozen=True)
class SuccessionOpened(WerewolfEvent):
    kind = "succession_opened"
    captain: int
    candidates: tuple[int, ...]


@dataclass(frozen=True)
class CaptainNamed(WerewolfEvent):
    """Public: the dead captain's successor (None: none by the deadline, no captain now)."""

    kind = "captain_named"
    previous: int
    captain: int | None


# ---------------------------------------------------------------------------------- moderation


@dataclass(frozen=True)
class PlayerSubstituted(WerewolfEvent):
    """``new`` (named ``name``) takes ``old``'s seat; ``old_name`` the service adds."""

    kind = "player_substituted"
    OPTIONAL = frozenset({"old_name"})
    old: int
    new: int
    name: str
    old_name: str | None = None


@dataclass(frozen=True)
class GameCancelled(WerewolfEvent):
    kind = "game_cancelled"
    roles: Mapping[int, Role]
    nights: tuple[NightRecord, ...]


@dataclass(frozen=True)
class GameOver(WerewolfEvent):
    """Public: the winner, who wins (the side's players, a mixed couple's aside), every role,
    the lovers and the whole night log."""

    kind = "game_over"
    winner: Winner
    reason: EndReason
    winners: tuple[int, ...]
    roles: Mapping[int, Role]
    lovers: tuple[int, ...]
    nights: tuple[NightRecord, ...]


#: Every kind's audience, by its stored name.
AUDIENCES: dict[str, Audience] = {
    kind: cls.AUDIENCE
    for kind, cls in WerewolfEvent.KINDS.items()
    if issubclass(cls, WerewolfEvent)
}
