"""docs/rules.md says what the rules engines do: each table marked ``<!-- engine: NAME -->`` is
read back and compared, cell by cell, with the grid built here from the engines' own tables
(games/resistance/rules/tables.py, games/refutation/rules/model.py,
games/werewolf/rules/tables.py) at every player count.

A new checked table is a marker in the document and one entry of :data:`EXPECTED` (as the box
table of team sizes, ``resistance.team_sizes.box``); a marker without an entry, or an entry
whose table is gone from the document, fails."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from games.refutation.rules import Options, Refutation, default_deck_path, load_deck
from games.refutation.rules import model as refutation
from games.resistance.rules import avalon
from games.resistance.rules import tables as resistance
from games.werewolf.rules import SPECIAL_ROLES, GameError, verify_setup
from games.werewolf.rules import Options as WerewolfOptions
from games.werewolf.rules import tables as werewolf
from tests.paths import ROOT

RULES = ROOT / "docs" / "rules.md"

MARKER = re.compile(r"^<!-- engine: (?P<name>[a-z0-9_.]+) -->\n", re.M)

Grid = list[list[str]]


def table_after(text: str, start: int) -> Grid:
    """The Markdown table that begins at ``start``: its rows of cells, the separator left out."""
    rows: Grid = []
    for line in text[start:].splitlines():
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if all(re.fullmatch(r":?-+:?", cell) for cell in cells):
            continue
        rows.append(cells)
    return rows


def checked_tables(text: str) -> dict[str, Grid]:
    """Every marked table of the document, by its marker's name (each name once)."""
    found: dict[str, Grid] = {}
    for match in MARKER.finditer(text):
        name = match["name"]
        assert name not in found, f"docs/rules.md marks two tables {name!r}"
        found[name] = table_after(text, match.end())
    return found


def listed(values: tuple[int, ...] | list[int], last: str = ", ") -> str:
    """``5, 7, 9``; with ``last=" or "``: ``5, 7 or 9``."""
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + last + words[-1]


def counts(low: int, high: int) -> list[int]:
    return list(range(low, high + 1))


def player_counts() -> list[int]:
    """The Resistance's player counts, MIN_PLAYERS..MAX_PLAYERS."""
    return counts(resistance.MIN_PLAYERS, resistance.MAX_PLAYERS)


def resistance_header() -> list[str]:
    return ["players", *(str(n) for n in player_counts())]


def by_player_count(label: str, value: Callable[[int], object]) -> list[str]:
    return [label, *(str(value(n)) for n in player_counts())]


def resistance_numbers() -> Grid:
    return [
        ["what", "number"],
        ["players", f"{resistance.MIN_PLAYERS} to {resistance.MAX_PLAYERS}"],
        ["missions", str(resistance.MISSIONS)],
        ["missions one side needs to win", str(resistance.MISSIONS_TO_WIN)],
        [
            "rejected teams in one mission that give the spies the game",
            str(resistance.MAX_REJECTIONS),
        ],
        [
            "Avalon: the Lady of the Lake examines after missions",
            listed(avalon.LADY_MISSIONS, " and "),
        ],
    ]


def resistance_roles() -> Grid:
    return [
        resistance_header(),
        by_player_count("Resistance", resistance.RESISTANCE_COUNT.__getitem__),
        by_player_count("spies", resistance.SPY_COUNT.__getitem__),
    ]


def team_sizes(sizes: dict[int, tuple[int, int, int, int, int]]) -> Callable[[], Grid]:
    """The team sizes of ``sizes`` (player count -> missions 1..5), one row per mission."""

    def grid() -> Grid:
        return [
            resistance_header(),
            *(
                [f"mission {m}", *(str(sizes[n][m - 1]) for n in player_counts())]
                for m in range(1, resistance.MISSIONS + 1)
            ),
        ]

    return grid


def sabotages() -> Grid:
    return [
        resistance_header(),
        *(
            [
                f"mission {m}",
                *(str(resistance.sabotages_needed(n, m)) for n in player_counts()),
            ]
            for m in range(1, resistance.MISSIONS + 1)
        ),
    ]


def refutation_numbers() -> Grid:
    return [
        ["what", "number"],
        ["players", f"{refutation.MIN_PLAYERS} to {refutation.MAX_PLAYERS}"],
        ["cards in the feed", str(refutation.FEED_SIZE)],
        ["refutation cards in each hand", str(refutation.HAND_REFUTATIONS)],
        ["technique cards in each hand (variant)", str(refutation.HAND_TECHNIQUES)],
        ["goals the table may choose", listed(refutation.TARGETS, " or ")],
        ["the goal unless chosen", str(Options().target)],
    ]


def refutation_reach() -> Grid:
    """Per player count, the cards dealt and the goals within reach (the default deck)."""
    deck = load_deck(default_deck_path())
    players = counts(refutation.MIN_PLAYERS, refutation.MAX_PLAYERS)

    def reach(n: int, techniques: bool) -> str:
        largest = Refutation.largest_target(n, deck, techniques)
        return listed([t for t in refutation.TARGETS if t <= largest]) if largest else "none"

    rows: Grid = [["players", *(str(n) for n in players)]]
    for prefix, techniques in (("", False), ("with the techniques: ", True)):
        rows.append(
            [
                f"{prefix}cards in all hands",
                *(str(Refutation.cards_dealt(n, techniques)) for n in players),
            ]
        )
        rows.append([f"{prefix}goals within reach", *(reach(n, techniques) for n in players)])
    return rows


def werewolf_numbers() -> Grid:
    return [
        ["what", "number"],
        ["players", f"{werewolf.MIN_PLAYERS} to {werewolf.MAX_PLAYERS}"],
        ["werewolves at the fewest (option `wolves`)", str(werewolf.MIN_WOLVES)],
        ["werewolves at the most (option `wolves`)", str(werewolf.MAX_WOLVES)],
        ["special roles that may be dealt", str(len(SPECIAL_ROLES))],
    ]


def most_specials(count: int) -> int:
    """The most special roles the engine lets a game of ``count`` players deal with the
    table's werewolves (asked of its setup check, each number of roles in turn)."""
    best = 0
    for chosen in range(len(SPECIAL_ROLES) + 1):
        flags = {role.value: i < chosen for i, role in enumerate(SPECIAL_ROLES)}
        try:
            verify_setup(count, WerewolfOptions(**flags))
        except GameError:
            continue
        best = chosen
    return best


def werewolf_wolves() -> Grid:
    players = counts(werewolf.MIN_PLAYERS, werewolf.MAX_PLAYERS)
    return [
        ["players", *(str(n) for n in players)],
        ["werewolves", *(str(werewolf.WOLF_COUNT[n]) for n in players)],
        ["at most, with the option `wolves`", *(str(werewolf.max_wolves(n)) for n in players)],
        [
            "special roles at most, with the table's werewolves",
            *(str(most_specials(n)) for n in players),
        ],
    ]


#: marker name -> the grid the engines say the table holds
EXPECTED: dict[str, Callable[[], Grid]] = {
    "resistance.numbers": resistance_numbers,
    "resistance.roles": resistance_roles,
    "resistance.team_sizes.forum": team_sizes(resistance.TEAM_SIZES[resistance.TeamTable.FORUM]),
    "resistance.team_sizes.box": team_sizes(resistance.TEAM_SIZES[resistance.TeamTable.BOX]),
    "resistance.sabotages": sabotages,
    "refutation.numbers": refutation_numbers,
    "refutation.reach": refutation_reach,
    "werewolf.numbers": werewolf_numbers,
    "werewolf.wolves": werewolf_wolves,
}


def test_every_checked_table_is_in_the_document_and_known() -> None:
    found = checked_tables(RULES.read_text(encoding="utf-8"))
    assert sorted(found) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_table_holds_the_engines_values(name: str) -> None:
    found = checked_tables(RULES.read_text(encoding="utf-8"))
    assert name in found, f"docs/rules.md has no table marked {name!r}"
    assert found[name] == EXPECTED[name](), f"docs/rules.md, table {name!r}: not the engine's"


def test_the_tables_cover_every_player_count() -> None:
    """The engine's tables themselves span MIN..MAX players, so the grids above do too."""
    players = set(player_counts())
    assert all(set(sizes) == players for sizes in resistance.TEAM_SIZES.values())
    assert set(resistance.SPY_COUNT) == players == set(resistance.RESISTANCE_COUNT)
    for n in players:
        assert resistance.SPY_COUNT[n] + resistance.RESISTANCE_COUNT[n] == n


def test_the_parser_reads_a_table_and_stops_after_it() -> None:
    text = "x\n<!-- engine: a.b -->\n| p | 1 |\n|---|---|\n| q | 2 |\n\n| other | 3 |\n"
    assert checked_tables(text) == {"a.b": [["p", "1"], ["q", "2"]]}
    with pytest.raises(AssertionError):
        checked_tables(text + "<!-- engine: a.b -->\n| p | 1 |\n")
