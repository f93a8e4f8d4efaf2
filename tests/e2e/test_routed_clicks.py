"""The vote buttons' clicks are routed from their custom_id (adapters/discord_clicks.py): discord.py
does not rebuild the view of the message clicked, as it does for every other component, nor parse
that message (adapters/discord_state.py): the click's interaction carries none."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from tests.e2e.test_answer_in_one_call import calls_of, vote_button, voting
from tests.e2e.test_interaction_errors import lobby_of

pytestmark = pytest.mark.timeout(120)


async def test_a_vote_click_is_answered_once_without_rebuilding_its_message(
    table: Any, bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rebuilt: list[int] = []
    from_message = discord.ui.View.from_message.__func__  # type: ignore[attr-defined]
    seen: list[discord.Interaction] = []

    async def on_interaction(interaction: discord.Interaction) -> None:
        seen.append(interaction)

    bot.add_listener(on_interaction)

    def counted(cls: Any, message: discord.Message, /, **kwargs: Any) -> Any:
        rebuilt.append(message.id)
        return from_message(cls, message, **kwargs)

    monkeypatch.setattr(discord.ui.View, "from_message", classmethod(counted))
    sb = table.sb
    await (await sb.slash(table.mod, "resistance new", channel=table.channel)).reply(10)
    lobby = await lobby_of(table)
    join = await sb.click(table.users[5], lobby, label="Join")
    await join.reply(10)
    assert rebuilt == [lobby.id]  # a lobby button goes through discord.py's dispatch
    await (await sb.slash(table.mod, "resistance cancel", channel=table.channel)).reply(10)

    game = await voting(table)
    voter = game.players[1]
    dm, cid = vote_button(game, voter, "accept")
    before = list(rebuilt)  # the leader's menu and Propose button (discord.py's dispatch)
    ix = await sb.click(voter, dm, custom_id=cid)
    answer = await ix.reply(10)
    assert answer is not None and "On record" in answer and "Accept" in answer, answer
    assert calls_of(sb, ix) == ["callback"]  # answered once, in its one callback
    assert rebuilt == before  # the vote DM was not rebuilt
    clicked = next(i for i in seen if i.id == ix.id)
    assert clicked.message is None and clicked.user.id == voter.id  # nor parsed
    joined = next(i for i in seen if i.id == join.id)
    assert joined.message is not None and joined.message.id == lobby.id  # the lobby's is
