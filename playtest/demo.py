"""``python -m bot demo``: a whole game against the local Discord emulator, printed as it happens.

No token and no network: the sandbox serves Discord's REST API and gateway on loopback, the real
bot logs into it with a temporary SQLite file, and the games' simulated players (the same ones
the end-to-end tests play with: playtest/players.py, games/<kind>/players.py) type their
commands and click their DM buttons.

The transcript shows what each reader sees, in the order they receive it: every message of the
channel, every DM and every private answer once, in the order Discord stored them; a message
edited later (the lobby filling up, the leader list) shows its changed lines again; every button
and menu; each command as its author types it (in their client's language) and each click,
before the answer. Discord's markup reads as a client shows it: a timestamp as a date in the
reader's language and time zone, a channel as #name, a mention as @name.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import random
import re
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TextIO

import discord

from bot.i18n import category, lang_of, number_text
from bot.plugins import Registry
from playtest.harness import running_bot, sqlite_url
from sandbox import Sandbox

#: The players of a demo whose module names none (``DEMO_PLAYERS``).
PLAYERS = ["Alice", "Bruno", "Chloé", "Dmitri", "Esther"]
#: Who reads the demo in French (her client is in French: her DMs and answers are).
FRENCH_PLAYER = "Chloé"


# -- Discord markup as a client shows it ---------------------------------------------------------


class Names(Protocol):
    """What a client knows to show a mention: the names of channels, members and roles."""

    def channel(self, channel_id: int) -> str | None: ...

    def member(self, user_id: int) -> str | None: ...

    def role(self, role_id: int) -> str | None: ...


DAYS = {
    "en": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    "fr": ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
}
MONTHS = {
    "en": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    "fr": [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
}
#: A relative time's units, in seconds, by name: (singular, plural) in each language.
UNITS = [
    (86_400, {"en": ("day", "days"), "fr": ("jour", "jours")}),
    (3_600, {"en": ("hour", "hours"), "fr": ("heure", "heures")}),
    (60, {"en": ("minute", "minutes"), "fr": ("minute", "minutes")}),
    (1, {"en": ("second", "seconds"), "fr": ("seconde", "secondes")}),
]


def clock_time(moment: datetime, lang: str, seconds: bool = False) -> str:
    """4:17 PM, 16:17 (with seconds: 4:17:05 PM, 16:17:05)."""
    if lang == "fr":
        return moment.strftime("%H:%M:%S" if seconds else "%H:%M")
    hour = moment.hour % 12 or 12
    minutes = f"{moment.minute:02d}" + (f":{moment.second:02d}" if seconds else "")
    return f"{hour}:{minutes} {'AM' if moment.hour < 12 else 'PM'}"


def long_date(moment: datetime, lang: str) -> str:
    """December 2, 2026; 2 décembre 2026."""
    month = MONTHS[lang][moment.month - 1]
    if lang == "fr":
        return f"{moment.day} {month} {moment.year}"
    return f"{month} {moment.day}, {moment.year}"


def relative(seconds: float, lang: str) -> str:
    """in 4 seconds, 2 hours ago; dans 4 secondes, il y a 2 heures."""
    size = abs(seconds)
    unit, names = next(((u, n) for u, n in UNITS if size >= u), UNITS[-1])
    count = round(size / unit)
    one, other = names[lang]
    amount = f"{count} {one if category(count, lang) == 'one' else other}"
    if lang == "fr":
        return f"dans {amount}" if seconds >= 0 else f"il y a {amount}"
    return f"in {amount}" if seconds >= 0 else f"{amount} ago"


def timestamp(seconds: int, style: str, lang: str, now: float) -> str:
    """A Discord timestamp ``<t:seconds:style>`` as a client in ``lang`` shows it, in the
    reader's time zone (this machine's)."""
    moment = datetime.fromtimestamp(seconds).astimezone()
    if style == "R":
        return relative(seconds - now, lang)
    if style == "t":
        return clock_time(moment, lang)
    if style == "T":
        return clock_time(moment, lang, seconds=True)
    if style == "d":
        day, month = f"{moment.day:02d}", f"{moment.month:02d}"
        return f"{day}/{month}/{moment.year}" if lang == "fr" else f"{month}/{day}/{moment.year}"
    if style == "D":
        return long_date(moment, lang)
    text = f"{long_date(moment, lang)} {clock_time(moment, lang)}"
    if style != "F":
        return text
    return f"{DAYS[lang][moment.weekday()]}{'' if lang == 'fr' else ','} {text}"


MARKUP = re.compile(
    r"<t:(?P<ts>-?\d+)(?::(?P<style>[tTdDfFR]))?>"
    r"|<#(?P<channel>\d+)>"
    r"|<@!?(?P<user>\d+)>"
    r"|<@&(?P<role>\d+)>"
    r"|</(?P<command>[^:<>]+):\d+>"
    r"|<a?:(?P<emoji>\w+):\d+>"
    r"|https://(?:\w+\.)?discord(?:app)?\.com/channels/(?:\d+|@me)/(?P<link>\d+)(?P<jump>/\d+)?"
)


def readable(text: str, lang: str, names: Names, now: float | None = None) -> str:
    """``text`` with Discord's markup as a client in ``lang`` shows it: timestamps as dates and
    times, ``<#id>`` and links to a channel as #name, ``<@id>`` as @name, ``<@&id>`` as @role,
    ``</cmd:id>`` as /cmd, custom emoji as :name:."""
    moment = time.time() if now is None else now

    def show(match: re.Match[str]) -> str:
        found = match.groupdict()
        if found["ts"] is not None:
            return timestamp(int(found["ts"]), found["style"] or "f", lang, moment)
        if found["channel"] is not None:
            return f"#{names.channel(int(found['channel'])) or 'unknown'}"
        if found["user"] is not None:
            return f"@{names.member(int(found['user'])) or 'unknown-user'}"
        if found["role"] is not None:
            return f"@{names.role(int(found['role'])) or 'unknown-role'}"
        if found["command"] is not None:
            return f"/{found['command']}"
        if found["emoji"] is not None:
            return f":{found['emoji']}:"
        where = f"#{names.channel(int(found['link'])) or 'unknown'}"
        return f"{where} › message" if found["jump"] else where

    return MARKUP.sub(show, text)


@dataclass
class SandboxNames:
    """The names a member of ``guild`` sees, from the sandbox."""

    sb: Any
    guild: Any

    def channel(self, channel_id: int) -> str | None:
        found = self.sb.channels.get(channel_id)
        return None if found is None else found.name

    def member(self, user_id: int) -> str | None:
        member = self.guild.members.get(user_id)
        if member is not None and member.nick:
            return str(member.nick)
        user = self.sb.users.get(user_id)
        return None if user is None else str(user.name)

    def role(self, role_id: int) -> str | None:
        found = self.guild.roles.get(role_id)
        return None if found is None else str(found.name)


# -- a message as its reader sees it -------------------------------------------------------------


def button_text(button: Mapping[str, Any]) -> str:
    emoji = button.get("emoji") or {}
    label = " ".join(str(x) for x in (emoji.get("name"), button.get("label")) if x)
    link = " ↗" if button.get("style") == 5 else ""
    off = " (disabled)" if button.get("disabled") else ""
    return f"[{label or '?'}{link}{off}]"


def menu_text(menu: Mapping[str, Any]) -> str:
    hint = f" «{menu['placeholder']}»" if menu.get("placeholder") else ""
    if menu.get("type") == 3:
        choices = " | ".join(str(o.get("label")) for o in menu.get("options") or [])
    else:
        choices = {5: "a member", 6: "a role", 7: "a member or a role", 8: "a channel"}.get(
            int(menu.get("type") or 0), "…"
        )
    return f"[menu{hint}: {choices}]"


def control_rows(components: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every button and menu, one line per row (rows, sections and containers walked)."""
    rows: list[str] = []
    for part in components:
        kind = part.get("type")
        if kind == 2:
            rows.append(button_text(part))
        elif kind in (3, 5, 6, 7, 8):
            rows.append(menu_text(part))
        else:
            inner = list(part.get("components") or [])
            if isinstance(part.get("accessory"), Mapping):
                inner.append(part["accessory"])
            found = control_rows(inner)
            if kind == 1 and found:
                rows.append(" ".join(found))
            else:
                rows += found
    return rows


def render(message: Any, lang: str, names: Names) -> str:
    """The text, cards, files, buttons and menus of ``message`` as its reader sees them (a
    relative time as it read when the message arrived)."""
    parts = [message.content or ""]
    for embed in message.embeds:
        head = f"[{embed.get('title')}] " if embed.get("title") else ""
        parts.append(f"{head}{embed.get('description') or ''}".strip())
        parts += [f"  **{f.get('name')}** {f.get('value')}" for f in embed.get("fields") or []]
        if (embed.get("footer") or {}).get("text"):
            parts.append(f"  — {embed['footer']['text']}")
    parts += [f"  📎 {name}" for name in message.filenames]
    parts += [f"  {row}" for row in control_rows(message.components)]
    text = "\n".join(part for part in parts if part)
    return readable(text, lang, names, message.created_at.timestamp())


# -- the transcript ------------------------------------------------------------------------------


def edit(before: str, after: str) -> str:
    """What an edit changed: the lines it wrote anew (the lobby's new list of players), else
    the lines it took away, marked ✗ (the vote's buttons, once the vote is over)."""
    old, new = before.splitlines(), after.splitlines()
    added = [line for line in new if line not in old]
    removed = [f"✗ {line.strip()}" for line in old if line not in new]
    return "\n".join(added or removed) or after


@dataclass
class Reader:
    """One place a reader sees: a label, its language, and its messages."""

    label: str
    lang: str
    messages: Callable[[], list[Any]]


@dataclass
class Transcript:
    """Prints what each reader receives, once, in the order it arrives (the messages' ids, which
    Discord gives in the order it stores them), edits as the lines they change, and each action
    of a simulated player (playtest.players.Echo) before its answer."""

    sb: Any
    guild: Any
    channel: Any
    users: list[Any]
    out: TextIO = field(default_factory=lambda: sys.stdout)
    shown: dict[int, str] = field(default_factory=dict)
    start: float = field(default_factory=time.monotonic)

    def __post_init__(self) -> None:
        self.names = SandboxNames(self.sb, self.guild)

    def lang(self, user: Any) -> str:
        return lang_of(user.locale)

    def readers(self) -> list[tuple[str, str, Any]]:
        """(label, language, message) of every bot message a reader sees."""
        guild_lang = lang_of(self.guild.locale)
        seen: list[tuple[str, str, Any]] = [
            (f"#{self.channel.name}", guild_lang, m) for m in self.sb.channel_messages(self.channel)
        ]
        for user in self.users:
            lang = self.lang(user)
            for m in self.sb.dms(user):
                where = f"DM → {user.name}" + (" (private answer)" if m.ephemeral else "")
                seen.append((where, lang, m))
            for m in self.sb.ephemeral_for(user):
                if not self.sb.channels[m.channel_id].is_dm:
                    seen.append((f"#{self.channel.name} (only {user.name} sees)", lang, m))
        return seen

    def flush(self) -> None:
        """Print what arrived or changed since the last flush, in the order it happened: a new
        message when Discord stored it, an edit when it was made."""
        events = []
        for label, lang, message in self.readers():
            if not message.author_is_bot or message.loading or message.deleted:
                continue
            text = render(message, lang, self.names)
            before = self.shown.get(message.id)
            if before == text:
                continue
            self.shown[message.id] = text
            when = message.created_at if before is None else message.edited_at
            events.append(((when or message.created_at), message.id, label, before, text))
        for _, _, label, before, text in sorted(events, key=lambda e: (e[0], e[1])):
            if before is None:
                self.block(label, text)
            else:
                self.block(f"{label} (edited)", edit(before, text))

    def block(self, where: str, text: str) -> None:
        stamp = f"{time.monotonic() - self.start:5.1f}s"
        indent = "\n" + " " * (len(stamp) + len(where) + 4)
        print(f"{stamp} {where} | {text.replace(chr(10), indent)}", file=self.out, flush=True)

    def say(self, line: str) -> None:
        """A line of the narrator, after everything that arrived before it."""
        self.flush()
        print(f"{' ' * 7}{line}", file=self.out, flush=True)

    # -- playtest.players.Echo ------------------------------------------------------------------

    def command(self, user: Any, command: str, options: Mapping[str, Any]) -> None:
        self.say(f"▶ {user.name} types {typed(self.sb, self.guild, user, command, options)}")

    def click(self, user: Any, message: Any, button: Mapping[str, Any]) -> None:
        self.say(
            f"▶ {user.name} clicks {readable(button_text(button), self.lang(user), self.names)}"
        )

    def select(self, user: Any, message: Any, values: Sequence[str]) -> None:
        labels = []
        for menu in message.selects:
            by_value = {str(o.get("value")): str(o.get("label")) for o in menu.get("options") or []}
            labels += [by_value[v] for v in values if v in by_value]
        picked = ", ".join(labels or [str(v) for v in values])
        self.say(f"▶ {user.name} picks {picked} in the menu")

    async def run(self) -> None:
        while True:
            self.flush()
            await asyncio.sleep(0.05)


def typed(sb: Any, guild: Any, user: Any, command: str, options: Mapping[str, Any]) -> str:
    """``/command`` with its options as ``user`` types them: the names their client shows
    (French names for a French client), a member as @name, a number as written."""
    lang = lang_of(user.locale)
    words = command.split()
    node: Mapping[str, Any] = sb.find_command(words[0], guild)

    def local(item: Mapping[str, Any]) -> str:
        names = item.get("name_localizations") or {}
        return str(names.get("fr") if lang == "fr" and names.get("fr") else item["name"])

    path = [local(node)]
    for word in words[1:]:
        node = next(o for o in node.get("options") or [] if o["name"] == word)
        path.append(local(node))
    defs = {o["name"]: o for o in node.get("options") or []}
    shown = []
    for name, value in options.items():
        if value is None:
            continue
        spec = defs.get(name, {"name": name})
        shown.append(f"{local(spec)}: {typed_value(spec, value, lang)}")
    return " ".join(["/" + " ".join(path), *shown])


def typed_value(spec: Mapping[str, Any], value: Any, lang: str) -> str:
    for choice in spec.get("choices") or []:
        if choice.get("value") == value:
            names = choice.get("name_localizations") or {}
            return str(names.get("fr") if lang == "fr" and names.get("fr") else choice["name"])
    if hasattr(value, "id") and hasattr(value, "name"):
        return f"@{value.name}"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return number_text(value)
    return str(value)


# -- running a demo ------------------------------------------------------------------------------


@dataclass
class DemoTable:
    """The table the demo's simulated players sit at (what tests/e2e/support.py's ``Table``
    gives the end-to-end tests): the sandbox, the guild, the game's channel, a moderator, the
    players, and the transcript that hears of each of their actions (``echo``)."""

    sb: Any
    guild: Any
    channel: Any
    mod: Any
    users: list[Any]
    echo: Transcript


async def until(check: Callable[[], Any], timeout: float = 30.0) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise TimeoutError("the demo waited too long")


def demo_play(
    registry: Registry, game: str
) -> tuple[Callable[[DemoTable, random.Random], Awaitable[None]], list[str]]:
    """The demo's play function and its players (the module's ``DEMO_PLAYERS``, else five)."""
    module_name, _, function = registry.demos()[game].partition(":")
    module = importlib.import_module(module_name)
    play: Callable[[DemoTable, random.Random], Awaitable[None]] = getattr(module, function)
    return play, list(getattr(module, "DEMO_PLAYERS", PLAYERS))


async def run_demo(registry: Registry, game: str, seed: int = 7) -> int:
    play, names = demo_play(registry, game)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="pbp-demo-") as tmp:
        async with Sandbox() as sb:
            guild = sb.add_guild("Demo server")
            mods = guild.add_role(
                "Game masters", permissions=discord.Permissions(manage_guild=True).value
            )
            mod = sb.add_user("Moderator")
            guild.add_member(mod, roles=[mods])
            users = []
            for name in names:
                user = sb.add_user(name, locale="fr" if name == FRENCH_PLAYER else "en-US")
                guild.add_member(user)
                users.append(user)
            channel = guild.add_text_channel(game)
            transcript = Transcript(sb, guild, channel, [mod, *users])
            table = DemoTable(sb, guild, channel, mod, users, transcript)
            url = sqlite_url(Path(tmp) / "demo.sqlite3")
            async with running_bot(sb, url, seed=seed, plugins=registry):
                task = asyncio.create_task(transcript.run())
                try:
                    await play(table, rng)
                    await asyncio.sleep(0.5)
                finally:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                    transcript.flush()
    print("\nDemo finished.")
    return 0
