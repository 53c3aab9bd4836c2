"""Friends, follows and blocks over REST (``server.friends``), the seam other features call
(``friends_of``, ``blocked_pairs``), on SQLite and PostgreSQL; friends' presence in one process;
and blocks at the tables and in chat, over sockets (``server.block_rules``)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server import social
from server.app import create_app
from server.friends import CODES
from server.social import blocked_pairs, friends_of
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player, signed_in


@pytest.fixture(scope="module")
def api(api_database: str) -> Iterator[TestClient]:
    """One app for the module's tests (each makes users of its own)."""
    with TestClient(create_app(make_settings(api_database, social_per_minute=1000))) as client:
        yield client


class User:
    """A registered user of a test, by a name of its own, with its bearer token."""

    def __init__(self, client: TestClient, prefix: str) -> None:
        self.client = client
        self.name = f"{prefix}{secrets.token_hex(3)}"
        self.token = register(client, self.name)
        self.auth = {"Authorization": f"Bearer {self.token}"}

    def call(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        answer = self.client.request(method, path, json=body, headers=self.auth)
        assert answer.status_code == status, answer.text
        return answer.json() if answer.content else None

    def refused(self, method: str, path: str, body: Any, status: int, code: str) -> None:
        answer = self.client.request(method, path, json=body, headers=self.auth)
        assert (answer.status_code, answer.headers.get("X-Error-Code")) == (status, code), (
            answer.text
        )

    def friends(self) -> dict[str, Any]:
        answer: dict[str, Any] = self.call("GET", "/api/friends")
        return answer

    def friend_names(self) -> list[str]:
        return [f["name"] for f in self.friends()["friends"]]

    @property
    def id(self) -> int:
        me = self.client.post("/api/auth/login", json={"name": self.name, "password": "secret-pw"})
        return int(me.json()["user"]["id"])

    def relation(self, other: User) -> dict[str, Any]:
        answer: dict[str, Any] = self.call("GET", f"/api/relations/{other.name}")
        return answer


def names(people: list[dict[str, Any]]) -> list[str]:
    return [p["name"] for p in people]


def test_asking_accepting_declining_and_removing(api: TestClient) -> None:
    ann, ben, cat = User(api, "ann"), User(api, "ben"), User(api, "cat")
    assert ann.call("POST", "/api/friends", {"name": ben.name}) == {"status": "asked"}
    assert names(ann.friends()["outgoing"]) == [ben.name]
    assert names(ben.friends()["incoming"]) == [ann.name]
    assert ben.relation(ann) | {"followers": 0} == {
        "friend": False,
        "asked": False,
        "asks": True,
        "following": False,
        "blocking": False,
        "followers": 0,
    }
    ben.call("POST", f"/api/friends/{ann.name}/accept", status=204)
    assert ann.friend_names() == [ben.name] and ben.friend_names() == [ann.name]
    assert ben.friends()["incoming"] == [] and ann.friends()["outgoing"] == []
    assert ann.relation(ben)["friend"] and ben.relation(ann)["friend"]
    # declined: no friends, no request left
    cat.call("POST", "/api/friends", {"name": ann.name})
    ann.call("POST", f"/api/friends/{cat.name}/decline", status=204)
    assert ann.friend_names() == [ben.name] and cat.friends()["outgoing"] == []
    # asking someone who asked you makes you friends at once (a name in any case will do)
    cat.call("POST", "/api/friends", {"name": ben.name})
    assert ben.call("POST", "/api/friends", {"name": cat.name.upper()}) == {"status": "friends"}
    assert sorted(ben.friend_names()) == sorted([ann.name, cat.name])
    # either friend ends it; a request is withdrawn the same way
    ann.call("DELETE", f"/api/friends/{ben.name}", status=204)
    assert ann.friend_names() == [] and ben.friend_names() == [cat.name]
    ann.call("POST", "/api/friends", {"name": cat.name})
    ann.call("DELETE", f"/api/friends/{cat.name}", status=204)
    assert cat.friends()["incoming"] == []


def test_friend_requests_are_refused_in_words(api: TestClient) -> None:
    ann, ben = User(api, "ann"), User(api, "ben")
    ann.refused("POST", "/api/friends", {"name": "nobody-here"}, 404, "no_user")
    ann.refused("POST", "/api/friends", {"name": ann.name}, 422, "self")
    ann.call("POST", "/api/friends", {"name": ben.name})
    ann.refused("POST", "/api/friends", {"name": ben.name}, 409, "already_asked")
    ann.refused("POST", f"/api/friends/{ben.name}/accept", None, 404, "no_request")
    ben.call("POST", f"/api/friends/{ann.name}/accept", status=204)
    ben.refused("POST", "/api/friends", {"name": ann.name}, 409, "already_friends")
    ben.refused("POST", f"/api/friends/{ann.name}/decline", None, 404, "no_request")
    ben.call("DELETE", f"/api/friends/{ann.name}", status=204)
    ben.refused("DELETE", f"/api/friends/{ann.name}", None, 404, "not_friends")
    # guests keep no friends, and are nobody's
    guest = api.post("/api/auth/guest").json()
    as_guest = {"Authorization": f"Bearer {guest['token']}"}
    for method, path in (("GET", "/api/friends"), ("GET", "/api/blocks"), ("GET", "/api/follows")):
        answer = api.request(method, path, headers=as_guest)
        assert answer.headers.get("X-Error-Code") == "registered_only", path
    ann.refused("POST", "/api/friends", {"name": guest["user"]["name"]}, 422, "guest_user")
    ann.refused("POST", "/api/follows", {"name": guest["user"]["name"]}, 422, "guest_user")
    assert api.get("/api/friends").status_code == 401


def test_following_one_way(api: TestClient) -> None:
    ann, ben = User(api, "ann"), User(api, "ben")
    ann.call("POST", "/api/follows", {"name": ben.name}, status=204)
    ann.refused("POST", "/api/follows", {"name": ben.name}, 409, "already_following")
    ann.refused("POST", "/api/follows", {"name": ann.name}, 422, "self")
    assert names(ann.call("GET", "/api/follows")["following"]) == [ben.name]
    assert ben.call("GET", "/api/follows") == {"following": [], "followers": 1}
    assert ann.relation(ben)["following"] and ann.relation(ben)["followers"] == 1
    ann.call("DELETE", f"/api/follows/{ben.name}", status=204)
    ann.refused("DELETE", f"/api/follows/{ben.name}", None, 404, "not_following")
    assert ben.call("GET", "/api/follows")["followers"] == 0


def test_a_block_ends_everything_between_the_two(api: TestClient) -> None:
    ann, ben = User(api, "ann"), User(api, "ben")
    ann.call("POST", "/api/friends", {"name": ben.name})
    ben.call("POST", f"/api/friends/{ann.name}/accept", status=204)
    ann.call("POST", "/api/follows", {"name": ben.name}, status=204)
    ben.call("POST", "/api/follows", {"name": ann.name}, status=204)
    ben.call("POST", "/api/blocks", {"name": ann.name}, status=204)
    ben.refused("POST", "/api/blocks", {"name": ann.name}, 409, "already_blocked")
    assert ann.friend_names() == [] and ben.friend_names() == []
    assert ann.call("GET", "/api/follows") == {"following": [], "followers": 0}
    assert ben.call("GET", "/api/follows") == {"following": [], "followers": 0}
    assert names(ben.call("GET", "/api/blocks")["blocked"]) == [ann.name]
    assert ben.relation(ann)["blocking"] and not ann.relation(ben)["blocking"]
    # neither asks nor follows the other while it stands
    for one, other in ((ann, ben), (ben, ann)):
        one.refused("POST", "/api/friends", {"name": other.name}, 403, "blocked")
        one.refused("POST", "/api/follows", {"name": other.name}, 403, "blocked")
    # a pending request goes with the block too
    cat = User(api, "cat")
    cat.call("POST", "/api/friends", {"name": ann.name})
    ann.call("POST", "/api/blocks", {"name": cat.name}, status=204)
    assert ann.friends()["incoming"] == [] and cat.friends()["outgoing"] == []
    ben.call("DELETE", f"/api/blocks/{ann.name}", status=204)
    ben.refused("DELETE", f"/api/blocks/{ann.name}", None, 404, "not_blocked")
    assert ben.call("GET", "/api/blocks") == {"blocked": []}
    assert ann.call("POST", "/api/friends", {"name": ben.name}) == {"status": "asked"}


def test_each_kind_is_bounded(api: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(social, "MOST", 2)
    ann, others = User(api, "ann"), [User(api, n) for n in ("ben", "cat", "dan")]
    for path in ("/api/friends", "/api/follows", "/api/blocks"):
        for other in others[:2]:
            assert api.post(path, json={"name": other.name}, headers=ann.auth).is_success
        ann.refused("POST", path, {"name": others[2].name}, 409, "too_many")
    # answered requests count no more (blocks ended those two)
    assert ann.call("POST", "/api/friends", {"name": others[2].name}) == {"status": "asked"}


def test_the_seam_friends_of_and_blocked_pairs(api: TestClient) -> None:
    ann, ben, cat, dan = (User(api, n) for n in ("ann", "ben", "cat", "dan"))
    ann.call("POST", "/api/friends", {"name": ben.name})
    ben.call("POST", f"/api/friends/{ann.name}/accept", status=204)
    ann.call("POST", "/api/friends", {"name": cat.name})  # asked only: no friend yet
    cat.call("POST", "/api/blocks", {"name": dan.name}, status=204)
    dan.call("POST", "/api/blocks", {"name": cat.name}, status=204)  # both ways: one pair
    ben.call("POST", "/api/blocks", {"name": dan.name}, status=204)
    sessions = api.app.state.db.sessions  # type: ignore[attr-defined]
    a, b, c, d = ann.id, ben.id, cat.id, dan.id
    assert api.portal.call(friends_of, sessions, a) == {b}  # type: ignore[union-attr]
    assert api.portal.call(friends_of, sessions, b) == {a}  # type: ignore[union-attr]
    assert api.portal.call(friends_of, sessions, c) == set()  # type: ignore[union-attr]
    pairs = api.portal.call(blocked_pairs, sessions, [a, b, c, d])  # type: ignore[union-attr]
    assert pairs == {frozenset({c, d}), frozenset({b, d})}
    assert api.portal.call(blocked_pairs, sessions, [a, b, c]) == set()  # type: ignore[union-attr]
    assert api.portal.call(blocked_pairs, sessions, [d]) == set()  # type: ignore[union-attr]


def test_changes_are_rate_limited(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'few.db'}", social_per_minute=3)
    with TestClient(create_app(settings)) as client:
        ann, ben = User(client, "ann"), User(client, "ben")
        ann.call("POST", "/api/follows", {"name": ben.name}, status=204)
        ann.call("DELETE", f"/api/follows/{ben.name}", status=204)
        ann.call("POST", "/api/friends", {"name": ben.name})
        ann.refused("POST", "/api/blocks", {"name": ben.name}, 429, "rate_limited")
        ann.friends()  # reading is not a change
        ben.call("POST", "/api/follows", {"name": ann.name}, status=204)  # counted per user


def test_every_refusal_is_documented() -> None:
    protocol = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    section = protocol[protocol.index("## Friends, follows and blocks") :].split("\n## ", 1)[0]
    assert {code for code in CODES if f"`{code}`" not in section} == set()


# --- presence and blocks over sockets (one process, SQLite) ---------------------------------------


def socket(stack: ExitStack, client: TestClient, user: User) -> Player:
    player = Player(stack.enter_context(signed_in(client, user.token)), user.name)
    assert player.receive()["type"] == "welcome"
    return player


def friends(client: TestClient, *users: User) -> None:
    """Make every two of ``users`` friends."""
    for i, one in enumerate(users):
        for other in users[i + 1 :]:
            one.call("POST", "/api/friends", {"name": other.name})
            other.call("POST", "/api/friends", {"name": one.name})


def place(user: User, friend: User) -> dict[str, Any]:
    (found,) = [f for f in user.friends()["friends"] if f["name"] == friend.name]
    presence: dict[str, Any] = found["presence"]
    return presence


def test_presence_of_a_friend(sqlite_client: TestClient) -> None:
    client = sqlite_client
    ann, ben, cat = User(client, "ann"), User(client, "ben"), User(client, "cat")
    friends(client, ann, ben)
    assert place(ann, ben) == {"state": "offline", "table": None, "room": None}
    with ExitStack() as stack:
        b = socket(stack, client, ben)
        assert place(ann, ben)["state"] == "online"
        c = socket(stack, client, cat)
        table = c.request({"type": "create_table", "room": "liangguo-fast"})["table"]
        assert c.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        assert b.request({"type": "open", "table": table})["type"] == "ok"
        watching = {"state": "watching", "table": table, "room": "liangguo-fast"}
        assert place(ann, ben) == watching
        assert b.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        assert place(ann, ben) == watching | {"state": "seated"}
        for player in (b, c):
            assert player.request({"type": "ready", "table": table})["type"] == "ok"
        assert place(ann, ben) == watching | {"state": "playing"}
        # a presence is shown to friends alone: cat is none of ann's
        assert [f["name"] for f in ann.friends()["friends"]] == [ben.name]
    assert place(ann, ben)["state"] in ("playing", "offline")  # a seat kept through its grace


def test_presence_does_not_tell_where_a_friend_room_is(sqlite_client: TestClient) -> None:
    """A friend room is opened by its code alone: a friend seated in one is shown seated, with
    no table to go to."""
    client = sqlite_client
    ann, ben = User(client, "ann"), User(client, "ben")
    friends(client, ann, ben)
    with ExitStack() as stack:
        b = socket(stack, client, ben)
        made = b.request({"type": "create_table", "room": "liangguo-fast", "private": True})
        assert made["code"]
        assert b.request({"type": "sit", "table": made["table"], "seat": 0})["type"] == "ok"
        assert place(ann, ben) == {"state": "seated", "table": None, "room": "liangguo-fast"}


def words(player: Player, count: int) -> list[dict[str, Any]]:
    """The first ``count`` chat lines and phrases ``player`` got (read already, or to come)."""
    while len(got := [m for m in player.received if m["type"] in ("chat", "phrase")]) < count:
        player.receive()
    return got[:count]


def test_blocks_at_the_table_and_in_chat(sqlite_client: TestClient) -> None:
    client = sqlite_client
    ann, ben, cat, dan = (User(client, n) for n in ("ann", "ben", "cat", "dan"))
    with ExitStack() as stack:
        a, b, c, d = (socket(stack, client, u) for u in (ann, ben, cat, dan))
        assert a.request({"type": "lobby"})["type"] == "ok"  # ann reads the lobby's chat too
        table = a.request({"type": "create_table", "room": "siguo-fast"})["table"]
        assert a.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        ann.call("POST", "/api/blocks", {"name": ben.name}, status=204)
        # the blocked one neither sits nor watches where the blocker sits
        sit, watch = {"type": "sit", "table": table, "seat": 1}, {"type": "open", "table": table}
        for message in (sit, watch):
            refused = b.request(message)
            assert (refused["type"], refused["code"]) == ("error", "blocked"), message
        # the blocker does not sit with the one she blocks either: cat blocks ann, seated
        cat.call("POST", "/api/blocks", {"name": ann.name}, status=204)
        assert c.request({"type": "sit", "table": table, "seat": 1})["code"] == "blocked"
        assert c.request({"type": "open", "table": table})["type"] == "ok"  # ann blocks not cat
        # dan sits with ann; then ann blocks him: they play on, his words hidden from her
        assert d.request({"type": "sit", "table": table, "seat": 1})["type"] == "ok"
        ann.call("POST", "/api/blocks", {"name": dan.name}, status=204)
        assert d.request({"type": "open", "table": table})["type"] == "ok"  # he sits at it
        said = d.request({"type": "chat", "channel": "table", "table": table, "text": "hello"})
        assert said["type"] == "ok"
        assert d.request({"type": "phrase", "table": table, "key": "hurry"})["type"] == "ok"
        assert d.request({"type": "chat", "channel": "lobby", "text": "anyone?"})["type"] == "ok"
        assert a.request({"type": "phrase", "table": table, "key": "thanks"})["type"] == "ok"
        (heard,) = words(a, 1)
        assert (heard["from"], heard["key"]) == (ann.name, "thanks")  # none of dan's came first
        # dan hears ann: the block hides the blocked one's words, not the blocker's
        assert [m["from"] for m in words(d, 4)] == [dan.name] * 3 + [ann.name]
        # unblocked, he is heard again
        ann.call("DELETE", f"/api/blocks/{dan.name}", status=204)
        assert d.request({"type": "phrase", "table": table, "key": "bye"})["type"] == "ok"
        assert words(a, 2)[1]["from"] == dan.name


def test_a_blocked_spectator_stops_watching(sqlite_client: TestClient) -> None:
    client = sqlite_client
    ann, eve, fay = (User(client, n) for n in ("ann", "eve", "fay"))
    with ExitStack() as stack:
        a, e, f = (socket(stack, client, u) for u in (ann, eve, fay))
        table = a.request({"type": "create_table", "room": "siguo-fast"})["table"]
        assert a.request({"type": "sit", "table": table, "seat": 0})["type"] == "ok"
        for spectator in (e, f):
            assert spectator.request({"type": "open", "table": table})["type"] == "ok"
        # ann, seated, blocks eve: eve watches no more; fay watches on
        ann.call("POST", "/api/blocks", {"name": eve.name}, status=204)
        closed = e.until(lambda m: m["type"] == "closed")
        assert closed == {"type": "closed", "table": table, "why": "blocked"}
        assert e.request({"type": "open", "table": table})["code"] == "blocked"
        # ann blocks fay, then sits down where fay watches: fay watches no more
        other = f.request({"type": "create_table", "room": "siguo-fast"})["table"]
        assert f.request({"type": "open", "table": other})["type"] == "ok"
        ann.call("POST", "/api/blocks", {"name": fay.name}, status=204)
        closed = f.until(lambda m: m["type"] == "closed")
        assert closed == {"type": "closed", "table": table, "why": "blocked"}  # ann sits there
        assert a.request({"type": "sit", "table": other, "seat": 1})["type"] == "ok"
        closed = f.until(lambda m: m["type"] == "closed")
        assert closed == {"type": "closed", "table": other, "why": "blocked"}
        assert f.request({"type": "ping"})["type"] == "pong"
