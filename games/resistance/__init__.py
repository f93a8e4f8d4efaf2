"""The Resistance, forum (play-by-post) adaptation: pure rules, no I/O.

See ``/work/shared/RULES.md`` Part 1. Quick tour::

    game, events = Resistance.setup(players, random.Random(seed))
    game.propose(game.leader, team)   # -> [Event("team_proposed", ...)]
    game.vote(player_id, TeamVote.ACCEPT)
    game.choose(player_id, MissionChoice.SUPPORT)
    game.resolve()                    # at the deadline
"""

from .errors import (
    ERROR_CLASSES,
    ERROR_KEYS,
    ERROR_PREFIX,
    AlreadyAPlayer,
    BadPlayerCount,
    DuplicatePlayer,
    GameError,
    GameIsOver,
    InvalidAction,
    InvalidChoice,
    InvalidVote,
    NotAPlayer,
    NotLeader,
    NotOnTeam,
    NoVoteToResolve,
    UnknownPlayer,
    WrongPhase,
    WrongTeamSize,
)
from .game import (
    ACTION_NAMES,
    STATE_VERSION,
    Resistance,
    apply_action,
    can_apply,
    name_sort_key,
    verify_action,
)
from .model import (
    EndReason,
    Event,
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
    MISSION_SIZES,
    MISSIONS,
    MISSIONS_TO_WIN,
    RESISTANCE_COUNT,
    SPY_COUNT,
    sabotages_needed,
    team_size,
)
from .views import PrivateView, PublicView

__all__ = [
    "ACTION_NAMES",
    "ERROR_CLASSES",
    "ERROR_KEYS",
    "ERROR_PREFIX",
    "MAX_PLAYERS",
    "MAX_REJECTIONS",
    "MIN_PLAYERS",
    "MISSIONS",
    "MISSIONS_TO_WIN",
    "MISSION_SIZES",
    "RESISTANCE_COUNT",
    "SPY_COUNT",
    "STATE_VERSION",
    "AlreadyAPlayer",
    "BadPlayerCount",
    "DuplicatePlayer",
    "EndReason",
    "Event",
    "GameError",
    "GameIsOver",
    "InvalidAction",
    "InvalidChoice",
    "InvalidVote",
    "MissingVote",
    "MissionChoice",
    "NoVoteToResolve",
    "NotAPlayer",
    "NotLeader",
    "NotOnTeam",
    "Options",
    "Phase",
    "Player",
    "PrivateView",
    "PublicView",
    "Resistance",
    "Role",
    "TeamVote",
    "UnknownPlayer",
    "Winner",
    "WrongPhase",
    "WrongTeamSize",
    "apply_action",
    "can_apply",
    "name_sort_key",
    "sabotages_needed",
    "team_size",
    "verify_action",
]
