"""The one way an interaction is answered, for slash commands and buttons alike.

``respond(interaction, call, *args, **kwargs)`` acknowledges the interaction at once (a private
"thinking…", within Discord's 3 seconds), calls ``call(actor, *args, **kwargs)`` with the
:class:`~bot.service.Actor` of the interaction, and sends its answer privately: a text, a
:class:`~bot.service.Reply` (embeds, files, a view), or None for a plain ✅. Any error is turned
into a private, localized message by :func:`bot.errors.report`: a domain refusal (a rule, a
moderator-only command, "too late", a stale button), a channel that already holds a game, a
database kept busy past its retries. Nothing else is written: the service call is the only
work, so a click costs one acknowledgement, the call and one message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

import discord

from bot.effects import split_message
from bot.errors import report
from bot.limits import MESSAGE_CONTENT
from bot.service import Actor, GameService, Reply

P = ParamSpec("P")
S = TypeVar("S", bound=GameService)

#: What a service call answers: a text, a text with embeds/files/a view, or nothing (✅).
Answer = str | Reply | None


def service_of(client: discord.Client, cls: type[S]) -> S:
    """The bot's service of this game (``cls.kind``), as its own class: what a button calls."""
    services: dict[str, GameService] = getattr(client, "services", {})
    service = services.get(cls.kind)
    assert isinstance(service, cls), f"no {cls.kind} service in this client"
    return service


class Responder:
    """The wrapper: ``respond`` answers privately (every command and button but one),
    ``respond_publicly`` in the channel (the leaderboard), mentioning nobody."""

    def __init__(self, *, private: bool) -> None:
        self.private = private
        self.mentions = discord.utils.MISSING if private else discord.AllowedMentions.none()

    async def __call__(
        self,
        interaction: discord.Interaction,
        call: Callable[Concatenate[Actor, P], Awaitable[Answer]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> bool:
        """Defer, run ``call(actor, *args, **kwargs)``, answer; every error takes the one error
        path (privately). True when the call's answer was sent."""
        try:
            await interaction.response.defer(ephemeral=self.private, thinking=True)
            reply = await call(Actor.of(interaction), *args, **kwargs)
            if isinstance(reply, str) and 0 < len(reply) <= MESSAGE_CONTENT:  # a click's answer
                await interaction.followup.send(
                    reply, ephemeral=self.private, allowed_mentions=self.mentions
                )
            else:
                await self.send(interaction, reply)
            return True
        except Exception as exc:
            await report(interaction, exc)
            return False

    async def send(self, interaction: discord.Interaction, reply: Answer) -> None:
        """The answer; a text over 2,000 characters goes in several messages."""
        private, mentions = self.private, self.mentions
        if isinstance(reply, Reply):
            parts = split_message(reply.content) or ["\u200b"]
            for part in parts[:-1]:
                await interaction.followup.send(part, ephemeral=private, allowed_mentions=mentions)
            extra: dict[str, Any] = {} if reply.view is None else {"view": reply.view}
            await interaction.followup.send(
                parts[-1],
                embeds=reply.embeds[:10],
                files=[make() for make in reply.files[:10]],
                ephemeral=private,
                allowed_mentions=mentions,
                **extra,
            )
        else:
            for part in split_message(reply or "✅"):
                await interaction.followup.send(part, ephemeral=private, allowed_mentions=mentions)


respond = Responder(private=True)
respond_publicly = Responder(private=False)


async def answer(interaction: discord.Interaction, work: Callable[[], Awaitable[Answer]]) -> bool:
    """:func:`respond` for a call that needs no actor (settings, statistics, rules)."""

    async def call(actor: Actor) -> Answer:
        return await work()

    return await respond(interaction, call)
