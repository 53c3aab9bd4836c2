"""Friend rooms and invites across two server processes (``scripts/cluster.sh``): a code made on
one node is joined through the other, and an invite sent through one reaches a socket of the
other. Needs PostgreSQL and Redis, as tests/server/test_cluster.py does."""

from __future__ import annotations

import asyncio

from tests.server.test_cluster import Cluster, Player, cluster, run

__all__ = ["cluster"]  # the fixture, used by name


def test_a_friend_room_is_joined_and_invited_to_through_another_node(cluster: Cluster) -> None:
    a, b = (node.base for node in cluster.nodes)
    host, friend, other = Player("host", [a, b]), Player("friend", [b, a]), Player("other", [b, a])

    async def scenario() -> None:
        for player in (host, friend, other):
            await player.connect()
        made = await host.request({"type": "create_table", "room": "duel", "private": True})
        table, code = made["table"], made["code"]
        assert (await host.request({"type": "sit", "table": table, "seat": 0}))["type"] == "ok"
        joined: dict[str, object] = {}
        for _ in range(8):  # the other node hears of the new table within moments
            joined = await friend.request({"type": "join", "code": code})
            if joined["type"] == "ok":
                break
            assert joined["code"] == "no_code", joined
            await asyncio.sleep(0.2)
        assert joined["table"] == table
        assert (await friend.request({"type": "sit", "table": table, "seat": 1}))["type"] == "ok"
        assert friend.snapshot is not None and friend.snapshot["friend_room"]["code"] == code
        # not listed on the other node's lobby either
        assert (await other.request({"type": "lobby"}))["type"] == "ok"
        listing = next(m for m in other.received if m["type"] == "lobby")["lobby"]
        assert all(t["id"] != table for r in listing["rooms"] for t in r["tables"])
        assert (await other.request({"type": "open", "table": table}))["code"] == "no_table"
        # an invite from node a reaches the invitee's socket on node b, and lets them in
        assert (await host.request({"type": "invite", "table": table, "user": "other"}))[
            "type"
        ] == "ok"
        notice = await other.receive()
        while notice["type"] != "invited":
            notice = await other.receive()
        assert notice["code"] == code and notice["from"] == "host"
        assert (await other.request({"type": "open", "table": table}))["type"] == "ok"

    run(scenario, host, friend, other)
