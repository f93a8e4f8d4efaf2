"""``python -m bot run`` that cannot start, as the operator sees it: a real process pointed at
the sandbox (which answers 401 to a token it does not know, as Discord does). A refused token,
a token of spaces and a database out of reach each end in one line saying what and what to
do, exit status 2, no traceback, and never the database's password; the trace only at
DEBUG."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from tests.db.support import pg_url

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]
UNREACHABLE = "postgresql+asyncpg://u:secret@127.0.0.1:1/x"


def config(
    sb: Any, tmp_path: Path, *, token: str, url: str | None = None, level: str = "INFO"
) -> Path:
    path = tmp_path / "config.toml"
    database = url or f"sqlite+aiosqlite:///{tmp_path / 'data' / 'bot.sqlite3'}"
    path.write_text(
        "[discord]\n"
        f'token = "{token}"\n'
        f'api_base = "{sb.api_base}"\n'
        f'gateway_url = "{sb.gateway_url}"\n'
        f'[database]\nurl = "{database}"\n'
        f'[logging]\nlevel = "{level}"\n'
    )
    return path


async def bot_command(path: Path, command: str = "run") -> tuple[int, list[str]]:
    """Run ``python -m bot --config PATH COMMAND`` to its end: its status and its lines (the
    standard output and error together)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE_URL")}
    env["PYTHONPATH"] = str(ROOT)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "--config",
        str(path),
        command,
        cwd=path.parent,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), 60)
    except TimeoutError:
        proc.kill()
        out, _ = await proc.communicate()
        raise AssertionError(f"still running after 60 s:\n{out.decode(errors='replace')}") from None
    assert proc.returncode is not None
    return proc.returncode, out.decode(errors="replace").splitlines()


async def test_a_refused_token_is_one_line_and_nothing_else_starts(sb: Any, tmp_path: Path) -> None:
    status, lines = await bot_command(config(sb, tmp_path, token="not-the-bots-token"))
    assert status == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith("Discord refused the token (401 Unauthorized)")
    assert "DISCORD_TOKEN" in lines[0]
    assert "not-the-bots-token" not in lines[0]
    # one question to Discord, answered 401; no gateway, no database (checked before it)
    assert [(r.route, r.status) for r in sb.requests] == [("GET /users/@me", 401)]
    assert sb.shard_ids_for(None) == []
    assert not (tmp_path / "data").exists()


async def test_a_token_of_spaces_is_refused_before_connecting(sb: Any, tmp_path: Path) -> None:
    status, lines = await bot_command(config(sb, tmp_path, token="   "))
    assert status == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith("The Discord token is only spaces")
    assert sb.requests == []  # not one request
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("command", ["run", "migrate"])
async def test_an_unreachable_database_is_one_line_without_its_password(
    sb: Any, tmp_path: Path, command: str
) -> None:
    status, lines = await bot_command(
        config(sb, tmp_path, token=sb.token, url=UNREACHABLE), command
    )
    assert status == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith("cannot reach the database postgresql+asyncpg://u:***@127.0.0.1:1/x")
    assert "[database] url" in lines[0]
    assert "secret" not in lines[0] and "Traceback" not in lines[0]
    assert sb.shard_ids_for(None) == []  # never connected to the gateway


async def test_the_trace_is_shown_at_debug_only(sb: Any, tmp_path: Path) -> None:
    status, lines = await bot_command(
        config(sb, tmp_path, token=sb.token, url=UNREACHABLE, level="DEBUG")
    )
    assert status == 2
    text = "\n".join(lines)
    assert "Traceback" in text and "ConnectionRefusedError" in text
    assert lines[-1].startswith("cannot reach the database postgresql+asyncpg://u:***@")
    assert "secret" not in text


async def test_a_database_that_cannot_be_created_is_one_line(sb: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")  # a file where the database's folder should be
    url = f"sqlite+aiosqlite:///{blocker / 'bot.sqlite3'}"
    status, lines = await bot_command(config(sb, tmp_path, token=sb.token, url=url))
    assert status == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"cannot reach the database {url}: ")


@pytest.mark.skipif(pg_url() is None, reason="PostgreSQL: set TEST_DATABASE_URL to run")
async def test_a_postgresql_database_that_does_not_exist_is_one_line(
    sb: Any, tmp_path: Path
) -> None:
    """The server answers, the database is not there: the driver's reason, the URL without
    the password (given here, whether or not the server asks for one)."""
    base = pg_url()
    assert base is not None
    url = make_url(base).set(password="secret", database="pbp_no_such_database")
    status, lines = await bot_command(
        config(sb, tmp_path, token=sb.token, url=url.render_as_string(hide_password=False))
    )
    assert status == 2
    assert len(lines) == 1, lines
    shown = url.render_as_string(hide_password=True)
    assert lines[0].startswith(f"cannot reach the database {shown}: ")
    assert "pbp_no_such_database" in lines[0].split(": ", 1)[1]
    assert "secret" not in lines[0]
