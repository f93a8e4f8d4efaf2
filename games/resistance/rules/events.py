"""The Resistance's events: one frozen dataclass per kind (``kind`` is the stored name).

Public events go to the channel and the history; the private ones (``private_to`` set) reach one
player only. Field names and order are the stored payload's keys (see ``rulebase.Event``):
rows written before these classes existed read back unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rulebase import Event

from .model import Character, EndReason, MissingVote, MissionChoice, Role, TeamVote, Variant, Winner


@dataclass(frozen=True)
class ResistanceEvent(Event):
    """Any event of The Resistance (Avalon's included); ``decode`` knows every kind below."""

    KINDS: ClassVar[dict[str, type[Event]]] = {}


# ---------------------------------------------------------------------------------- start


@dataclass(frozen=True)
class GameStarted(ResistanceEvent):
    """Public. Avalon adds ``variant`` and ``lady_holder`` (None without the Lady)."""

    kind = "game_started"
    players: tuple[int, ...]
    leader_order: tuple[int, ...]
    variant: Variant | None = None
    lady_holder: int | None = None

    def omitted(self) -> frozenset[str]:
        return frozenset({"variant", "lady_holder"}) if self.variant is None else frozenset()


@dataclass(frozen=True)
class RoleDealt(ResistanceEvent):
    """Private to ``player``: their side and the players they know to be spies; Avalon adds
    their role and whom they see as Merlin (Percival)."""

    kind = "role_dealt"
    OPTIONAL = frozenset({"character", "merlin_candidates"})
    player: int
    role: Role
    spies: tuple[int, ...]
    character: Character | None = None
    merlin_candidates: tuple[int, ...] | None = None


# ---------------------------------------------------------------------------------- a round


@dataclass(frozen=True)
class TeamProposed(ResistanceEvent):
    kind = "team_proposed"
    proposal: int
    mission: int
    attempt: int
    leader: int
    team: tuple[int, ...]


@dataclass(frozen=True)
class VoteCast(ResistanceEvent):
    """Private: a team vote cast or changed."""

    kind = "vote_cast"
    player: int
    vote: TeamVote
    changed: bool


@dataclass(frozen=True)
class MissionChoiceMade(ResistanceEvent):
    """Private: what is recorded (``choice``) and what was clicked (``requested``)."""

    kind = "mission_choice_made"
    player: int
    choice: MissionChoice
    requested: MissionChoice
    changed: bool


@dataclass(frozen=True)
class SabotageRecordedAsSupport(ResistanceEvent):
    """Private: a Resistance member's sabotage counts as support."""

    kind = "sabotage_recorded_as_support"
    player: int


@dataclass(frozen=True)
class TeamVoteResult(ResistanceEvent):
    """Public: the vote, name by name (``accept``, ``reject``, ``no_vote``: name order)."""

    kind = "team_vote_result"
    proposal: int
    mission: int
    leader: int
    team: tuple[int, ...]
    accepted: bool
    accept: tuple[int, ...]
    reject: tuple[int, ...]
    no_vote: tuple[int, ...]
    missing_vote: MissingVote


@dataclass(frozen=True)
class MissionResult(ResistanceEvent):
    kind = "mission_result"
    mission: int
    team: tuple[int, ...]
    success: bool
    supports: int
    sabotages: int
    sabotages_needed: int


@dataclass(frozen=True)
class LeaderChanged(ResistanceEvent):
    kind = "leader_changed"
    leader: int
    previous: int


@dataclass(frozen=True)
class LeaderSkipped(ResistanceEvent):
    """The leader did not propose in time: a rejection."""

    kind = "leader_skipped"
    leader: int
    mission: int
    rejections: int


# ---------------------------------------------------------------------------------- moderation


@dataclass(frozen=True)
class PlayerSubstituted(ResistanceEvent):
    """``new`` (named ``name``) takes ``old``'s seat. ``old_name``: the leaver's name, which the
    service adds before it stores the event (the engine has forgotten it)."""

    kind = "player_substituted"
    OPTIONAL = frozenset({"old_name"})
    old: int
    new: int
    name: str
    old_name: str | None = None


@dataclass(frozen=True)
class GameCancelled(ResistanceEvent):
    """Every side (keys: player ids as strings, the saved state's form); Avalon: every role."""

    kind = "game_cancelled"
    OPTIONAL = frozenset({"characters"})
    roles: Mapping[str, Role]
    characters: Mapping[str, Character] | None = None


@dataclass(frozen=True)
class GameOver(ResistanceEvent):
    kind = "game_over"
    OPTIONAL = frozenset({"characters"})
    winner: Winner
    reason: EndReason
    roles: Mapping[str, Role]
    characters: Mapping[str, Character] | None = None


# ---------------------------------------------------------------------------------- Avalon


@dataclass(frozen=True)
class AssassinationStarted(ResistanceEvent):
    kind = "assassination_started"
    mission: int


@dataclass(frozen=True)
class AssassinTurn(ResistanceEvent):
    """Private to the Assassin: whom they may name."""

    kind = "assassin_turn"
    player: int
    targets: tuple[int, ...]


@dataclass(frozen=True)
class Assassination(ResistanceEvent):
    kind = "assassination"
    assassin: int
    target: int
    merlin: int
    hit: bool


@dataclass(frozen=True)
class LadyTurn(ResistanceEvent):
    """Public: the holder must examine one of ``eligible``."""

    kind = "lady_turn"
    holder: int
    mission: int
    eligible: tuple[int, ...]


@dataclass(frozen=True)
class LadyExamined(ResistanceEvent):
    """Public: who examined whom (the side stays private: :class:`LadyResult`)."""

    kind = "lady_examined"
    holder: int
    target: int
    mission: int


@dataclass(frozen=True)
class LadyResult(ResistanceEvent):
    """Private to the holder: the examined player's side."""

    kind = "lady_result"
    player: int
    target: int
    side: Role


@dataclass(frozen=True)
class LadyPassed(ResistanceEvent):
    """No one examined by the deadline: the Lady passes on."""

    kind = "lady_passed"
    holder: int
    to: int
    mission: int
