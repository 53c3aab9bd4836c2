"""The rules of a room as facts (``GET /api/rooms/{room}/rules``, ``server.room_rules``): each fact
equal to the engine's, for a room of every variant and for rooms and tables whose options
differ from their variant's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from engine import VARIANTS, Rank, get_variant
from engine.deal import deal_fanqi, deal_luanzhan, deal_sandayi, standard_armies
from engine.pieces import IMMOBILE_RANKS
from server.app import create_app
from server.capabilities import capabilities
from server.config import RoomConfig
from server.table_options import PLATFORM_RULES
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player, signed_in

QUICK: dict[str, object] = {
    "move_seconds": 15,
    "no_capture_plies": 20,
    "max_skips": 3,
    "deploy_seconds": 45,
}
ROOMS = [
    *(RoomConfig(id=key, name=f"{key} room", variant=key) for key in VARIANTS),
    RoomConfig(id="quick", name="四国 快棋", variant="siguo", options=QUICK, rated_with_bots=True),
    RoomConfig(id="long", name="三打一 长局", variant="sandayi", options={"max_total_moves": 900}),
]
# docs/rules.md §2 and §1, §9: the boards' counts and each game's pieces
BOARDS = {  # stations, on the railway, camps, HQs, centre, rail edges, road edges, lines
    "siguo": (129, 73, 20, 8, 9, 92, 196, 18),
    "liangguo": (60, 32, 10, 4, 0, 35, 98, 7),
    "sanguo": (97, 55, 15, 6, 7, 69, 147, 21),
}
PIECES = {"siguo": 100, "luanzhan": 100, "sandayi": 118, "sanguo": 75, "liangguo": 50, "fanqi": 50}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("rules")
    settings = make_settings(f"sqlite+aiosqlite:///{path / 'junqi.db'}")
    with TestClient(create_app(settings.model_copy(update={"rooms": ROOMS}))) as c:
        yield c


def rules_of(client: TestClient, room: str, **query: str) -> dict:  # type: ignore[type-arg]
    response = client.get(f"/api/rooms/{room}/rules", params=query)
    assert response.status_code == 200, response.text
    return dict(response.json())


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_each_variant_s_facts_are_the_engine_s(client: TestClient, key: str) -> None:
    facts = rules_of(client, key)
    v = get_variant(key)
    rules = v.rules_with(PLATFORM_RULES)
    assert facts["rules"] == rules.to_dict()
    assert facts["rules"]["timeouts_are_escape"] is True  # the platform's rule in every room
    assert facts["variant"] == {
        "key": key,
        "seats": len(v.seats),
        "teams": list(v.teams),
        "capabilities": dict(capabilities(key)),
        "fixed": sorted(v.fixed),
    }
    b = facts["board"]
    counted = (b["stations"], b["rail_stations"], b["camps"], b["hqs"], b["centre"])
    assert (*counted, b["rail_edges"], b["road_edges"], b["lines"]) == BOARDS[v.board_key]
    assert b["posts"] == b["stations"] - b["camps"] - b["hqs"] - b["centre"]
    # the pieces: every piece the game has, as the engine's deal makes them
    every = facts["pieces"]["all"]
    assert sum(every.values()) == PIECES[key]
    if v.dealing is None:
        assert facts["pieces"]["army"] == {r.value: n for r, n in v.army.items()}
        assert every == {r.value: n * len(v.seats) for r, n in v.army.items()}
    elif v.dealing == "luanzhan":
        colours = deal_luanzhan("another seed")
        assert facts["pieces"]["hands"] == {"each": len(colours.hand_for(0))}
        dealt = Counter(r.value for c in v.seats for r, _ in colours.hand_for(c))
        assert every == dict(dealt)
    elif v.dealing == "sandayi":
        deal = deal_sandayi("another seed")
        hands = facts["pieces"]["hands"]
        assert (hands["each"], hands["bottom"], hands["banker_keeps"]) == (20, 23, 19)
        assert hands["banker"] == len(deal.hands[0]) + len(deal.kept) == 39
        assert hands["idle"] == 25
        assert set(hands["specials"]) == {"supreme_marshal", "missile", "fortress"}
        assert every["lieutenant"] == 12 + 15
    else:
        board = v.board
        stations = [s for s in board.stations if board.station(s).kind.value != "camp"]
        dealt = Counter(r.value for r, _ in deal_fanqi("another seed", stations).values())
        assert every == dict(dealt) == dict(Counter(r.value for r, _ in standard_armies(2)))
    # movement: the pieces that never move, the ones that turn on the rails
    assert facts["movement"]["immobile"] == sorted(
        (r.value for r in IMMOBILE_RANKS if r.value in every),
        key=list(every).index,
    )
    assert ("missile" in facts["movement"]["rail_turners"]) == ("missile" in every)
    # every fight of the pieces in play, as the engine fights it under these rules
    combat = facts["combat"]
    assert set(combat["defenders"]) == set(every)
    for attacker in combat["attackers"]:
        for defender in combat["defenders"]:
            outcome = rules.fight(Rank(attacker), Rank(defender), defender_in_hq=False)
            assert combat["outcomes"][attacker][defender] == outcome.value
    assert (facts["flag_carry"] is not None) == (v.dealing == "fanqi")


def test_a_room_s_own_options_are_its_facts(client: TestClient) -> None:
    quick, plain = rules_of(client, "quick"), rules_of(client, "siguo")
    for name, value in QUICK.items():
        assert quick["rules"][name] == value != plain["rules"][name]
    assert quick["room"]["rated_with_bots"] and not plain["room"]["rated_with_bots"]
    assert rules_of(client, "long")["rules"]["max_total_moves"] == 900
    assert rules_of(client, "sandayi")["rules"]["max_total_moves"] == 500
    # options that change no fight leave the fights as they were
    assert quick["combat"] == plain["combat"]
    # the luanzhan room's fights differ where its options do
    mixed = rules_of(client, "luanzhan")["combat"]["outcomes"]
    assert (
        mixed["general"]["landmine"] == "both" != plain["combat"]["outcomes"]["general"]["landmine"]
    )


def test_a_table_s_rules_are_its_room_s_with_its_changes(client: TestClient) -> None:
    with ExitStack() as stack:
        token = register(client, "alice")
        alice = Player(stack.enter_context(signed_in(client, token)), "alice")
        assert alice.receive()["type"] == "welcome"
        answer = alice.request(
            {"type": "create_table", "room": "quick", "options": {"move_seconds": 40}}
        )
        table = answer["table"]
        facts = rules_of(client, "quick", table=table)
        assert facts["table"] == {"id": table, "changes": {"move_seconds": 40}}
        assert facts["rules"]["move_seconds"] == 40
        assert facts["rules"]["no_capture_plies"] == QUICK["no_capture_plies"]  # the room's
        assert rules_of(client, "quick")["rules"]["move_seconds"] == QUICK["move_seconds"]
        wrong = client.get("/api/rooms/siguo/rules", params={"table": table})
        assert (wrong.status_code, wrong.headers["X-Error-Code"]) == (404, "no_table")
    missing = client.get("/api/rooms/nowhere/rules")
    assert (missing.status_code, missing.headers["X-Error-Code"]) == (404, "no_room")
