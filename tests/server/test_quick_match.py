"""Quick match (自动匹配) over the real app's sockets: four players queue for 四国 and are
seated at one table by the committed seat draw, revealed when the game is over; the queue's
refusals; bots after the wait; accounts sharing an address never meet at a rated table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server import realtime, social
from server.app import create_app
from server.match_core import commitment, permutation
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player

QUICK = {"quick_tick_seconds": 0.05, "quick_status_seconds": 0.2}


@contextmanager
def app(tmp_path: Path, **changes: Any) -> Iterator[TestClient]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'quick.db'}"
    settings = make_settings(url, **{**QUICK, **changes})
    with TestClient(create_app(settings)) as client:
        yield client


def connect(stack: ExitStack, client: TestClient, name: str, address: str = "a") -> Player:
    """A new user's socket, from ``address`` (``x-test-address``, see ``addressed``)."""
    token = register(client, name)
    ws = stack.enter_context(client.websocket_connect("/ws", headers={"x-test-address": address}))
    ws.send_text(json.dumps({"type": "auth", "token": token}))
    player = Player(ws, name)
    assert player.receive()["type"] == "welcome"
    return player


@pytest.fixture
def addressed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sockets count from the address in their ``x-test-address`` header."""
    monkeypatch.setattr(
        realtime, "connection_address", lambda ws: ws.headers.get("x-test-address", "testclient")
    )


def queue(player: Player, variant: str = "siguo", **more: Any) -> dict[str, Any]:
    """Join the queue; the first ``queue_status`` it is sent (before the ``ok``)."""
    ok = player.request({"type": "queue", "variant": variant, **more})
    assert ok["type"] == "ok", ok
    return next(m for m in reversed(player.received) if m["type"] == "queue_status")


def matched(player: Player) -> dict[str, Any]:
    return player.until(lambda m: m["type"] == "matched")


def seats_drawn(draw: dict[str, Any]) -> list[str]:
    """The seat order recomputed from a revealed draw, as a browser does it."""
    assert draw["seed"] is not None and commitment(draw["seed"]) == draw["commitment"]
    players = draw["players"]
    assert players == sorted(players)
    return [players[k] for k in permutation(draw["seed"], len(players), draw["attempt"])]


def play_out(players: list[Player], table: str) -> dict[str, Any]:
    """Open the table for everyone; one team leaves, the game is over: the last snapshot."""
    for p in players:
        p.request({"type": "open", "table": table})
    seat_of = {s["name"]: s["seat"] for s in players[0].snapshot["seats"]}  # type: ignore[index]
    for p in players:
        if seat_of[p.name] in (0, 2):
            assert p.request({"type": "leave", "table": table})["type"] == "ok"
    p = players[0]
    p.until(lambda m: m["type"] == "update" and p.snapshot["status"] == "finished")  # type: ignore[index]
    assert p.snapshot is not None
    return p.snapshot


def test_four_players_are_seated_by_the_committed_draw(tmp_path: Path, addressed: None) -> None:
    with app(tmp_path) as client, ExitStack() as stack:
        players = [connect(stack, client, n, address=n) for n in ("dan", "cai", "bo", "ann")]
        statuses = [queue(p) for p in players]
        first = statuses[0]
        assert (first["variant"], first["mode"], first["band"]) == ("siguo", "hidden", "beginner")
        assert first["bands"] == ["beginner", "beginner"] and first["bots"] is False
        news = [matched(p) for p in players]
        assert len({m["table"] for m in news}) == 1
        table = news[0]["table"]
        # the commitment the waiting players were shown is the table's draw
        assert {m["commitment"] for m in news} == {statuses[-1]["commitment"]}
        assert news[0]["bots"] is False
        players[0].request({"type": "open", "table": table})
        snapshot = players[0].snapshot
        assert snapshot is not None and snapshot["rated"] is True
        assert snapshot["seat_draw"]["seed"] is None  # not before the game is over
        assert snapshot["seat_draw"]["commitment"] == news[0]["commitment"]
        assert snapshot["status"] == "playing"  # all seated and ready: it started
        seated = [s["name"] for s in snapshot["seats"]]
        assert sorted(seated) == snapshot["seat_draw"]["players"]
        summary = f"/api/games/{snapshot['game_id']}"
        kept = client.get(summary).json()["seat_draw"]  # kept with the game, for its replay
        assert kept["seed"] is None and kept["commitment"] == news[0]["commitment"]
        drawn = seats_drawn(play_out(players, table)["seat_draw"])
        assert seated == drawn
        assert seats_drawn(client.get(summary).json()["seat_draw"]) == drawn
        first_partners = {frozenset((drawn[0], drawn[2])), frozenset((drawn[1], drawn[3]))}
        # again, the same four: nobody is anybody's partner twice in a row
        for p in players:
            queue(p)
        again = matched(players[0])["table"]
        for p in players[1:]:
            assert matched(p)["table"] == again
        players[0].request({"type": "open", "table": again})
        assert players[0].snapshot is not None
        seats = [s["name"] for s in players[0].snapshot["seats"]]
        assert {frozenset((seats[0], seats[2])), frozenset((seats[1], seats[3]))}.isdisjoint(
            first_partners
        )


def test_the_queue_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    with app(tmp_path, quick_bots_seconds=3600) as client, ExitStack() as stack:
        ann = connect(stack, client, "ann")
        nope = ann.request({"type": "queue", "variant": "siguo", "mode": "open"})
        assert nope["code"] == "no_quick_match"  # no open room plays 明棋 四国 here
        assert ann.request({"type": "queue_bots"})["code"] == "not_queued"
        status = queue(ann)
        assert status["size"] == 1 and len(status["commitment"]) == 64
        assert ann.request({"type": "queue", "variant": "liangguo"})["code"] == "already_queued"
        other = connect(stack, client, "ann-again")  # another account: queues alone
        queue(other)
        assert ann.request({"type": "queue_bots"})["code"] == "bots_not_yet"
        assert ann.request({"type": "unqueue"})["type"] == "ok"
        queue(ann, "liangguo")  # out of one queue, free to join another


def test_a_closed_socket_leaves_the_queue(tmp_path: Path) -> None:
    with app(tmp_path) as client, ExitStack() as stack:
        ann = connect(stack, client, "ann")
        with ExitStack() as gone:
            queue(connect(gone, client, "bob"), "liangguo")
        status = queue(ann, "liangguo")
        assert status["size"] == 1  # bob's page closed: he is not waiting any more
        ann.until(lambda m: m["type"] == "queue_status")  # still waiting, alone
        cai = connect(stack, client, "cai")
        queue(cai, "liangguo")
        assert matched(ann)["table"] == matched(cai)["table"]


def test_after_the_wait_bots_fill_a_table(tmp_path: Path) -> None:
    with app(tmp_path, quick_bots_seconds=0.3) as client, ExitStack() as stack:
        ann = connect(stack, client, "ann")
        assert queue(ann)["bots"] is False
        ann.until(lambda m: m["type"] == "queue_status" and m["bots"])
        reply = ann.request({"type": "queue_bots"})
        news = matched(ann) if not any(m["type"] == "matched" for m in ann.received) else None
        news = news or next(m for m in ann.received if m["type"] == "matched")
        assert news["bots"] is True and news["commitment"] is None
        assert news["table"] == reply["table"]
        ann.request({"type": "open", "table": reply["table"]})
        assert ann.snapshot is not None
        assert ann.snapshot["rated"] is False and ann.snapshot["seat_draw"] is None
        assert sum(s["bot"] for s in ann.snapshot["seats"]) == 3


def test_accounts_sharing_an_address_never_meet_at_a_rated_table(
    tmp_path: Path, addressed: None
) -> None:
    with app(tmp_path, shared_address_unrated=True) as client, ExitStack() as stack:
        home = [connect(stack, client, name, address="10.0.0.1") for name in ("ann", "amy")]
        for p in home:
            queue(p, "liangguo")
        for _ in range(3):  # rounds go by: they are not put together
            home[0].until(lambda m: m["type"] == "queue_status")
        assert not any(m["type"] == "matched" for p in home for m in p.received)
        bob = connect(stack, client, "bob", address="10.0.0.2")
        queue(bob, "liangguo")
        table = matched(bob)["table"]
        assert matched(home[0])["table"] == table  # the longer waiting of the two
        home[1].until(lambda m: m["type"] == "queue_status")
        assert not any(m["type"] == "matched" for m in home[1].received)
        bob.request({"type": "open", "table": table})
        assert bob.snapshot is not None and bob.snapshot["rated"] is True


def test_players_who_block_each_other_are_never_matched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with app(tmp_path) as client, ExitStack() as stack:
        ann, bob = connect(stack, client, "ann"), connect(stack, client, "bob")
        ids = {p.name: p.received[0]["user"]["id"] for p in (ann, bob)}
        pair = frozenset(ids.values())

        async def blocked(sessions: object, users: object) -> set[frozenset[int]]:
            return {pair}

        monkeypatch.setattr(social, "blocked_pairs", blocked)
        queue(ann, "liangguo")
        queue(bob, "liangguo")
        for _ in range(3):
            ann.until(lambda m: m["type"] == "queue_status")
        assert not any(m["type"] == "matched" for p in (ann, bob) for m in p.received)
        cai = connect(stack, client, "cai")
        queue(cai, "liangguo")
        assert matched(cai)["table"] == matched(ann)["table"]


def test_sitting_down_elsewhere_leaves_the_queue(tmp_path: Path) -> None:
    with app(tmp_path) as client, ExitStack() as stack:
        ann, bob = connect(stack, client, "ann"), connect(stack, client, "bob")
        queue(ann, "liangguo")
        assert ann.request({"type": "play_now", "room": "liangguo-fast"})["type"] == "ok"
        queue(bob, "liangguo")
        for _ in range(2):  # rounds go by
            status = bob.until(lambda m: m["type"] == "queue_status")
        assert status["size"] == 1  # ann waits no more
        assert not any(m["type"] == "matched" for m in bob.received)
