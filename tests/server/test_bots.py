"""Bots at the table: play now with three bots, a whole game through the real app."""

from __future__ import annotations

import asyncio
import random
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from engine.bot import CLOCK_MARGIN, LEVEL
from server import bot_driver
from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings
from tests.server.sockets import Player, audit
from tests.server.test_realtime import connect, connect_again


def test_play_now_fills_the_table_with_bots_that_play_to_the_end(
    sqlite_client: TestClient,
) -> None:
    client = sqlite_client
    rng = random.Random(3)
    with ExitStack() as stack:
        me = connect(stack, client, "newcomer")
        reply = me.request({"type": "play_now", "room": "siguo-fast"})
        assert reply["type"] == "ok", reply
        table = reply["table"]
        me.sync(reply["version"])
        assert me.snapshot is not None
        assert [s["bot"] for s in me.snapshot["seats"]] == [False, True, True, True]
        assert me.snapshot["bots"] is True
        ready = me.request({"type": "ready", "table": table})
        me.sync(ready["version"])
        layout = engine.auto_layout("siguo", 0, 1)
        assert me.act(table, {"type": "place_layout", "layout": layout})["type"] == "ok"
        me.until(lambda m: m["type"] == "update" and m["snapshot"]["game"]["phase"] != "deploying")
        moves = 0
        while me.game["phase"] == "playing":
            game = me.game
            if game["to_move"] == 0 and game.get("legal_moves"):
                origin = rng.choice(sorted(game["legal_moves"]))
                reply = me.act(
                    table,
                    {
                        "type": "move",
                        "origin": origin,
                        "target": rng.choice(game["legal_moves"][origin]),
                    },
                )
                assert reply["type"] == "ok", reply
                moves += 1
                me.sync(reply["version"])  # the reply can come before the update it made
            else:
                me.until(lambda m: m["type"] == "update")
        assert me.game["phase"] == "finished" and moves > 0
        events = [e for m in me.received if m["type"] == "update" for e in m["events"]]
        assert moves == sum(e["kind"] == "moved" and e["seat"] == 0 for e in events)
        # every turn given to a bot was played (a seat without a legal move is skipped, no turn)
        bot_turns = sum(e["kind"] == "turn" and e["seat"] != 0 for e in events)
        bot_moves = sum(e["kind"] == "moved" and e["seat"] != 0 for e in events)
        assert bot_moves == bot_turns > 0
        assert audit(me.received, 0) > 0
        # a game with bots does not move points
        standing = next(
            s
            for s in client.get("/api/users/newcomer").json()["standings"]
            if s["variant"] == "siguo"
        )
        assert standing["points"] == 0 and standing["wins"] + standing["losses"] == 0


def test_bots_take_and_leave_free_seats(sqlite_client: TestClient) -> None:
    with ExitStack() as stack:
        me = connect(stack, sqlite_client, "host")
        table = me.request({"type": "create_table", "room": "liangguo-fast"})["table"]
        me.request({"type": "sit", "table": table, "seat": 0})
        assert me.request({"type": "add_bot", "table": table, "seat": 0})["code"] == "bad_seat"
        added = me.request({"type": "add_bot", "table": table, "seat": 1})
        me.sync(added["version"])
        assert me.snapshot is not None and me.snapshot["seats"][1]["bot"] is True
        other = connect(stack, sqlite_client, "late")
        assert other.request({"type": "sit", "table": table, "seat": 1})["code"] == "seat_taken"
        removed = me.request({"type": "remove_bot", "table": table, "seat": 1})
        me.sync(removed["version"])
        assert me.snapshot["seats"][1]["bot"] is False
        assert other.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"


def test_only_the_tables_players_and_its_creator_seat_bots(sqlite_client: TestClient) -> None:
    with ExitStack() as stack:
        creator = connect(stack, sqlite_client, "creator")
        table = creator.request({"type": "create_table", "room": "siguo-fast"})["table"]
        passer_by = connect(stack, sqlite_client, "passer-by")
        watcher = connect(stack, sqlite_client, "watcher")
        watcher.request({"type": "open", "table": table})
        assert watcher.snapshot is not None and watcher.snapshot["creator"] == "creator"
        for stranger in (passer_by, watcher):
            refused = stranger.request({"type": "add_bot", "table": table, "seat": 1})
            assert refused["code"] == "not_allowed", refused
        # the creator, not seated, places bots; a player who sat down removes one
        assert creator.request({"type": "add_bot", "table": table, "seat": 1})["type"] == "ok"
        assert creator.request({"type": "add_bot", "table": table, "seat": 2})["type"] == "ok"
        for stranger in (passer_by, watcher):
            refused = stranger.request({"type": "remove_bot", "table": table, "seat": 1})
            assert refused["code"] == "not_allowed", refused
        player = connect(stack, sqlite_client, "player")
        assert player.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        removed = player.request({"type": "remove_bot", "table": table, "seat": 1})
        assert removed["type"] == "ok", removed
        assert player.request({"type": "add_bot", "table": table, "seat": 3})["type"] == "ok"
        player.sync(player.request({"type": "stand", "table": table})["version"])
        seats = player.snapshot["seats"] if player.snapshot is not None else []
        assert [s["bot"] for s in seats] == [False, False, True, True]
        refused = player.request({"type": "remove_bot", "table": table, "seat": 3})
        assert refused["code"] == "not_allowed", refused  # stood up: a passer-by again


def _stand_in_duel(stack: ExitStack, client: TestClient) -> tuple[Player, Player, str]:
    """Alice and Bob deployed at a 二人 table with 托管 (``stand_in``), play about to begin."""
    alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
    table = alice.request({"type": "create_table", "room": "quick", "stand_in": True})["table"]
    alice.request({"type": "sit", "table": table, "seat": 0})
    bob.request({"type": "sit", "table": table, "seat": 1})
    for p in (alice, bob):
        v = p.request({"type": "ready", "table": table})["version"]
    for seat, p in ((0, alice), (1, bob)):
        p.sync(v)
        reply = p.act(
            table, {"type": "place_layout", "layout": engine.auto_layout("liangguo", seat, 5)}
        )
    alice.sync(reply["version"])
    return alice, bob, table


def _stand_in_app(tmp_path: Path, grace: int) -> TestClient:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'standin.db'}")
    settings.rooms = [
        RoomConfig(
            id="quick",
            name="quick",
            variant="liangguo",
            options={"disconnect_grace_seconds": grace, "move_seconds": 30},
        )
    ]
    return TestClient(create_app(settings))


def test_a_bot_plays_for_an_away_player_through_the_grace_and_hands_back(
    tmp_path: Path,
) -> None:
    with _stand_in_app(tmp_path, 60) as client, ExitStack() as stack:
        alice, bob, table = _stand_in_duel(stack, client)
        bob.ws.close()
        taken = alice.until(lambda m: m["type"] == "update" and m["snapshot"]["seats"][1]["away"])
        # at once: the grace is the bot's, not the clock's
        assert taken["snapshot"]["seats"][1]["taken_over"] is True
        rng = random.Random(1)
        moved_for_bob: list[dict[str, object]] = []
        while not moved_for_bob and alice.game["phase"] == "playing":
            game = alice.game
            if game["to_move"] == 0 and game.get("legal_moves"):
                origin = rng.choice(sorted(game["legal_moves"]))
                alice.act(
                    table,
                    {
                        "type": "move",
                        "origin": origin,
                        "target": rng.choice(game["legal_moves"][origin]),
                    },
                )
            message = alice.until(lambda m: m["type"] == "update")
            moved_for_bob += [
                e for e in message["events"] if e["kind"] == "moved" and e["seat"] == 1
            ]
        assert moved_for_bob  # seat 1 played on while bob was away
        back = connect_again(stack, client, "bob")
        back.request({"type": "open", "table": table})
        assert back.snapshot is not None
        assert back.snapshot["seats"][1]["taken_over"] is False  # handed back
        assert back.snapshot["status"] == "playing"


def test_an_away_player_escapes_when_the_grace_runs_out_though_a_bot_stood_in(
    tmp_path: Path,
) -> None:
    with _stand_in_app(tmp_path, 1) as client, ExitStack() as stack:
        alice, bob, table = _stand_in_duel(stack, client)
        bob.ws.close()
        taken = alice.until(lambda m: m["type"] == "update" and m["snapshot"]["seats"][1]["away"])
        assert taken["snapshot"]["seats"][1]["taken_over"] is True
        over = alice.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] != "playing")
        result = over["snapshot"]["game"]["result"]
        assert [s["outcome"] for s in result["seats"]] == ["win", "escape"]
        assert result["reason"] == "escape"


def test_a_table_of_four_bots_plays_to_the_end_while_people_watch(
    sqlite_client: TestClient,
) -> None:
    with ExitStack() as stack:
        watcher = connect(stack, sqlite_client, "watcher")
        table = watcher.request({"type": "create_table", "room": "siguo-fast"})["table"]
        watcher.request({"type": "open", "table": table})
        for seat in range(4):
            level = ("easy", "normal")[seat % 2]
            reply = watcher.request(
                {"type": "add_bot", "table": table, "seat": seat, "level": level}
            )
            assert reply["type"] == "ok", reply
        over = watcher.until(
            lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished", limit=5000
        )
        result = over["snapshot"]["game"]["result"]
        assert result["reason"] in ("elimination", "no_capture", "surrender")
        assert watcher.snapshot is not None and watcher.snapshot["you"] is None  # a spectator
        # it saw moves, and no hidden rank (a spectator is shown none: ranks are checked only
        # where a flag was shown, so their count may be nought)
        audit(watcher.received, None)
        moves = [e for m in watcher.received if m["type"] == "update" for e in m["events"]]
        assert any(e["kind"] == "moved" for e in moves)


def test_bots_think_for_their_levels_budget_within_the_move_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The thinker hands a worker the instant by which to decide: the level's budget times the
    scale, never past the move clock in the view; with scale 0 none (the fixed samples); and
    it answers no sooner than the pause after it was asked, thinking time included."""
    asked: list[float | None] = []

    def deciding(
        view: Any, seed: int, guesses: Any, level: str, recent: Any, until: Any, proven: Any
    ) -> Any:
        asked.append(until)
        time.sleep(0.2)  # thinking
        return {"type": "move"}

    monkeypatch.setattr(bot_driver, "decide", deciding)

    async def ask(scale: float, deadline: float | None, pause: float = 0.0) -> float:
        with ThreadPoolExecutor(1) as workers:
            think = bot_driver.thinker(workers, pause, scale)
            start = time.monotonic()
            await think({"viewer": 0, "deadline": deadline}, 1, {}, "hard", [], [])
            return time.monotonic() - start

    now = time.time()
    asyncio.run(ask(1.0, None))
    assert asked[-1] == pytest.approx(now + LEVEL["hard"].budget, abs=0.5)
    asyncio.run(ask(0.5, None))
    assert asked[-1] == pytest.approx(now + LEVEL["hard"].budget / 2, abs=0.5)
    asyncio.run(ask(1.0, now + 3.0))  # a move clock of 3 s: less its margin
    assert asked[-1] == pytest.approx(now + 3.0 - CLOCK_MARGIN, abs=0.5)
    asyncio.run(ask(0.0, now + 30.0))
    assert asked[-1] is None
    assert asyncio.run(ask(0.0, None, pause=0.15)) < 0.33  # thought 0.2 s: no pause after it
    assert asyncio.run(ask(0.0, None, pause=0.5)) >= 0.5
