"""Replays of finished games over REST: a game's summary with its players, every step as the
board open, as spectators saw it, or as a seat knew it then (exactly the engine's view of that
seat at that step), and the move list told as each of them was told."""

from __future__ import annotations

import json
import random
from contextlib import ExitStack

from fastapi.testclient import TestClient

import engine
from tests.server.test_realtime import play_random_moves, start_game, table_of_two


def play_out(client: TestClient) -> str:
    """A whole 二人 game between alice and bob, random legal moves; returns its id."""
    with ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        start_game(alice, bob, table, 4)
        play_random_moves({0: alice, 1: bob}, table, random.Random(8))
        assert alice.game["phase"] == "finished"
    game_id: str = client.get("/api/games").json()[0]["id"]
    return game_id


def test_a_replay_shows_each_step_as_each_seat_knew_it(sqlite_client: TestClient) -> None:
    client = sqlite_client
    game_id = play_out(client)
    summary = client.get(f"/api/games/{game_id}").json()
    assert [p["name"] for p in summary["players"]] == ["alice", "bob"]
    assert summary["status"] == "finished" and summary["result"]["reason"]
    record = engine.GameRecord.from_json(
        json.dumps(client.get(f"/api/games/{game_id}/record").json()["record"])
    )
    states = list(engine.states(record))
    assert summary["steps"] == len(states) - 1
    hidden = 0
    for step in sorted({0, 1, 2, 3, len(states) // 2, len(states) - 2, len(states) - 1}):
        for seat in (0, 1):
            seen = client.get(f"/api/games/{game_id}/replay/{step}?perspective={seat}").json()
            assert seen["state"] == engine.view(states[step], seat)  # no more, no less
            hidden += sum(
                "rank" not in p for p in seen["state"].get("pieces", []) if p["seat"] != seat
            )
        public = client.get(f"/api/games/{game_id}/replay/{step}?perspective=public").json()
        assert public["state"] == engine.view(states[step], None)
        opened = client.get(f"/api/games/{game_id}/replay/{step}").json()["state"]
        assert all("rank" in p for p in opened.get("pieces", []))  # the board open
    assert hidden > 0  # the seats' views did hide the other side's ranks
    refused = client.get(f"/api/games/{game_id}/replay/1?perspective=7")
    assert refused.status_code == 422
    assert client.get(f"/api/games/{game_id}/replay/1?perspective=everyone").status_code == 422


def test_the_move_list_is_told_as_each_perspective_was_told(sqlite_client: TestClient) -> None:
    client = sqlite_client
    game_id = play_out(client)
    told = {
        who: client.get(f"/api/games/{game_id}/moves?perspective={who}").json()
        for who in ("open", "public", "0", "1")
    }
    steps = len(told["open"])
    assert [s["step"] for s in told["1"]] == list(range(1, steps + 1))
    fights = [
        (n, e)
        for n, step in enumerate(told["public"])
        for e in step["events"]
        if e["kind"] == "moved" and e["outcome"]
    ]
    assert fights
    for n, fight in fights:
        opened = next(e for e in told["open"][n]["events"] if e["kind"] == "moved")
        assert "rank" in opened and "defender_rank" in opened  # the open board tells all
        assert "rank" not in fight and "defender_rank" not in fight  # spectators: no rank
        for seat in (0, 1):
            mine = next(e for e in told[str(seat)][n]["events"] if e["kind"] == "moved")
            assert ("rank" in mine) == (fight["seat"] == seat)  # the mover knows its piece
