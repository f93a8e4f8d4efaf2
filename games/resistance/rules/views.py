"""What each audience may see of a game."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import (
    Character,
    EndReason,
    MissionChoice,
    Phase,
    Player,
    Role,
    TeamVote,
    Variant,
    Winner,
)
from .tables import TeamTable


@dataclass(frozen=True)
class PublicView:
    """Everything anyone may see. Never holds a role (before the end), a vote or a choice."""

    players: tuple[Player, ...]
    leader_order: tuple[int, ...]
    leader: int
    mission: int
    results: tuple[bool, ...]
    rejections: int
    phase: Phase
    team: tuple[int, ...] | None
    team_size: int
    sabotages_needed: int
    proposal_number: int
    waiting_for: tuple[int, ...]
    """Players who have not voted on the team yet (VOTE phase only). Never who on the team has
    not chosen support or sabotage: that is private (``Resistance.owing``)."""
    votes_in: int
    """How many players have voted on the current team."""
    winner: Winner | None
    win_reason: EndReason | None
    roles: dict[int, Role]
    """Empty unless the game is over."""
    variant: Variant = Variant.CLASSIC
    characters: dict[int, Character] = field(default_factory=dict)
    """Avalon roles: empty unless the game is over."""
    lady_holder: int | None = None
    """Who holds the Lady of the Lake (Avalon with the Lady), else None."""
    lady_holders: tuple[int, ...] = ()
    """Everyone who has held the Lady, in order (the first holder first)."""
    team_table: TeamTable = TeamTable.FORUM
    """The table of team sizes the game plays."""
    team_sizes: tuple[int, ...] = ()
    """The team sizes of missions 1..5 at this player count, in that table."""


@dataclass(frozen=True)
class PrivateView:
    """What one player may see: their role, whom they know, their own record."""

    player: int
    role: Role
    spies: tuple[int, ...]
    """The players this player knows to be spies (classic: the other spies, for a spy; Avalon:
    the evil players their role sees)."""
    vote: TeamVote | None
    choice: MissionChoice | None
    on_team: bool
    character: Character | None = None
    """Avalon role, else None."""
    merlin_candidates: tuple[int, ...] = ()
    """Percival: Merlin and Morgana, in seat order (which is which stays unknown)."""
    lady_results: tuple[tuple[int, Role], ...] = ()
    """The players this player examined with the Lady of the Lake, and their side."""
