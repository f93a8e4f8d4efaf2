"""Value types of The Resistance: roles, phases, votes, options and players (events: events.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rulebase import Player as Player

from .tables import AVALON_TABLE, TeamTable


class Role(StrEnum):
    """The side of a player: the Resistance (Avalon: good) or the spies (Avalon: evil)."""

    RESISTANCE = "resistance"
    SPY = "spy"


class Variant(StrEnum):
    CLASSIC = "classic"
    AVALON = "avalon"


class Character(StrEnum):
    """A player's Avalon role (a classic game has none)."""

    MERLIN = "merlin"
    PERCIVAL = "percival"
    SERVANT = "servant"
    """A loyal servant of Arthur."""
    ASSASSIN = "assassin"
    MORGANA = "morgana"
    MORDRED = "mordred"
    OBERON = "oberon"
    MINION = "minion"
    """A minion of Mordred."""

    @property
    def side(self) -> Role:
        return Role.RESISTANCE if self in GOOD_CHARACTERS else Role.SPY


GOOD_CHARACTERS = frozenset({Character.MERLIN, Character.PERCIVAL, Character.SERVANT})


class Phase(StrEnum):
    DEBATE = "debate"
    """The leader must propose a team."""
    VOTE = "vote"
    """A team is proposed; team votes and mission choices are being collected."""
    LADY = "lady"
    """Avalon: the holder of the Lady of the Lake must examine a player."""
    ASSASSINATION = "assassination"
    """Avalon: three missions succeeded; the Assassin must name Merlin."""
    OVER = "over"


class Winner(StrEnum):
    RESISTANCE = "resistance"
    SPIES = "spies"


class EndReason(StrEnum):
    """Why the game ended (``Resistance.win_reason``)."""

    THREE_SUCCESSES = "three_successes"
    THREE_FAILURES = "three_failures"
    FIVE_REJECTIONS = "five_rejections"
    CANCELLED = "cancelled"
    MERLIN_ASSASSINATED = "merlin_assassinated"
    """Avalon: the Assassin named Merlin (evil wins)."""
    ASSASSIN_MISSED = "assassin_missed"
    """Avalon: the Assassin named someone else (good wins)."""
    NO_ASSASSINATION = "no_assassination"
    """Avalon: the Assassin named no one by the deadline (good wins)."""


class TeamVote(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"


class MissionChoice(StrEnum):
    SUPPORT = "support"
    SABOTAGE = "sabotage"


class MissingVote(StrEnum):
    """How a player who did not vote is counted."""

    REJECT = "reject"
    ACCEPT = "accept"


#: The Avalon options, each a boolean (off by default).
AVALON_OPTIONS: tuple[str, ...] = ("percival", "morgana", "mordred", "oberon", "lady_of_the_lake")


@dataclass(frozen=True)
class Options:
    """The rule-relevant options of one game (timings and locks live in the service).

    ``variant`` and the Avalon flags: Merlin and the Assassin are always in an Avalon game;
    ``percival``, ``morgana``, ``mordred``, ``oberon`` add those roles and ``lady_of_the_lake``
    the Lady. The flags mean nothing in a classic game (see ``verify_options``).

    ``team_table``: the table of team sizes (:data:`~.tables.TEAM_SIZES`); None, the variant's
    own: the forum's for The Resistance, the box's for Avalon (:data:`~.tables.AVALON_TABLE`).
    A game saved before the tables could be chosen reads as the forum's (``from_dict``), Avalon
    included: it goes on with the table it started with."""

    missing_vote: MissingVote = MissingVote.REJECT
    variant: Variant = Variant.CLASSIC
    percival: bool = False
    morgana: bool = False
    mordred: bool = False
    oberon: bool = False
    lady_of_the_lake: bool = False
    team_table: TeamTable | None = None

    def __post_init__(self) -> None:
        # Accept the plain strings too (``variant="avalon"``), as the enums they name.
        object.__setattr__(self, "missing_vote", MissingVote(self.missing_vote))
        object.__setattr__(self, "variant", Variant(self.variant))
        table = self.team_table
        if table is None:
            table = AVALON_TABLE if self.variant is Variant.AVALON else TeamTable.FORUM
        object.__setattr__(self, "team_table", TeamTable(table))

    @property
    def table(self) -> TeamTable:
        """The table of team sizes in force (``team_table``, never None once made)."""
        return TeamTable(self.team_table or TeamTable.FORUM)

    @property
    def is_avalon(self) -> bool:
        return self.variant is Variant.AVALON

    def to_dict(self) -> dict[str, Any]:
        """A classic game's options on the forum's table keep their original shape
        (``missing_vote`` alone); ``team_table`` is written only when it is not the forum's."""
        d: dict[str, Any] = {"missing_vote": self.missing_vote.value}
        if self.variant is not Variant.CLASSIC or any(self.avalon_flags().values()):
            d["variant"] = self.variant.value
            d.update(self.avalon_flags())
        if self.table is not TeamTable.FORUM:
            d["team_table"] = self.table.value
        return d

    def avalon_flags(self) -> dict[str, bool]:
        return {name: bool(getattr(self, name)) for name in AVALON_OPTIONS}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Options:
        """Unknown keys are ignored; missing keys take their default (``team_table``: the
        forum's, the only table before it could be chosen)."""
        return cls(
            missing_vote=MissingVote(d.get("missing_vote", MissingVote.REJECT.value)),
            variant=Variant(d.get("variant", Variant.CLASSIC.value)),
            percival=bool(d.get("percival", False)),
            morgana=bool(d.get("morgana", False)),
            mordred=bool(d.get("mordred", False)),
            oberon=bool(d.get("oberon", False)),
            lady_of_the_lake=bool(d.get("lady_of_the_lake", False)),
            team_table=TeamTable(d.get("team_table", TeamTable.FORUM.value)),
        )
