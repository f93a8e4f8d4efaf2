"""Names: the Unicode Collation Algorithm order, the user id as the last tie-break, and Markdown
escaped in every name the bot writes."""

from __future__ import annotations

import functools

from hypothesis import given
from hypothesis import strategies as st
from pyuca import Collator

from bot.names import listing, names, ordered, shown

FORUM = ["zoé", "Œdipe", "Ève", "Émile", "Çedric", "Bruno", "alice"]

# A reference collator of its own (not the module's cached one): the DUCET.
REFERENCE = Collator()


def reference_order(people: list[tuple[int, str]]) -> list[tuple[int, str]]:
    def compare(a: tuple[int, str], b: tuple[int, str]) -> int:
        ka, kb = REFERENCE.sort_key(a[1]), REFERENCE.sort_key(b[1])
        if ka != kb:
            return -1 if ka < kb else 1
        return (a[0] > b[0]) - (a[0] < b[0])

    return sorted(people, key=functools.cmp_to_key(compare))


def test_the_forum_players_in_french_and_english_order() -> None:
    people = list(enumerate(FORUM, 1))
    expected = ["alice", "Bruno", "Çedric", "Émile", "Ève", "Œdipe", "zoé"]
    assert names(people, "fr") == expected
    assert names(people, "en") == expected
    # What the issue saw (code-point / casefold order) is not it.
    assert sorted(FORUM, key=str.casefold) != expected


def test_the_user_id_breaks_ties_between_identical_names() -> None:
    people = [(30, "Max"), (10, "Max"), (20, "max"), (5, "Mäx")]
    assert [uid for uid, _ in ordered(people, "fr", lambda p: p)] == [20, 10, 30, 5]


# Names: letters with accents, ligatures, both cases, spaces, digits and emoji.
EMOJI = ["🙂", "🐻\u200d❄\ufe0f", "🇫🇷"]
PIECES = st.sampled_from(
    [
        *"aàâäbcçdeéèêëfghiîïjklmnoôöpqrstuùûüvwxyzAÀÉÈÇOŒœæÆ 0129_*",
        "e\u0301",
        *EMOJI,
        "ǅ",
        "ß",
        "ﬁ",
    ]
)
NAMES = st.lists(PIECES, min_size=1, max_size=10).map("".join)


@given(st.lists(st.tuples(st.integers(1, 2**63), NAMES), max_size=12, unique_by=lambda p: p[0]))
def test_the_order_is_the_reference_collators_then_the_id(people: list[tuple[int, str]]) -> None:
    for lang in ("fr", "en"):
        assert ordered(people, lang, lambda p: p) == reference_order(people)
        assert names(people, lang) == [shown(n) for _, n in reference_order(people)]


# Accents, case and ligatures count only after the letters: decorating two different words
# never changes which comes first.
DECORATIONS = {
    "a": ["a", "A", "à", "â", "ä", "À"],
    "c": ["c", "C", "ç", "Ç"],
    "e": ["e", "E", "é", "è", "ê", "É", "Ë"],
    "o": ["o", "O", "ô", "ö", "Ô"],
    "u": ["u", "U", "ù", "û", "ü"],
}


@st.composite
def decorated(draw: st.DrawFn, word: str) -> str:
    out = []
    i = 0
    while i < len(word):
        if word[i : i + 2] == "oe" and draw(st.booleans()):
            out.append(draw(st.sampled_from(["œ", "Œ"])))
            i += 2
            continue
        out.append(draw(st.sampled_from(DECORATIONS.get(word[i], [word[i], word[i].upper()]))))
        i += 1
    return "".join(out)


WORDS = st.text(st.sampled_from("abcdeilmnorsuvz"), min_size=1, max_size=8)


@given(st.data(), WORDS, WORDS)
def test_letters_decide_before_accents_case_and_ligatures(
    data: st.DataObject, a: str, b: str
) -> None:
    if a == b:
        return
    da, db = data.draw(decorated(a)), data.draw(decorated(b))
    first = min(a, b)
    order = [uid for uid, _ in ordered([(1, da), (2, db)], "fr", lambda p: p)]
    assert order == ([1, 2] if first == a else [2, 1]), (da, db)


def test_markdown_in_names_is_only_text() -> None:
    assert shown("**x** ← leader") == r"\*\*x\*\* ← leader"
    assert shown("[Free Nitro](https://evil.example)").startswith(r"\[Free Nitro")
    assert shown("__under__ ~~strike~~ ||spoiler|| `code`") == (
        r"\_\_under\_\_ \~\~strike\~\~ \|\|spoiler\|\| \`code\`"
    )
    # Symbols sort before letters (the DUCET's order), escaped or not.
    assert listing([(2, "**x**"), (1, "alice")], "en", bold=True) == r"**\*\*x\*\***, **alice**"
    assert listing([], "en") == "—"


def test_the_archive_and_the_leaderboard_use_the_same_order() -> None:
    from bot import archive, stats
    from tests.e2e.poll_game.records import PollFigures

    ids = list(range(1, len(FORUM) + 1))
    names_by_id = dict(zip(ids, FORUM, strict=True))
    assert archive.listing(ids, names_by_id) == "alice, Bruno, Çedric, Émile, Ève, Œdipe, zoé"
    # Equal records: the leaderboard's last tie-break is the name, in the same order.
    figures = {
        uid: stats.PlayerStats(uid, name, {"poll": PollFigures(played=2, won=1)})
        for uid, name in names_by_id.items()
    }
    board = stats.leaderboard(figures, "poll", 1)
    assert [p.name for p in board] == ["alice", "Bruno", "Çedric", "Émile", "Ève", "Œdipe", "zoé"]


def test_names_in_the_engines_errors_are_escaped_once() -> None:
    from bot.errors import UserError, describe
    from rulebase import GameError

    # an engine's error carries the name as given (rulebase.GameError); the message, here
    # the core's, escapes it
    text = describe(GameError("common.error.already_joined", {"name": "**x** ← leader"}), "en")
    assert text == r"\*\*x\*\* ← leader is already signed up."
    # The app's own errors carry names already escaped where they are raised.
    text = describe(UserError("common.error.already_joined", name=shown("__u__")), "en")
    assert text == r"\_\_u\_\_ is already signed up."
