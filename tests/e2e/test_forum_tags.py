"""Forums that require a tag on every post (REQUIRE_TAG): the sandbox refuses an untagged post
with 40067 as Discord does; ``/<game> new`` tags the game's post."""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.play import text_of, until

pytestmark = pytest.mark.timeout(60)


async def open_in(table: Any, forum: Any, command: str, **options: Any) -> str:
    ix = await table.sb.slash(table.mod, command, channel=forum, **options)
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
        table.mod, "refutation new", channel=forum, focused="tag", tag="cas"
    )
    assert choices == [{"name": "Casual", "value": str(forum.tag_id("Casual"))}]
    everything = await sb.autocomplete(
        table.mod, "resistance new", channel=forum, focused="tag", tag=""
    )
    assert [c["name"] for c in everything] == ["Weekly", "Casual", "Resistance"]
    # In a text channel there is nothing to offer.
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
    ix = await sb.slash(table.mod, "resistance new", channel=forum, vote_hours=2.0)
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
    reply = await open_in(table, table.channel, "resistance new", tag="Weekly")
    assert "forum channels" in reply
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
