"""The poll's rules (pure) and its catalogue (both languages, French typography)."""

from __future__ import annotations

import tomllib

import pytest

from bot import i18n
from rulebase import GameError, Player
from tests.bot.test_typography import violations
from tests.e2e.poll_game.plugin import PLUGIN
from tests.e2e.poll_game.rules import Poll

PEOPLE = [Player(1, "alice"), Player(2, "Bob"), Player(3, "Chloé")]


def test_answers_are_private_and_may_change_until_the_poll_closes() -> None:
    poll, _ = Poll.setup(PEOPLE)
    (first,) = poll.vote(2, "second")
    assert (first.kind, first.private_to) == ("poll_voted", 2)
    assert poll.vote(2, "first")[0].kind == "poll_vote_changed"
    assert poll.owing() == [1, 3] and not poll.all_voted()
    with pytest.raises(GameError, match="not_a_player"):
        poll.vote(9, "first")
    with pytest.raises(GameError, match="bad_choice"):
        poll.vote(1, "third")
    poll.vote(1, "first")
    poll.vote(3, "first")
    assert poll.all_voted()
    (closed,) = poll.close()
    assert closed.private_to is None and closed.data == {"first": [1, 2, 3], "second": []}
    with pytest.raises(GameError, match="closed"):
        poll.vote(1, "second")


def test_the_result_and_a_substitution_survive_a_round_trip() -> None:
    poll, _ = Poll.setup(PEOPLE)
    poll.vote(1, "second")
    poll.vote(3, "first")
    poll.substitute(3, Player(4, "david"))  # the leaver's answer goes with them
    again = Poll.from_dict(poll.to_dict())
    assert again == poll
    result = again.result()
    assert result.voters == {"first": (), "second": (1,)} and result.silent == (2, 4)
    with pytest.raises(GameError, match="player_twice"):
        again.substitute(1, Player(2, "Bob"))


@pytest.mark.parametrize("count", [1, 11])
def test_two_to_ten_players(count: int) -> None:
    with pytest.raises(GameError, match="player_count"):
        Poll.setup([Player(i, f"p{i}") for i in range(count)])


def test_its_catalogue_has_both_languages_in_french_typography() -> None:
    assert PLUGIN.locales is not None
    i18n.add_locales(PLUGIN.kind, PLUGIN.locales)
    en = {k: v for k, v in i18n.catalogue("en").items() if k.startswith("poll.")}
    fr = {k: v for k, v in i18n.catalogue("fr").items() if k.startswith("poll.")}
    assert len(en) > 20 and set(en) == set(fr)
    assert all(i18n.placeholders(en[k]) == i18n.placeholders(fr[k]) for k in en)
    problems = {k: v for k, text in fr.items() if (v := violations(text))}
    assert not problems, problems
    with (PLUGIN.locales / "fr" / "commands.toml").open("rb") as fh:
        commands = tomllib.load(fh)["poll"]
    descriptions = [c["description"] for c in commands.values() if isinstance(c, dict)]
    assert len(descriptions) == 18  # archive, rules, standby, activity: the skeleton; pick
    assert not [text for text in descriptions if violations(text)]
