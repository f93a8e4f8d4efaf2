"""What each audience may see of a game of Werewolf."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .model import Death, EndReason, Phase, Player, Role, Seen, Tally, Winner


@dataclass(frozen=True)
class PublicView:
    """Everything anyone may see: never a role before its death reveals it (or the end), a
    night pick, the seer's result or a potion."""

    players: tuple[Player, ...]
    alive: tuple[int, ...]
    deaths: tuple[Death, ...]
    """Every death so far, in order (each role shown only if ``reveal_roles``)."""
    phase: Phase
    night: int
    day: int
    captain: int | None
    votes: tuple[Tally, ...]
    """The election's or the day's count (empty in other phases)."""
    not_voted: tuple[int, ...]
    """The living players who have not voted yet, seat order (election and day only)."""
    hunter: int | None
    """The dead hunter taking his last shot (phase HUNTER)."""
    successor_of: int | None
    """The dead captain naming a successor (phase SUCCESSION)."""
    wolves: int
    specials: tuple[Role, ...]
    winner: Winner | None
    win_reason: EndReason | None
    roles: Mapping[int, Role] = field(default_factory=dict)
    """Every role, once the game is over; empty before."""


@dataclass(frozen=True)
class PrivateView:
    """What one player knows: their role, their fellow wolves, their lover, what they saw, their
    potions, tonight's picks (wolves) and victim (wolves, and the witch once it is settled)."""

    player: int
    role: Role
    alive: bool
    wolves: tuple[int, ...]
    lover: int | None
    seen: tuple[Seen, ...]
    life_potion: bool | None
    death_potion: bool | None
    picks: Mapping[int, int]
    victim: int | None
    victim_settled: bool
    vote: int | None
    owes: bool
    """Whether the player still owes an action or a vote now."""
