"""Effect records: JSON round trip, and how a long text becomes Discord messages."""

from __future__ import annotations

import json

from bot.dispatcher import messages_of
from bot.effects import (
    ArchiveThread,
    CloseSpaces,
    DebateLock,
    DirectMessage,
    EditSlot,
    Notice,
    Pin,
    Post,
    PrivateThread,
    Silence,
    ThreadMembers,
    ThreadPost,
    View,
    from_payload,
)
from bot.spaces import needed_for


def test_every_record_survives_a_json_round_trip() -> None:
    records = [
        Post(
            1,
            "hi",
            embeds=({"title": "#3"},),
            view=View("rf_vote", (4, 2, [[3, "x"]], True, "fr")),
            slot="vote",
            pin=True,
            unpin_previous=True,
        ),
        DirectMessage(2, "psst", view=View("rs_vote", (4, 1, False, "en"))),
        EditSlot(1, "leader_list", text="v2", repost=True, pin=True),
        EditSlot(1, "vote", clear_view=True),
        Pin("leader_list", pin=False),
        DebateLock(1, (7, 8), True),
        Notice("missing `manage_roles`", channel_id=1),
        Notice("<#1> — missing", user_id=2),
    ]
    for record in records:
        stored = json.loads(json.dumps(record.payload()))
        back = from_payload(record.KIND, stored)
        assert back.payload() == record.payload()
        assert type(back) is type(record)
    assert from_payload("debate", {"place_id": 1, "user_ids": [7], "locked": False}) == DebateLock(
        1, (7,), False
    )


def test_embeds_go_with_the_last_piece_then_by_tens() -> None:
    embeds = tuple({"title": str(n)} for n in range(23))
    out = messages_of("a\n" * 1500, embeds)
    assert [len(e) for _, e in out] == [0, 10, 10, 3]
    assert [bool(text) for text, _ in out] == [True, True, False, False]
    assert messages_of("", ()) == [("", [])]
    big = tuple({"title": str(n), "description": "d" * 2500} for n in range(5))
    assert [len(e) for _, e in messages_of("x", big)] == [2, 2, 1]  # 6,000 characters


def test_the_private_space_records_survive_a_json_round_trip() -> None:
    """The records of bot/spaces.py, as the outbox stores them, and the permissions a game
    asks for at /<game> new to use them."""
    records = [
        PrivateThread(1, "den", "The den", (7, 8)),
        ThreadPost("den", "welcome", view=View("secret_choice", ("pl_pick", 4, 1, [], "", False))),
        ThreadMembers("den", add=(9,), remove=(7,)),
        ArchiveThread("den"),
        Silence(1, (7,), True),
        CloseSpaces(),
    ]
    for record in records:
        back = from_payload(record.KIND, json.loads(json.dumps(record.payload())))
        assert back == record
    assert needed_for(PrivateThread, Silence) == [
        "create_private_threads",
        "send_messages_in_threads",
        "manage_roles",
    ]
