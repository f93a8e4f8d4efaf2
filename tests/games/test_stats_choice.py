"""``/stats top`` for a game it does not count names the games it does, from the registry: the
built-in games read as the catalogue wrote them by hand before (Werewolf the third), and
another game joins the list."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from bot import i18n
from bot.errors import UserError, describe
from bot.plugins import Registry
from bot.stats import StatsService
from games.builtin import builtin_plugins
from tests.e2e.poll_game.plugin import PLUGIN as POLL


async def _refusal(registry: Registry, lang: str) -> str:
    service = StatsService(SimpleNamespace(registry=registry))
    with pytest.raises(UserError) as refused:
        await service.top(guild_id=1, kind="chess", min_games=1)
    text = describe(refused.value, lang)
    assert text is not None
    return text


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Choose The Resistance, The Refutation Game or Werewolf."),
        ("fr", "Choisissez The Resistance, The Refutation Game ou Loups-garous."),
    ],
)
async def test_the_built_in_games_are_named_as_before(lang: str, text: str) -> None:
    assert await _refusal(Registry(builtin_plugins()), lang) == text


@pytest.fixture
def poll_catalogue() -> Iterator[None]:
    """The catalogue as it was after the test (the catalogue checks read the built-in games')."""
    before = dict(i18n._PLUGIN_LOCALES)
    yield
    i18n._PLUGIN_LOCALES.clear()
    i18n._PLUGIN_LOCALES.update(before)
    i18n.catalogue.cache_clear()


@pytest.mark.parametrize(
    ("lang", "text"),
    [
        ("en", "Choose The Resistance, The Refutation Game, Werewolf or Poll."),
        ("fr", "Choisissez The Resistance, The Refutation Game, Loups-garous ou Sondage."),
    ],
)
async def test_another_game_joins_the_list(lang: str, text: str, poll_catalogue: None) -> None:
    assert await _refusal(Registry([*builtin_plugins(), POLL]), lang) == text
