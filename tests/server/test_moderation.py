"""Room owners (室主) moderate the tables of their room over the socket; admins every table."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from fastapi.testclient import TestClient

from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player
from tests.server.test_admin import admin, audit_log, standing
from tests.server.test_realtime import connect, connect_again, start_game

OWNED = RoomConfig(
    id="owned",
    name="有主之室",
    variant="liangguo",
    owner="室主",
    options={"move_seconds": 30, "deploy_seconds": 60},
)


@contextmanager
def owned_room(database_url: str) -> Iterator[TestClient]:
    """The app with the room ``owned`` whose owner is 室主 (owners are read at start-up)."""
    settings = make_settings(database_url)
    with TestClient(create_app(settings)) as client:
        register(client, "室主")
    settings.rooms = [*settings.rooms, OWNED]
    with TestClient(create_app(settings)) as client:
        yield client


def table_for(players: list[Player], room: str) -> str:
    table = str(players[0].request({"type": "create_table", "room": room})["table"])
    for seat, p in enumerate(players):
        assert p.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
    return table


def event_seen(player: Player, kind: str) -> dict[str, Any]:
    update = player.until(
        lambda m: m["type"] == "update" and any(e["kind"] == kind for e in m["events"])
    )
    return dict(next(e for e in update["events"] if e["kind"] == kind))


def test_a_room_owner_kicks_and_dissolves_at_the_tables_of_their_room(database_url: str) -> None:
    with owned_room(database_url) as client, ExitStack() as stack:
        owner = connect_again(stack, client, "室主")
        alice, bob, carol = (connect(stack, client, n) for n in ("alice", "bob", "carol"))
        table = table_for([alice, bob], "owned")
        # nobody else may
        kick = {"type": "kick", "table": table, "seat": 1, "reason": "afk"}
        assert carol.request(kick)["code"] == "not_owner"
        assert alice.request({"type": "dissolve", "table": table, "reason": "x"})["code"] == (
            "not_owner"
        )
        assert owner.request({"type": "kick", "table": table, "seat": 1})["code"] == "bad_message"
        # before a game: the seat is freed
        assert owner.request(kick)["type"] == "ok"
        event = event_seen(alice, "kicked")
        assert (event["name"], event["outcome"], event["by"]) == ("bob", "removed", "室主")
        assert bob.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        start_game(alice, bob, table, 2)
        # during a game, with penalty: bob escapes and pays for it
        reply = owner.request({**kick, "penalty": True, "reason": "insults"})
        assert reply["type"] == "ok", reply
        over = alice.until(
            lambda m: m["type"] == "update" and m["snapshot"]["seats"][1]["name"] is None
        )
        result = over["snapshot"]["game"]["result"]
        assert result["reason"] == "escape" and result["winners"] == [0]
        assert standing(client, "bob", "liangguo")["points"] == -2
        # during a game, dissolved: a draw, nobody scores
        assert carol.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        start_game(alice, carol, table, 3)
        reply = owner.request({"type": "dissolve", "table": table, "reason": "both agreed"})
        assert reply["type"] == "ok", reply
        event = event_seen(carol, "dissolved")
        assert event["reason"] == "both agreed" and event["result"]["reason"] == "dissolved"
        assert [standing(client, n, "liangguo")["points"] for n in ("alice", "carol")] == [1, 0]
        # another room's table is not the owner's to moderate; an admin's it is
        elsewhere = table_for([bob, carol], "liangguo-fast")
        kick_there = {"type": "kick", "table": elsewhere, "seat": 0, "reason": "afk"}
        assert owner.request(kick_there)["code"] == "not_owner"
        headers = admin(client)
        boss = connect_again(stack, client, "值班长")
        assert boss.request(kick_there)["type"] == "ok"
        entries = audit_log(client, headers)
        assert [(e["actor"], e["action"], e["target"]) for e in entries] == [
            ("值班长", "kick", "bob"),
            ("室主", "dissolve", event["game_id"]),
            ("室主", "kick", "bob"),
            ("室主", "kick", "bob"),
        ]
        assert entries[2]["details"]["outcome"] == "escaped"
        assert entries[2]["details"]["room"] == "owned"
