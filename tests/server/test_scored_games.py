"""Scored games end to end, for every variant: registered players on every seat play over the
real sockets to a scored end, and the table's result, each player's standing in the variant and
their list of scored games are checked against docs/rules.md (§6 draws and surrender, §9 variants,
§10 stakes, §11 escapes). Everyone starts at 0 points (兵, a beginner): the stake is 1.

The server draws a random seed for every game; here the tables' ``secrets`` is patched so that
every game is dealt from a fixed seed, and moves are drawn from seeded ``random.Random``s: the
same games are played on every run.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Iterator
from contextlib import ExitStack
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
from server import tables
from server.app import create_app
from server.config import RoomConfig
from tests.server.conftest import make_settings
from tests.server.sockets import Player
from tests.server.test_realtime import connect, connect_again

VARIANTS = ("siguo", "luanzhan", "sandayi", "sanguo", "liangguo", "fanqi")
LUANZHAN = {"no_capture_plies": None, "disconnect_grace_seconds": 1}
SANGUO_FAST = {"move_seconds": 2, "max_skips": 2}
EARLY_SURRENDER = {"surrender_after_seconds": 1}
# The rule options the tests play with are their rooms' (a table that changed its room's rules
# would play unrated): a room for each variant, and one for each of these.
PLAYED: list[tuple[str, dict[str, Any]]] = [
    ("luanzhan", LUANZHAN),
    ("sanguo", SANGUO_FAST),
    ("siguo", EARLY_SURRENDER),
    ("fanqi", EARLY_SURRENDER),
    ("sandayi", {"disconnect_grace_seconds": 30}),
]


def room_id(variant: str, options: dict[str, Any]) -> str:
    return "-".join([variant, *(f"{k}={v}" for k, v in sorted(options.items()))])


ROOMS = [RoomConfig(id=v, name=v, variant=v) for v in VARIANTS] + [
    RoomConfig(id=room_id(v, o), name=room_id(v, o), variant=v, options=o) for v, o in PLAYED
]

STAKE = 1  # every player here is a beginner (docs/rules.md §10)
WIN, LOSS = STAKE, -STAKE  # §10
ESCAPE = -2 * STAKE  # an escaper always loses twice the stake (§11)
Z = 6  # 三国's default table (§9.4): what an escaper loses
# 三打一 draws (§9.3 step 9), by contract N and idle players out: (banker, each idle), stakes
SANDAYI_DRAW = {
    (1, 0): (0, 0),
    (2, 0): (-3 * STAKE, STAKE),
    (2, 1): (0, 0),
    (3, 0): (-6 * STAKE, 2 * STAKE),
    (3, 1): (-3 * STAKE, STAKE),
    (3, 2): (0, 0),
}
# what each outcome adds to a standing's (wins, losses, draws); an unscored game adds nothing
COUNTED = {
    "win": (1, 0, 0),
    "loss": (0, 1, 0),
    "escape": (0, 1, 0),
    "draw": (0, 0, 1),
    "unscored": (0, 0, 0),
}


@pytest.fixture
def server(database_url: str) -> Iterator[TestClient]:
    """The real app with a room per variant, and one for each rule options played (``PLAYED``)."""
    settings = make_settings(database_url)
    settings.rooms = ROOMS
    with TestClient(create_app(settings)) as client:
        yield client


def fix_seed(monkeypatch: pytest.MonkeyPatch, seed: str) -> None:
    """Deal every game started from now on from ``seed`` instead of a random one."""
    fixed = SimpleNamespace(
        token_hex=lambda nbytes=16: seed,
        SystemRandom=secrets.SystemRandom,
        randbelow=secrets.randbelow,
    )
    monkeypatch.setattr(tables, "secrets", fixed)


class Match:
    """A new table of ``variant`` in the room of these rule ``options``, a registered player on
    every seat (named ``<variant>-<seat>``), everyone ready: the game has begun."""

    def __init__(
        self,
        client: TestClient,
        stack: ExitStack,
        variant: str,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.client = client
        self.variant = variant
        self.names = [f"{variant}-{seat}" for seat in engine.get_variant(variant).seats]
        self.players = [connect(stack, client, name) for name in self.names]
        self.gone: set[int] = set()  # seats whose socket was closed
        room = room_id(variant, options or {})
        reply = self.players[0].request({"type": "create_table", "room": room})
        assert reply["type"] == "ok", reply
        self.id: str = reply["table"]
        for seat, p in enumerate(self.players):
            assert p.request({"type": "sit", "table": self.id, "seat": seat})["type"] == "ok"
        for p in self.players:
            version = p.request({"type": "ready", "table": self.id})["version"]
        self.sync(version)

    @property
    def watcher(self) -> Player:
        return next(p for seat, p in enumerate(self.players) if seat not in self.gone)

    @property
    def game(self) -> dict[str, Any]:
        """The game as the first player still connected last saw it."""
        return self.watcher.game

    def sync(self, version: int) -> None:
        for seat, p in enumerate(self.players):
            if seat not in self.gone:
                p.sync(version)

    def act(self, seat: int, action: dict[str, Any]) -> None:
        reply = self.players[seat].act(self.id, action)
        assert reply["type"] == "ok", (seat, action, reply)
        self.sync(reply["version"])

    def refused(self, seat: int, action: dict[str, Any]) -> dict[str, Any]:
        version = self.players[seat].version
        reply = self.players[seat].act(self.id, action)
        assert reply["type"] == "error", (seat, action, reply)
        assert self.players[seat].version == version  # the table is as it was
        return reply

    def leave(self, seat: int) -> None:
        """The player leaves the running game: an escape (docs/rules.md §11)."""
        reply = self.players[seat].request({"type": "leave", "table": self.id})
        assert reply["type"] == "ok", reply
        self.sync(reply["version"])

    def disconnect(self, seat: int) -> None:
        self.players[seat].ws.close()
        self.gone.add(seat)

    def deploy(self, seed: int) -> None:
        """Through whatever comes before play (乱战's colour picks and redeal answers; 三打一's
        bidding is up to the test), then every seat confirms an automatic layout of its hand."""
        while self.game["phase"] == "picking":
            deal = self.game["deal"]
            colour = min(c for c in range(len(self.players)) if c not in deal["picks"])
            self.act(deal["waiting"][0], {"type": "pick_colour", "colour": colour})
        while self.game["phase"] == "redealing":
            self.act(self.game["deal"]["waiting"][0], {"type": "answer_redeal", "redeal": False})
        assert self.game["phase"] == "deploying"
        for seat, p in enumerate(self.players):
            deal = p.game.get("deal")
            hand = None
            if deal is not None:
                hand = [
                    (engine.Rank(x["rank"]), None if x["army"] == seat else x["army"])
                    for x in deal["hand"]
                ]
            banker = deal is not None and deal["banker"] == seat
            layout = engine.auto_layout(self.variant, seat, seed, hand=hand, banker=banker)
            self.act(seat, {"type": "place_layout", "layout": layout})
        assert self.game["phase"] == "playing"

    def move(self, rng: random.Random, quiet: bool = False) -> None:
        """The seat to move makes a random legal move (``quiet``: onto an empty station)."""
        seat = self.game["to_move"]
        view = self.players[seat].game
        occupied = {p["station"] for p in view["pieces"]}
        moves = [
            (origin, target)
            for origin, targets in sorted(view["legal_moves"].items())
            for target in targets
            if not (quiet and target in occupied)
        ]
        origin, target = rng.choice(moves)
        self.act(seat, {"type": "move", "origin": origin, "target": target})

    def play(self, rng: random.Random, moves: int) -> None:
        """``moves`` random legal moves, after which the game goes on with nobody out."""
        for _ in range(moves):
            self.move(rng)
        assert self.game["phase"] == "playing"
        assert [s["eliminated"] for s in self.game["seats"]] == [None] * len(self.players)

    def scored(self) -> tuple[dict[str, Any], list[int]]:
        """The finished game's result (the table snapshot's) and the points the table
        published for each seat (stake applied)."""
        p = self.watcher
        game_id = p.snapshot["game_id"] if p.snapshot else None

        def has_points(message: dict[str, Any]) -> bool:
            return message["type"] == "update" and any(
                e["kind"] == "points" and e["game_id"] == game_id for e in message["events"]
            )

        message = next((m for m in p.received if has_points(m)), None) or p.until(has_points)
        points = next(e["points"] for e in message["events"] if e["kind"] == "points")
        assert p.game["phase"] == "finished"
        assert p.snapshot is not None and p.snapshot["status"] == "finished"
        return p.game["result"], points

    def check(
        self,
        *,
        reason: str,
        winners: list[int],
        outcomes: list[str],
        points: list[int],
    ) -> None:
        """The game ended for ``reason`` with these winners, each seat's outcome and points;
        the points are stored, counted in each player's standing in the variant (and nowhere
        else) and listed with the player's games."""
        result, published = self.scored()
        assert result["reason"] == reason
        assert result["winners"] == winners
        assert [s["outcome"] for s in result["seats"]] == outcomes
        assert [s["points"] for s in result["seats"]] == points  # in stakes, or 三国's raw
        assert published == points  # the stake is 1
        game_id = self.watcher.snapshot["game_id"] if self.watcher.snapshot else None
        for name, outcome, gained in zip(self.names, outcomes, points, strict=True):
            standings = self.client.get(f"/api/users/{name}").json()["standings"]
            mine = next(s for s in standings if s["variant"] == self.variant)
            counts = (mine["wins"], mine["losses"], mine["draws"])
            assert (mine["points"], counts) == (gained, COUNTED[outcome]), name
            assert all(s["points"] == 0 for s in standings if s["variant"] != self.variant)
            games = self.client.get(f"/api/users/{name}/games").json()
            listed = [
                (g["game"], g["variant"], g["outcome"], g["points"], g["reason"], g["stake"])
                for g in games
            ]
            assert listed == [(game_id, self.variant, outcome, gained, reason, STAKE)], name
            assert games[0]["rated"] is True


def seats_out(game: dict[str, Any]) -> dict[int, str]:
    """The seats out of the game and why."""
    return {
        s["seat"]: s["eliminated"]["reason"] for s in game["seats"] if s["eliminated"] is not None
    }


# --- 乱战: escapes before and after 15 full rounds (docs/rules.md §11, escape_rule lianzhong) -----


# random moves to 15 rounds: no 40-move draw on the way
def test_luanzhan_an_escape_within_15_rounds_costs_the_escaper_alone(
    server: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_seed(monkeypatch, "luanzhan-rounds")
    with ExitStack() as stack:
        m = Match(server, stack, "luanzhan", LUANZHAN)
        m.deploy(seed=1)
        rng = random.Random(15)
        while m.game["seats"][2]["moves"] < 14 or m.game["to_move"] != 2:
            m.move(rng)
        # seat 2 leaves when its fifteenth turn comes: one turn short of 15 full rounds
        m.leave(2)
        m.check(
            reason="escape",
            winners=[],
            outcomes=["unscored", "unscored", "escape", "unscored"],
            points=[0, 0, ESCAPE, 0],
        )


def test_luanzhan_an_escape_after_15_rounds_gives_the_opponents_the_game(
    server: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_seed(monkeypatch, "luanzhan-rounds")
    with ExitStack() as stack:
        m = Match(server, stack, "luanzhan", LUANZHAN)
        m.deploy(seed=1)
        rng = random.Random(15)
        while m.game["seats"][1]["moves"] < 15:  # the same game, 15 full rounds for seat 1
            m.move(rng)
        m.disconnect(1)  # and does not come back within the grace
        m.watcher.until(lambda msg: msg["type"] == "update" and msg["snapshot"]["game"]["result"])
        # the opponents score as winners, the escaper's partner (seat 3) nothing
        m.check(
            reason="escape",
            winners=[0, 2],
            outcomes=["win", "escape", "win", "unscored"],
            points=[WIN, ESCAPE, WIN, 0],
        )


# --- 三打一: an idle player escapes, play goes on, then a draw by agreement (§9.3) -----------


@pytest.mark.parametrize("contract", [2, 3])
def test_sandayi_draw_by_agreement_with_an_idle_player_out(
    server: TestClient, monkeypatch: pytest.MonkeyPatch, contract: int
) -> None:
    fix_seed(monkeypatch, f"sandayi-{contract}")
    rng = random.Random(contract)
    with ExitStack() as stack:
        m = Match(server, stack, "sandayi")
        assert m.game["phase"] == "bidding"
        order = m.game["deal"]["order"]
        assert order == [0, 3, 2, 1]  # from the host, counter-clockwise (§6.1, §9.3 step 3)
        m.act(order[0], {"type": "bid", "level": 1})
        low = m.refused(order[1], {"type": "bid", "level": 1})  # not higher than the last
        assert low["code"] == "illegal"
        m.act(order[1], {"type": "bid", "level": contract})
        if contract < 3:  # a bid of 3 ends the bidding at once
            m.act(order[2], {"type": "bid", "level": 0})
            m.act(order[3], {"type": "bid", "level": 0})
        banker = order[1]
        assert (m.game["deal"]["banker"], m.game["deal"]["contract"]) == (banker, contract)
        m.deploy(seed=contract)
        assert m.game["to_move"] == banker
        idles = [s for s in order if s != banker]

        early = m.refused(banker, {"type": "propose_draw"})  # only after 50 moves (§6.3)
        assert early["code"] == "illegal" and "50" in early["message"]
        assert m.game["seats"][banker]["proposals_left"] == 5
        m.play(rng, 6)
        escaper, proposer, other = idles
        m.leave(escaper)
        # out, counting toward the contract, and play goes on (one idle out < the contract)
        assert m.game["phase"] == "playing"
        assert seats_out(m.game) == {escaper: "escape"}
        while m.game["total_moves"] < 50:
            m.move(rng)
        assert m.game["phase"] == "playing"
        assert seats_out(m.game) == {escaper: "escape"}  # still just the one

        m.act(proposer, {"type": "propose_draw"})
        proposal = m.game["proposal"]
        # every other player still in the game answers; the escaper, gone, has no say
        assert (proposal["kind"], proposal["seat"]) == ("draw", proposer)
        assert proposal["waiting"] == sorted([banker, other])
        assert m.game["seats"][proposer]["proposals_left"] == 4
        for seat in (banker, other):
            assert m.game["phase"] == "playing"
            m.act(seat, {"type": "answer_proposal", "accept": True})

        bank, idle = SANDAYI_DRAW[(contract, 1)]
        points = [idle] * 4
        points[banker] = bank
        points[escaper] = idle + ESCAPE  # the escaper loses 2 stakes on top (§9.3 step 10)
        outcomes = ["draw"] * 4
        outcomes[escaper] = "escape"
        m.check(reason="agreement", winners=[], outcomes=outcomes, points=points)


# --- 三国: 强退, then the two left play a duel or agree a draw (§9.4) ----------------------


@pytest.mark.parametrize("end", ["duel", "draw"])
def test_sanguo_an_escape_costs_z_and_the_two_left_play_on(
    server: TestClient, monkeypatch: pytest.MonkeyPatch, end: str
) -> None:
    fix_seed(monkeypatch, "sanguo")
    rng = random.Random(3)
    # short clocks so that the duel's loser runs out of skips quickly
    options = SANGUO_FAST
    with ExitStack() as stack:
        m = Match(server, stack, "sanguo", options)
        m.deploy(seed=3)
        refused = m.refused(0, {"type": "surrender"})
        assert refused["code"] == "illegal" and "no surrender" in refused["message"]
        m.play(rng, 6)
        m.leave(1)
        assert m.game["phase"] == "playing"
        assert seats_out(m.game) == {1: "escape"}
        # the escape is scored: the escaper has left the seat, and may sit elsewhere
        assert m.watcher.snapshot is not None and m.watcher.snapshot["seats"][1]["name"] is None
        escaper = m.players[1]
        elsewhere = escaper.request({"type": "create_table", "room": room_id("sanguo", options)})
        sat = escaper.request({"type": "sit", "table": elsewhere["table"], "seat": 0})
        assert sat["type"] == "ok", sat
        m.gone.add(1)  # its socket follows that table now
        if end == "draw":
            m.act(0, {"type": "propose_draw"})
            assert m.game["proposal"]["waiting"] == [2]  # the escaper has no say
            m.act(2, {"type": "answer_proposal", "accept": True})
            # the escape's -Z stands; the draw moves nothing more (docs/rules.md §6.3)
            m.check(
                reason="agreement",
                winners=[],
                outcomes=["draw", "escape", "draw"],
                points=[0, -Z, 0],
            )
            return
        # the duel: seat 0 plays, seat 2 lets its clock run out until its skips run out: on
        # this platform an escape too (server/table_options.py, PLATFORM_RULES)
        until = time.time() + 15
        while m.game["phase"] == "playing":
            assert time.time() < until, "the duel did not end"
            if m.game["to_move"] == 0:
                m.move(rng)
            else:
                m.watcher.until(lambda msg: msg["type"] == "update")
        assert seats_out(m.game) == {1: "escape", 2: "escape"}
        m.check(  # an escape gives nobody points (§9.4): the survivor wins, for nothing
            reason="escape",
            winners=[0],
            outcomes=["win", "escape", "escape"],
            points=[0, -Z, -Z],
        )


# --- 四国: a team surrenders (§6.4) ----------------------------------------------------------


def test_siguo_both_players_of_a_team_surrender(
    server: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_seed(monkeypatch, "siguo")
    with ExitStack() as stack:
        m = Match(server, stack, "siguo", {"surrender_after_seconds": 1})
        m.deploy(seed=4)
        early = m.refused(1, {"type": "surrender"})
        assert early["code"] == "illegal" and "first 1 s" in early["message"]
        m.play(random.Random(4), 8)
        time.sleep(max(0.0, m.game["started_at"] + 1.05 - time.time()))
        m.act(1, {"type": "surrender"})
        # out (a loss, not an escape), and the partner plays on
        assert m.game["phase"] == "playing"
        assert seats_out(m.game) == {1: "surrender"}
        assert not any(p.get("seat") == 1 for p in m.game["pieces"])
        m.move(random.Random(5))
        m.act(3, {"type": "surrender"})
        m.check(
            reason="elimination",
            winners=[0, 2],
            outcomes=["win", "loss", "win", "loss"],
            points=[WIN, LOSS, WIN, LOSS],
        )


# --- 二人: draw proposals are limited, then a draw by agreement (§6.3, §6.4) -----------------


def test_liangguo_draw_by_agreement_within_the_proposal_limit(
    server: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_seed(monkeypatch, "liangguo")
    with ExitStack() as stack:
        m = Match(server, stack, "liangguo")  # the standard rules: 90 s before a surrender
        m.deploy(seed=5)
        early = m.refused(0, {"type": "surrender"})
        assert early["code"] == "illegal" and "first 90 s" in early["message"]
        m.play(random.Random(5), 2)
        assert [s["proposals_left"] for s in m.game["seats"]] == [3, 3]
        for left in (2, 1, 0):
            m.act(0, {"type": "propose_draw"})
            assert m.game["proposal"] == {"kind": "draw", "seat": 0, "waiting": [1]}
            assert m.game["seats"][0]["proposals_left"] == left
            if left == 1:  # one proposal at a time
                busy = m.refused(1, {"type": "propose_draw"})
                assert busy["code"] == "illegal" and "waiting" in busy["message"]
            m.act(1, {"type": "answer_proposal", "accept": False})
            assert m.game["proposal"] is None
        over = m.refused(0, {"type": "propose_draw"})
        assert over["code"] == "illegal" and "used all 3" in over["message"]
        assert [s["proposals_left"] for s in m.game["seats"]] == [0, 3]
        m.act(1, {"type": "propose_draw"})
        m.act(0, {"type": "answer_proposal", "accept": True})
        m.check(reason="agreement", winners=[], outcomes=["draw", "draw"], points=[0, 0])


# --- 40 moves without a capture draw (§6.3) ---------------------------------------------------


@pytest.mark.parametrize("variant", ["siguo", "liangguo"])
def test_forty_moves_without_a_capture_draw(
    server: TestClient, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    fix_seed(monkeypatch, f"quiet-{variant}")
    rng = random.Random(40)
    with ExitStack() as stack:
        m = Match(server, stack, variant)
        m.deploy(seed=40)
        for quiet in range(1, 40):
            m.move(rng, quiet=True)
            assert (m.game["phase"], m.game["quiet_moves"]) == ("playing", quiet)
        m.move(rng, quiet=True)
        seats = len(m.players)
        m.check(reason="no_capture", winners=[], outcomes=["draw"] * seats, points=[0] * seats)


# --- 翻棋: flips and moves, then a surrender (§9.6, §6.4) -------------------------------------


def test_fanqi_a_surrender_after_flips_and_moves(
    server: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_seed(monkeypatch, "fanqi")
    rng = random.Random(6)
    with ExitStack() as stack:
        m = Match(server, stack, "fanqi", {"surrender_after_seconds": 1})
        assert m.game["phase"] == "playing"  # no deployment: the pieces lie face down
        early = m.refused(1, {"type": "surrender"})
        assert early["code"] == "illegal" and "first 1 s" in early["message"]
        moved = 0
        for _ in range(16):
            seat = m.game["to_move"]
            view = m.players[seat].game
            if view.get("legal_moves") and rng.random() < 0.5:
                m.move(rng)
                moved += 1
            else:
                m.act(seat, {"type": "flip", "station": rng.choice(view["flippable"])})
        assert m.game["colours"] is not None and moved > 0  # an engineer was turned up
        assert m.game["phase"] == "playing"
        time.sleep(max(0.0, m.game["started_at"] + 1.05 - time.time()))
        m.act(1, {"type": "surrender"})
        m.check(reason="elimination", winners=[0], outcomes=["win", "loss"], points=[WIN, LOSS])


# --- 三打一: escapers count toward the contract; a pause waits only for players still in ------


def test_sandayi_escapers_count_toward_the_contract_and_do_not_hold_up_play(
    server: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    fix_seed(monkeypatch, "sandayi-escapes")
    with ExitStack() as stack:
        m = Match(server, stack, "sandayi", {"disconnect_grace_seconds": 30})
        order = m.game["deal"]["order"]
        m.act(order[0], {"type": "bid", "level": 2})
        for seat in order[1:]:
            m.act(seat, {"type": "bid", "level": 0})
        banker, contract = m.game["deal"]["banker"], m.game["deal"]["contract"]
        assert (banker, contract) == (order[0], 2)
        m.deploy(seed=7)
        m.play(random.Random(7), 3)
        first, second, _ = (s for s in order if s != banker)
        m.leave(first)  # an escape; then the escaper closes the client
        m.disconnect(first)
        assert m.game["phase"] == "playing" and seats_out(m.game) == {first: "escape"}
        # a player still in the game drops out: play pauses until they are back
        m.disconnect(second)
        m.watcher.until(
            lambda msg: (
                msg["type"] == "update" and any(e["kind"] == "paused" for e in msg["events"])
            )
        )
        back = connect_again(stack, m.client, m.names[second])
        assert back.request({"type": "open", "table": m.id})["type"] == "ok"
        m.players[second] = back
        m.gone.discard(second)
        # everyone still in the game is back (the escaper is gone for good): play goes on
        m.move(random.Random(8))
        assert any(
            e["kind"] == "resumed" for msg in m.watcher.received for e in msg.get("events", [])
        )
        m.leave(second)  # the second idle player out: the banker's contract of 2 is met
        # banker +3N, each idle -N, and each escaper 2 more (§9.3 steps 9 and 10)
        points = [-contract * STAKE] * 4
        points[banker] = 3 * contract * STAKE
        points[first] += ESCAPE
        points[second] += ESCAPE
        outcomes = ["loss"] * 4
        outcomes[banker] = "win"
        outcomes[first] = outcomes[second] = "escape"
        m.check(reason="escape", winners=[banker], outcomes=outcomes, points=points)
