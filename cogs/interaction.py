"""The one way an interaction is answered, for slash commands and buttons alike.

``respond(interaction, call, *args, **kwargs)`` calls ``call(actor, *args, **kwargs)`` with the
:class:`~bot.service.Actor` of the interaction and sends its answer privately: a text, a
:class:`~bot.service.Reply` (embeds, files, a view), or None for a plain ✅. A call that ends
within about a second (:func:`answer_budget`: less when the interaction reached us late, so
that the first callback always leaves well inside Discord's 3 seconds) is answered by the
interaction's one callback (type 4, the answer itself); a slower one is deferred (a private
"thinking…") while it goes on, then answered by a follow-up, as a long text's further parts are.
Any error is turned into a private, localized message by :func:`bot.errors.report`: a domain
refusal (a rule, a moderator-only command, "too late", a stale button), a channel that already
holds a game, a database kept busy past its retries. ``respond_in_place`` answers a component
by updating its own message instead (a select whose choice the message shows). Nothing else is
written: the service call is the only work, so a click costs the call and one REST call (two
when deferred).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, ParamSpec, TypeVar

import discord

from adapters.discord_callback import send_text
from bot import metrics
from bot.effects import split_message
from bot.errors import report
from bot.limits import MESSAGE_CONTENT
from bot.service import Actor, GameService, Reply

P = ParamSpec("P")
S = TypeVar("S", bound=GameService)

#: What a service call answers: a text, a text with embeds/files/a view, or nothing (✅).
Answer = str | Reply | None

#: The largest id a custom_id may carry: Discord's ids (snowflakes) and ours are 64-bit signed.
MAX_ID = 2**63 - 1


def id_of(digits: str) -> int:
    """A number read from a custom_id, checked before any query: one that does not fit 64 bits
    (a forged button) reads as 0, which names no game, so it is refused like a stale button
    and never reaches the database (where it would fail a whole batch of clicks)."""
    value = int(digits) if len(digits) <= 19 else 0
    return value if 0 <= value <= MAX_ID else 0


def service_of(client: discord.Client, cls: type[S]) -> S:
    """The bot's service of this game (``cls.kind``), as its own class: what a button calls."""
    services: dict[str, GameService] = getattr(client, "services", {})
    service = services.get(cls.kind)
    assert isinstance(service, cls), f"no {cls.kind} service in this client"
    return service


#: Discord's window to acknowledge an interaction, in seconds from its creation (its snowflake).
WINDOW = 3.0
#: What is left of that window, at least, when the first callback leaves: the time it may take
#: to reach Discord on a loaded loop and network.
MARGIN = 1.5
#: The longest a call is waited for before the interaction is deferred.
BUDGET = 1.0


def answer_budget(snowflake: int, now: float | None = None) -> float:
    """How long the call of the interaction ``snowflake`` may run before the interaction must be
    deferred: ``BUDGET``, less when it reached us late, so that the first callback leaves before
    ``WINDOW - MARGIN`` of its age; 0 or less: defer first. The age is read from the snowflake
    against this host's clock (``now``, seconds since the epoch): a clock ahead of Discord's only
    makes the bot defer sooner, one behind it is still held to ``BUDGET``."""
    age = (time.time() if now is None else now) - metrics.created(snowflake)
    return min(BUDGET, WINDOW - MARGIN - max(0.0, age))


class Responder:
    """The wrapper: ``respond`` answers privately (every command and button but one),
    ``respond_publicly`` in the channel (the leaderboard), mentioning nobody;
    ``respond_in_place`` answers a component by updating the message it is on (a select whose
    choice the message shows), an error privately as always."""

    def __init__(self, *, private: bool, in_place: bool = False) -> None:
        self.private = private
        self.in_place = in_place
        self.mentions = discord.utils.MISSING if private else discord.AllowedMentions.none()

    async def __call__(
        self,
        interaction: discord.Interaction,
        call: Callable[Concatenate[Actor, P], Awaitable[Answer]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> bool:
        """Run ``call(actor, *args, **kwargs)`` and answer: in the interaction's one callback
        when the call ends within :func:`answer_budget`, else after a deferred "thinking…"
        callback, by a follow-up. Every error takes the one error path (privately). True when
        the call's answer was sent."""
        try:
            budget = answer_budget(interaction.id)
            if budget <= 0:  # it reached us late: acknowledge first, then run the call
                await self.defer(interaction)
                reply = await call(Actor.of(interaction), *args, **kwargs)
            else:
                reply = await self.within(
                    interaction, budget, call(Actor.of(interaction), *args, **kwargs)
                )
            await self.send(interaction, reply)
            return True
        except Exception as exc:
            await report(interaction, exc)
            return False

    async def defer(self, interaction: discord.Interaction) -> None:
        if self.in_place and interaction.message is not None:  # "deferred update" (type 6)
            await interaction.response.defer()
            return
        await interaction.response.defer(ephemeral=self.private, thinking=True)

    async def within(
        self, interaction: discord.Interaction, budget: float, work: Awaitable[Answer]
    ) -> Answer:
        """``work`` awaited in this very task (no task of its own: each is a turn through the
        loop's ready queue, long when the loop is busy); past ``budget`` seconds a timer defers
        the interaction while it goes on. If the defer fails (the interaction expired), the call
        still runs to its end, and its own error, if any, is the one raised."""
        loop = asyncio.get_running_loop()
        deferring: asyncio.Task[None] | None = None

        def late() -> None:
            nonlocal deferring
            deferring = loop.create_task(self.defer(interaction))

        timer = loop.call_later(budget, late)
        try:
            reply = await work
        except BaseException:
            if deferring is not None:  # the error is answered once the defer is through; the
                await asyncio.wait((deferring,))  # defer's own failure is not the one raised
                if not deferring.cancelled():
                    deferring.exception()
            raise
        finally:
            timer.cancel()
        if deferring is not None:
            await deferring
        return reply

    async def post(self, interaction: discord.Interaction, content: str, **extra: Any) -> None:
        """One message of the answer: the interaction's callback (type 4) if nothing answered
        it yet, else a follow-up."""
        if interaction.response.is_done():
            await interaction.followup.send(
                content, ephemeral=self.private, allowed_mentions=self.mentions, **extra
            )
        elif not extra:  # a text alone: the created message not read back (discord_callback)
            await send_text(
                interaction, content, ephemeral=self.private, allowed_mentions=self.mentions
            )
        else:
            await interaction.response.send_message(
                content, ephemeral=self.private, allowed_mentions=self.mentions, **extra
            )

    async def update(self, interaction: discord.Interaction, reply: Answer) -> None:
        """The component's message updated with the answer: its text (cut to one message) and,
        for a :class:`~bot.service.Reply`, its view; by the interaction's callback (type 7),
        else, after a deferred update, by editing that message."""
        content = reply.content if isinstance(reply, Reply) else reply or "✅"
        extra: dict[str, Any] = {"content": split_message(content)[0] if content else "\u200b"}
        if isinstance(reply, Reply) and reply.view is not None:
            extra["view"] = reply.view
        if interaction.response.is_done():
            await interaction.edit_original_response(**extra)
        else:
            await interaction.response.edit_message(**extra)

    async def send(self, interaction: discord.Interaction, reply: Answer) -> None:
        """The answer; a text over 2,000 characters goes in several messages (the first is the
        callback when the interaction was not deferred, the rest follow-ups)."""
        if self.in_place and interaction.message is not None:
            await self.update(interaction, reply)
        elif isinstance(reply, str) and 0 < len(reply) <= MESSAGE_CONTENT:  # a click's answer
            await self.post(interaction, reply)
        elif isinstance(reply, Reply):
            parts = split_message(reply.content) or ["\u200b"]
            for part in parts[:-1]:
                await self.post(interaction, part)
            extra: dict[str, Any] = {} if reply.view is None else {"view": reply.view}
            await self.post(
                interaction,
                parts[-1],
                embeds=reply.embeds[:10],
                files=[make() for make in reply.files[:10]],
                **extra,
            )
        else:
            for part in split_message(reply or "✅"):
                await self.post(interaction, part)


respond = Responder(private=True)
respond_publicly = Responder(private=False)
respond_in_place = Responder(private=True, in_place=True)


async def answer(interaction: discord.Interaction, work: Callable[[], Awaitable[Answer]]) -> bool:
    """:func:`respond` for a call that needs no actor (settings, statistics, rules)."""

    async def call(actor: Actor) -> Answer:
        return await work()

    return await respond(interaction, call)
