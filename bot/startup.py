"""Start-up failures the operator fixes, each said in one line.

A token Discord refuses, a database that cannot be reached or migrated, Discord out of reach:
:class:`StartupError` carries one line (what failed, and what to do) and the exit status;
``python -m bot`` prints the line (bot/cli.py), and the trace only at DEBUG. A database URL is
always shown without its password.
"""

from __future__ import annotations

import aiohttp
import discord
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from adapters.discord_login import static_login
from db.engine import migrate, ping

BAD_TOKEN = (
    "Discord refused the token (401 Unauthorized): copy the bot's token from the Developer "
    "Portal (Bot → Reset Token) into DISCORD_TOKEN, or token under [discord] in config.toml."
)


class StartupError(Exception):
    """A start that cannot go on: ``str()`` is the one line to print; ``status`` the exit
    status (2: the operator must fix something; 1: it may pass, try again later)."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def safe_url(url: str) -> str:
    """The database URL without its password, for logs and messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "(a database URL that cannot be read)"


def reason(exc: BaseException, *secrets: str | None) -> str:
    """The first line of what went wrong (the driver's own error under SQLAlchemy's), without
    any of ``secrets``."""
    inner = getattr(exc, "orig", None) or exc
    lines = str(inner).strip().splitlines()
    text = lines[0].strip() if lines else type(inner).__name__
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text[:300]


def _password(url: str) -> str | None:
    try:
        password = make_url(url).password
    except ArgumentError:
        return None
    return str(password) if password else None


def unreachable_database(url: str, exc: BaseException) -> StartupError:
    """The one line for a database the bot cannot reach (or whose file it cannot create)."""
    return StartupError(
        f"cannot reach the database {safe_url(url)}: {reason(exc, _password(url), url)}; check "
        "[database] url (or DATABASE_URL), and that the database server runs and lets this "
        "user in"
    )


async def prepare_database(url: str) -> None:
    """Reach the database, then apply its pending migrations (bot/cli.py: ``run`` and
    ``migrate``); ``StartupError`` when either fails."""
    shown, password = safe_url(url), _password(url)
    try:
        await ping(url)
    except Exception as exc:
        raise unreachable_database(url, exc) from exc
    try:
        await migrate(url)
    except Exception as exc:
        raise StartupError(
            f"cannot migrate the database {shown}: {reason(exc, password, url)}; check that "
            "this user may create and alter tables, and that the database is not from a newer "
            "version of the bot"
        ) from exc


async def check_token(token: str, api_base: str) -> None:
    """Ask Discord whose token this is (``GET /users/@me``, as discord.py's login does)
    before anything else starts: a refused token ends the start before the database is
    touched, and says so in one line."""
    try:
        await static_login(token.strip())
    except discord.LoginFailure as exc:
        raise StartupError(BAD_TOKEN) from exc
    except aiohttp.ClientConnectionError as exc:
        raise unreachable_discord(api_base, exc) from exc
    except discord.HTTPException as exc:
        raise StartupError(
            f"Discord answered the login with {exc.status} ({reason(exc, token)}); try again later",
            status=1,
        ) from exc


def unreachable_discord(api_base: str, exc: BaseException) -> StartupError:
    """Discord (or the endpoint ``[discord] api_base`` names) did not answer the login."""
    return StartupError(
        f"cannot reach Discord at {api_base}: {reason(exc)}; check the network, and "
        "[discord] api_base if it is set",
        status=1,
    )
