"""What each audience may see of a game."""

from __future__ import annotations

from dataclasses import dataclass

from .model import EndReason, MissionChoice, Phase, Player, Role, TeamVote, Winner


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
    """Players who have not voted or, if on the team, not chosen (VOTE phase only)."""
    votes_in: int
    """How many players have voted on the current team."""
    winner: Winner | None
    win_reason: EndReason | None
    roles: dict[int, Role]
    """Empty unless the game is over."""


@dataclass(frozen=True)
class PrivateView:
    """What one player may see: their role, the other spies (spies only), their own record."""

    player: int
    role: Role
    spies: tuple[int, ...]
    vote: TeamVote | None
    choice: MissionChoice | None
    on_team: bool
