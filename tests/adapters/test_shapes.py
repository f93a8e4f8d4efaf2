"""The shape of every private API the adapters use (adapters/__init__.py lists them): each
class, attribute and method is still there, takes the parameters the adapter passes, and reads
what the adapter changes. A discord.py or SQLAlchemy release that moves one fails here, with a
message naming it and the adapter, rather than at the bot's start or on every click."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import inspect
from typing import Any

import asyncpg
import discord
import discord.gateway
import discord.http
import discord.state
import sqlalchemy
import yarl
from discord import app_commands
from discord.webhook import async_ as webhook_async
from sqlalchemy.engine import AdaptedConnection
from sqlalchemy.ext.asyncio import create_async_engine

from adapters.sqlalchemy_asyncpg import SQLALCHEMY_ONLY, connect_args

VERSIONS = f"discord.py {discord.__version__}, SQLAlchemy {sqlalchemy.__version__}"


def _name(owner: Any, name: str) -> str:
    return f"{getattr(owner, '__module__', '')}.{getattr(owner, '__qualname__', owner)}.{name}"


def takes(adapter: str, owner: Any, name: str, *params: str) -> Any:
    """``owner.name`` exists and takes ``params``; otherwise fail, naming both and the adapter."""
    label = _name(owner, name)
    assert hasattr(owner, name), f"{label} is gone ({VERSIONS}): adapters/{adapter} uses it"
    found = getattr(owner, name)
    if params:
        given = inspect.signature(found).parameters
        missing = [p for p in params if p not in given]
        assert not missing, f"{label} no longer takes {missing} ({VERSIONS}): adapters/{adapter}"
    return found


def reads(adapter: str, function: Any, *texts: str) -> None:
    """``function``'s source still holds each of ``texts`` (what the adapter relies on it to
    read or call); otherwise fail naming it."""
    source = inspect.getsource(function)
    for text in texts:
        assert text in source, (
            f"{function.__qualname__} no longer has {text!r} ({VERSIONS}): adapters/{adapter} "
            "relies on it"
        )


def test_the_gated_connection_state() -> None:
    where = "discord_state.py"
    state = discord.state.AutoShardedConnectionState
    base = discord.state.ConnectionState
    takes(where, base, "__init__", "dispatch", "handlers", "hooks", "http")
    takes(where, state, "parse_interaction_create", "data")
    takes(where, state, "clear", "views")
    takes(where, discord.Client, "_get_state", "options")
    reads(where, discord.Client.__init__, "self._handlers", "self._hooks", "self._get_state(")


async def test_the_callback_of_own_callbacks() -> None:
    where = "discord_callback.py"
    for cls, slot in (
        (discord.Interaction, "_state"),
        (discord.InteractionResponse, "_response_type"),
    ):
        assert slot in cls.__slots__, f"{cls.__qualname__}.{slot} is gone ({VERSIONS}): {where}"
    reads(where, discord.InteractionResponse.send_message, "self._response_type = ")
    assert isinstance(takes(where, discord.http.Route, "BASE"), str)
    takes(
        where,
        webhook_async,
        "interaction_message_response_params",
        "type",
        "content",
        "flags",
        "allowed_mentions",
        "previous_allowed_mentions",
    )
    params = webhook_async.interaction_message_response_params(type=4, content="x")
    assert isinstance(getattr(params, "payload", None), dict), f"its result has no payload: {where}"
    reads(where, discord.state.ConnectionState.__init__, "self.allowed_mentions")
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    try:
        assert http.proxy is None and isinstance(http.user_agent, str), where
    finally:
        await http.close()


def test_where_discord_connects_and_the_webhook_adapter() -> None:
    takes("discord_endpoints.py", discord.http.Route, "BASE")
    gateway = takes("discord_endpoints.py", discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY")
    assert isinstance(gateway, yarl.URL), "DiscordWebSocket.DEFAULT_GATEWAY is no URL"
    where = "discord_webhook.py"
    adapter = takes(where, webhook_async, "AsyncWebhookAdapter")
    takes(where, adapter, "create_interaction_response", "interaction_id")
    context = takes(where, webhook_async, "async_context")
    assert isinstance(context, contextvars.ContextVar), f"async_context is no ContextVar: {where}"
    takes("discord_login.py", discord.http.HTTPClient, "static_login", "token")
    takes("discord_login.py", discord.http.HTTPClient, "__init__", "loop")


def test_a_commands_parameters() -> None:
    @app_commands.command(name="probe", description="probe")
    async def probe(interaction: discord.Interaction, game: str | None = None) -> None:
        return None

    params = getattr(probe, "_params", None)
    assert isinstance(params, dict) and "game" in params, (
        f"app_commands.Command._params is gone ({VERSIONS}): adapters/discord_commands.py"
    )
    fields = {f.name for f in dataclasses.fields(params["game"])}
    assert {"choices", "description"} <= fields, f"CommandParameter lost a field: {fields}"


def test_the_sqlite_dialects_commit_and_rollback() -> None:
    engine = create_async_engine("sqlite+aiosqlite:///:memory:")
    dialect = engine.sync_engine.dialect
    for name in ("do_commit", "do_rollback"):
        takes("sqlalchemy_sqlite.py", dialect, name, "dbapi_connection")
    takes("db/engine.py", AdaptedConnection, "run_async", "fn")


def test_asyncpgs_arguments_from_the_dialect() -> None:
    url = "postgresql+asyncpg://u:p@h:5433/d?prepared_statement_cache_size=10"
    engine = create_async_engine(url)
    takes("sqlalchemy_asyncpg.py", engine.dialect, "create_connect_args", "url")
    _, kwargs = engine.dialect.create_connect_args(engine.url)
    assert set(SQLALCHEMY_ONLY) & set(kwargs), "SQLAlchemy's own options moved"
    args = connect_args(engine)
    accepted = inspect.signature(asyncpg.connect).parameters
    assert set(args) <= set(accepted), f"not asyncpg.connect()'s: {set(args) - set(accepted)}"
    assert (args["host"], args["port"], args["user"], args["database"]) == ("h", 5433, "u", "d")
