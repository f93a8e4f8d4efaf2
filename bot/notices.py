"""One notice per missing permission, until it is given back.

When Discord refuses a game's effect for a missing permission, the dispatcher tells the game's
channel (or its creator by DM) which permission is missing, named as Discord's settings name
it ("Manage Roles", « Gérer les rôles »), and that ``/<game> resync`` sends again what was
refused. The permissions already named are kept in ``bot_state`` (``<kind>:notice:<game>``,
dropped with the game's end), written in the transaction that records the refusal: a later
refusal for the same cause adds only its log line and its failed outbox row. A permission seen
present again at a later refusal (one that needed it and found it), or a ``resync`` (run once
it is given back), forgets it, so losing it again is told again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.i18n import first_defined
from db import repo
from db.models import Game


def state_key(game: Game) -> str:
    return f"{game.kind}:notice:{game.id}"


def permission_names(permissions: Iterable[str], lang: str) -> str:
    """The permissions as Discord's settings name them, in ``lang`` (``common.permission.*``;
    one the catalogue does not name, as the API does)."""
    return ", ".join(
        f"**{first_defined((f'common.permission.{p}',), lang) or p}**" for p in permissions
    )


@dataclass(frozen=True)
class PermissionNames:
    """A message parameter (``bot.i18n.Localized``): permissions named in the reader's
    language as Discord's settings name them."""

    permissions: tuple[str, ...]

    def localized(self, lang: str) -> str:
        return permission_names(self.permissions, lang)

    def __str__(self) -> str:
        return self.localized("en")


async def to_notice(
    s: AsyncSession, game: Game, missing: list[str], needed: Iterable[str]
) -> list[str]:
    """Of ``missing`` (what a refused effect lacked, of the ``needed`` it asked for), those not
    named yet; records them as named, and forgets those needed and present."""
    key = state_key(game)
    raw = await repo.get_bot_state(s, key)
    named: set[str] = set(json.loads(raw)) if raw else set()
    fresh = [p for p in missing if p not in named]
    now = (named - set(needed)) | set(missing)
    if now != named:
        await repo.set_bot_state(s, key, json.dumps(sorted(now)))
    return fresh


async def forget(s: AsyncSession, game: Game) -> None:
    """A ``resync``: whatever is missing again later is told again."""
    await repo.delete_bot_state(s, state_key(game))
