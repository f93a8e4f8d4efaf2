"""Attachments as Discord does them: multipart uploads, the CDN, limits, ATTACHMENT options."""

from __future__ import annotations

import io

import discord
import pytest

from sandbox import Sandbox, SandboxError, Upload, util
from tests.sandbox.client import running

from .botkit import SandboxBot

pytestmark = pytest.mark.timeout(30)

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x40\x00\x00\x00\xf0\x08\x06\x00\x00\x00"
    + b"\x00" * 32
)


def text_channel(client: discord.Client, channel_id: int) -> discord.TextChannel:
    channel = client.get_channel(channel_id)
    assert isinstance(channel, discord.TextChannel)
    return channel


async def test_channel_upload_is_recorded_and_served(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    async with running(SandboxBot(), sb) as client:
        channel = text_channel(client, text.id)
        sent = await channel.send(
            "the archive",
            files=[
                discord.File(io.BytesIO(b"# Game 1\n\nvotes"), "game-1.md", description="log"),
                discord.File(io.BytesIO(PNG), "votes.png"),
            ],
        )
        stored = sb.message(sent.id)
        assert stored.filenames == ["game-1.md", "votes.png"]
        md, png = stored.attachments
        assert md["description"] == "log" and md["size"] == 15
        assert md["content_type"] == "text/markdown; charset=utf-8"
        assert png["content_type"] == "image/png"
        assert (png["width"], png["height"]) == (320, 240)
        assert stored.file("votes.png") == PNG
        # The URL really serves the bytes (discord.py's Attachment.read goes through it).
        assert await sent.attachments[0].read() == b"# Game 1\n\nvotes"
        assert sent.attachments[1].content_type == "image/png"
        fetched = await channel.fetch_message(sent.id)
        assert [a.filename for a in fetched.attachments] == ["game-1.md", "votes.png"]
    post = sb.requests_to("POST /channels/{channel_id}/messages")[-1]
    assert post.json["attachments"][0]["filename"] == "game-1.md"


async def test_edit_keeps_listed_attachments_and_adds_new_ones(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    async with running(SandboxBot(), sb) as client:
        channel = text_channel(client, text.id)
        sent = await channel.send(
            files=[discord.File(io.BytesIO(b"a"), "a.txt"), discord.File(io.BytesIO(b"b"), "b.txt")]
        )
        edited = await sent.edit(
            attachments=[sent.attachments[1], discord.File(io.BytesIO(b"c"), "c.txt")]
        )
        assert [a.filename for a in edited.attachments] == ["b.txt", "c.txt"]
        assert sb.message(sent.id).file("c.txt") == b"c"
        assert sb.message(sent.id).file("b.txt") == b"b"


async def test_upload_limits_and_permission(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    sb.attachment_size_limit = 1024
    async with running(SandboxBot(), sb) as client:
        channel = text_channel(client, text.id)
        ok = await channel.send(file=discord.File(io.BytesIO(b"x" * 1024), "limit.bin"))
        assert sb.message(ok.id).attachments[0]["size"] == 1024
        with pytest.raises(discord.HTTPException) as too_big:
            await channel.send(file=discord.File(io.BytesIO(b"x" * 1025), "over.bin"))
        assert (too_big.value.status, too_big.value.code) == (413, 40005)
        with pytest.raises(discord.HTTPException) as too_many:
            await channel.send(
                files=[discord.File(io.BytesIO(b"x"), f"{i}.txt") for i in range(11)]
            )
        assert (too_many.value.status, too_many.value.code) == (400, 50035)
        text.set_permissions(guild.bot_role, deny=util.ATTACH_FILES)
        with pytest.raises(discord.Forbidden) as denied:
            await channel.send(file=discord.File(io.BytesIO(b"x"), "x.txt"))
        assert denied.value.code == 50013
        await channel.send("text still works")
    assert len(sb.channel_messages(text)) == 2


@pytest.mark.parametrize("how", ["response", "followup", "edit"])
async def test_attachment_option_and_files_in_interaction_answers(sb: Sandbox, how: str) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    async with running(SandboxBot(), sb):
        ix = await sb.slash(
            alice, "echo_file", channel=text, file=Upload("deck.toml", b"[cards]\n"), how=how
        )
        answer = await ix.reply_message()
        assert answer is not None
        if how == "edit":
            await sb._wait_for(lambda: answer.attachments, 5, "the edited attachments")
        assert answer.contains("deck.toml 8 application/toml; charset=utf-8")
        assert answer.filenames == ["reversed-deck.toml"]
        assert answer.file() == b"\n]sdrac["
        assert answer.ephemeral == (how == "followup")
    option = ix.payload["data"]["resolved"]["attachments"]
    (attachment,) = option.values()
    assert attachment["ephemeral"] is True and "/ephemeral-attachments/" in attachment["url"]
    assert sb.attachment_data(attachment["url"]) == b"[cards]\n"


async def test_driver_refuses_a_file_over_the_users_limit(sb: Sandbox) -> None:
    guild = sb.add_guild("Guild")
    text = guild.add_text_channel("game")
    alice = sb.add_user("Alice")
    guild.add_member(alice)
    sb.attachment_size_limit = 10
    async with running(SandboxBot(), sb):
        with pytest.raises(SandboxError, match="refuses files over 10 bytes"):
            await sb.slash(alice, "echo_file", channel=text, file=Upload("big.txt", b"x" * 11))
        ix = await sb.slash(alice, "echo_file", channel=text, file=Upload("ok.txt", b"x" * 10))
        assert ix.payload["attachment_size_limit"] == 10
        assert (await ix.reply_message()) is not None
