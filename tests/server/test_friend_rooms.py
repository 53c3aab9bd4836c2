"""Friend rooms (好友房) by code, rematch (再来一局) and invites, over the socket."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server import social
from server.app import create_app
from server.config import RoomConfig
from server.friend_rooms import ALPHABET, CODE_LENGTH, PrivateRoom
from tests.server.conftest import make_settings
from tests.server.sockets import Player
from tests.server.test_admin import admin
from tests.server.test_realtime import connect

ROOMS = [
    RoomConfig(id=key, name=key, variant=key, options={"move_seconds": 30, "deploy_seconds": 60})
    for key in ("siguo", "luanzhan", "sandayi", "liangguo", "sanguo")
]


@pytest.fixture(scope="module")
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One app for the module (its users have names unique to each test)."""
    path = tmp_path_factory.mktemp("friends") / "friends.db"
    settings = make_settings(f"sqlite+aiosqlite:///{path}")
    settings.rooms = ROOMS
    with TestClient(create_app(settings)) as client:
        yield client


def user_id(player: Player) -> int:
    return int(player.received[0]["user"]["id"])  # the welcome


def people(client: TestClient, stack: ExitStack, prefix: str, count: int) -> list[Player]:
    return [connect(stack, client, f"{prefix}{n}") for n in range(count)]


def friend_room(host: Player, room: str = "siguo", **settings: Any) -> tuple[str, str]:
    """The host makes a friend room and sits on seat 0; its table and code."""
    reply = host.request({"type": "create_table", "room": room, "private": True, **settings})
    assert reply["type"] == "ok", reply
    assert host.request({"type": "sit", "table": reply["table"], "seat": 0})["type"] == "ok"
    return str(reply["table"]), str(reply["code"])


def join(player: Player, code: str, password: str | None = None) -> dict[str, Any]:
    return player.request({"type": "join", "code": code, "password": password})


def seat_all(players: Iterable[Player], table: str, start: int = 0) -> None:
    for seat, p in enumerate(players, start):
        assert p.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"


def ready_all(players: list[Player], table: str) -> None:
    """Everyone ready: the game starts; returns once all see it."""
    for p in players:
        version = p.request({"type": "ready", "table": table})["version"]
    for p in players:
        p.sync(version)
        assert p.snapshot is not None and p.snapshot["status"] == "playing"


def dissolved(
    client: TestClient, players: list[Player], table: str, headers: dict[str, str]
) -> None:
    """An admin ends the game (a draw nobody scores); returns once all see it finished."""
    done = client.post(f"/admin/tables/{table}/dissolve", json={"reason": "t"}, headers=headers)
    assert done.status_code == 200, done.text
    for p in players:
        p.until(lambda m: m["type"] == "update" and m["snapshot"]["status"] == "finished")


def test_a_friend_room_is_unlisted_and_joined_by_its_code(app_client: TestClient) -> None:
    with ExitStack() as stack:
        host, friend, stranger = people(app_client, stack, "fr-a", 3)
        table, code = friend_room(host, password="芝麻开门")
        assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)
        listed = app_client.get("/api/lobby").json()
        assert all(table not in {t["id"] for t in r["tables"]} for r in listed["rooms"])
        assert app_client.get(f"/api/tables/{table}").status_code == 404
        # the table's id alone lets nobody in
        assert stranger.request({"type": "open", "table": table})["code"] == "no_table"
        assert stranger.request({"type": "sit", "table": table, "seat": 1})["code"] == "no_table"
        assert join(stranger, "ZZZZZZ")["code"] == "no_code"
        assert join(stranger, code, "guess")["code"] == "room_password"
        assert join(stranger, code)["code"] == "room_password"
        # typed in lower case, with a space: the same code
        answer = join(friend, f"{code[:3].lower()} {code[3:]}", "芝麻开门")
        assert answer == {"type": "ok", "ref": answer["ref"], "table": table}
        assert friend.request({"type": "open", "table": table})["type"] == "ok"
        shown = friend.snapshot
        assert shown is not None
        assert shown["friend_room"] == {
            "code": code,
            "password": True,
            "reserved": {},
            "watch": "anyone",
        }
        assert "芝麻开门" not in str(friend.received)
        seat_all([friend], table, 1)


def test_wrong_passwords_are_rate_limited(app_client: TestClient) -> None:
    with ExitStack() as stack:
        host, guesser = people(app_client, stack, "fr-b", 2)
        _, code = friend_room(host, password="right")
        codes = [join(guesser, code, f"wrong{n}")["code"] for n in range(12)]
        assert codes[:10] == ["room_password"] * 10
        assert codes[10:] == ["rate_limited"] * 2


def test_a_room_takes_few_guesses_from_all_accounts_together(app_client: TestClient) -> None:
    with ExitStack() as stack:
        host, *guessers, friend = people(app_client, stack, "fr-g", 5)
        table, code = friend_room(host, password="right")
        misses = [join(g, code, f"wrong{n}")["code"] for g in guessers for n in range(10)]
        assert misses == ["room_password"] * 30
        assert join(friend, code, "right")["code"] == "rate_limited"  # the room waits a while
        assert host.request({"type": "invite", "table": table, "user": "fr-g4"})["type"] == "ok"
        assert join(friend, code)["type"] == "ok"  # but an invite lets a friend in


def test_a_reserved_seat_takes_its_friend_alone(app_client: TestClient) -> None:
    with ExitStack() as stack:
        host, friend, other = people(app_client, stack, "fr-c", 3)
        table, code = friend_room(host, reserved={"2": "fr-c1"})
        for p in (friend, other):
            assert join(p, code)["type"] == "ok"
        refused = other.request({"type": "sit", "table": table, "seat": 2})
        assert refused["code"] == "seat_reserved"
        refused = host.request({"type": "add_bot", "table": table, "seat": 2})
        assert refused["code"] == "seat_reserved"
        seat_all([other], table, 1)
        seat_all([friend], table, 2)
        # the host arranges partners: the seats move, but never a stranger onto a kept seat
        assert host.request({"type": "arrange", "table": table, "seat": 1, "to": 2})["code"] == (
            "seat_reserved"
        )
        assert other.request({"type": "arrange", "table": table, "seat": 1, "to": 3})["code"] == (
            "not_allowed"
        )
        reply = host.request({"type": "arrange", "table": table, "seat": 1, "to": 3})
        host.sync(reply["version"])
        assert host.snapshot is not None
        names = [s["name"] for s in host.snapshot["seats"]]
        assert names == ["fr-c0", None, "fr-c1", "fr-c2"]


@pytest.mark.parametrize("watch", ["anyone", "friends", "nobody"])
def test_the_watch_setting_is_enforced(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch, watch: str
) -> None:
    with ExitStack() as stack:
        players = people(app_client, stack, f"fr-w{watch}", 4)
        friend, stranger = people(app_client, stack, f"fr-x{watch}", 2)
        friends = {user_id(friend)}

        async def friends_of(sessions: Any, user: int) -> set[int]:
            return friends if user == user_id(players[0]) else set()

        monkeypatch.setattr(social, "friends_of", friends_of)
        table, code = friend_room(players[0], watch=watch)
        for p in [*players[1:], friend, stranger]:
            assert join(p, code)["type"] == "ok"
        seat_all(players[1:], table, 1)
        for p in (friend, stranger):  # between games those let in may look at the seats
            assert p.request({"type": "open", "table": table})["type"] == "ok"
        ready_all(players, table)
        allowed = {"anyone": {"friend", "stranger"}, "friends": {"friend"}, "nobody": set()}
        for name, p in (("friend", friend), ("stranger", stranger)):
            if name in allowed[watch]:
                assert p.request({"type": "open", "table": table})["type"] == "ok"
                assert p.snapshot is not None and p.snapshot["status"] == "playing"
            else:
                shown_out = p.until(lambda m: m["type"] == "closed")
                assert shown_out == {"type": "closed", "table": table, "why": "private"}
                assert p.request({"type": "open", "table": table})["code"] == "watch_refused"
        # those shown out count among the spectators no more
        host, watching = players[0], len(allowed[watch])
        if watch != "anyone":  # else nobody left: no update to wait for
            host.until(lambda m: m["type"] == "update" and spectators(host) == watching)
        assert spectators(host) == watching


def spectators(player: Player) -> int:
    assert player.snapshot is not None
    return int(player.snapshot["spectators"])


def rematch(player: Player, table: str, rotate: bool = False) -> dict[str, Any]:
    return player.request({"type": "rematch", "table": table, "rotate": rotate})


@pytest.mark.parametrize("variant", ["siguo", "luanzhan", "sandayi", "liangguo", "sanguo"])
def test_the_same_people_play_again(app_client: TestClient, variant: str) -> None:
    headers = admin(app_client, f"admin-{variant}")
    with ExitStack() as stack:
        seats = {"siguo": 4, "luanzhan": 4, "sandayi": 4, "liangguo": 2, "sanguo": 3}[variant]
        players = people(app_client, stack, f"fr-r{variant}", seats)
        table = str(players[0].request({"type": "create_table", "room": variant})["table"])
        seat_all(players, table)
        assert rematch(players[0], table)["code"] == "no_rematch"  # no game finished yet
        ready_all(players, table)
        first = players[0].snapshot["game_id"]  # type: ignore[index]
        dissolved(app_client, players, table, headers)
        shown = players[0].snapshot["rematch"]  # type: ignore[index]
        assert shown == {"agreed": [], "rotate": [], "rotation": variant in ("siguo", "luanzhan")}
        for p in players[:-1]:
            version = rematch(p, table)["version"]
        assert rematch(players[0], table, rotate=False)["type"] == "ok"  # again: no change
        players[0].sync(version)
        assert players[0].snapshot["rematch"]["agreed"] == list(range(seats - 1))  # type: ignore[index]
        assert players[0].snapshot["status"] == "finished"  # type: ignore[index]
        # one withdraws and agrees again; the last one's agreement starts the game
        players[0].request({"type": "rematch", "table": table, "agree": False})
        rematch(players[0], table)
        version = rematch(players[-1], table)["version"]
        for p in players:
            p.sync(version)
            assert p.snapshot is not None and p.snapshot["status"] == "playing"
            assert p.snapshot["game_id"] != first and p.snapshot["rematch"] is None
            names = [s["name"] for s in p.snapshot["seats"]]
            assert names == [q.name for q in players]  # the same people, the same seats


def test_a_rotation_gives_everyone_new_partners(app_client: TestClient) -> None:
    headers = admin(app_client, "admin-rotation")
    with ExitStack() as stack:
        players = people(app_client, stack, "fr-rot", 4)
        table = str(players[0].request({"type": "create_table", "room": "siguo"})["table"])
        seat_all(players, table)
        ready_all(players, table)
        partners: list[frozenset[str]] = []
        for _ in range(3):
            names = [s["name"] for s in players[0].snapshot["seats"]]  # type: ignore[index]
            partners.append(frozenset((names[0], names[2])))
            dissolved(app_client, players, table, headers)
            for p in players:
                version = rematch(p, table, rotate=True)["version"]
            for p in players:
                p.sync(version)
        assert len(set(partners)) == 3  # seat 0 had each other player as partner in turn
        names = [s["name"] for s in players[0].snapshot["seats"]]  # type: ignore[index]
        assert names == [p.name for p in players]  # three turns: back where they began


def test_an_invite_reaches_the_invitee_unless_blocked(
    app_client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ExitStack() as stack:
        host, friend, blocker = people(app_client, stack, "fr-i", 3)
        table, code = friend_room(host, password="secret")
        ask = {"type": "invite", "table": table}
        assert host.request({**ask, "user": "nobody-here"})["code"] == "no_user"
        assert friend.request({**ask, "user": "fr-i2"})["code"] == "not_allowed"
        assert host.request({**ask, "user": "FR-I1"})["type"] == "ok"
        notice = friend.until(lambda m: m["type"] == "invited")
        assert notice["table"] == table and notice["code"] == code
        assert notice["from"] == "fr-i0" and notice["variant"] == "siguo"
        # the invitee needs no password, and sits
        assert join(friend, code)["type"] == "ok"
        seat_all([friend], table, 1)

        async def blocked_pairs(sessions: Any, users: Iterable[int]) -> set[frozenset[int]]:
            pair = frozenset((user_id(host), user_id(blocker)))
            return {pair} if pair <= set(users) else set()

        monkeypatch.setattr(social, "blocked_pairs", blocked_pairs)
        assert host.request({**ask, "user": "fr-i2"})["code"] == "blocked"
        assert friend.request({**ask, "user": "fr-i2"})["type"] == "ok"  # not blocked by fr-i1
        codes = [host.request({**ask, "user": "fr-i1"}).get("code") for _ in range(10)]
        assert "rate_limited" in codes


def test_a_friend_room_is_rated_only_where_its_room_says(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'rated.db'}")
    settings.rooms = [
        RoomConfig(id="plain", name="plain", variant="liangguo"),
        RoomConfig(id="rated", name="rated", variant="liangguo", rated_friend_rooms=True),
    ]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        for room, rated in (("plain", False), ("rated", True)):
            host = connect(stack, client, f"host-{room}")
            friend_room(host, room)
            assert host.snapshot is not None and host.snapshot["rated"] is rated
            assert host.snapshot["unrated_because"] == (None if rated else "friend_room")


def test_a_friend_room_is_kept_with_its_running_game_as_it_was() -> None:
    """What a restart or another process takes back (``Table.kept_data``, JSON)."""
    room = PrivateRoom.make("K7Q2MX", "芝麻开门", {2: " 小明 "}, "friends")
    room.admitted.update({4, 9})
    back = PrivateRoom.from_kept(json.loads(json.dumps(room.kept())))
    assert back == room and back.reserved == {2: "小明"}
    assert back.password_fits("芝麻开门") and not back.password_fits("芝麻")
    assert "芝麻开门" not in json.dumps(room.kept())
    assert PrivateRoom.from_kept(None) is None


def test_bots_agree_to_play_again_at_once(app_client: TestClient) -> None:
    headers = admin(app_client, "admin-bots")
    with ExitStack() as stack:
        (me,) = people(app_client, stack, "fr-bots", 1)
        table = str(me.request({"type": "create_table", "room": "liangguo"})["table"])
        seat_all([me], table)
        assert me.request({"type": "add_bot", "table": table, "seat": 1})["type"] == "ok"
        ready_all([me], table)
        dissolved(app_client, [me], table, headers)
        assert me.snapshot is not None and me.snapshot["rematch"]["agreed"] == [1]
        version = rematch(me, table)["version"]
        me.sync(version)
        assert me.snapshot["status"] == "playing"


def test_ready_after_a_game_counts_as_agreeing(app_client: TestClient) -> None:
    headers = admin(app_client, "admin-ready")
    with ExitStack() as stack:
        players = people(app_client, stack, "fr-ready", 2)
        table = str(players[0].request({"type": "create_table", "room": "liangguo"})["table"])
        seat_all(players, table)
        ready_all(players, table)
        dissolved(app_client, players, table, headers)
        version = players[1].request({"type": "ready", "table": table})["version"]
        players[0].sync(version)
        assert players[0].snapshot["rematch"]["agreed"] == [1]  # type: ignore[index]
        version = rematch(players[0], table)["version"]
        players[1].sync(version)
        assert players[1].snapshot is not None and players[1].snapshot["status"] == "playing"
