"""Decks by name through the sandbox: a deck of the bot's folder chosen by name, a game that
keeps playing after its file is deleted, hostile names refused without a trace."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import discord
import pytest

from games.refutation.decks.settings import DeckSettings
from games.refutation.players import RfGame, auto_turn, best_card
from games.refutation.rules import default_deck_path
from games.refutation.tests.decks import hands_too_long
from playtest.players import text_of
from tests.harness import running_bot, sandbox_settings

pytestmark = pytest.mark.timeout(120)

MARK = "♣ "


def club_deck() -> str:
    """The default deck under another id, every title marked: its cards are recognisable."""
    text = default_deck_path().read_text(encoding="utf-8")
    text = text.replace('id = "climate-default"', 'id = "club"', 1)
    text = text.replace('title.en = "', f'title.en = "{MARK}').replace(
        'title.fr = "', f'title.fr = "{MARK}'
    )
    assert text.count(MARK) == 120
    return text


@pytest.fixture
def decks_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "club.toml").write_text(club_deck(), encoding="utf-8")
    (folder / "Not A Name.toml").write_text(club_deck(), encoding="utf-8")  # ignored
    return folder


@pytest.fixture
async def deck_bot(table: Any, decks_dir: Path) -> Any:
    settings = replace(
        sandbox_settings(table.sb, table.url()),
        sections={"decks": DeckSettings(decks_dir=str(decks_dir), check_seconds=60.0)},
    )
    async with running_bot(table.sb, table.url(), settings=settings) as running:
        yield running


async def ask(table: Any, user: Any, command: str, **options: Any) -> tuple[Any, str]:
    ix = await table.sb.slash(user, command, channel=table.channel, **options)
    message = await ix.reply_message(10.0)
    return ix, text_of(message)


async def test_a_game_keeps_playing_after_its_deck_file_is_deleted(
    table: Any, deck_bot: Any, decks_dir: Path
) -> None:
    offered = await table.sb.autocomplete(
        table.mod, "settings refutation deck", channel=table.channel, focused="name", name=""
    )
    assert [c["value"] for c in offered] == ["default", "club"], offered
    assert "a deck of the bot's folder" in offered[1]["name"]
    ix, answer = await ask(table, table.mod, "settings refutation deck", name="club")
    assert ix.ephemeral and "will use the deck: `club`" in answer, answer

    players = table.users[:3]
    game = RfGame(table, players)
    seconds = 2.0
    await game.open(techniques=True, vote_hours=seconds / 3600)
    await game.start()
    hands = {u: game.hand(u) for u in players}
    dm = next(m for m in reversed(table.sb.dms(players[0])) if "Your hand" in m.content)
    assert all(e["title"].split(" · ", 1)[1].startswith(MARK) for e in dm.embeds)

    # The file goes away (and its folder): the game has its own copy.
    shutil.rmtree(decks_dir)

    assert "Turn 1" in await game.status()
    assert sorted(await game.hand_now(players[0])) == sorted(hands[players[0]])
    ix, page = await ask(table, players[1], "refutation card", number=game.feed()[0])
    assert ix.ephemeral and MARK in page
    # Watch a card someone can refute, then refute it: the choice DMs show the deck's titles.
    for _ in range(6):
        _, _, target = await game.watch_then_refute()
        holders = [u for u in players if best_card(hands[u], target) is not None]
        if holders:
            break
        since = len(game.public())
        reply = await game.slash(table.mod, "refutation resolve")  # nobody can: no card
        assert "is closed" in reply, reply
        await game.new_public(since, "nobody played a card")
    else:  # pragma: no cover - the seed gives a refutable card early
        raise AssertionError("no refutable card")
    assert MARK in text_of(game.choice_dm(players[0]))
    player = holders[0]
    card = best_card(hands[player], target)
    assert card is not None
    await game.choose(player, card)
    since = len(game.public())
    reply = await game.slash(table.mod, "refutation resolve")  # the others never chose
    assert "is closed: the cards are revealed" in reply, reply
    reveal = await game.new_public(since, "Revealed cards")
    assert f"Card {card} — {MARK}" in reveal, reveal
    # Nobody votes: the vote's deadline closes it (the scheduler loads the stored deck too).
    result = await game.new_public(since, "succeeds:", "fails:", timeout=30)
    assert "Refutation #" in result, result
    status = await game.status()
    assert "Turn" in status, status
    ix, answer = await ask(table, table.mod, "refutation cancel")
    assert "cancelled" in answer, answer
    await game.new_public(0, "The game was ended")

    # A new game cannot take the deck that is gone: refused privately, nothing opened.
    before = len(game.messages())
    ix, answer = await ask(table, table.mod, "refutation new")
    assert ix.ephemeral and "There is no deck named “club”" in answer, answer
    assert len(game.messages()) == before


async def test_hostile_deck_names_are_refused_alike(table: Any, deck_bot: Any) -> None:
    """A path, a traversal, a name that does not exist, a file whose name is not a deck name,
    markdown: the same private refusal, in the moderator's language; the setting unchanged."""
    role = table.guild.add_role("Mods FR", permissions=discord.Permissions(manage_guild=True).value)
    french = table.sb.add_user("Modératrice", locale="fr")
    table.guild.add_member(french, roles=[role])
    hostile = [
        "/etc/passwd",
        "/dev/zero",
        "/tmp/fifo",
        "../decks/club",
        "Not A Name",
        "missing",
        "club.toml",
        "x" * 100,
        "**bold** @everyone",
    ]
    for name in hostile:
        ix, answer = await ask(table, table.mod, "settings refutation deck", name=name)
        assert ix.ephemeral and answer.startswith("There is no deck named"), answer
        assert "\n" not in answer and "**bold**" not in answer
        ix, answer = await ask(table, french, "settings refutation deck", name=name)
        assert ix.ephemeral and answer.startswith("Aucun paquet ne s’appelle"), answer
    ix, answer = await ask(table, table.mod, "settings show")
    assert "the default climate deck" in answer


def issue_hand_deck() -> bytes:
    """The club deck with hands too long to send (decks.hands_too_long)."""
    return hands_too_long(club_deck()).encode()


HOSTILE_UPLOADS: list[tuple[str, bytes, str, str]] = [
    # (file name, bytes, English answer contains, French answer contains)
    ("big.toml", b"#" * (300 * 1024), "the limit is 262144", "262144 au maximum"),
    ("latin1.toml", "[deck]\nid = 'café'\n".encode("latin-1"), "not UTF-8", "pas du texte UTF-8"),
    ("deep.toml", b"x = " + b"[" * 50_000 + b"]" * 50_000, "32 levels deep", "plus de 32"),
    ("dots.toml", b"k" + b".k" * 50_000 + b" = 1\n", "32 dotted parts", "parties pointées"),
    ("passwd.toml", b"root:x:0:0:root:/root:/bin/bash\n", "not valid TOML", "pas du TOML"),
    ("hand.toml", issue_hand_deck(), "A hand of the largest size", "Une main de la plus grande"),
    ("default.toml", club_deck().encode(), "belongs to a deck of the bot", "celui d’un paquet"),
    ("***.toml", club_deck().encode(), "no usable deck name", "pas de nom de paquet"),
]


async def test_deck_uploads_hostile_then_good_then_played(table: Any, deck_bot: Any) -> None:
    from sandbox import Upload

    role = table.guild.add_role("Mods FR", permissions=discord.Permissions(manage_guild=True).value)
    french = table.sb.add_user("Modératrice", locale="fr")
    table.guild.add_member(french, roles=[role])

    async def upload(who: Any, filename: str, data: bytes) -> tuple[Any, str]:
        return await ask(table, who, "settings refutation deck_upload", file=Upload(filename, data))

    for filename, data, english, french_text in HOSTILE_UPLOADS:
        ix, answer = await upload(table.mod, filename, data)
        assert ix.ephemeral and english in answer and "\n" not in answer, (filename, answer)
        ix, answer = await upload(french, filename, data)
        assert ix.ephemeral and french_text in answer and "\n" not in answer, (filename, answer)
    # Nothing was stored: the autocomplete offers the bot's decks only.
    offered = await table.sb.autocomplete(
        table.mod, "settings refutation deck", channel=table.channel, focused="name", name=""
    )
    assert [c["value"] for c in offered] == ["default", "club"], offered

    # A good upload, in French; then chosen by name and played to the end.
    good = club_deck().replace('id = "club"', 'id = "mine"').replace(MARK, "♦ ").encode()
    ix, answer = await upload(french, "Mon Paquet.toml", good)
    assert ix.ephemeral and "Paquet `mon-paquet` enregistré" in answer, answer
    offered = await table.sb.autocomplete(
        table.mod, "settings refutation deck", channel=table.channel, focused="name", name="mon"
    )
    assert [c["value"] for c in offered] == ["mon-paquet"], offered
    assert "uploaded on this server" in offered[0]["name"]
    ix, answer = await ask(table, table.mod, "settings refutation deck", name="mon-paquet")
    assert "will use the deck: `mon-paquet`" in answer, answer

    players = table.users[:3]
    game = RfGame(table, players)
    await game.open(techniques=True, target=5)
    await game.start()
    hands = {u: game.hand(u) for u in players}
    dm = next(m for m in reversed(table.sb.dms(players[0])) if "Your hand" in m.content)
    assert all("♦ " in e["title"] for e in dm.embeds)
    # Replacing the upload does not change the running game: it keeps its copy.
    ix, answer = await upload(table.mod, "mon-paquet.toml", club_deck().encode())
    assert "Deck `mon-paquet` saved" in answer, answer
    for _ in range(30):
        if game.ended():
            break
        await auto_turn(game, hands)
    end = await game.new_public(0, "The table wins")
    assert "♦ " in end and MARK not in end
