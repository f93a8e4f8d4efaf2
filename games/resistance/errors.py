"""Domain errors. Each carries a catalogue key (``resistance.error.*``) and its parameters."""

from __future__ import annotations

from typing import ClassVar

from games.common import GameError as GameError
from games.common import KeyedError as _KeyedError

ERROR_PREFIX = "resistance.error."


class BadPlayerCount(_KeyedError):
    """Params: ``min``, ``max``, ``count``."""

    KEY = ERROR_PREFIX + "bad_player_count"


class DuplicatePlayer(_KeyedError):
    """The same player twice (setup or team). Params: ``name``, ``player`` (id)."""

    KEY = ERROR_PREFIX + "duplicate_player"


class UnknownPlayer(_KeyedError):
    """An id that is not a player of this game (team member, substituted player).

    Params: ``player`` (the id)."""

    KEY = ERROR_PREFIX + "unknown_player"


class NotAPlayer(_KeyedError):
    """The acting user is not a player of this game. Params: ``player`` (the id)."""

    KEY = ERROR_PREFIX + "not_a_player"


class NotLeader(_KeyedError):
    """Only the active leader proposes. Params: ``leader`` (name), ``leader_id``."""

    KEY = ERROR_PREFIX + "not_leader"


class WrongTeamSize(_KeyedError):
    """Params: ``expected``, ``given``."""

    KEY = ERROR_PREFIX + "wrong_team_size"


class NotOnTeam(_KeyedError):
    """Only team members choose support or sabotage. Params: ``name``, ``player``."""

    KEY = ERROR_PREFIX + "not_on_team"


class WrongPhase(_KeyedError):
    """Params: ``phase`` (current phase value), ``expected`` (phase value needed).

    The key names the phase the action needs (``wrong_phase_debate``: a team is already up for
    a vote; ``wrong_phase_vote``: there is no team to vote on), so each gets its own message.
    """

    KEY = ERROR_PREFIX + "wrong_phase"
    KEYS: ClassVar[tuple[str, ...]] = (KEY + "_debate", KEY + "_vote")

    def __init__(self, **params: str | int) -> None:
        super().__init__(**params)
        self.key = f"{self.KEY}_{params.get('expected', 'debate')}"


class GameIsOver(_KeyedError):
    """The game has ended (won or cancelled)."""

    KEY = ERROR_PREFIX + "game_over"


class NoVoteToResolve(_KeyedError):
    """``resolve`` while no team is proposed."""

    KEY = ERROR_PREFIX + "no_vote_to_resolve"


class AlreadyAPlayer(_KeyedError):
    """The substitute already plays in this game. Params: ``name``, ``player``."""

    KEY = ERROR_PREFIX + "already_a_player"


class InvalidVote(_KeyedError):
    """Not ``accept`` or ``reject``. Params: ``value``."""

    KEY = ERROR_PREFIX + "invalid_vote"


class InvalidChoice(_KeyedError):
    """Not ``support`` or ``sabotage``. Params: ``value``."""

    KEY = ERROR_PREFIX + "invalid_choice"


class InvalidAction(_KeyedError):
    """An action record that is unknown or malformed. Params: ``action``."""

    KEY = ERROR_PREFIX + "invalid_action"


#: Every error class, for catalogue checks.
ERROR_CLASSES: tuple[type[_KeyedError], ...] = (
    BadPlayerCount,
    DuplicatePlayer,
    UnknownPlayer,
    NotAPlayer,
    NotLeader,
    WrongTeamSize,
    NotOnTeam,
    WrongPhase,
    GameIsOver,
    NoVoteToResolve,
    AlreadyAPlayer,
    InvalidVote,
    InvalidChoice,
    InvalidAction,
)

#: Every error key this engine can raise.
ERROR_KEYS: tuple[str, ...] = tuple(
    key for cls in ERROR_CLASSES for key in (cls.KEYS if cls is WrongPhase else (cls.KEY,))
)
