"""Domain errors. Each carries a catalogue key (``werewolf.error.*``) and its parameters."""

from __future__ import annotations

from rulebase import GameError as GameError
from rulebase import KeyedError as _KeyedError

ERROR_PREFIX = "werewolf.error."


class BadPlayerCount(_KeyedError):
    """Params: ``min``, ``max``, ``count``."""

    KEY = ERROR_PREFIX + "bad_player_count"


class DuplicatePlayer(_KeyedError):
    """Params: ``name``, ``player``."""

    KEY = ERROR_PREFIX + "duplicate_player"


class TooManyWolves(_KeyedError):
    """As many wolves as the others, or more. Params: ``value`` (wolves), ``count`` (players),
    ``max`` (the most wolves at ``count``), ``needed`` (the fewest players for ``value``)."""

    KEY = ERROR_PREFIX + "too_many_wolves"


class TooFewWolves(_KeyedError):
    """Params: ``value`` (wolves asked), ``min`` (the fewest allowed)."""

    KEY = ERROR_PREFIX + "too_few_wolves"


class TooManyRoles(_KeyedError):
    """More special roles than plain villagers. Params: ``roles`` (special roles), ``others``
    (plain villagers left), ``count`` (players), ``needed`` (the fewest players that fit)."""

    KEY = ERROR_PREFIX + "too_many_roles"


class UnknownPlayer(_KeyedError):
    """Params: ``player`` (the id)."""

    KEY = ERROR_PREFIX + "unknown_player"


class NotAPlayer(_KeyedError):
    """The acting user does not play. Params: ``player``."""

    KEY = ERROR_PREFIX + "not_a_player"


class AlreadyAPlayer(_KeyedError):
    """The substitute already plays. Params: ``name``, ``player``."""

    KEY = ERROR_PREFIX + "already_a_player"


class PlayerIsDead(_KeyedError):
    """A dead player neither acts nor votes. Params: ``name``, ``player``."""

    KEY = ERROR_PREFIX + "player_is_dead"


class TargetIsDead(_KeyedError):
    """Only a living player may be named. Params: ``name``, ``player``."""

    KEY = ERROR_PREFIX + "target_is_dead"


class TargetIsSelf(_KeyedError):
    """The seer, the witch's death potion, the hunter and the captain name someone else."""

    KEY = ERROR_PREFIX + "target_is_self"


class TargetIsWolf(_KeyedError):
    """The wolves pick a victim who is not a wolf. Params: ``name``, ``player``."""

    KEY = ERROR_PREFIX + "target_is_wolf"


class WrongPhase(_KeyedError):
    """Params: ``phase`` (the phase now), ``expected`` (the one the action needs). The key
    names the phase needed (``wrong_phase_night``…), each its own message."""

    KEY = ERROR_PREFIX + "wrong_phase"

    def __init__(self, **params: str | int) -> None:
        super().__init__(**params)
        self.key = f"{self.KEY}_{params.get('expected', 'night')}"


class GameIsOver(_KeyedError):
    KEY = ERROR_PREFIX + "game_over"


class NotAWolf(_KeyedError):
    KEY = ERROR_PREFIX + "not_a_wolf"


class NotTheSeer(_KeyedError):
    KEY = ERROR_PREFIX + "not_the_seer"


class NotTheWitch(_KeyedError):
    KEY = ERROR_PREFIX + "not_the_witch"


class NotCupid(_KeyedError):
    KEY = ERROR_PREFIX + "not_cupid"


class NotTheHunter(_KeyedError):
    """Only the hunter who has just died shoots."""

    KEY = ERROR_PREFIX + "not_the_hunter"


class NotTheCaptain(_KeyedError):
    """Only the captain who has just died names a successor."""

    KEY = ERROR_PREFIX + "not_the_captain"


class AlreadyActed(_KeyedError):
    """The seer has looked, the witch has chosen, Cupid has linked: once a night."""

    KEY = ERROR_PREFIX + "already_acted"


class VictimSettled(_KeyedError):
    """The wolves' victim is settled: picks no longer change."""

    KEY = ERROR_PREFIX + "victim_settled"


class VictimNotSettled(_KeyedError):
    """The witch chooses once the wolves' victim is settled."""

    KEY = ERROR_PREFIX + "victim_not_settled"


class NoLifePotion(_KeyedError):
    KEY = ERROR_PREFIX + "no_life_potion"


class NoDeathPotion(_KeyedError):
    KEY = ERROR_PREFIX + "no_death_potion"


class NoVictim(_KeyedError):
    """The life potion saves the wolves' victim: tonight there is none."""

    KEY = ERROR_PREFIX + "no_victim"


class FirstNightOnly(_KeyedError):
    """Cupid links the lovers on the first night only."""

    KEY = ERROR_PREFIX + "first_night_only"


class SameLover(_KeyedError):
    """Cupid links two different players."""

    KEY = ERROR_PREFIX + "same_lover"


class InvalidAction(_KeyedError):
    """An action record that is unknown or malformed. Params: ``action``."""

    KEY = ERROR_PREFIX + "invalid_action"


#: Every error class, for the catalogue's checks.
ERROR_CLASSES: tuple[type[_KeyedError], ...] = (
    BadPlayerCount,
    DuplicatePlayer,
    TooManyWolves,
    TooFewWolves,
    TooManyRoles,
    UnknownPlayer,
    NotAPlayer,
    AlreadyAPlayer,
    PlayerIsDead,
    TargetIsDead,
    TargetIsSelf,
    TargetIsWolf,
    WrongPhase,
    GameIsOver,
    NotAWolf,
    NotTheSeer,
    NotTheWitch,
    NotCupid,
    NotTheHunter,
    NotTheCaptain,
    AlreadyActed,
    VictimSettled,
    VictimNotSettled,
    NoLifePotion,
    NoDeathPotion,
    NoVictim,
    FirstNightOnly,
    SameLover,
    InvalidAction,
)

#: The phases an action may need (each a ``wrong_phase_<phase>`` key).
ACTION_PHASES: tuple[str, ...] = ("election", "night", "day", "hunter", "succession")

#: Every error key this engine can raise.
ERROR_KEYS: tuple[str, ...] = tuple(
    key
    for cls in ERROR_CLASSES
    for key in (
        tuple(f"{WrongPhase.KEY}_{p}" for p in ACTION_PHASES) if cls is WrongPhase else (cls.KEY,)
    )
)
