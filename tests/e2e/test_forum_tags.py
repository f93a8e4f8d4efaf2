"""Forums that require a tag on every post (REQUIRE_TAG): the sandbox refuses an untagged post
with 40067 as Discord does; ``/<game> new`` tags the game's post. A forum has no message box, so
the command is run from a text channel and names the forum in its ``forum`` option."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from playtest.players import text_of, until
from sandbox import SandboxError

pytestmark = pytest.mark.timeout(60)


async def open_in(table: Any, forum: Any, command: str, **options: Any) -> str:
    """``command`` run in the table's text channel, naming ``forum`` (None: none)."""
    ix = await table.sb.slash(table.mod, command, channel=table.channel, forum=forum, **options)
    return text_of(await ix.reply_message(10))


async def the_post(sb: Any, forum: Any) -> Any:
    return await until(lambda: next(iter(sb.threads(forum)), None), what="the forum post")


async def test_a_tag_named_like_the_game_is_used_by_default(table: Any, bot: Any) -> None:
    sb = table.sb
    forum = table.guild.add_forum_channel(
        "tagged", tags=["Weekly", "Résistance", "Refutation game"], require_tag=True
    )
    assert "open in" in await open_in(table, forum, "resistance new")
    post = await the_post(sb, forum)
    assert post.applied_tags == [forum.tag_id("Résistance")]
    # Named like the game's full title works too.
    other = table.guild.add_forum_channel(
        "other", tags=["Weekly", "The Refutation Game"], require_tag=True
    )
    assert "open in" in await open_in(table, other, "refutation new")
    assert (await the_post(sb, other)).applied_tags == [other.tag_id("The Refutation Game")]


async def test_the_tag_option_autocompletes_and_applies(table: Any, bot: Any) -> None:
    sb = table.sb
    forum = table.guild.add_forum_channel(
        "tagged", tags=["Weekly", "Casual", "Resistance"], require_tag=True
    )
    choices = await sb.autocomplete(
        table.mod, "refutation new", channel=table.channel, forum=forum, focused="tag", tag="cas"
    )
    assert choices == [{"name": "Casual", "value": str(forum.tag_id("Casual"))}]
    everything = await sb.autocomplete(
        table.mod, "resistance new", channel=table.channel, forum=forum, focused="tag", tag=""
    )
    assert [c["name"] for c in everything] == ["Weekly", "Casual", "Resistance"]
    # Without a forum there is nothing to offer.
    assert (
        await sb.autocomplete(
            table.mod, "resistance new", channel=table.channel, focused="tag", tag=""
        )
        == []
    )
    # The chosen tag wins over the one named like the game; a typed name works too.
    assert "open in" in await open_in(table, forum, "refutation new", tag=choices[0]["value"])
    post = await the_post(sb, forum)
    assert post.applied_tags == [forum.tag_id("Casual")]
    assert "open in" in await open_in(table, forum, "resistance new", tag="weekly")
    newest = sb.thread_of(forum)
    assert newest is not post and newest.applied_tags == [forum.tag_id("Weekly")]


async def test_a_required_tag_is_asked_privately_then_the_game_opens(table: Any, bot: Any) -> None:
    sb = table.sb
    forum = table.guild.add_forum_channel("tagged", tags=["Weekly", "Casual"], require_tag=True)
    ix = await sb.slash(
        table.mod, "resistance new", channel=table.channel, forum=forum, vote_hours=2.0
    )
    ask = await ix.reply_message(10)
    assert ask.ephemeral and "requires a tag" in ask.text
    assert sb.threads(forum) == []  # nothing opened yet
    (select,) = ask.selects
    assert [o["label"] for o in select["options"]] == ["Weekly", "Casual"]
    pick = await sb.select(
        table.mod, ask, values=[str(forum.tag_id("Casual"))], custom_id=select["custom_id"]
    )
    await pick.wait_ack(10)
    await until(lambda: "open in" in sb.message(ask.id).text, what="the answer edited")
    assert sb.message(ask.id).selects == []
    post = await the_post(sb, forum)
    assert post.applied_tags == [forum.tag_id("Casual")]
    async with bot.sessions() as s:
        from db import repo

        game = await repo.active_game_in_channel(s, post.id)
        assert game is not None and game.options["vote_hours"] == 2.0


async def test_bad_tags_get_a_private_answer_and_open_nothing(table: Any, bot: Any) -> None:
    sb = table.sb
    forum = table.guild.add_forum_channel("tagged", tags=["Weekly"], require_tag=True)
    reply = await open_in(table, forum, "resistance new", tag="**Nitro**")
    assert "has no tag" in reply and "\\*\\*Nitro\\*\\*" in reply and "Weekly" in reply
    reply = await open_in(table, None, "resistance new", tag="Weekly")
    assert "name the forum in the forum option" in reply
    bare = table.guild.add_forum_channel("bare", require_tag=True)
    reply = await open_in(table, bare, "refutation new")
    assert "has none" in reply
    assert sb.threads(forum) == [] and sb.threads(bare) == []
    assert not [m for m in sb.channel_messages(table.channel) if m.labels]
    assert not [r for r in sb.requests if r.error_code == 40067]


async def test_a_forum_without_the_flag_still_takes_untagged_posts(table: Any, bot: Any) -> None:
    sb = table.sb
    assert "open in" in await open_in(table, table.forum, "resistance new")
    assert (await the_post(sb, table.forum)).applied_tags == []


async def test_the_forum_is_named_in_the_option_as_a_forum_has_no_message_box(
    table: Any, bot: Any
) -> None:
    sb = table.sb
    # Discord's client runs no command in the forum itself (no message box), and its forum
    # option offers forums only: the sandbox refuses both, as Discord does.
    with pytest.raises(SandboxError, match="no message box"):
        await sb.slash(table.mod, "resistance new", channel=table.forum)
    with pytest.raises(SandboxError, match="type"):
        await sb.slash(table.mod, "resistance new", channel=table.channel, forum=table.channel)
    # Run from a post of that forum (a thread), the forum option still opens a new post.
    other = table.forum.add_thread("Chat", owner=table.mod)
    ix = await sb.slash(table.mod, "refutation new", channel=other, forum=table.forum)
    assert "open in" in text_of(await ix.reply_message(10))
    await until(lambda: len(sb.threads(table.forum)) == 2, what="the game's post")
    post = sb.thread_of(table.forum)  # the newest
    assert post.id != other.id
    async with bot.sessions() as s:
        from db import repo

        assert await repo.active_game_in_channel(s, post.id) is not None
        assert await repo.active_game_in_channel(s, other.id) is None


async def test_a_forum_the_moderator_cannot_see_opens_nothing(table: Any, bot: Any) -> None:
    """A modified client could name a forum its member cannot see: refused privately."""
    sb = table.sb
    hidden = table.guild.add_forum_channel("staff")
    hidden.set_permissions(table.mod, deny=discord.Permissions(view_channel=True).value)
    reply = await open_in(table, hidden, "resistance new")
    assert "cannot see that forum" in reply
    assert sb.threads(hidden) == []
    assert not [m for m in sb.channel_messages(table.channel) if m.labels]


async def test_a_forum_deleted_meanwhile_opens_nothing(table: Any, bot: Any) -> None:
    """The forum picked, then deleted before the command arrives: the bot no longer has it."""
    sb = table.sb
    gone = table.guild.add_forum_channel("gone")
    table.guild.delete_channel(gone)
    await until(lambda: bot.get_channel(gone.id) is None, what="the bot's cache updated")
    reply = await open_in(table, gone, "resistance new")
    assert "cannot find that forum" in reply
    assert not [m for m in sb.channel_messages(table.channel) if m.labels]
