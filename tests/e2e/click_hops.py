"""Measure the path of one DM vote click through the bot's own code (issue 13).

``python -m tests.e2e.click_hops`` plays a Resistance game up to a team vote through the
sandbox, then traces one player's Accept click in their DM (after a first click by another
player, so that the game's parsed state is warm): every call into a function of ``bot``,
``cogs``, ``db`` or ``games`` made by the click's own tasks (the interaction's callback and the
group commit's writer), from the button's callback to the "On record" answer. Comprehensions
and generator expressions are not counted; lambdas and closures are. It prints the calls in
order (indented by caller), then the files, the hops (calls), and how many times the path
crosses between ``games/resistance/service.py`` and the core's ``bot/service/``.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

import discord

from games.resistance.players import Game
from sandbox import Sandbox
from tests.harness import running_bot, sqlite_url

ROOT = Path(__file__).resolve().parents[2]
OURS = tuple(str(ROOT / p) + "/" for p in ("bot", "cogs", "db", "games"))
SKIP = {"<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>"}


def where(frame: FrameType | None) -> tuple[str, str]:
    """(file relative to the project, qualified name) of a frame."""
    if frame is None:
        return "", ""
    return frame.f_code.co_filename.removeprefix(str(ROOT) + "/"), frame.f_code.co_qualname


class Tracer:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.frames: list[FrameType] = []  # kept alive: a frame id is not reused meanwhile
        self.calls: list[tuple[Any, FrameType | None, FrameType]] = []  # (task, caller, callee)

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if not code.co_filename.startswith(OURS) or code.co_name in SKIP:
            return
        if id(frame) in self.seen:  # a coroutine resumed, not a new call
            return
        self.seen.add(id(frame))
        self.frames.append(frame)
        try:
            task = asyncio.current_task()
        except RuntimeError:
            task = None
        # The nearest frame of ours up the stack (through asyncio's and contextlib's frames).
        caller = frame.f_back
        while caller is not None and (
            not caller.f_code.co_filename.startswith(OURS) or caller.f_code.co_name in SKIP
        ):
            caller = caller.f_back
        self.calls.append((task, caller, frame))


async def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    async with Sandbox() as sb:
        guild = sb.add_guild("Play-by-post")
        mods = guild.add_role("mods", permissions=discord.Permissions(manage_guild=True).value)
        mod = sb.add_user("Moderator")
        guild.add_member(mod, roles=[mods])
        users = []
        for name in ["alice", "Bob", "Chloe", "david", "Emile"]:
            user = sb.add_user(name)
            guild.add_member(user)
            users.append(user)
        channel = guild.add_text_channel("resistance")

        class Table:
            pass

        table: Any = Table()
        table.sb, table.guild, table.channel, table.mod, table.users = (
            sb,
            guild,
            channel,
            mod,
            users,
        )
        async with running_bot(sb, sqlite_url(tmp / "bot.sqlite3")):
            game = Game(table, users)
            await game.open(lock_during_vote=False, reminder_hours=0.0, early_close=False)
            await game.start()
            leader = game.leader()
            await game.propose([leader, *[u for u in users if u is not leader][:1]])
            await game.click(users[0], "accept")  # warm: the game's state is parsed once
            await asyncio.sleep(0.5)
            tracer = Tracer()
            sys.setprofile(tracer)
            try:
                reply = await game.click(users[1], "accept")
            finally:
                sys.setprofile(None)
    assert "On record" in reply or "record" in reply.lower(), reply
    entry = {
        task
        for task, _, frame in tracer.calls
        if where(frame)[1] in ("VoteButton.callback", "GroupCommit._drain")
    }
    calls = [c for c in tracer.calls if c[0] in entry]
    depth: dict[int, int] = {}
    root: dict[int, str] = {}
    files: list[str] = []
    hops = crossings = bounces = 0
    for _, caller, frame in calls:
        level = depth.get(id(caller), -1) + 1
        depth[id(frame)] = level
        (rel, name), (caller_rel, _) = where(frame), where(caller)
        root[id(frame)] = root.get(id(caller), name)
        # Parsing the custom_id into a button (discord.py's from_custom_id) comes before the
        # callback: shown, not counted.
        counted = root[id(frame)] != "VoteButton.from_custom_id"
        print(f"{'  ' * level}{name}  ({rel}){'' if counted else '  [not counted]'}")
        if not counted:
            continue
        hops += 1
        if rel not in files:
            files.append(rel)
        if caller is not None and caller_rel != rel:
            crossings += 1
            sides = {"base" if r.startswith("bot/service/") else r for r in (caller_rel, rel)}
            if sides == {"base", "games/resistance/service.py"}:
                bounces += 1
    print()
    print(f"files ({len(files)}): {', '.join(files)}")
    print(f"hops (calls into a function of ours): {hops}")
    print(f"  of which from one file into another: {crossings}")
    print(f"  of which between games/resistance/service.py and bot/service/: {bounces}")
    print(f"answer: {reply!r}")


if __name__ == "__main__":
    asyncio.run(main())
