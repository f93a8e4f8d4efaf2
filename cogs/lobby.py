"""The lobby every game shares: Join / Leave buttons on a lobby message, ``/<game> new`` and the
commands every game's cog mixes in (join, leave, add, remove, start, cancel, the moderation).

Loaded as an extension (bot.app.COGS): it registers the lobby's persistent button and the view
the dispatcher builds for ``View("lobby", ...)`` records."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol

import discord
from discord import app_commands
from discord.ext import commands

from bot import modlog
from bot.app import GameBot
from bot.choice import VIEW
from bot.errors import UserError, report
from bot.i18n import Lang, lang_of, t
from bot.options import OptionsSchema
from bot.reachable import OFFER_VIEW
from bot.service import Actor, GameService, Reply, TagRequired
from cogs import choice
from cogs.game_options import with_options
from cogs.interaction import Answer, id_of, respond

P = ParamSpec("P")

if TYPE_CHECKING:
    from discord.ext.commands import GroupCog

    class CommandMixin(GroupCog):
        """The shared command classes are only ever mixed into a game's GroupCog (which
        app_commands requires of a command's owner): the type checker sees them as one."""

else:

    class CommandMixin:
        """A base of the command classes mixed into each game's GroupCog."""


def game_bot(client: discord.Client) -> GameBot:
    """The bot the cogs run in: only GameBot loads them (bot.app.COGS and the games')."""
    assert isinstance(client, GameBot)
    return client


def service_for(client: discord.Client, kind: str) -> GameService:
    """The service of the game ``kind``; a kind this bot does not run (a button of a game
    removed since) gets the usual answer to an old button."""
    service = game_bot(client).services.get(kind)
    if service is None:
        raise UserError("common.error.no_game")
    return service


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    # any kind (bot.plugins.KIND): the registry decides which ones this bot runs
    template=r"lobby:(?P<kind>[a-z][a-z0-9]{0,15}):(?P<game>\d+):(?P<action>join|leave)",
):
    def __init__(self, kind: str, game_id: int, action: str, lang: Lang = "en") -> None:
        style = discord.ButtonStyle.success if action == "join" else discord.ButtonStyle.secondary
        super().__init__(
            discord.ui.Button(
                label=t(f"common.lobby.{action}_button", lang),
                style=style,
                custom_id=f"lobby:{kind}:{game_id}:{action}",
            )
        )
        self.kind, self.game_id, self.action = kind, game_id, action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LobbyButton:
        return cls(match["kind"], id_of(match["game"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        async def click(actor: Actor, game_id: int) -> str:
            # A kind this bot does not run is refused inside the answer (an old button).
            service = service_for(interaction.client, self.kind)
            act = service.lobby.join if self.action == "join" else service.lobby.leave
            return await act(actor, game_id)

        # The click counts only in the lobby's own guild and channel (Actor.place), not on a
        # forwarded copy.
        await respond(interaction, click, self.game_id)


class OfferButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"standby:(?P<kind>[a-z][a-z0-9]{0,15}):(?P<game>\d+):(?P<offer>\d+):(?P<answer>yes|no)",
):
    """Accept or Decline on the DM that offers a volunteer a free seat (the replacement list):
    its meaning is in the custom_id, so it works after a restart."""

    def __init__(self, kind: str, game_id: int, offer: int, answer: str, lang: Lang = "en") -> None:
        accept = answer == "yes"
        super().__init__(
            discord.ui.Button(
                label=t(f"common.standby.{'accept' if accept else 'decline'}_button", lang),
                style=discord.ButtonStyle.success if accept else discord.ButtonStyle.secondary,
                custom_id=f"standby:{kind}:{game_id}:{offer}:{answer}",
            )
        )
        self.kind, self.game_id, self.offer, self.answer = kind, game_id, offer, answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> OfferButton:
        return cls(match["kind"], id_of(match["game"]), id_of(match["offer"]), match["answer"])

    async def callback(self, interaction: discord.Interaction) -> None:
        async def answer(actor: Actor) -> str:
            service = service_for(interaction.client, self.kind)
            return await service.seats.answer_offer(
                actor, self.game_id, self.offer, self.answer == "yes"
            )

        await respond(interaction, answer)


def offer_view(kind: str, game_id: int, offer: int, lang: Lang) -> discord.ui.View:
    """Accept / Decline: the dispatcher's builder for ``View("standby_offer", ...)``."""
    view = discord.ui.View(timeout=None)
    view.add_item(OfferButton(kind, game_id, offer, "yes", lang))
    view.add_item(OfferButton(kind, game_id, offer, "no", lang))
    return view


def lobby_view(kind: str, game_id: int, lang: Lang) -> discord.ui.View:
    """The Join / Leave buttons: the dispatcher's builder for ``View("lobby", ...)``."""
    view = discord.ui.View(timeout=None)
    view.add_item(LobbyButton(kind, game_id, "join", lang))
    view.add_item(LobbyButton(kind, game_id, "leave", lang))
    return view


TAG_DESCRIPTION = "The forum tag of the game's post (forum channels)"
FORUM_DESCRIPTION = "Open the game in a new post of this forum (run the command from any channel)"


class ForumOption(app_commands.Transformer):
    """``/<game> new``'s ``forum``: a forum channel, and only that (``discord.ForumChannel``
    would also offer media channels, whose posts need a file), from the bot's cache."""

    @property
    def type(self) -> discord.AppCommandOptionType:
        return discord.AppCommandOptionType.channel

    @property
    def channel_types(self) -> list[discord.ChannelType]:
        return [discord.ChannelType.forum]

    async def transform(self, interaction: discord.Interaction, value: Any, /) -> Any:
        guild = interaction.guild
        channel = guild.get_channel(value.id) if guild is not None else None
        if not isinstance(channel, discord.ForumChannel):
            raise UserError("common.error.no_forum")
        return channel


#: the annotation of ``/<game> new``'s ``forum`` parameter
Forum = app_commands.Transform[discord.ForumChannel, ForumOption]


def given_forum(interaction: discord.Interaction) -> discord.ForumChannel | None:
    """The forum named in the command's ``forum`` option, else the forum it is typed in (a
    forum has no message box, so Discord's client names it in the option)."""
    named = getattr(interaction.namespace, "forum", None)
    if named is not None and interaction.guild is not None:
        channel = interaction.guild.get_channel(named.id)
    else:
        channel = interaction.channel  # type: ignore[assignment]
    return channel if isinstance(channel, discord.ForumChannel) else None


async def forum_tags(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    """The tags of the forum of ``/<game> new``'s ``forum`` option, for its ``tag``."""
    channel = given_forum(interaction)
    if channel is None:
        return []
    needle = current.strip().casefold()
    return [
        app_commands.Choice(name=tag.name[:100], value=str(tag.id))
        for tag in channel.available_tags
        if needle in tag.name.casefold() or needle == str(tag.id)
    ][:25]


class TagPicker(discord.ui.View):
    """Asked privately when the forum requires a tag: picking one opens the game."""

    def __init__(
        self,
        tags: list[tuple[int, str]],
        lang: Lang,
        open_with: Callable[[str], Awaitable[str]],
    ) -> None:
        super().__init__(timeout=15 * 60)
        self.open_with = open_with
        self.select: discord.ui.Select[TagPicker] = discord.ui.Select(
            placeholder=t("common.lobby.tag_placeholder", lang),
            options=[
                discord.SelectOption(label=name[:100], value=str(tag_id))
                for tag_id, name in tags[:25]
            ],
        )
        # discord.py documents assigning an item's callback; its stub types it as a method.
        self.select.callback = self.picked  # type: ignore[method-assign]
        self.add_item(self.select)

    async def picked(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.response.defer()
            reply = await self.open_with(self.select.values[0])
            await interaction.edit_original_response(content=reply, view=None)
            self.stop()
        except Exception as exc:
            await report(interaction, exc)


async def open_game(
    interaction: discord.Interaction,
    open_with: Callable[[str | None], Awaitable[str]],
    tag: str | None,
) -> None:
    """``/<game> new``: open the game; if the forum requires a tag and none fits, ask the
    moderator privately to choose one (the same options, with that tag)."""

    async def work(actor: Actor) -> Answer:
        try:
            return await open_with(tag)
        except TagRequired as need:
            return Reply(t(need.key, actor.lang), view=TagPicker(need.tags, actor.lang, open_with))

    await respond(interaction, work)


class Opener(Protocol):
    """A service's way to open a game (``GameService.new_game`` or a game's own)."""

    def __call__(
        self,
        actor: Actor,
        *,
        guild_id: int,
        channel: Any,
        given: dict[str, Any],
        tag: str | None = None,
    ) -> Awaitable[str]: ...


def new_command(description: str, schema: OptionsSchema) -> Callable[[Callable[..., Any]], Any]:
    """``/<game> new``: the command, the schema's options, the ``forum`` to open it in and that
    forum's ``tag`` (autocompleted); the callback is ``async def new(self, interaction,
    tag=None, forum: Forum | None = None, **given)``, whose body is ``await
    self.open_new(interaction, <the service's opener>, tag, given, forum)``."""

    def decorate(func: Callable[..., Any]) -> Any:
        options = with_options(schema, "new")(func)
        tagged = app_commands.describe(tag=TAG_DESCRIPTION, forum=FORUM_DESCRIPTION)(
            app_commands.autocomplete(tag=forum_tags)(options)
        )
        return app_commands.command(name="new", description=description)(tagged)

    return decorate


#: A moderator action's optional reason (the moderators' log, bot/modlog.py).
Reason = app_commands.Range[str, 1, 200] | None
REASON = "Why, for the moderators' log (optional)"


class GameCommands(CommandMixin):
    """What the shared command classes stand on: the game's service (each game's GroupCog
    sets it) and the game of the channel a command is typed in."""

    service: GameService

    async def game_here(self, interaction: discord.Interaction) -> int:
        assert interaction.channel_id is not None
        return await self.service.actions.game_id_in(interaction.channel_id)

    async def in_game(
        self,
        interaction: discord.Interaction,
        call: Callable[Concatenate[Actor, int, P], Awaitable[Answer]],
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> None:
        """Answer with ``call(actor, game_id, *args, **kwargs)`` for the game of this channel
        (:func:`cogs.interaction.respond`: no game here is a private refusal like any other)."""

        async def here(actor: Actor, /, *args: P.args, **kwargs: P.kwargs) -> Answer:
            return await call(actor, await self.game_here(interaction), *args, **kwargs)

        await respond(interaction, here, *args, **kwargs)

    def logged(
        self,
        interaction: discord.Interaction,
        action: str,
        call: Callable[Concatenate[Actor, int, P], Awaitable[Answer]],
        reason: str | None,
        **detail: object,
    ) -> Callable[Concatenate[Actor, int, P], Awaitable[Answer]]:
        """``call`` (a moderator's action on the game) with its entry in the moderators' log
        (bot/modlog.py) and the moderator's ``reason``, written in the action's transaction."""

        async def act(actor: Actor, game_id: int, /, *args: P.args, **kwargs: P.kwargs) -> Answer:
            guild_id = interaction.guild_id or 0
            values = modlog.values_of(actor, guild_id, game_id, action, reason, **detail)
            with modlog.pending(values) as entry:
                done = await call(actor, game_id, *args, **kwargs)
            if not entry.written:  # an action that committed nothing of the game's own
                await game_bot(interaction.client).mod_log.write(values)
            return done

        return act

    async def open_new(
        self,
        interaction: discord.Interaction,
        opener: Opener,
        tag: str | None,
        given: dict[str, Any],
        forum: discord.ForumChannel | None = None,
    ) -> None:
        """``/<game> new``: open a game here, or in a new post of ``forum``, with the given
        options (see :func:`open_game`)."""

        async def open_with(tag: str | None) -> str:
            member = interaction.user
            if forum is not None and (
                not isinstance(member, discord.Member)
                or not forum.permissions_for(member).view_channel
            ):
                raise UserError("common.error.forum_hidden")  # a forum the moderator cannot see
            return await opener(
                Actor.of(interaction),
                guild_id=interaction.guild_id or 0,
                channel=forum or interaction.channel,
                given=given,
                tag=tag,
            )

        await open_game(interaction, open_with, tag)


class LobbyCommands(GameCommands):
    """``join``, ``leave``, ``add``, ``remove``, ``start`` and ``cancel``: the same for every
    game. Mixed into each game's GroupCog."""

    @app_commands.command(name="join", description="Join the game in this channel")
    async def join(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.lobby.join)

    @app_commands.command(name="leave", description="Leave the lobby of this channel's game")
    async def leave(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.lobby.leave)

    @app_commands.command(name="add", description="Sign a member up for the lobby (moderators)")
    @app_commands.describe(user="The member to add", reason=REASON)
    async def add(
        self, interaction: discord.Interaction, user: discord.User, reason: Reason = None
    ) -> None:
        member = Actor.of_member(user, lang_of(interaction.locale))
        join = self.logged(interaction, "add", self.service.lobby.join, reason, name=member.name)
        await self.in_game(interaction, join, member=member, by_moderator=True)

    @app_commands.command(name="remove", description="Take a member out of the lobby (moderators)")
    @app_commands.describe(
        user="The member to remove (even one who left the server)", reason=REASON
    )
    async def remove(
        self, interaction: discord.Interaction, user: discord.User, reason: Reason = None
    ) -> None:
        member = Actor.of_member(user, lang_of(interaction.locale))
        leave = self.logged(
            interaction, "remove", self.service.lobby.leave, reason, name=member.name
        )
        await self.in_game(interaction, leave, member=member, by_moderator=True)

    @app_commands.command(
        name="standby", description="Join (or leave) the replacement list of this channel's game"
    )
    async def standby(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.seats.standby)

    @app_commands.command(name="start", description="Deal and start the game (moderators)")
    async def start(self, interaction: discord.Interaction) -> None:
        await self.in_game(interaction, self.service.starter.start)

    @app_commands.command(name="cancel", description="Cancel this channel's game (moderators)")
    @app_commands.describe(reason=REASON)
    async def cancel(self, interaction: discord.Interaction, reason: Reason = None) -> None:
        await self.in_game(
            interaction, self.logged(interaction, "cancel", self.service.moderation.cancel, reason)
        )


class ModerationCommands(GameCommands):
    """``extend``, ``resolve``, ``remind``, ``resync``, ``activity`` and ``substitute``: a
    moderator's hands on the running step of any game."""

    @app_commands.command(name="extend", description="Push the current deadline back (moderators)")
    @app_commands.describe(hours="How many hours to add", reason=REASON)
    async def extend(
        self,
        interaction: discord.Interaction,
        hours: app_commands.Range[float, 0.0005, 336.0],
        reason: Reason = None,
    ) -> None:
        extend = self.logged(
            interaction, "extend", self.service.moderation.extend, reason, hours=hours
        )
        await self.in_game(interaction, extend, hours)

    @app_commands.command(name="resolve", description="Close the current vote now (moderators)")
    @app_commands.describe(reason=REASON)
    async def resolve(self, interaction: discord.Interaction, reason: Reason = None) -> None:
        close = self.logged(interaction, "resolve", self.service.moderation.close_now, reason)
        await self.in_game(interaction, close)

    @app_commands.command(
        name="remind", description="Remind the players who have not answered yet (moderators)"
    )
    @app_commands.describe(reason=REASON)
    async def remind(self, interaction: discord.Interaction, reason: Reason = None) -> None:
        await self.in_game(
            interaction, self.logged(interaction, "remind", self.service.moderation.remind, reason)
        )

    @app_commands.command(
        name="resync",
        description="Put the game back in order on Discord once a permission is fixed (moderators)",
    )
    @app_commands.describe(reason=REASON)
    async def resync(self, interaction: discord.Interaction, reason: Reason = None) -> None:
        async def resync(actor: Actor) -> Answer:
            assert interaction.channel_id is not None
            game_id = await self.service.moderation.game_to_resync(interaction.channel_id)
            again = self.logged(interaction, "resync", self.service.moderation.resync, reason)
            return await again(actor, game_id)

        await respond(interaction, resync)

    @app_commands.command(
        name="activity",
        description="Each player's posts, last post and missed deadlines, privately (moderators)",
    )
    async def activity(self, interaction: discord.Interaction) -> None:
        async def activity(actor: Actor, game_id: int) -> str:  # bot/activity.py
            return await game_bot(interaction.client).posts.report(self.service, actor, game_id)

        await self.in_game(interaction, activity)

    @app_commands.command(name="substitute", description="Replace a player (moderators)")
    @app_commands.describe(
        old="The player who leaves (even one who left the server)",
        new="The member who takes their seat",
        volunteer="Or a member of the replacement list (/standby)",
        reason=REASON,
    )
    async def substitute(
        self,
        interaction: discord.Interaction,
        old: discord.User,
        new: discord.User | None = None,
        volunteer: str | None = None,
        reason: Reason = None,
    ) -> None:
        lang = lang_of(interaction.locale)
        leaver = Actor.of_member(old, lang)

        async def substitute(actor: Actor, game_id: int) -> Answer:
            if (new is None) == (volunteer is None):
                raise UserError("common.standby.new_or_volunteer")
            if new is not None:
                newcomer = Actor.of_member(new, lang)
            else:
                assert volunteer is not None
                newcomer = await self.service.seats.volunteer_actor(game_id, id_of(volunteer))
            names = {"old": leaver.name, "new": newcomer.name}  # the seats, never the role
            seat = self.logged(
                interaction, "substitute", self.service.seats.substitute, reason, **names
            )
            return await seat(actor, game_id, leaver, newcomer)

        await self.in_game(interaction, substitute)

    @substitute.autocomplete("volunteer")
    async def substitute_volunteer(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        pairs = await self.service.seats.standby_choices(interaction.channel_id or 0, current)
        return [app_commands.Choice(name=name, value=value) for name, value in pairs]


async def setup(bot: commands.Bot) -> None:
    """The lobby's, the replacement offer's and the secret choices' buttons and menus (they
    work after a restart) and their view builders for the outbox."""
    game_bot(bot).dispatcher.register_view("lobby", lobby_view)
    game_bot(bot).dispatcher.register_view(OFFER_VIEW, offer_view)
    bot.add_dynamic_items(LobbyButton, OfferButton)
    # Every game's secret choices by DM (bot/choice.py): their menus and the view builder.
    game_bot(bot).dispatcher.register_view(VIEW, choice.choice_view)
    bot.add_dynamic_items(*choice.ITEMS)
