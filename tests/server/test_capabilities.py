"""Capabilities (``server.capabilities``): what each variant does, derived from the engine's data
of it, sent with every snapshot and with the lobby's variants, typed as ``outbound`` says."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from fastapi.testclient import TestClient
from pydantic import ConfigDict, TypeAdapter

from engine import VARIANTS
from server import outbound
from server.capabilities import capabilities
from tests.server.conftest import register
from tests.server.sockets import Player, signed_in

# in a list: a typed dict takes no config of its own here (as sockets.py does its union)
CAPABILITIES = TypeAdapter(list[outbound.Capabilities], config=ConfigDict(extra="forbid"))

EXPECTED = {  # (colour, teams, picks, bids, flips, deal, mountain)
    "siguo": ("seat", "fixed", False, False, False, None, False),
    "liangguo": ("seat", "none", False, False, False, None, True),
    "luanzhan": ("picked", "fixed", True, False, False, "colours", False),
    "sandayi": ("seat", "banker", False, True, False, "hands", False),
    "fanqi": ("first_engineer", "none", False, False, True, "face_down", True),
    "sanguo": ("seat", "none", False, False, False, None, False),
}


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_each_variant_s_capabilities_follow_from_the_engine(key: str) -> None:
    (found,) = CAPABILITIES.validate_python([capabilities(key)])
    assert (
        found["colour"],
        found["teams"],
        found["picks_colours"],
        found["bids"],
        found["flips"],
        found["deal"],
        found["mountain"],
    ) == EXPECTED[key]
    assert found["contracts"] == ([1, 2, 3] if found["bids"] else [])
    assert capabilities(key) is capabilities(key)  # made once: sent with every snapshot


def test_the_lobby_and_the_snapshot_carry_them(sqlite_client: TestClient) -> None:
    lobby = sqlite_client.get("/api/lobby").json()
    variants = {v["key"]: v for v in lobby["variants"]}
    assert set(variants) == set(VARIANTS)
    for key, entry in variants.items():
        assert entry["capabilities"] == capabilities(key)
        assert entry["rules"] == VARIANTS[key].rules.to_dict()
    # play now's room is the first open 四国 room of the configuration (tests.server.conftest)
    assert [k for k, v in variants.items() if v["play_now"]] == ["siguo"]
    with ExitStack() as stack:
        token = register(sqlite_client, "alice")
        alice = Player(stack.enter_context(signed_in(sqlite_client, token)), "alice")
        assert alice.receive()["type"] == "welcome"
        table = alice.request({"type": "create_table", "room": "liangguo-fast"})["table"]
        alice.request({"type": "open", "table": table})
        assert alice.snapshot is not None
        assert alice.snapshot["capabilities"] == capabilities("liangguo")
