"""Discord's error behaviour, as discord.py sees it."""

from __future__ import annotations

import io

import discord
import pytest

from sandbox import Sandbox, SandboxError, util
from tests.sandbox.client import running

from .botkit import SandboxBot

pytestmark = pytest.mark.timeout(30)


async def test_dm_to_closed_user_is_forbidden_50007(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    carol = sb.add_user("Carol", dms_open=False)
    guild.add_member(carol)
    async with running(SandboxBot(), sb) as client:
        user = await client.fetch_user(carol.id)
        channel = await user.create_dm()  # opening the DM channel works, as on Discord
        assert channel.id == sb.dm_channel(carol).id
        with pytest.raises(discord.Forbidden) as err:
            await channel.send("your role")
        assert err.value.code == 50007 and err.value.status == 403
    assert sb.dms(carol) == []


async def test_dm_to_a_user_who_left_every_shared_server_is_forbidden_50007(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    udo = sb.add_user("Udo")
    guild.add_member(udo)
    async with running(SandboxBot(), sb) as client:
        channel = await (await client.fetch_user(udo.id)).create_dm()
        await channel.send("while a member")
        guild.remove_member(udo)  # the bot shares no server with them any more
        with pytest.raises(discord.Forbidden) as err:
            await channel.send("after they left")
        assert err.value.code == 50007 and err.value.status == 403
    assert [m.content for m in sb.dms(udo)] == ["while a member"]


async def test_429_is_retried_by_discord_py(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    sb.fail_route("POST", r"^/channels/\d+/messages$", status=429, retry_after=0.05, times=2)
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        sent = await channel.send("after two 429s")
    posts = sb.requests_to("POST /channels/{channel_id}/messages")
    assert [r.status for r in posts] == [429, 429, 200]
    assert posts[2].time - posts[0].time >= 0.09
    assert [m.content for m in sb.channel_messages(text)] == ["after two 429s"]
    assert sent.id == sb.channel_messages(text)[0].id


async def test_other_injected_failures_surface_as_http_errors(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    sb.fail_route("POST", r"/messages$", status=403, code=50013, message="Missing Permissions")
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        with pytest.raises(discord.Forbidden) as err:
            await channel.send("x")
        assert err.value.code == 50013
        with pytest.raises(discord.NotFound) as nf:
            await client.fetch_channel(12345678901234567)
        assert nf.value.code == 10003
        with pytest.raises(discord.NotFound) as nf:
            await channel.fetch_message(12345678901234567)
        assert nf.value.code == 10008
        with pytest.raises(discord.NotFound) as nf:
            await client.fetch_user(12345678901234567)
        assert nf.value.code == 10013


async def test_late_interaction_answer_is_10062(sb: Sandbox) -> None:
    sb.interaction_timeout = 0.2
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    async with running(SandboxBot(), sb) as client:
        ix = await sb.slash(alice, "slow", channel=text, delay=0.3)
        await sb._wait_for(lambda: client.errors, 5, "the late answer")
        with pytest.raises(TimeoutError):
            await ix.wait_ack(timeout=0.05)
    err = client.errors[0]
    assert isinstance(err, discord.NotFound) and err.code == 10062


async def test_second_answer_is_40060(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    async with running(SandboxBot(), sb) as client:
        ix = await sb.slash(alice, "double", channel=text)
        assert await ix.reply() == "first"
        await sb._wait_for(lambda: client.errors, 5, "the second answer")
    err = client.errors[0]
    assert isinstance(err, discord.HTTPException) and err.code == 40060 and err.status == 400


async def test_edit_limit_gives_30046(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    sb.edit_limit = 2
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        msg = await channel.send("v0")
        await msg.edit(content="v1")
        await msg.edit(content="v2")
        with pytest.raises(discord.HTTPException) as err:
            await msg.edit(content="v3")
        assert err.value.code == 30046
        assert sb.message(msg.id).content == "v2"

        # Only messages older than an hour count, when asked for.
        sb.edit_limit_only_old = True
        fresh = await channel.send("fresh")
        for i in range(4):
            await fresh.edit(content=f"fresh {i}")
        sb.mark_old(sb.message(fresh.id))
        with pytest.raises(discord.HTTPException) as err:
            await fresh.edit(content="too many")
        assert err.value.code == 30046


async def test_missing_permissions_50013_and_missing_access_50001(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    hidden = guild.add_text_channel("hidden")
    hidden.set_permissions(guild.bot_role, deny=util.VIEW_CHANNEL)
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        msg = await channel.send("pin me")

        guild.set_role_permissions(
            guild.bot_role, util.BOT_ROLE_DEFAULT & ~(util.MANAGE_MESSAGES | util.PIN_MESSAGES)
        )
        with pytest.raises(discord.Forbidden) as err:
            await msg.pin()
        assert err.value.code == 50013

        text.set_permissions(guild.everyone, deny=util.SEND_MESSAGES)
        with pytest.raises(discord.Forbidden) as err:
            await channel.send("muted")
        assert err.value.code == 50013

        with pytest.raises(discord.Forbidden) as err:
            await client.http.send_message(hidden.id, params=_params("x"))
        assert err.value.code == 50001

        text.set_permissions(guild.bot_role, deny=util.CREATE_PUBLIC_THREADS)
        with pytest.raises(discord.Forbidden) as err:
            await channel.create_thread(name="t", type=discord.ChannelType.public_thread)
        text.set_permissions(guild.bot_role)  # removes the overwrite
        thread = await channel.create_thread(name="t", type=discord.ChannelType.public_thread)
        assert sb.channel(thread.id).parent_id == text.id
    assert err.value.code == 50013


def _params(content: str) -> discord.http.MultipartParameters:
    return discord.http.handle_message_parameters(content=content)


async def test_pinning_needs_pin_messages_manage_messages_is_not_enough(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    everything_but_pin = util.BOT_ROLE_DEFAULT & ~util.PIN_MESSAGES
    assert everything_but_pin & util.MANAGE_MESSAGES
    guild.set_role_permissions(guild.bot_role, everything_but_pin)
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        message = await channel.send("leader list")
        for action in (message.pin, message.unpin):
            with pytest.raises(discord.Forbidden) as err:
                await action()
            assert (err.value.status, err.value.code) == (403, 50013)
        assert sb.pins(text) == []
        guild.set_role_permissions(
            guild.bot_role, (everything_but_pin | util.PIN_MESSAGES) & ~util.MANAGE_MESSAGES
        )
        await sb._wait_for(lambda: channel.permissions_for(channel.guild.me).pin_messages, 5, "")
        await message.pin()
        assert [m.id for m in sb.pins(text)] == [message.id]


async def test_forum_requiring_a_tag_refuses_an_untagged_post_40067(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    forum = guild.add_forum_channel("games", tags=["resistance"], require_tag=True)
    async with running(SandboxBot(), sb) as client:
        channel = client.get_channel(forum.id)
        assert isinstance(channel, discord.ForumChannel) and channel.flags.require_tag
        with pytest.raises(discord.HTTPException) as err:
            await channel.create_thread(name="game", content="lobby")
        assert (err.value.status, err.value.code) == (400, 40067)
        assert "A tag is required" in err.value.text
        tag = channel.available_tags[0]
        created = await channel.create_thread(name="game", content="lobby", applied_tags=[tag])
        assert sb.channel(created.thread.id).applied_tags == [tag.id]
        with pytest.raises(discord.HTTPException) as untag:
            await created.thread.edit(applied_tags=[])
        assert untag.value.code == 40067
        forum.set_flags(0)
        await sb._wait_for(lambda: not channel.flags.require_tag, 5, "the flag cleared")
        await channel.create_thread(name="free", content="no tag needed")
    assert len(sb.threads(forum)) == 2


async def test_driver_refuses_option_values_beyond_declared_bounds(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    async with running(SandboxBot(), sb):
        cmd = sb.find_command("resistance")
        admin = next(o for o in cmd["options"] if o["name"] == "admin")
        hours = admin["options"][0]["options"][0]
        assert (hours["min_value"], hours["max_value"]) == (1, 72)
        for bad in (0, 73, 2.5):
            with pytest.raises(SandboxError):
                await sb.slash(alice, "resistance admin extend", channel=text, hours=bad)
        for good in (1, 72):
            ix = await sb.slash(alice, "resistance admin extend", channel=text, hours=good)
            assert (await ix.reply() or "").startswith(f"+{good}h")
        sb.enforce_option_bounds = False  # a client that sends them anyway
        ix = await sb.slash(alice, "resistance admin extend", channel=text, hours=73)
        assert ix.payload["data"]["options"][0]["options"][0]["options"][0]["value"] == 73


@pytest.mark.parametrize(
    ("option", "where", "code"),
    [
        ({"type": 3, "min_value": 1}, "min_value", "APPLICATION_COMMAND_OPTION_INVALID_FIELD"),
        ({"type": 4, "min_value": 5, "max_value": 4}, "max_value", "NUMBER_TYPE_MIN"),
        ({"type": 4, "max_value": 2**53}, "max_value", "NUMBER_TYPE_MAX"),
        ({"type": 4, "min_value": 1.5}, "min_value", "NUMBER_TYPE_COERCE"),
        ({"type": 10, "min_value": -(2**53)}, "min_value", "NUMBER_TYPE_MIN"),
        ({"type": 3, "max_length": 0}, "max_length", "NUMBER_TYPE_MIN"),
        ({"type": 3, "max_length": 6001}, "max_length", "NUMBER_TYPE_MAX"),
        ({"type": 10, "min_length": 1}, "min_length", "APPLICATION_COMMAND_OPTION_INVALID_FIELD"),
        (
            {"type": 5, "autocomplete": True},
            "autocomplete",
            "APPLICATION_COMMAND_OPTION_INVALID_FIELD",
        ),
    ],
)
async def test_registering_bad_option_bounds_is_invalid_form_body(
    sb: Sandbox, option: dict[str, object], where: str, code: str
) -> None:
    async with running(SandboxBot(sync=False), sb) as client:
        body = [
            {
                "name": "cmd",
                "description": "d",
                "options": [{"name": "opt", "description": "d", **option}],
            }
        ]
        with pytest.raises(discord.HTTPException) as err:
            await client.http.bulk_upsert_global_commands(sb.application_id, body)
        assert (err.value.status, err.value.code) == (400, 50035)
        (refused,) = [r for r in sb.requests if r.status == 400]
        nested = refused.error["errors"]["0"]["options"]["0"][where]["_errors"]
        assert nested[0]["code"] == code
        ok = [
            {
                "name": "cmd",
                "description": "d",
                "options": [
                    {
                        "name": "opt",
                        "description": "d",
                        "type": 4,
                        "min_value": -(2**53) + 1,
                        "max_value": 2**53 - 1,
                    }
                ],
            }
        ]
        await client.http.bulk_upsert_global_commands(sb.application_id, ok)


async def test_requests_are_checked_against_discords_openapi_spec(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    route = discord.http.Route
    async with running(SandboxBot(), sb) as client:
        http = client.http
        # A route Discord does not have: 404, code 0.
        with pytest.raises(discord.NotFound) as unknown:
            await http.request(route("GET", "/channels/{channel_id}/nope", channel_id=text.id))
        assert unknown.value.code == 0
        # A body that breaks the spec: 50035 with Discord's nested errors.
        for body, where, code in (
            ({"content": 5}, ["content"], "BASE_TYPE_STRING"),
            ({"content": "x", "tts": "yes"}, ["tts"], "BOOLEAN_TYPE_CONVERT"),
            ({"embeds": [{"title": "t"}] * 11}, ["embeds"], "BASE_TYPE_MAX_LENGTH"),
            (
                {"content": "x", "message_reference": {}},
                ["message_reference", "message_id"],
                "BASE_TYPE_REQUIRED",
            ),
            ({"content": "x", "sticker_ids": ["abc"]}, ["sticker_ids", "0"], "NUMBER_TYPE_COERCE"),
            ({"components": [{"type": 99}]}, ["components", "0", "type"], "BASE_TYPE_CHOICES"),
            (
                {"components": [{"type": 1, "components": [{"type": 2, "style": "big"}]}]},
                ["components", "0", "components", "0", "style"],
                "NUMBER_TYPE_COERCE",
            ),
        ):
            with pytest.raises(discord.HTTPException) as bad:
                await http.request(
                    route("POST", "/channels/{channel_id}/messages", channel_id=text.id), json=body
                )
            assert (bad.value.status, bad.value.code) == (400, 50035)
            nested = sb.requests[-1].error["errors"]
            for key in where:
                nested = nested[key]
            assert nested["_errors"][0]["code"] == code, sb.requests[-1].error
        # A path parameter that is not a snowflake.
        with pytest.raises(discord.HTTPException) as path:
            await http.request(route("GET", "/channels/{channel_id}", channel_id="general"))
        assert path.value.code == 50035
        assert sb.requests[-1].error["errors"]["channel_id"]["_errors"][0]["message"] == (
            'Value "general" is not snowflake.'
        )
        # What discord.py sends that the spec mis-types is accepted (the allow-list).
        channel = client.get_channel(text.id)
        assert isinstance(channel, discord.TextChannel)
        await channel.send(file=discord.File(io.BytesIO(b"x"), "x.txt"))  # attachments[0].id = 0
        role = channel.guild.get_role(guild.everyone.id)
        assert role is not None
        await channel.set_permissions(role, send_messages=False)  # allow/deny as strings
        await client.fetch_guild(guild.id, with_counts=True)  # ?with_counts=1
    assert len(sb.spec_violations()) == 9
    assert all(r.status < 400 for r in sb.requests[-3:])
