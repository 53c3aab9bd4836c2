"""A table's pace (server.table_options.PACES): its bots move no sooner than the pace after
their turn began; the default pace; only the creator sets it; and it is no rule."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from server.app import create_app
from server.table_options import DEFAULT_PACE, PACES
from tests.server.conftest import make_settings
from tests.server.sockets import Player
from tests.server.test_realtime import connect, connect_again, start_game


@pytest.fixture
def paced(tmp_path: Path) -> Iterator[TestClient]:
    """The app with bots that decide at once and wait for their table's pace as it is."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'pace.db'}"
    settings = make_settings(url, bot_pace_scale=1.0, bot_budget_scale=0.0)
    with TestClient(create_app(settings)) as client:
        yield client


def against_a_bot(me: Player, pace: str | None) -> str:
    """A table of 二人 with ``me`` on seat 0 and a bot on seat 1 (at ``pace``, else the
    default), in play; returns its id."""
    asked = {"type": "create_table", "room": "liangguo-fast"}
    table: str = me.request(asked if pace is None else {**asked, "pace": pace})["table"]
    me.request({"type": "sit", "table": table, "seat": 0})
    me.request({"type": "add_bot", "table": table, "seat": 1, "level": "easy"})
    me.sync(me.request({"type": "ready", "table": table})["version"])
    layout = engine.auto_layout("liangguo", 0, 5)
    assert me.act(table, {"type": "place_layout", "layout": layout})["type"] == "ok"
    me.until(lambda m: m["type"] == "update" and m["snapshot"]["game"]["phase"] == "playing")
    return table


def bot_waits(me: Player, table: str, moves: int) -> list[float]:
    """Play ``moves`` of seat 0; after each, how long the bot took from the start of its turn
    to its move, as the server's clock says (each turn event's deadline is its start plus
    the move clock)."""
    waits: list[float] = []
    for _ in range(moves):
        while me.game["to_move"] != 0:
            me.until(lambda m: m["type"] == "update")
        legal = me.game["legal_moves"]
        origin = sorted(legal)[0]
        start = len(me.received)  # the update of our move may come before its reply
        reply = me.act(table, {"type": "move", "origin": origin, "target": legal[origin][0]})
        assert reply["type"] == "ok", reply

        def turns(start: int = start) -> list[dict[str, Any]]:
            updates = [m for m in me.received[start:] if m["type"] == "update"]
            return [e for m in updates for e in m["events"] if e["kind"] == "turn"]

        while len(turns()) < 2:  # the bot's turn, then ours again
            me.until(lambda m: m["type"] == "update")
            if me.game["phase"] != "playing":
                return waits
        first, second = turns()[:2]
        assert (first["seat"], second["seat"]) == (1, 0)
        waits.append(second["deadline"] - first["deadline"])
    return waits


def test_a_bot_waits_for_the_default_pace_then_for_the_one_its_creator_sets(
    paced: TestClient,
) -> None:
    with ExitStack() as stack:
        me = connect(stack, paced, "pacer")
        table = against_a_bot(me, None)
        assert DEFAULT_PACE == "normal" and me.snapshot is not None
        assert me.snapshot["pace"] == "normal"
        assert all(wait >= PACES["normal"] for wait in bot_waits(me, table, 2))
        reply = me.request({"type": "pace", "table": table, "pace": "fast"})
        assert reply["type"] == "ok", reply
        me.sync(reply["version"])
        assert me.snapshot["pace"] == "fast"  # the bot decides in no time: only the pace waits
        waits = bot_waits(me, table, 3)
        assert waits and all(PACES["fast"] <= wait < PACES["normal"] for wait in waits), waits


def test_a_slow_table_s_bot_waits_three_seconds(paced: TestClient) -> None:
    with ExitStack() as stack:
        me = connect(stack, paced, "patient")
        table = against_a_bot(me, "slow")
        assert me.snapshot is not None and me.snapshot["pace"] == "slow"
        assert all(wait >= PACES["slow"] for wait in bot_waits(me, table, 1))


def test_only_the_creator_sets_the_pace_and_it_is_no_rule(client: TestClient) -> None:
    with ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        table = alice.request({"type": "create_table", "room": "liangguo-fast", "pace": "slow"})[
            "table"
        ]
        for seat, player in enumerate((alice, bob)):
            player.sync(player.request({"type": "sit", "table": table, "seat": seat})["version"])
        assert bob.snapshot is not None
        assert bob.snapshot["pace"] == "slow"
        # a rated table stays rated: the pace is no rule
        assert bob.snapshot["changes"] == {} and bob.snapshot["rated"] is True
        refused = bob.request({"type": "pace", "table": table, "pace": "fast"})
        assert (refused["type"], refused["code"]) == ("error", "not_allowed")
        wrong = alice.request({"type": "pace", "table": table, "pace": "glacial"})
        assert (wrong["type"], wrong["code"]) == ("error", "bad_message")
        reply = alice.request({"type": "pace", "table": table, "pace": "fast"})
        bob.sync(reply["version"])
        assert bob.snapshot["pace"] == "fast" and bob.snapshot["rated"] is True


def test_a_restart_keeps_the_pace(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'restart.db'}")
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        asked = {"type": "create_table", "room": "liangguo-fast", "pace": "slow"}
        table = alice.request(asked)["table"]
        alice.request({"type": "sit", "table": table, "seat": 0})
        bob.request({"type": "sit", "table": table, "seat": 1})
        start_game(alice, bob, table, 3)
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice = connect_again(stack, client, "alice")
        assert alice.request({"type": "open", "table": table})["type"] == "ok"
        assert alice.snapshot is not None and alice.snapshot["pace"] == "slow"
