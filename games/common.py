"""What every rules engine shares: the domain error and the player."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar


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
