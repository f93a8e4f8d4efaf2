"""Every count the bot prints agrees with its noun, in both languages: "1 card", "0 carte",
"2 cartes" — never "1 cartes", "0 cartes" (French takes the singular for 0 and 1), never "(s)".

The placeholders of the catalogue are classified once (``COUNTS``: a number of things;
``NOT_COUNTS``: a name, a text, an ordinal, a date…): a new placeholder fails until it is
classified. A count directly followed by a word (or by another placeholder) must be written as
a plural form, a unit aside ("12 s", "5 min"); a form with an ``other`` branch only is a word
that does not change (English participles: "3 won"; "voix"). Then every message with a count
is rendered with that count at 0, 1 and 2 in both languages, and the word after the number
must be singular or plural as the language wants.
"""

from __future__ import annotations

import re

import pytest

from bot.i18n import LANGS, catalogue, placeholders, plural_forms, t
from bot.i18n import _parts as parts

#: Placeholders that hold a number of things.
COUNTS = {
    "accept",  # votes in a vote matrix's text alternative ("{accept} voix"); a list elsewhere
    "answered",  # players who answered a poll
    "available",
    "chosen",
    "count",
    "credited",
    "dealt",
    "missed",  # deadlines a player let pass in a row (the replacement list's offer)
    "hours",  # a duration in hours ("2 h")
    "pages",  # of /games
    "posts",  # a player's posts (/<game> activity, the record)
    "round",  # a player's posts this round (/<game> activity)
    "today",  # a player's posts today (/<game> activity)
    "disinformation",  # cards of a deck (a card's title elsewhere)
    "draw",
    "expected",  # players (a family's name elsewhere)
    "failed",
    "feed",
    "fewest_stars",  # the stars a card needs on a reference page to be elected
    "given",
    "hand",
    "high",
    "joined",
    "largest",
    "length",
    "low",
    "max",
    "min",
    "minutes",
    "needed",
    "others",
    "played",
    "players",  # a number (a list of names elsewhere)
    "refutation",
    "refuted",
    "reject",
    "rejections",
    "roles",
    "same_team",  # proposals of the same team the engine allows for one mission
    "sabotages",
    "seconds",
    "size",
    "spies",
    "succeeded",
    "supports",
    "target",  # a goal (a player elsewhere)
    "technique",
    "techniques",
    "total",
    "two_fail_players",
    "value",
    "voted",
    "votes",
    "wins",
    "won",
}

#: Placeholders that are not a number of things: names, texts, links, dates, ordinals (card,
#: mission, refutation, turn numbers: "card 12", "mission 3"), percentages, lists.
NOT_COUNTS = {
    "action",
    "channel",  # the moderators' log's channel, mentioned
    "server",  # a server's name (/games)
    "setting",  # a server setting's key (the moderators' log)
    "standby",  # the replacement list's line (a prod's report)
    "who",  # a moderator's name (the moderators' log)
    "box",  # the published game's team sizes, a list ("2, 3, 2, 3, 3")
    "forum",  # the forum adaptation's team sizes, a list
    "silent_choice",  # the choice a silent team member is taken to have made, named
    "locator",  # the paragraph, table or figure a card cites
    "sizes",  # a table of team sizes, a list
    "span",  # player counts: "5", "5 ou 6", "7 à 9"
    "table",  # a table of team sizes, named
    "position",  # a place on the replacement list (an ordinal)
    "active",
    "actual",
    "assassin",
    "at",
    "attempt",
    "candidates",
    "card",
    "cards",
    "choice",
    "choices",
    "claim",
    "code",
    "column",
    "command",
    "counts",
    "date",
    "deadline",
    "deck",
    "detail",
    "eligible",
    "evil",
    "extra",
    "family",
    "field",
    "game",
    "hands",
    "holder",
    "how",
    "index",
    "kind",
    "lang",
    "language",
    "last",
    "leader",
    "line",
    "link",
    "merlin",
    "mission",
    "missions",
    "n",
    "name",
    "names",
    "new",
    "no_vote",
    "now",
    "number",
    "offset",
    "old",
    "option",
    "options",
    "outcome",
    "page",
    "part",
    "permissions",
    "player",
    "post",
    "problem",
    "proposal",
    "question",  # a poll's question
    "rate",
    "reason",
    "resistance",
    "role",
    "section",
    "side",
    "sides",
    "some",
    "source",
    "spy_rate",
    "stars",
    "tag",
    "tags",
    "targets",
    "team",
    "teams",
    "title",
    "to",
    "track",
    "turn",
    "two_fail_mission",
    "variant",
    "vote",
    "what",
    "where",
    "zone",
}

#: Words that may follow a number and do not depend on it: units, prepositions, conjunctions.
NOT_NOUNS = {
    "en": {"s", "min", "h", "to", "and", "or", "of", "in", "cannot", "with"},
    "fr": {"s", "min", "h", "à", "et", "ou", "au", "pour", "est", "avant", "avec", "dans", "sur"},
}
#: Words between a number and its noun ("2 open games", "1 disinformation card"): skipped.
MODIFIERS = {
    "en": {
        "open",
        "dotted",
        "disinformation",
        "refutation",
        "technique",
        "special",
        "evil",
        "uploaded",
        "successful",
        "failed",
        "rejected",
        "finished",
    },
    "fr": set(),
}
#: Words that end like a plural and are not one, or do not change with the number.
INVARIANT = {
    "en": {"s", "is", "has", "was", "this", "its", "plus", "won", "joined", "succeeded", "failed"},
    "fr": {"s", "voix", "fois", "pas", "plus", "sous", "dans", "choix", "min", "villageois"},
}

SPACE = "[ \u00a0\u202f]"
FOLLOWED = re.compile(rf"\{{(\w+)\}}{SPACE}+(?:(\{{\w+\}})|([^\W\d_]+))")


def messages() -> dict[tuple[str, str], str]:
    return {(lang, key): text for lang in LANGS for key, text in catalogue(lang).items()}


def outside_plural_forms(template: str) -> str:
    return "".join(part if isinstance(part, str) else "\x00" for part in parts(template))


def is_plural(word: str, lang: str) -> bool:
    return word.lower() not in INVARIANT[lang] and word.lower().endswith(("s", "x"))


def wants_plural(value: int, lang: str) -> bool:
    return value not in ((0, 1) if lang == "fr" else (1,))


def test_every_placeholder_is_classified() -> None:
    assert not COUNTS & NOT_COUNTS
    used = {name for text in messages().values() for name in placeholders(text)}
    assert sorted(used - COUNTS - NOT_COUNTS) == []
    assert sorted((COUNTS | NOT_COUNTS) - used) == []


def test_a_count_before_a_word_is_a_plural_form() -> None:
    found = []
    for (lang, key), text in messages().items():
        for match in FOLLOWED.finditer(outside_plural_forms(text)):
            name, placeholder, word = match.groups()
            if name in COUNTS and (placeholder or word not in NOT_NOUNS[lang]):
                found.append(f"{lang} {key}: {match.group()}")
    assert not found, found


def test_no_message_writes_s_in_parentheses() -> None:
    """ "(s)" in neither language (test_typography checks the French)."""
    found = [key for (_, key), text in messages().items() if re.search(r"\w\((?:s|e|es)\)", text)]
    assert not found, found


def rendered(lang: str, key: str, count: str, value: int) -> str:
    text = catalogue(lang)[key]
    params: dict[str, object] = {
        name: 7 if name in COUNTS else "Xyz" for name in placeholders(text)
    }
    params[count] = value
    return t(key, lang, **params)


def cases() -> list[tuple[str, str, str]]:
    """(language, key, count) of every message with a count in a plural form."""
    out = []
    for (lang, key), text in messages().items():
        for name, branches in plural_forms(text):
            assert name in COUNTS, (lang, key, name)
            if set(branches) != {"other"}:  # an "other" branch only: a word that never changes
                out.append((lang, key, name))
    return sorted(set(out))


def test_both_languages_write_the_same_counts_as_plural_forms() -> None:
    """A count whose word changes in English changes in French too (French agrees more:
    "3 won" stays, "3 gagnées" does not)."""
    found = cases()
    assert len([c for c in found if c[0] == "fr"]) > 60
    assert {c[1:] for c in found if c[0] == "en"} <= {c[1:] for c in found if c[0] == "fr"}


@pytest.mark.parametrize("value", [0, 1, 2])
def test_every_count_agrees_with_its_noun(value: int) -> None:
    wrong = []
    for lang, key, count in cases():
        text = rendered(lang, key, count, value)
        for match in re.finditer(rf"(?<![\d.,/]){value}((?:{SPACE}+[^\W\d_]+)+)", text):
            phrase = match.group(1).split()
            word = next((w for w in phrase if w not in MODIFIERS[lang]), phrase[-1])
            if word in NOT_NOUNS[lang] or word.lower() in INVARIANT[lang]:
                continue
            if is_plural(word, lang) != wants_plural(value, lang):
                wrong.append(f"{lang} {key} ({count}={value}): …{match.group()}…")
    assert not wrong, wrong


def test_the_checks_catch_the_old_mistakes() -> None:
    """ "1 cartes" and "0 cartes" (a bare count) are found; a plural form agrees."""
    bare = "Votre main ({count} cartes)"
    assert FOLLOWED.search(outside_plural_forms(bare))
    formed = "Votre main ({count, plural, one {# carte} other {# cartes}})"
    assert not FOLLOWED.search(outside_plural_forms(formed))
    assert (
        not is_plural("carte", "fr") and is_plural("cartes", "fr") and not is_plural("voix", "fr")
    )
    assert not wants_plural(0, "fr") and wants_plural(0, "en") and not wants_plural(1, "en")


def test_no_operator_message_writes_s_in_parentheses() -> None:
    """The operator's messages (logs, config errors: English, in the code) count the same way:
    "1 guild", "3 guilds" (bot.english.counted), never "guild(s)"."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sources = [
        p
        for d in ("bot", "cogs", "db", "games", "sandbox", "bench")
        for p in (root / d).rglob("*.py")
    ]
    found = []
    for path in sources:
        if "tests" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        documented = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, documented)
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }  # what the code says of itself, not what it writes
        for node in ast.walk(tree):
            text = node.value if isinstance(node, ast.Constant) else None
            if not isinstance(node, ast.Constant) or not isinstance(text, str):
                continue
            if id(node) in docstrings:
                continue
            if re.search(r"[a-z]\((?:s|es)\)", text.replace("http(s)", "https")):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {text[:60]!r}")
    assert not found, found


def test_an_operator_count_is_english() -> None:
    from bot.english import counted, word

    assert [counted(n, "guild") for n in (0, 1, 2)] == ["0 guilds", "1 guild", "2 guilds"]
    assert word(1, "key") == "key" and word(3, "key") == "keys"
    assert counted(2, "overdue deadline") == "2 overdue deadlines"
