"""Nobody is punished for the platform's fault: a player whose socket still speaks is never
declared escaped, and the time a table is not sure it is its process's (its lease lapsed) or
cannot reach its players (Redis away) does not count on anyone's clock."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

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


def test_a_player_who_still_speaks_is_not_declared_escaped(tmp_path: Path) -> None:
    with duel(tmp_path, 3, {**SLOW, "disconnect_grace_seconds": 1}) as (_, _, alice, bob, table):
        alice.request({"type": "close", "table": table})  # no socket of hers watches it now
        speaking_until = time.monotonic() + 2.5  # well past her grace of a second
        while time.monotonic() < speaking_until:
            assert a_wrong_move(alice, table)["type"] == "error"  # refused, yet heard
            time.sleep(0.3)
        assert bob.request({"type": "open", "table": table})["type"] == "ok"
        assert bob.snapshot is not None and bob.snapshot["status"] == "playing"
        # silent now: the grace runs out from the last time she was heard
        over = bob.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] != "playing")
        result = over["snapshot"]["game"]["result"]
        assert result["seats"][0]["outcome"] == "escape"
        assert time.monotonic() - speaking_until < 3


def test_a_table_unsure_of_its_lease_holds_its_clock_and_its_updates(tmp_path: Path) -> None:
    with duel(tmp_path, 4, SLOW) as (client, _, alice, bob, table):
        actor = the_table(client, table)
        deadline = alice.game["deadline"]
        mover = (alice, bob)[alice.game["to_move"]]
        portal = client.portal
        assert portal is not None
        portal.call(setattr, actor, "lease_until", time.monotonic() - 0.01)
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
