"""Replays of finished games over REST: a game's summary with its players, every step as the
board open, as spectators saw it, or as a seat knew it then (exactly the engine's view of that
seat at that step), and the move list told as each of them was told."""

from __future__ import annotations

import functools
import json
import random
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

import engine
from server.app import create_app
from server.config import RoomConfig
from tests.engine.test_random_games import choose_action, new_random_game
from tests.server.conftest import make_settings
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


def live_game(variant: str, seed: int) -> tuple[engine.GameState, engine.GameState, list[Any]]:
    """A random game of ``variant`` to its end, as a table plays it: the start, the end, and
    every event as it was emitted."""
    rng = random.Random(f"{variant}/{seed}")
    start = state = new_random_game(variant, seed, rng, now=0.0)
    events: list[Any] = []
    now = 0.0
    while state.phase != "finished":
        now += 1.0
        try:
            state, emitted = engine.apply(
                state, choose_action(state, rng, min(now, state.deadline))
            )
        except engine.EngineError:
            continue
        events += emitted
    return start, state, events


def colour_of_seat_0(events: list[Any]) -> int | None:
    """翻棋: the colour (army) the first flip gave seat 0."""
    flips = [e.data for e in events if e.kind == "flipped"]
    return next((f["army"] if f["seat"] == 0 else 1 - f["army"] for f in flips[:1]), None)


def test_every_variants_open_replay_ends_as_the_live_game_did(tmp_path: Path) -> None:
    """The last step of a finished game's open replay shows the pieces the live game's
    ``game_over`` showed, each with the seat that played it (翻棋 with seat 0 on either
    colour)."""
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'replays.db'}")
    settings.rooms = [RoomConfig(id=v, name=v, variant=v, options={}) for v in engine.VARIANTS]
    games = [(v, 0) for v in engine.VARIANTS if v != "fanqi"]
    colours: set[int | None] = set()
    with TestClient(create_app(settings)) as client:
        store = client.app.state.lobby.store  # type: ignore[attr-defined]
        portal = client.portal
        assert portal is not None
        for variant, seed in [*games, *(("fanqi", s) for s in range(40))]:
            if variant == "fanqi" and colours >= {0, 1}:
                break
            start, end, events = live_game(variant, seed)
            if variant == "fanqi":
                colours.add(colour_of_seat_0(events))
            over = next(e for e in events if e.kind == "game_over")
            game_id = f"{variant}-{seed}"
            seats = [None] * len(end.seats)
            portal.call(store.game_started, game_id, start, variant, seats)
            portal.call(functools.partial(store.game_finished, game_id, end, seats, rated=False))
            steps = client.get(f"/api/games/{game_id}").json()["steps"]
            last = client.get(f"/api/games/{game_id}/replay/{steps}?perspective=open").json()
            by_station = functools.partial(sorted, key=lambda p: p["station"])
            assert by_station(last["state"]["pieces"]) == by_station(over.data["pieces"]), variant
    assert colours >= {0, 1}
