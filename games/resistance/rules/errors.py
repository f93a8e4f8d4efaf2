"""Domain errors. Each carries a catalogue key (``resistance.error.*``) and its parameters."""

from __future__ import annotations

from typing import ClassVar

from rulebase import GameError as GameError
from rulebase import KeyedError as _KeyedError

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
    a vote; ``wrong_phase_vote``: there is no team to vote on; ``wrong_phase_lady``: no one is
    using the Lady of the Lake; ``wrong_phase_assassination``: there is no assassination), so
    each gets its own message. While the Lady or the assassination holds the game, a team
    action gets ``wrong_phase_during_lady`` or ``wrong_phase_during_assassination``.
    """

    KEY = ERROR_PREFIX + "wrong_phase"
    KEYS: ClassVar[tuple[str, ...]] = (
        KEY + "_debate",
        KEY + "_vote",
        KEY + "_lady",
        KEY + "_assassination",
        KEY + "_during_lady",
        KEY + "_during_assassination",
    )
    _HOLDING: ClassVar[frozenset[str]] = frozenset({"lady", "assassination"})

    def __init__(self, **params: str | int) -> None:
        super().__init__(**params)
        expected, phase = str(params.get("expected", "debate")), str(params.get("phase", ""))
        if phase in self._HOLDING and expected not in self._HOLDING:
            self.key = f"{self.KEY}_during_{phase}"
        else:
            self.key = f"{self.KEY}_{expected}"


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


class AvalonOnly(_KeyedError):
    """An Avalon option in a classic game. Params: ``option`` (its name)."""

    KEY = ERROR_PREFIX + "avalon_only"


class MorganaNeedsPercival(_KeyedError):
    """Morgana is only in a game with Percival."""

    KEY = ERROR_PREFIX + "morgana_needs_percival"


class TooManyEvilRoles(_KeyedError):
    """The special evil roles (the Assassin and those chosen) outnumber the spies.

    Params: ``roles`` (special evil roles), ``spies`` (spies for ``count``), ``count``
    (players), ``needed`` (the fewest players whose spy count fits them, 0 if none)."""

    KEY = ERROR_PREFIX + "too_many_evil_roles"


class NoTableFits(_KeyedError):
    """The special evil roles outnumber the spies of every table, the largest included.

    Params: ``roles`` (special evil roles), ``spies`` (the largest table's), ``count`` (its
    players)."""

    KEY = ERROR_PREFIX + "no_table_fits"


class NotAssassin(_KeyedError):
    """Only the Assassin names Merlin."""

    KEY = ERROR_PREFIX + "not_assassin"


class BadAssassinationTarget(_KeyedError):
    """The Assassin named themselves or an evil player they know. Params: ``name``,
    ``player``."""

    KEY = ERROR_PREFIX + "bad_assassination_target"


class NotLadyHolder(_KeyedError):
    """Only the holder of the Lady of the Lake examines. Params: ``holder`` (name),
    ``holder_id``."""

    KEY = ERROR_PREFIX + "not_lady_holder"


class LadyIneligible(_KeyedError):
    """The Lady examines only a player who never held it. Params: ``name``, ``player``."""

    KEY = ERROR_PREFIX + "lady_ineligible"


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
    AvalonOnly,
    MorganaNeedsPercival,
    TooManyEvilRoles,
    NoTableFits,
    NotAssassin,
    BadAssassinationTarget,
    NotLadyHolder,
    LadyIneligible,
)

#: Every error key this engine can raise.
ERROR_KEYS: tuple[str, ...] = tuple(
    key for cls in ERROR_CLASSES for key in (cls.KEYS if cls is WrongPhase else (cls.KEY,))
)
