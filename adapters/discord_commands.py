"""A slash command's parameter changed after its definition.

``app_commands.choices`` and ``app_commands.describe`` set a parameter's choices and
description when the command is defined; /stats's ``game`` is only known once the registry of
games is (cogs/stats.py). discord.py keeps a command's parameters in ``Command._params``, a dict
of ``CommandParameter`` dataclasses (neither documented): :func:`change_parameter` replaces one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from discord import app_commands


def change_parameter(
    command: app_commands.Command[Any, ..., Any], name: str, **changes: Any
) -> None:
    """Give the parameter ``name`` of ``command`` the fields ``changes`` (``choices``,
    ``description``), on this command object only."""
    params = command._params
    params[name] = dataclasses.replace(params[name], **changes)
