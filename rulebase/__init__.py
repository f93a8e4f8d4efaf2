"""What every rules engine shares: the domain error, the player and the event base (a package
of its own, standard library only, that the core and every game's rules both import)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable


class GameError(Exception):
    """An action that the rules do not allow. ``key`` is a full message-catalogue key and
    ``params`` fills its placeholders."""

    def __init__(self, key: str, params: Mapping[str, str | int] | None = None) -> None:
        self.key: str = key
        self.params: dict[str, str | int] = dict(params or {})
        super().__init__(self.key, self.params)

    def __str__(self) -> str:
        if not self.params:
            return self.key
        details = ", ".join(f"{name}={value!r}" for name, value in self.params.items())
        return f"{self.key} ({details})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.key!r}, {self.params!r})"


def can(verify: Callable[..., None], *args: Any) -> bool:
    """Whether ``verify(*args)`` accepts: an engine's ``can_*`` from its ``verify_*``."""
    try:
        verify(*args)
    except GameError:
        return False
    return True


class KeyedError(GameError):
    """A GameError whose key is fixed by its class; parameters are keyword arguments."""

    KEY: ClassVar[str] = ""

    def __init__(self, **params: str | int) -> None:
        super().__init__(self.KEY, params)


@dataclass(frozen=True)
class Player:
    id: int
    """Discord user id."""
    name: str
    """Display name."""

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Player:
        return cls(id=int(d["id"]), name=str(d["name"]))


# ---------------------------------------------------------------------------------- events

E = TypeVar("E", bound="Event")
_Decode = Callable[[Any], Any]


@dataclass(frozen=True)
class Event:
    """Something that happened, as an action of a rules engine returns it.

    Each kind of event is a frozen dataclass below a game's family base (a direct subclass
    that declares ``KINDS = {}``, e.g. ``ResistanceEvent``); the kind's stored name is the
    class attribute ``kind``. Read events with ``match``::

        match event:
            case TeamVoteResult(accepted=True, mission=mission): ...

    ``private_to`` is None when the event may be shown publicly, else the id of the only player
    who may see it.

    The event log stores each event as its kind, a JSON payload (:meth:`payload`) and
    ``private_to``; :meth:`decode` reads such a row back through the family's registry of
    kinds, and ``decode(kind, e.payload(), e.private_to) == e``. Field types drive the JSON
    form: tuples are lists, enums their values, mapping keys strings (read back as the declared
    key type), nested dataclasses objects. A field named in ``OPTIONAL`` is left out of the
    payload while it is None (a key older rows or some variants do not have)."""

    kind: ClassVar[str] = ""
    KINDS: ClassVar[dict[str, type[Event]]] = {}
    """The family's registry: stored kind name -> class (each family base has its own)."""
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    private_to: int | None = field(default=None, kw_only=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "KINDS" in cls.__dict__:  # a game's family base
            return
        kind = cls.__dict__.get("kind")
        if not isinstance(kind, str) or not kind:
            raise TypeError(f"{cls.__name__} must name its kind")
        if kind in cls.KINDS:
            raise TypeError(
                f"two events of kind {kind!r}: {cls.KINDS[kind].__name__}, {cls.__name__}"
            )
        cls.KINDS[kind] = cls

    @property
    def is_private(self) -> bool:
        return self.private_to is not None

    def omitted(self) -> frozenset[str]:
        """The fields the payload leaves out: by default the ``OPTIONAL`` ones that are None."""
        return frozenset(name for name in self.OPTIONAL if getattr(self, name) is None)

    def payload(self) -> dict[str, Any]:
        """The JSON form of the fields (what the event log's ``payload`` column holds)."""
        out: dict[str, Any] = _plain(self, json=True)
        return out

    @property
    def data(self) -> dict[str, Any]:
        """The fields as plain values (lists, dicts, enum values; mapping keys as declared): a
        fresh copy, for tests and logs. Code reads the typed fields."""
        out: dict[str, Any] = _plain(self, json=False)
        return out

    def to_dict(self) -> dict[str, Any]:
        """``{"kind", "data", "private_to"}``, JSON-compatible (a saved state's history)."""
        return {"kind": self.kind, "data": self.payload(), "private_to": self.private_to}

    @classmethod
    def from_dict(cls: type[E], d: Mapping[str, Any]) -> E:
        """The event that :meth:`to_dict` wrote."""
        private_to = d.get("private_to")
        return cls.decode(str(d["kind"]), d.get("data") or {}, private_to)

    @classmethod
    def decode(
        cls: type[E], kind: str, payload: Mapping[str, Any], private_to: int | None = None
    ) -> E:
        """The typed event of a stored row (kind, JSON payload, private_to), through the
        registry of ``cls``'s family. Raises ValueError for an unknown kind, a missing or
        unknown key, or a value of the wrong type (nothing is dropped or invented)."""
        event_cls = cls.KINDS.get(kind)
        if event_cls is None or not issubclass(event_cls, cls):
            raise ValueError(f"unknown event kind {kind!r}")
        fields = _decoder(event_cls)(payload)
        return event_cls(**fields, private_to=None if private_to is None else int(private_to))

    @classmethod
    def knows(cls, kind: str) -> bool:
        """Whether ``kind`` is an event of this family (the event log holds others too)."""
        return kind in cls.KINDS


@runtime_checkable
class Substitution(Protocol):
    """What every game's ``player_substituted`` event says: ``new`` (named ``name``) takes
    ``old``'s seat; ``old_name`` is the leaver's name, which the service adds before it stores
    the event (the engine has forgotten it). The core reads any game's through this."""

    @property
    def old(self) -> int: ...

    @property
    def new(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def old_name(self) -> str | None: ...


def _plain(value: Any, *, json: bool) -> Any:
    """A dataclass, enum, tuple or mapping as plain JSON-like values (``json``: string keys)."""
    if isinstance(value, Event | Record) and dataclasses.is_dataclass(value):
        left_out = value.omitted() if isinstance(value, Event) else frozenset()
        return {
            f.name: _plain(getattr(value, f.name), json=json)
            for f in dataclasses.fields(value)
            if f.name != "private_to" and f.name not in left_out
        }
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {(str(k) if json else k): _plain(v, json=json) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, json=json) for v in value]
    return value


class Record:
    """Base of a frozen dataclass nested in an event's field (stored as a JSON object)."""


_DECODERS: dict[type, Callable[[Mapping[str, Any]], dict[str, Any]]] = {}


def _decoder(cls: type) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """The function that turns a payload into ``cls``'s constructor arguments (built once)."""
    found = _DECODERS.get(cls)
    if found is not None:
        return found
    hints = typing.get_type_hints(cls)
    fields = [f for f in dataclasses.fields(cls) if f.name != "private_to"]
    parts = [
        (
            f.name,
            _convert(hints[f.name], f"{cls.__name__}.{f.name}"),
            f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING,
        )
        for f in fields
    ]
    known = {f.name for f in fields}
    name = cls.__name__

    def decode(payload: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(payload, Mapping):
            raise ValueError(f"{name}: not an object")
        unknown = set(payload) - known
        if unknown:
            raise ValueError(f"{name}: unknown keys {sorted(unknown)}")
        out: dict[str, Any] = {}
        for key, convert, optional in parts:
            if key in payload:
                out[key] = convert(payload[key])
            elif not optional:
                raise ValueError(f"{name}: missing key {key!r}")
        return out

    _DECODERS[cls] = decode
    return decode


def _convert(tp: Any, where: str) -> _Decode:
    """A JSON value -> a value of type ``tp`` (checked)."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is Any:
        return json_copy
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        if len(rest) != 1 or len(args) != 2:
            raise TypeError(f"{where}: only X | None unions are supported")
        inner = _convert(rest[0], where)
        return lambda v: None if v is None else inner(v)
    if origin is tuple:
        if len(args) != 2 or args[1] is not Ellipsis:
            raise TypeError(f"{where}: only tuple[X, ...] is supported")
        item = _convert(args[0], where)

        def to_tuple(v: Any) -> tuple[Any, ...]:
            if not isinstance(v, list | tuple):
                raise ValueError(f"{where}: expected a list, got {v!r}")
            return tuple(item(x) for x in v)

        return to_tuple
    if origin in (Mapping, dict):
        key, value = _convert(args[0], where), _convert(args[1], where)
        key_type = args[0]

        def to_dict(v: Any) -> dict[Any, Any]:
            if not isinstance(v, Mapping):
                raise ValueError(f"{where}: expected an object, got {v!r}")
            keys = {k: int(k) if key_type is int else key(k) for k in v}
            return {keys[k]: value(x) for k, x in v.items()}

        return to_dict
    if isinstance(tp, type) and issubclass(tp, Enum):
        enum_type = tp
        return lambda v: enum_type(v)
    if isinstance(tp, type) and issubclass(tp, Record):
        fields_of = _decoder(tp)
        record_type = tp
        return lambda v: record_type(**fields_of(v))
    if tp is bool:
        return _checked(lambda v: isinstance(v, bool), where, "a boolean")
    if tp is int:
        return _checked(lambda v: isinstance(v, int) and not isinstance(v, bool), where, "an int")
    if tp is str:
        return _checked(lambda v: isinstance(v, str), where, "a string")
    raise TypeError(f"{where}: unsupported field type {tp!r}")


def _checked(ok: Callable[[Any], bool], where: str, what: str) -> _Decode:
    def check(v: Any) -> Any:
        if not ok(v):
            raise ValueError(f"{where}: expected {what}, got {v!r}")
        return v

    return check


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts, lists, scalars)."""
    if isinstance(value, Mapping):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_copy(v) for v in value]
    return value
