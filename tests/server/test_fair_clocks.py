"""Nobody is punished for the platform's fault, nor lets a game wait on them: a player who plays
with no socket on the table (one that missed a takeover) is not declared escaped, one who only
sends commands is, and the time a table is not sure it is its process's (its lease lapsed) or
cannot reach its players (Redis away) does not count on anyone's clock."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

import engine
from server.tables import Table
from tests.server.sockets import Player
from tests.server.test_realtime import duel

SLOW = {"move_seconds": 30, "surrender_after_seconds": 0}


def the_table(client: TestClient, table_id: str) -> Table:
    table: Table = client.app.state.lobby.tables[table_id]  # type: ignore[attr-defined]
    return table


def a_wrong_move(player: Player, table: str) -> dict[str, object]:
    return player.act(table, {"type": "move", "origin": "0:0", "target": "0:0"})


def a_legal_move(player: Player, table: str) -> dict[str, object]:
    origin = sorted(player.game["legal_moves"])[0]
    target = player.game["legal_moves"][origin][0]
    return player.act(table, {"type": "move", "origin": origin, "target": target})


def test_a_player_who_only_speaks_escapes_when_the_grace_runs_out(tmp_path: Path) -> None:
    grace = {**SLOW, "disconnect_grace_seconds": 1}
    with duel(tmp_path, 3, grace) as (client, _, alice, _, table):
        actor = the_table(client, table)
        alice.request({"type": "close", "table": table})  # no socket of hers watches it now
        gone_at = time.monotonic()
        while actor.in_game and time.monotonic() < gone_at + 5:
            # refused commands hold nobody hostage: only moves made count as presence
            assert a_wrong_move(alice, table)["type"] == "error"
            time.sleep(0.2)
        assert actor.state is not None and actor.state.result is not None
        assert actor.state.result.seats[0].outcome == "escape"
        assert time.monotonic() - gone_at < 2.5  # the grace of a second, and a tick


def test_a_player_who_plays_with_no_socket_on_the_table_is_not_declared_escaped(
    tmp_path: Path,
) -> None:
    grace = {**SLOW, "disconnect_grace_seconds": 1}
    with duel(tmp_path, 3, grace) as (client, _, alice, bob, table):
        actor = the_table(client, table)

        def play(player: Player, seat: int) -> None:
            """A legal move of ``seat``'s, as its view shows it, at the table's version."""
            assert actor.state is not None
            legal = engine.view(actor.state, seat)["legal_moves"]
            origin = sorted(legal)[0]
            move = {"type": "move", "origin": origin, "target": legal[origin][0]}
            answer = player.request(
                {"type": "act", "table": table, "version": actor.version, "action": move}
            )
            assert answer["type"] == "ok", answer

        # her socket no longer watches the table (as one that missed a takeover), but she
        # plays every turn of hers
        alice.request({"type": "close", "table": table})
        playing_until = time.monotonic() + 3  # three graces
        while time.monotonic() < playing_until:
            assert actor.in_game and actor.state is not None, "she was let go"
            seat = actor.state.to_move
            assert seat is not None
            play((alice, bob)[seat], seat)
            time.sleep(0.2)
        # silent now: the grace runs out from her last move
        gone_at = time.monotonic()
        while actor.in_game and time.monotonic() < gone_at + 5:
            if actor.state is not None and actor.state.to_move == 1:
                play(bob, 1)
            time.sleep(0.1)
        assert actor.state is not None and actor.state.result is not None
        assert actor.state.result.seats[0].outcome == "escape"


def test_a_table_unsure_of_its_lease_holds_its_clock_and_its_updates(tmp_path: Path) -> None:
    with duel(tmp_path, 4, SLOW) as (client, _, alice, bob, table):
        actor = the_table(client, table)
        deadline = alice.game["deadline"]
        mover = (alice, bob)[alice.game["to_move"]]
        portal = client.portal
        assert portal is not None
        portal.call(setattr, actor.lease, "until", time.monotonic() - 0.01)
        refused = a_legal_move(mover, table)
        assert refused["code"] == "moved"  # it may be another process's table by now
        time.sleep(1.5)
        portal.call(actor.lease_renewed, time.monotonic() + 60)
        resumed = alice.until(
            lambda m: m["type"] == "update" and m["snapshot"]["game"]["deadline"] > deadline
        )
        assert resumed["snapshot"]["game"]["deadline"] - deadline >= 1.4  # the stall is given back
        kinds = [e["kind"] for e in resumed["events"]]
        assert kinds == ["paused", "resumed"], kinds
        assert mover.act(table, {"type": "surrender"})["type"] == "ok"  # it plays on


def test_a_table_whose_players_are_out_of_reach_stops_its_clock(tmp_path: Path) -> None:
    with duel(tmp_path, 5, SLOW) as (client, _, alice, bob, table):
        actor = the_table(client, table)
        deadline = alice.game["deadline"]
        mover = (alice, bob)[alice.game["to_move"]]
        portal = client.portal
        assert portal is not None
        portal.call(actor.call, lambda: actor.hold_clocks(True))
        assert a_legal_move(mover, table)["code"] == "paused"
        time.sleep(1.0)
        portal.call(actor.call, lambda: actor.hold_clocks(False))
        mover.sync(mover.version + 1)
        assert mover.game["deadline"] - deadline >= 0.9
        assert mover.act(table, {"type": "surrender"})["type"] == "ok"
