"""Value types of Werewolf: roles, sides, phases, causes of death, the end, and the options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rulebase import Player as Player
from rulebase import Record


class Side(StrEnum):
    VILLAGE = "village"
    WOLVES = "wolves"


class Role(StrEnum):
    """A player's card. Every role but the werewolf plays for the village."""

    WEREWOLF = "werewolf"
    VILLAGER = "villager"
    SEER = "seer"
    WITCH = "witch"
    HUNTER = "hunter"
    CUPID = "cupid"

    @property
    def side(self) -> Side:
        return Side.WOLVES if self is Role.WEREWOLF else Side.VILLAGE


#: The special roles, each an option of its own (in the order a game deals them).
SPECIAL_ROLES: tuple[Role, ...] = (Role.SEER, Role.WITCH, Role.HUNTER, Role.CUPID)


class Phase(StrEnum):
    ELECTION = "election"
    """Before the first night (option ``captain``): the village elects its captain."""
    NIGHT = "night"
    DAY = "day"
    HUNTER = "hunter"
    """The hunter has died and takes his last shot."""
    SUCCESSION = "succession"
    """The captain has died and names a successor."""
    OVER = "over"


class Cause(StrEnum):
    """Why a player died, as the village learns it: the night never says by whose hand."""

    NIGHT = "night"
    GRIEF = "grief"
    SHOT = "shot"
    ELIMINATED = "eliminated"


class Winner(StrEnum):
    VILLAGE = "village"
    WOLVES = "wolves"
    LOVERS = "lovers"
    NOBODY = "nobody"


class EndReason(StrEnum):
    NO_WOLVES = "no_wolves"
    WOLVES_PARITY = "wolves_parity"
    LOVERS_LAST = "lovers_last"
    ALL_DEAD = "all_dead"
    CANCELLED = "cancelled"


def _value(value: Role | None) -> str | None:
    return None if value is None else value.value


@dataclass(frozen=True)
class Death(Record):
    """One death as the village learns it; ``role`` is None while the roles stay hidden
    (option ``reveal_roles`` off)."""

    player: int
    cause: Cause
    role: Role | None

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "cause": self.cause.value, "role": _value(self.role)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Death:
        role = d["role"]
        return cls(int(d["player"]), Cause(d["cause"]), None if role is None else Role(role))


@dataclass(frozen=True)
class Seen(Record):
    """What the seer saw one night."""

    night: int
    target: int
    role: Role

    def to_dict(self) -> dict[str, Any]:
        return {"night": self.night, "target": self.target, "role": self.role.value}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Seen:
        return cls(int(d["night"]), int(d["target"]), Role(d["role"]))


@dataclass(frozen=True)
class Tally(Record):
    """One line of a vote count: a name (None: no elimination), its voters in the order they
    voted, and its votes (the captain's counts twice)."""

    target: int | None
    voters: tuple[int, ...]
    votes: int


@dataclass(frozen=True)
class NightRecord(Record):
    """One night as the end reveals it: each wolf's last pick, the victim, the potions, what
    the seer saw, the lovers Cupid linked (night 1)."""

    night: int
    picks: Mapping[int, int]
    victim: int | None
    healed: bool
    poisoned: int | None
    seen: Seen | None
    lovers: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "night": self.night,
            "picks": {str(wolf): target for wolf, target in self.picks.items()},
            "victim": self.victim,
            "healed": self.healed,
            "poisoned": self.poisoned,
            "seen": None if self.seen is None else self.seen.to_dict(),
            "lovers": list(self.lovers),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> NightRecord:
        return cls(
            night=int(d["night"]),
            picks={int(wolf): int(target) for wolf, target in d["picks"].items()},
            victim=d["victim"],
            healed=bool(d["healed"]),
            poisoned=d["poisoned"],
            seen=None if d["seen"] is None else Seen.from_dict(d["seen"]),
            lovers=tuple(d["lovers"]),
        )


@dataclass(frozen=True)
class Options:
    """The rule-relevant options of one game (timings live in the service).

    ``wolves``: the number of wolves, None for the table's (:data:`~.tables.WOLF_COUNT`).
    ``early_close``: the night (and the election) ends as soon as everyone has acted.
    ``majority_ends_day``: a majority on one name ends the day at once. ``reveal_roles``: a
    death shows the dead player's role."""

    seer: bool = True
    witch: bool = True
    hunter: bool = False
    cupid: bool = False
    captain: bool = False
    wolves: int | None = None
    early_close: bool = True
    majority_ends_day: bool = True
    reveal_roles: bool = True

    def specials(self) -> tuple[Role, ...]:
        """The special roles this game deals, in :data:`SPECIAL_ROLES` order."""
        return tuple(role for role in SPECIAL_ROLES if getattr(self, role.value))

    def to_dict(self) -> dict[str, Any]:
        return {
            "seer": self.seer,
            "witch": self.witch,
            "hunter": self.hunter,
            "cupid": self.cupid,
            "captain": self.captain,
            "wolves": self.wolves,
            "early_close": self.early_close,
            "majority_ends_day": self.majority_ends_day,
            "reveal_roles": self.reveal_roles,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Options:
        """Unknown keys are ignored; missing keys take their default; ``wolves`` 0 or None is
        the table's (the option's 0)."""
        default = cls()
        flags = {
            name: bool(d.get(name, getattr(default, name)))
            for name in (
                "seer",
                "witch",
                "hunter",
                "cupid",
                "captain",
                "early_close",
                "majority_ends_day",
                "reveal_roles",
            )
        }
        wolves = d.get("wolves")
        return cls(**flags, wolves=int(wolves) if wolves else None)
