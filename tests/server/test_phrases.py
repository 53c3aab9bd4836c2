"""Quick phrases (快捷语): a key of a fixed list, passed on as that key alone to those who read
the speaker's chat (players or spectators), rate limited apart from chat, refused while muted."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.inbound import PHRASES
from tests.server.conftest import make_settings
from tests.server.sockets import Player
from tests.server.test_admin import admin
from tests.server.test_realtime import connect, table_of_two

ROOT = Path(__file__).resolve().parents[2]


def phrases(player: Player, count: int) -> list[dict[str, Any]]:
    """The first ``count`` phrases ``player`` got (those read with a reply, and those to come)."""
    while len(got := [m for m in player.received if m["type"] == "phrase"]) < count:
        player.receive()
    return got[:count]


@pytest.fixture
def few(tmp_path: Path) -> Iterator[TestClient]:
    """An app that takes 3 quick phrases a minute per user."""
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'few.db'}", phrases_per_minute=3)
    with TestClient(create_app(settings)) as client:
        yield client


def test_a_phrase_goes_to_the_players_as_its_key(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        carol = connect(stack, client, "carol")  # a spectator: reads no player's phrase
        assert carol.request({"type": "open", "table": table})["type"] == "ok"
        said = alice.request({"type": "phrase", "table": table, "key": "nice_move"})
        assert said["type"] == "ok"
        (heard,) = phrases(bob, 1)
        # the key, who and where: no words of the sender's, nothing else
        assert {k: v for k, v in heard.items() if k != "at"} == {
            "type": "phrase",
            "channel": "table",
            "table": table,
            "from": "alice",
            "seat": 0,
            "key": "nice_move",
        }
        # the spectator's own phrase reaches the spectators, and is the first carol hears
        assert carol.request({"type": "phrase", "table": table, "key": "hello"})["type"] == "ok"
        (heard,) = phrases(carol, 1)
        assert (heard["from"], heard["seat"], heard["channel"]) == ("carol", None, "spectators")
        # the players heard no spectator: bob's next phrase is alice's next one
        assert alice.request({"type": "phrase", "table": table, "key": "bye"})["type"] == "ok"
        assert phrases(bob, 2)[1]["key"] == "bye"


def test_an_unknown_phrase_or_a_table_not_watched_is_refused(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        for key in ("rank:marshal", "好棋", "", "hello "):
            refused = alice.request({"type": "phrase", "table": table, "key": key})
            assert refused["type"] == "error" and refused["code"] == "unknown_phrase", key
        refused = alice.request({"type": "phrase", "table": table, "key": "x" * 41})
        assert refused["code"] == "bad_message"
        carol = connect(stack, client, "carol")  # does not watch the table
        refused = carol.request({"type": "phrase", "table": table, "key": "hello"})
        assert refused["code"] == "not_watching"
        assert alice.request({"type": "phrase", "table": "nope", "key": "hello"})["code"] == (
            "no_table"
        )
        # nothing of it reached bob: the first phrase he hears is this one
        assert alice.request({"type": "phrase", "table": table, "key": "thanks"})["type"] == "ok"
        assert phrases(bob, 1)[0]["key"] == "thanks"


def test_phrases_are_rate_limited_apart_from_chat(few: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob, table = table_of_two(few, stack)
        hurry = {"type": "phrase", "table": table, "key": "hurry"}
        answers = [alice.request(hurry) for _ in range(5)]
        codes = [a.get("code", a["type"]) for a in answers]
        assert codes == ["ok"] * 3 + ["rate_limited"] * 2, codes
        assert "phrases" in answers[-1]["message"]
        line = {"type": "chat", "channel": "table", "table": table, "text": "还能说话"}
        assert alice.request(line)["type"] == "ok"  # chat lines count apart
        # per user: bob's are his own
        assert bob.request({"type": "phrase", "table": table, "key": "sorry"})["type"] == "ok"


def test_a_muted_user_says_no_phrase(client: TestClient) -> None:
    headers = admin(client)
    with ExitStack() as stack:
        alice, _, table = table_of_two(client, stack)
        muted = client.post(
            "/admin/users/alice/mute", headers=headers, json={"minutes": 30, "reason": "spam"}
        )
        assert muted.status_code == 200
        refused = alice.request({"type": "phrase", "table": table, "key": "hello"})
        assert refused["code"] == "muted"


def test_every_phrase_has_words_in_both_languages() -> None:
    i18n = (ROOT / "web" / "js" / "i18n.js").read_text()
    for language in ("zh", "en"):
        words = i18n.split(f"\n  {language}: {{", 1)[1]
        for key in PHRASES:
            assert re.search(rf"\bphrase_{key}: \"[^\"]+\"", words.split("\n  },", 1)[0]), key
