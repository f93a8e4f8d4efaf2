"""The sandbox takes a command or option name as Discord does ("Application Command Naming":
``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``, lowercase where a lowercase variant
exists): French names keep their accents."""

from __future__ import annotations

import pytest

from sandbox.rest import valid_command_name


@pytest.mark.parametrize(
    "name",
    [
        "réglages",
        "règles",
        "clôture_anticipée",
        "heure_échéance",
        "rôle_modérateur",
        "rafraîchir",
        "l'heure",
        "joueur1",
        "x" * 32,
        "ß",
        "नमस्ते",  # Devanagari, with its combining marks
        "สวัสดี",  # Thai
        "设置",  # an uncased letter
    ],
)
def test_names_discord_takes(name: str) -> None:
    assert valid_command_name(name)


@pytest.mark.parametrize(
    "name",
    ["", "x" * 33, "Réglages", "RÈGLES", "deux mots", "e\u0301tat", "état\n", "a/b", "a.b", None],
)
def test_names_discord_refuses(name: object) -> None:
    assert not valid_command_name(name)
