"""What a table may change of its room's rules (server.table_options), unrated tables, and a
game whose result cannot be stored."""

from __future__ import annotations

import logging
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from server.app import create_app
from server.config import RoomConfig
from server.models import Game, LiveTable, Standing
from server.store import Store
from server.table_options import BadOption, checked_room_options, kept_rules, table_rules
from tests.server.conftest import make_settings
from tests.server.test_realtime import connect, start_game, table_of_two

SANGUO = RoomConfig(id="sanguo", name="三国", variant="sanguo", options={"random_seats": True})


@pytest.mark.parametrize(
    "options",
    [
        {"score_z": 1_000_000_000},  # the forged points of the review
        {"score_z": 2**63},  # the poison game
        {"score_x": 3},
        {"random_seats": False},  # the anti-cheat room's own rule
        {"information": "open"},
        {"escape_rule": "ourgame"},
        {"mine_trades": True},
        {"speed": 3},  # no such option
        {"move_seconds": -5},
        {"move_seconds": 5},
        {"move_seconds": 301},
        {"move_seconds": 2**63},
        {"move_seconds": True},
        {"deploy_seconds": "60"},
        {"draw_proposals": 11},
        {"disconnect_grace_seconds": 0},
    ],
)
def test_a_table_may_not_set(options: dict[str, Any]) -> None:
    with pytest.raises(BadOption):
        table_rules("sanguo", SANGUO.options, options)


def test_a_table_changes_only_what_differs_from_its_room() -> None:
    room = {"move_seconds": 30, "random_seats": True}
    assert table_rules("sanguo", room, {"move_seconds": 30}).changes == {}
    assert table_rules("sanguo", room, {"move_seconds": 45, "draw_proposals": 3}).changes == {
        "move_seconds": 45
    }
    assert table_rules("siguo", {}, {"no_capture_plies": None}).changes == {
        "no_capture_plies": None
    }
    assert table_rules("siguo", {}, {"engineer_scouting": "all"}).changes == {
        "engineer_scouting": "all"
    }


def test_a_table_keeps_the_rules_it_was_made_with_parsed() -> None:
    room = {"move_seconds": 20, "random_seats": True}
    rules = table_rules("sanguo", room, {"move_seconds": 45, "engineer_scouting": "all"})
    assert (rules.options.move_seconds, rules.options.random_seats) == (45, True)
    assert rules.options.engineer_scouting == "all" and rules.options.score_z == 6
    assert kept_rules("sanguo", room, rules.changes) == rules  # as a takeover reads them


def test_a_room_s_numbers_are_bounded_too(tmp_path: Path) -> None:
    assert checked_room_options("sanguo", {"score_z": 12, "move_seconds": 1})
    for options in ({"score_z": 2**63}, {"score_x": 101}, {"move_seconds": 10**9}):
        with pytest.raises(BadOption):
            checked_room_options("sanguo", options)
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'rooms.db'}")
    settings.rooms = [SANGUO.model_copy(update={"options": {"score_z": 2**63}})]
    with pytest.raises(ValueError, match="score_z"), TestClient(create_app(settings)):
        pass  # the server does not start with such a room


def test_no_room_changes_a_rule_its_variant_fixes() -> None:
    """翻棋's "no legal action loses" is a rule of the variant (``Variant.fixed``), which the
    engine keeps whatever the options say: a room may not pretend to change it."""
    assert checked_room_options("fanqi", {"blocked_is_defeat": True})
    with pytest.raises(BadOption, match="blocked_is_defeat"):
        checked_room_options("fanqi", {"blocked_is_defeat": False})
    assert checked_room_options("siguo", {"blocked_is_defeat": True})  # an option there


def test_forged_scoring_is_refused_at_a_sanguo_table(database_url: str) -> None:
    settings = make_settings(database_url)
    settings.rooms = [SANGUO]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        alice = connect(stack, client, "alice")
        for options in ({"score_z": 1_000_000_000}, {"score_z": 2**63}, {"random_seats": False}):
            reply = alice.request({"type": "create_table", "room": "sanguo", "options": options})
            assert reply["type"] == "error" and reply["code"] == "bad_option", reply
            assert next(iter(options)) in reply["message"]
        lobby = client.get("/api/lobby").json()
        assert [room["tables"] for room in lobby["rooms"]] == [[]]  # nothing was opened


def test_a_table_with_its_own_rules_plays_unrated(database_url: str) -> None:
    with TestClient(create_app(make_settings(database_url))) as client, ExitStack() as stack:
        alice, bob = connect(stack, client, "alice"), connect(stack, client, "bob")
        changed = {"move_seconds": 45}
        table = alice.request(
            {"type": "create_table", "room": "liangguo-fast", "options": changed}
        )["table"]
        listing = client.get(f"/api/tables/{table}").json()
        assert listing["options"]["move_seconds"] == 45 and listing["changes"] == changed
        assert listing["rules"]["move_seconds"] == 45
        assert (listing["rated"], listing["unrated_because"]) == (False, "table_rules")
        lobby_entry = client.get("/api/lobby").json()["rooms"][1]["tables"][0]
        assert lobby_entry["rated"] is False and lobby_entry["unrated_because"] == "table_rules"
        for seat, p in enumerate((alice, bob)):
            assert p.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
        start_game(alice, bob, table, seed=3)
        played = client.app.state.lobby.tables[table]  # type: ignore[attr-defined]
        assert played.state.rules is played.rule_options  # parsed when the table was made
        alice.request({"type": "leave", "table": table})  # an escape ends the game
        points = bob.until(
            lambda m: m["type"] == "update" and any(e["kind"] == "points" for e in m["events"])
        )
        event = next(e for e in points["events"] if e["kind"] == "points")
        assert event["rated"] is False and event["unrated_because"] == "table_rules"
        assert event["points"] == [0, 0]
        standings = client.get("/api/users/bob").json()["standings"]
        assert all(s["points"] == 0 and s["wins"] == 0 for s in standings)


def test_the_room_s_own_rules_stay_rated(database_url: str) -> None:
    with TestClient(create_app(make_settings(database_url))) as client, ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        assert client.get(f"/api/tables/{table}").json()["rated"] is True
        start_game(alice, bob, table, seed=3)
        alice.request({"type": "leave", "table": table})
        points = bob.until(
            lambda m: m["type"] == "update" and any(e["kind"] == "points" for e in m["events"])
        )
        event = next(e for e in points["events"] if e["kind"] == "points")
        assert event["rated"] is True and event["points"][1] > 0


def test_a_result_that_cannot_be_stored_ends_the_game_loudly(
    database_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def refuse(*args: Any, **kwargs: Any) -> None:
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    monkeypatch.setattr(Store, "game_finished", refuse)
    app = create_app(make_settings(database_url))
    with TestClient(app) as client, ExitStack() as stack:
        alice, bob, table = table_of_two(client, stack)
        start_game(alice, bob, table, seed=4)
        game_id = bob.snapshot["game_id"] if bob.snapshot else None
        with caplog.at_level(logging.ERROR, logger="junqi"):
            alice.request({"type": "leave", "table": table})
            told = bob.until(
                lambda m: m["type"] == "update" and any(e["kind"] == "points" for e in m["events"])
            )
        event = next(e for e in told["events"] if e["kind"] == "points")
        assert event["rated"] is False and event["unrated_because"] == "not_stored"
        assert told["snapshot"]["status"] == "finished"
        assert any(
            r.levelno == logging.ERROR and "could not be stored" in r.getMessage()
            for r in caplog.records
        )

        async def rows() -> tuple[str | None, int]:
            async with app.state.db.sessions() as session:
                status = await session.scalar(select(Game.status).where(Game.id == game_id))
                live = len((await session.scalars(select(LiveTable))).all())
                scored = len((await session.scalars(select(Standing))).all())
            return status, live + scored

        assert client.portal is not None
        status, left = client.portal.call(rows)
        assert status == "not_stored" and left == 0  # no live row, nobody scored
