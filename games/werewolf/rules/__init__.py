"""Werewolf (Loups-garous): pure rules, no I/O.

See ``docs/rules.md``, "Part 3 — Werewolf". Quick tour::

    game, events = Werewolf.setup(players, random.Random(seed), Options(cupid=True))
    game.elect(voter, candidate)        # option captain: before the first night
    game.pick(wolf, target)             # the den; settled when all living wolves agree
    game.close_wolves()                 # the wolves' deadline
    game.look(seer, target); game.brew(witch, heal, poison); game.link(cupid, a, b)
    game.vote(voter, target_or_None)    # the day
    game.shoot(hunter, target); game.name_successor(captain, successor)
    game.resolve()                      # the deadline of whatever is open

Each event's ``AUDIENCE`` (events.py) says who may see it; ``history`` holds the public ones.
"""

from . import tables
from .errors import (
    ERROR_CLASSES,
    ERROR_KEYS,
    ERROR_PREFIX,
    GameError,
    TooFewWolves,
    TooManyRoles,
    TooManyWolves,
)
from .events import AUDIENCES, Audience, WerewolfEvent
from .game import (
    ACTION_NAMES,
    STATE_VERSION,
    Werewolf,
    apply_action,
    can_apply,
    deal,
    verify_action,
    verify_setup,
    wolves_for,
)
from .model import (
    SPECIAL_ROLES,
    Cause,
    Death,
    EndReason,
    NightRecord,
    Options,
    Phase,
    Player,
    Role,
    Seen,
    Side,
    Tally,
    Winner,
)
from .tables import MAX_PLAYERS, MAX_WOLVES, MIN_PLAYERS, MIN_WOLVES, WOLF_COUNT, WOLF_TABLE
from .views import PrivateView, PublicView

__all__ = [
    "ACTION_NAMES",
    "AUDIENCES",
    "ERROR_CLASSES",
    "ERROR_KEYS",
    "ERROR_PREFIX",
    "MAX_PLAYERS",
    "MAX_WOLVES",
    "MIN_PLAYERS",
    "MIN_WOLVES",
    "SPECIAL_ROLES",
    "STATE_VERSION",
    "WOLF_COUNT",
    "WOLF_TABLE",
    "Audience",
    "Cause",
    "Death",
    "EndReason",
    "GameError",
    "NightRecord",
    "Options",
    "Phase",
    "Player",
    "PrivateView",
    "PublicView",
    "Role",
    "Seen",
    "Side",
    "Tally",
    "TooFewWolves",
    "TooManyRoles",
    "TooManyWolves",
    "Werewolf",
    "WerewolfEvent",
    "Winner",
    "apply_action",
    "can_apply",
    "deal",
    "tables",
    "verify_action",
    "verify_setup",
    "wolves_for",
]
