"""The Refutation Game as the application knows it (bot.plugins): one record, listed in
games/builtin.py. Everything else of the game lives in this package."""

from __future__ import annotations

from bot.plugins import ConfigSection, GamePlugin
from games.refutation import LOCALES, cli, records, rulebook, settings, stats
from games.refutation.components import ChoiceSelect, VoteButton, choice_view, vote_view
from games.refutation.decks import settings as deck_settings
from games.refutation.decks import tables
from games.refutation.options import REFUTATION_OPTIONS
from games.refutation.rules import RefutationEvent
from games.refutation.service import RefutationService

PLUGIN = GamePlugin(
    kind="refutation",
    deadline_prefixes=("rf",),
    service=RefutationService,
    cog="games.refutation.cog",
    options=REFUTATION_OPTIONS,
    buttons=(ChoiceSelect, VoteButton),
    views={"rf_choice": choice_view, "rf_vote": vote_view},
    locales=LOCALES,
    demos={"refutation": "games.refutation.demo:play_refutation"},
    events=RefutationEvent,
    archive=records.ARCHIVE,
    stats=stats.STATS,
    rules=rulebook.rules,
    settings_command=settings.settings_group,
    settings_lines=settings.settings_lines,
    config=ConfigSection(deck_settings.SECTION, deck_settings.read),
    config_check=deck_settings.check_config,
    cli=cli.add_commands,
    tables=(tables.DeckContent.__table__, tables.GuildDeck.__table__),
)
