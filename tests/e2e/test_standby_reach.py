"""The replacement list never waits on someone who cannot answer, through the sandbox (which
refuses DMs, 403 50007, to a user whose DMs are closed and to one who left every server it
shares with the bot): ``standby`` probes the volunteer's DMs; an offer Discord refuses passes
at once to the next volunteer; a volunteer who left the server is refused the seat, privately
and in their language, and the seat passes on."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from bot.i18n import t
from db import repo
from games.resistance.players import Game
from playtest.players import text_of, until
from tests.e2e.test_standby import answer, miss_a_vote, offer_dm, offered_to_the_first_of_two

pytestmark = pytest.mark.timeout(120)

LANGS = {"en": "en-US", "fr": "fr"}


async def seated(bot: Any, table: Any) -> set[int]:
    async with bot.sessions() as s:
        row = await repo.active_game_in_channel(s, table.channel.id)
        assert row is not None
        return {p.user_id for p in await repo.players(s, row.id)}


def volunteer(table: Any, name: str, lang: str = "en", *, dms_open: bool = True) -> Any:
    user = table.sb.add_user(name, locale=LANGS[lang], dms_open=dms_open)
    table.guild.add_member(user)
    return user


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_standby_refuses_a_member_whose_dms_are_closed_saying_how_to_open_them(
    table: Any, bot: Any, lang: str
) -> None:
    xena = volunteer(table, "Xena", lang, dms_open=False)
    game = Game(table, table.users[:5])
    await game.open()
    assert await game.slash(xena, "resistance standby") == t("common.standby.dms_closed", lang)
    assert "Replacement list" not in await game.slash(table.mod, "resistance status")
    xena.dms_open = True  # opened as the message says: the probe reaches them now
    joined = await game.slash(xena, "resistance standby")
    assert joined == t("common.standby.joined", lang, position=1)
    probe = [
        m for m in table.sb.dms(xena) if "replacement list" in m.text or "remplaçants" in m.text
    ]
    assert len(probe) == 1


@pytest.mark.parametrize("why", ["dms-closed", "left-the-server"])
async def test_an_offer_discord_refuses_passes_at_once_to_the_next_volunteer(
    table: Any, bot: Any, why: str
) -> None:
    first, second = volunteer(table, "Xena"), volunteer(table, "Yann", "fr")
    game = Game(table, table.users[:5])
    await game.open(replace_after=1, reminder_hours=0.0)
    await game.slash(first, "resistance standby")
    await game.slash(second, "resistance standby")
    await game.start()
    if why == "dms-closed":
        first.dms_open = False
    else:
        table.guild.remove_member(first)
    absent = next(u for u in game.players if u is not game.leader())
    await miss_a_vote(game, absent)
    # Not after the offer's 24 hours: as soon as Discord refused the first one's DM.
    offer = await until(partial(offer_dm, table, second), what="the second volunteer's offer")
    assert "Une place est libre" in text_of(offer)
    assert offer_dm(table, first) is None


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_a_volunteer_who_left_the_server_is_refused_the_seat_and_it_passes_on(
    table: Any, bot: Any, lang: str
) -> None:
    udo, yann = volunteer(table, "Udo", lang), volunteer(table, "Yann")
    game = Game(table, table.users[:5])
    offer = await offered_to_the_first_of_two(table, game, udo, yann)
    since = len(game.public())
    table.guild.remove_member(udo)
    reply = await answer(table, udo, offer, yes=True)
    assert reply == t("common.standby.not_a_member", lang)
    await until(partial(offer_dm, table, yann), what="the next volunteer's offer")
    assert udo.id not in await seated(bot, table)
    assert [x for x in game.public()[since:] if "Udo" in x] == []
    assert "Udo" not in (await game.slash(table.mod, "resistance status"))


@pytest.mark.parametrize("lang", ["en", "fr"])
async def test_substitute_refuses_a_volunteer_who_left_and_offers_the_seat_to_the_next(
    table: Any, bot: Any, lang: str
) -> None:
    udo, yann = volunteer(table, "Udo"), volunteer(table, "Yann")
    table.mod.locale = LANGS[lang]
    players = table.users[:5]
    game = Game(table, players)
    await game.open()
    await game.slash(udo, "resistance standby")
    await game.slash(yann, "resistance standby")
    await game.start()
    table.guild.remove_member(udo)
    since = len(game.public())
    reply = await game.slash(
        table.mod, "resistance substitute", old=players[1], volunteer=str(udo.id)
    )
    assert reply == t("common.standby.volunteer_left", lang, name="Udo")
    offer = await until(partial(offer_dm, table, yann), what="the next volunteer's offer")
    assert players[1].name in text_of(offer)
    assert await seated(bot, table) == {u.id for u in players}
    assert [x for x in game.public()[since:] if "Udo" in x] == []
