"""The French catalogue as the French-text tests read it."""

from __future__ import annotations

from bot.i18n import catalogue


def french_messages() -> dict[str, str]:
    """Every French message but command and option names (identifiers)."""
    return {
        key: text
        for key, text in catalogue("fr").items()
        if not (key.startswith("commands.") and key.endswith(".name"))
    }
