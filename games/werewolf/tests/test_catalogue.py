"""Werewolf's catalogue: every refusal of the engine and every role has its text in both
languages with the same placeholders, the French speaks the game's French terms, and the
catalogue-wide checks of tests/bot (typography, glossary, English words, plural agreement)
hold on it — they see it themselves once the game is registered."""

from __future__ import annotations

import re

import pytest

from bot.i18n import catalogue, every_branch, lang_of, placeholders, plural_forms
from games.werewolf.rulebook import ROLES
from games.werewolf.rules import ERROR_KEYS
from tests.bot import test_glossary as glossary
from tests.bot import test_no_english_in_french as english
from tests.bot import test_plurals as plurals
from tests.bot import test_typography as typography

pytestmark = pytest.mark.usefixtures("werewolf_catalogue")


def own(lang: str) -> dict[str, str]:
    """The game's messages of one language (its commands' included)."""
    prefixes = ("werewolf.", "commands.werewolf.")
    return {k: v for k, v in catalogue(lang_of(lang)).items() if k.startswith(prefixes)}


def keys() -> list[str]:
    roles = [f"werewolf.role.{role}.{part}" for role in ROLES for part in ("name", "text")]
    return [*ERROR_KEYS, *roles, "werewolf.game_name", "werewolf.side.village"]


@pytest.mark.parametrize("key", keys())
def test_each_message_is_in_both_languages(key: str) -> None:
    en, fr = catalogue("en"), catalogue("fr")
    assert key in en and key in fr
    assert placeholders(en[key]) == placeholders(fr[key])


def test_both_languages_have_the_same_keys_and_placeholders() -> None:
    en = {k: v for k, v in own("en").items() if not k.startswith("commands.")}
    fr = {k: v for k, v in own("fr").items() if not k.startswith("commands.")}
    assert sorted(en) == sorted(fr)
    assert {k: placeholders(v) for k, v in en.items()} == {
        k: placeholders(v) for k, v in fr.items()
    }


def test_the_french_names_of_the_game_and_its_roles() -> None:
    fr = catalogue("fr")
    assert fr["werewolf.game_name"] == "Loups-garous"
    names = {role: fr[f"werewolf.role.{role}.name"] for role in ROLES}
    assert names == {
        "werewolf": "loup-garou",
        "villager": "villageois",
        "seer": "voyante",
        "witch": "sorcière",
        "hunter": "chasseur",
        "cupid": "Cupidon",
        "captain": "capitaine",
    }
    text = " ".join(own("fr").values())
    for term in ("potion de vie", "potion de mort", "amoureux", "le village", "élimination"):
        assert term in text, term
    assert "décompte des votes" in text and not re.search("Thiercelieux", text)


def test_french_typography_and_terms() -> None:
    fr = {k: v for k, v in own("fr").items() if not (k.startswith("commands.") and "name" in k)}
    assert {k: p for k, text in fr.items() if (p := typography.violations(text))} == {}
    variants = glossary.glossary_variants()
    wrong = {
        key: [v for v in variants if glossary.found(v, glossary.prose(text))]
        for key, text in fr.items()
    }
    assert {k: v for k, v in wrong.items() if v} == {}


def test_no_english_word_in_the_french() -> None:
    words = english.english_words()
    found = {
        key: [w for w in english.english_in(text, words) if w.lower() not in english.SHARED]
        for key, text in own("fr").items()
        if not (key.startswith("commands.") and key.endswith(".name"))
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_every_count_agrees_with_its_noun() -> None:
    """tests/bot/test_plurals.py's check on this catalogue: each count is a plural form whose
    word is singular or plural as the language wants at 0, 1 and 2."""
    wrong = []
    for lang in ("en", "fr"):
        for key, text in own(lang).items():
            for name, branches in plural_forms(text):
                assert name in plurals.COUNTS, (key, name)
                if set(branches) == {"other"}:
                    continue
                for value in (0, 1, 2):
                    rendered = plurals.rendered(lang, key, name, value)
                    for match in re.finditer(rf"(?<![\d.,/]){value}((?: +[^\W\d_]+)+)", rendered):
                        phrase = match.group(1).split()
                        modifiers = plurals.MODIFIERS[lang]
                        word = next((w for w in phrase if w not in modifiers), phrase[-1])
                        if word in plurals.NOT_NOUNS[lang] or word in plurals.INVARIANT[lang]:
                            continue
                        if plurals.is_plural(word, lang) != plurals.wants_plural(value, lang):
                            wrong.append(f"{lang} {key} ({name}={value}): {match.group()}")
    assert not wrong, wrong
    used = {n for lang in ("en", "fr") for t in own(lang).values() for n in placeholders(t)}
    assert used <= plurals.COUNTS | plurals.NOT_COUNTS  # every placeholder already classified
    assert all(every_branch(t) for t in own("fr").values())
