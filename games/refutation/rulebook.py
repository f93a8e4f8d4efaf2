"""``/refutation rules``: the rules, condensed, in the reader's language. Every number comes from
the engine (games/refutation/rules/model.py): players, the feed, the hand, the targets."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.i18n import t
from games.refutation.rules import model

SECTIONS = ("setup", "turn", "end")


def targets(lang: str) -> str:
    """``5, 7 or 9`` (French: ``5, 7 ou 9``)."""
    *rest, last = (str(n) for n in model.TARGETS)
    return t("refutation.rules.targets", lang, some=", ".join(rest), last=last)


def facts(lang: str) -> dict[str, Any]:
    return {
        "min": model.MIN_PLAYERS,
        "max": model.MAX_PLAYERS,
        "feed": model.FEED_SIZE,
        "hand": model.HAND_REFUTATIONS,
        "techniques": model.HAND_TECHNIQUES,
        "targets": targets(lang),
    }


def rules(lang: str, options: Mapping[str, Any]) -> list[str]:
    """The sections of ``/refutation rules``."""
    found = facts(lang)
    return [t(f"refutation.rules.{section}", lang, **found) for section in SECTIONS]
