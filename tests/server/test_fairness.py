"""Fair deals (docs/fairness.md) in the dealt variants: the commitment is in the game's view
from the start and the seed in no message, view or REST answer until the game is over; then it
is published (the last view, the game_over event, the game's summary, the record), it hashes to
the commitment shown at the start, and the docs' own Python check deals every hand and board
again from it."""

from __future__ import annotations

import json
import re
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from engine.deal import verify
from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings
from tests.server.test_realtime import connect

DOCS = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"


def docs_code() -> tuple[str, str]:
    """The two Python blocks of docs/fairness.md: the fetching, and the check."""
    fetch, check = re.findall(r"```python\n(.*?)```", DOCS.read_text(), re.S)
    return fetch, check


def is_over(message: dict[str, Any]) -> bool:
    return message["type"] in ("table", "update") and any(
        e["kind"] == "game_over" for e in message["events"]
    )


@pytest.mark.parametrize("variant", ["luanzhan", "sandayi", "fanqi"])
def test_the_seed_is_hidden_until_the_end_then_it_re_deals_the_game(
    tmp_path: Path, variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'fair.db'}")
    settings.rooms = [
        RoomConfig(id="fair", name="fair", variant=variant, options={"max_total_moves": 12})
    ]
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        me = connect(stack, client, "player")
        reply = me.request({"type": "play_now", "room": "fair"})
        table = reply["table"]
        me.sync(me.request({"type": "ready", "table": table})["version"])
        game_id = me.snapshot["game_id"] if me.snapshot else None
        shown = me.game["commitment"]  # from the first view of the game
        assert me.game["seed"] is None and re.fullmatch(r"[0-9a-f]{64}", shown)
        # while it runs, REST has the commitment only
        summary = client.get(f"/api/games/{game_id}").json()
        assert summary["commitment"] == shown and summary["seed"] is None
        listed = next(g for g in client.get("/api/games").json() if g["id"] == game_id)
        assert listed["commitment"] == shown and listed["seed"] is None
        assert client.get(f"/api/games/{game_id}/record").status_code == 403
        assert client.get(f"/api/games/{game_id}/replay/0").status_code == 403
        assert client.get(f"/api/games/{game_id}/moves").status_code == 403
        # a bot plays the seat too (托管): the whole game is dealt and played by bots
        assert me.request({"type": "stand_in", "table": table, "on": True})["type"] == "ok"
        if not any(is_over(m) for m in me.received):
            me.until(is_over, limit=5000)
        over = next(n for n, m in enumerate(me.received) if is_over(m))
        before, last = me.received[:over], me.received[over]
        seed = last["snapshot"]["game"]["seed"]
        assert seed and verify(seed, shown)
        assert any(e["kind"] == "game_over" and e["seed"] == seed for e in last["events"])
        # no message before the end holds the seed, and every view of the game the commitment
        for message in before:
            assert seed not in json.dumps(message, ensure_ascii=False), message["type"]
            game = message.get("snapshot", {}).get("game") if "snapshot" in message else None
            if game:
                assert game["commitment"] == shown and game["seed"] is None
        dealt = [e for m in before for e in m.get("events", []) if e["kind"] == "hand"]
        assert (variant == "fanqi") == (not dealt)  # the seat was dealt its hands, in its view
        # after it, the seed is public
        summary = client.get(f"/api/games/{game_id}").json()
        assert summary["seed"] == seed and summary["commitment"] == shown
        assert client.get(f"/api/games/{game_id}/record").json()["record"]["seed"] == seed
        # the procedure of docs/fairness.md, as written there, checks the game
        fetch, check = docs_code()
        compile(fetch, "docs/fairness.md", "exec")
        exec(check, {"get": lambda path: client.get(path).json(), "GAME": game_id})
        said = capsys.readouterr().out
        assert f"matches seed {seed}" in said
        if variant == "fanqi":
            assert "the board of 50 pieces is the one the seed deals" in said
        else:
            # every seat's hand of every deal: 三打一's before and after the bidding
            assert said.count("as the seed deals them") >= (8 if variant == "sandayi" else 4)
        # and it fails on a seed that is not the game's
        lying = {"get": lambda path: _with_seed(client.get(path).json(), path), "GAME": game_id}
        with pytest.raises(AssertionError):
            exec(check, lying)


def _with_seed(answer: Any, path: str) -> Any:
    """The server's answer, with another seed in the game's summary."""
    if path.count("/") == 3 and isinstance(answer, dict) and "seed" in answer:
        return answer | {"seed": "0" * 32}
    return answer
