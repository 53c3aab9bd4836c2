"""Hostile input while real games run: thousands of malformed and adversarial socket messages,
floods, frames over the caps (on a real uvicorn process) and bad REST bodies.

Two 二人 games are in play (alice against bob, carol against dave) while mallory, who sits at no
table and moderates none, sends generated messages (hypothesis, derandomized) and the players
send the adversarial ones a player can: actions for the other seat, stale versions, actions of
the wrong phase, actions at the other table. Every message must get exactly one answer, in
order, with the documented code and its ``id`` echoed as ``ref``; the sockets stay open, a ping
answers promptly, ``/health`` is 200, and the games are untouched: their versions and event
numbers are where they were, and each can still make its next move (one version more).

"""

from __future__ import annotations

import functools
import json
import string
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

from server import errors
from server.app import create_app
from server.config import RoomConfig
from server.inbound import PHRASES
from server.moderation import set_role
from tests.live import live_server
from tests.server.conftest import make_settings, register
from tests.server.sockets import Player, live_socket, signed_in
from tests.server.test_realtime import start_game
from tests.soak import soak

ROOMS = [
    # slow clocks: no deadline may move a game on while the fuzzing runs
    RoomConfig(
        id="duel",
        name="duel",
        variant="liangguo",
        options={"move_seconds": 900, "deploy_seconds": 900},
    ),
    RoomConfig(id="siguo", name="siguo", variant="siguo"),
]
LIVE_ROOMS = [room.model_dump() for room in ROOMS]
MESSAGE_LIMIT = 16 * 1024  # Settings.max_message_bytes
FRAME_LIMIT = 4 * MESSAGE_LIMIT  # as ``junqi serve`` runs uvicorn (ws_max_size)
# every answer's code is one of them; the web tests check that the client has words for each
CODES = errors.CODES
REPLIES = ("ok", "error", "pong")


def _no_constant(name: str) -> Any:
    raise AssertionError(f"the server sent {name}, which is not JSON")


class StrictSocket:
    """A test client socket that fails on anything but standard JSON (what browsers parse)."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    def send_text(self, text: str) -> None:
        self.ws.send_text(text)

    def receive_json(self) -> Any:
        return json.loads(self.ws.receive_text(), parse_constant=_no_constant)

    def close(self) -> None:
        self.ws.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def join(stack: ExitStack, client: TestClient, name: str) -> Player:
    token = register(client, name)
    ws = stack.enter_context(signed_in(client, token))
    player = Player(StrictSocket(ws), name)
    assert player.receive()["type"] == "welcome"
    return player


@dataclass
class Game:
    table: str
    players: dict[int, Player]  # by seat

    @property
    def mover(self) -> Player:
        watcher = self.players[0]
        return self.players[watcher.game["to_move"]]

    @property
    def waiting(self) -> Player:
        watcher = self.players[0]
        return self.players[1 - watcher.game["to_move"]]


@dataclass
class Arena:
    client: TestClient
    games: list[Game]
    mallory: Player
    flooder: Player
    before: dict[str, tuple[int, int]] = field(default_factory=dict)  # table: (version, seq)

    def state(self, table: str) -> tuple[int, int]:
        snapshot = self.client.get(f"/api/tables/{table}").json()
        return int(snapshot["version"]), int(snapshot["seq"])

    def settle(self) -> None:
        """Remember where the games are (both players have seen it)."""
        for game in self.games:
            self.before[game.table] = self.state(game.table)
            for player in game.players.values():
                player.sync(self.before[game.table][0])

    def assert_unharmed(self) -> None:
        """The server answers at once, and the games are where they were and go on."""
        assert self.client.get("/health").status_code == 200
        for player in [self.mallory, self.flooder] + [
            p for game in self.games for p in game.players.values()
        ]:
            started = time.monotonic()
            assert player.request({"type": "ping"})["type"] == "pong"
            assert time.monotonic() - started < 2.0, f"{player.name} waited for its pong"
        for game in self.games:
            assert self.state(game.table) == self.before[game.table], "the game was changed"
            mover = game.mover
            legal = mover.game["legal_moves"]
            origin = sorted(legal)[0]
            move = {"type": "move", "origin": origin, "target": legal[origin][0]}
            reply = mover.act(game.table, move)
            assert reply["type"] == "ok", reply
            assert reply["version"] == self.before[game.table][0] + 1  # one move: one version
            for player in game.players.values():
                player.sync(reply["version"])


@contextmanager
def arena(tmp_path: Path) -> Iterator[Arena]:
    """Two 二人 games in play, mallory watching the first, a flooder in the lobby. The rate
    limits are the real ones but for sign-ins (each test registers six players)."""
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'fuzz.db'}")
    settings.rooms = ROOMS
    settings.actions_per_10_seconds = 100
    settings.tables_per_creator = 1000  # the flood of tables meets the rate limit first
    with TestClient(create_app(settings)) as client, ExitStack() as stack:
        games = []
        for seed, (first, second) in enumerate((("alice", "bob"), ("carol", "dave"))):
            players = {0: join(stack, client, first), 1: join(stack, client, second)}
            table = players[0].request({"type": "create_table", "room": "duel"})["table"]
            for seat, player in players.items():
                assert player.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
            start_game(players[0], players[1], table, seed)
            games.append(Game(table, players))
        mallory = join(stack, client, "mallory")
        assert mallory.request({"type": "open", "table": games[0].table})["type"] == "ok"
        found = Arena(client, games, mallory, join(stack, client, "flooder"))
        found.settle()
        yield found


def replies(player: Player, count: int) -> list[dict[str, Any]]:
    """The next ``count`` answers (ok, error, pong), in order, past any pushed messages."""
    return [player.until(lambda m: m["type"] in REPLIES) for _ in range(count)]


# --- generated messages -------------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """A frame to send, the codes its answer may carry (``pong``/``ok`` as codes too), and
    the ``ref`` it must carry."""

    text: str
    codes: frozenset[str]
    ref: Any = None


TABLES = ["<game>", "<other>", "nope", "0" * 12]  # the two games (filled in), two unknown
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)  # no lone surrogates
JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
IDS = st.none() | st.integers(-(2**62), 2**62) | TEXT  # None: no id at all
# the fields of each message type: (name, kind, required)
FIELDS: dict[str, list[tuple[str, str, bool]]] = {
    "ping": [],
    "lobby": [],
    "create_table": [("room", "room", True), ("options", "options", False)],
    "open": [("table", "table", True), ("since", "int", False)],
    "close": [("table", "table", True)],
    "sit": [("table", "table", True), ("seat", "seat", True)],
    "add_bot": [("table", "table", True), ("seat", "seat", True), ("level", "level", False)],
    "remove_bot": [("table", "table", True), ("seat", "seat", True)],
    "play_now": [("room", "room", False)],
    "swap": [("table", "table", True), ("seat", "seat", True)],
    "stand": [("table", "table", True)],
    "leave": [("table", "table", True)],
    "ready": [("table", "table", True), ("ready", "bool", False)],
    "act": [("table", "table", True), ("version", "int", True), ("action", "action", True)],
    "chat": [("channel", "channel", True), ("table", "table", False), ("text", "text", True)],
    "phrase": [("table", "table", True), ("key", "phrase", True)],
    "kick": [("table", "table", True), ("seat", "seat", True), ("reason", "reason", True)],
    "dissolve": [("table", "table", True), ("reason", "reason", True)],
}
VALID: dict[str, st.SearchStrategy[Any]] = {
    "room": st.sampled_from(["duel", "siguo", "nowhere"]),
    "options": st.just({}) | st.dictionaries(st.sampled_from(["move_seconds", "nope"]), JSON),
    "table": st.sampled_from(TABLES),
    "int": st.integers(-(2**40), 2**40),
    "seat": st.integers(-2, 5),
    "level": st.sampled_from(["easy", "normal", "hard", "godlike"]),
    "bool": st.booleans(),
    "action": st.fixed_dictionaries(
        {"type": st.sampled_from(["move", "surrender", "propose_draw", "timeout", "bid"])}
    ),
    "channel": st.sampled_from(["lobby", "table", "spectators"]),
    "text": st.text(min_size=1, max_size=8) | st.just("长" * 201),
    "reason": st.text(min_size=1, max_size=8),
    "phrase": st.sampled_from(["hello", "nice_move", "nope", "好棋"]),
}
LETTERS = st.text(string.ascii_letters, min_size=1, max_size=6)
NOT_INT: st.SearchStrategy[Any] = (
    LETTERS | st.floats(0.1, 0.9) | st.lists(JSON_LEAF, max_size=2) | st.just({})
)
NOT_STR = st.integers() | st.booleans() | st.lists(TEXT, max_size=2) | st.just({"a": 1})
WRONG: dict[str, st.SearchStrategy[Any]] = {
    "room": NOT_STR,
    "options": st.integers() | st.booleans() | st.lists(JSON_LEAF, max_size=2) | TEXT,
    "table": NOT_STR,
    "int": NOT_INT,
    "seat": NOT_INT,
    "level": NOT_STR,
    "bool": st.lists(JSON_LEAF, max_size=2) | st.just({}) | st.just("maybe") | st.just(2),
    "action": st.integers() | st.booleans() | st.lists(JSON_LEAF, max_size=2) | TEXT,
    "channel": TEXT.filter(lambda t: t not in ("lobby", "table", "spectators")) | NOT_STR,
    "text": st.just("") | NOT_STR,
    "reason": st.just("") | st.just("x" * 501) | NOT_STR,
    "phrase": st.just("x" * 41) | NOT_STR,
}
LIMITED = {
    "act": "actions",
    "create_table": "tables",
    "play_now": "tables",
    "chat": "chat",
    "phrase": "phrases",
}


def expected(message: dict[str, Any], game: str, other: str) -> set[str]:
    """The answers mallory may get to a well-formed message: she sits at no table (she watches
    ``game``), owns no room and is no admin, so that no message of hers changes a game."""
    kind = message["type"]
    table = message.get("table")
    known = table in (game, other)
    unknown = set() if known else {"no_table"}
    codes: set[str]
    if kind == "ping":
        return {"pong"}
    if kind in ("lobby", "close"):
        codes = {"ok"}
    elif kind in ("create_table", "play_now"):
        room = message.get("room", "duel" if kind == "create_table" else None)
        codes = {"ok", "bad_option", "room_full", "too_many_tables"}
        if room == "nowhere":
            codes = {"no_room"}
    elif kind == "open":
        codes = {"ok"} if known else unknown
    elif kind == "sit":
        codes = {"game_running"} if known else unknown
    elif kind in ("add_bot", "remove_bot"):
        codes = {"game_running", "bad_seat", "bad_level", "not_allowed"} | unknown
    elif kind == "swap":
        codes = {"not_seated", "game_running", "bad_seat"} | unknown
    elif kind in ("stand", "leave"):
        codes = {"ok"} if known else unknown
    elif kind == "ready":
        codes = {"not_seated"} if known else unknown
    elif kind == "act":
        codes = {"not_playing"} if known else unknown
    elif kind == "chat":
        codes = {"too_long", "empty_chat"}  # empty: nothing left but control characters
        if message["channel"] == "lobby":
            codes |= {"ok"}
        elif table is None:
            codes |= {"bad_message"}
        elif message["channel"] == "table":
            codes |= {"wrong_channel"} | unknown  # a spectator chats apart from the players
        else:  # to the spectators of the table she watches (unless she closed it meanwhile)
            codes |= {"ok", "not_watching"} if table == game else {"not_watching"} | unknown
    elif kind == "phrase":
        if message["key"] not in PHRASES:
            codes = {"unknown_phrase"}
        else:  # to the spectators of the table she watches (unless she closed it meanwhile)
            codes = {"ok", "not_watching"} if table == game else {"not_watching"} | unknown
    else:  # kick, dissolve
        codes = {"not_owner"} | unknown
    if kind in LIMITED:
        codes |= {"rate_limited"}
    return codes


@st.composite
def probes(draw: Callable[..., Any], game: str, other: str) -> Probe:
    """One frame of one of the kinds below, with what its answer must be."""

    def identified(message: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        ident = draw(IDS)
        return ({"id": ident, **message} if ident is not None else message), ident

    def tables(value: Any) -> Any:
        return (
            {"<game>": game, "<other>": other}.get(value, value)
            if isinstance(value, str)
            else value
        )

    shape = draw(st.sampled_from(["text", "value", "unknown", "missing", "wrong", "valid"]))
    if shape == "text":  # not JSON at all
        text = draw(TEXT.filter(_not_json).map(lambda t: "{" + t))
        return Probe(text, frozenset({"bad_json"}))
    if shape == "value":  # JSON, but no object
        value = draw(JSON.filter(lambda v: not isinstance(v, dict)))
        return Probe(json.dumps(value), frozenset({"bad_message"}))
    kind = draw(st.sampled_from(sorted(FIELDS)))
    fields = FIELDS[kind]
    message: dict[str, Any] = {"type": kind}
    for name, sort, needed in fields:
        if needed or draw(st.booleans()):
            message[name] = tables(draw(VALID[sort]))
    if shape == "unknown":  # a type nobody knows, or no type
        message["type"] = draw(st.none() | TEXT.filter(lambda t: t not in FIELDS) | NOT_STR)
        if message["type"] is None:
            del message["type"]
        message, ident = identified(message)
        return Probe(json.dumps(message), frozenset({"bad_message"}), ident)
    if shape in ("missing", "wrong"):
        required = [name for name, _, needed in fields if needed]
        if shape == "missing" and required:
            del message[draw(st.sampled_from(required))]
        elif fields:
            name, sort, _ = draw(st.sampled_from(fields))
            message[name] = draw(WRONG[sort])
        else:  # ping and lobby: only the id can be wrong
            message["id"] = draw(st.just([1]) | st.just({"id": 1}) | st.floats(0.1, 0.9))
            return Probe(json.dumps(message), frozenset({"bad_message"}), message["id"])
        message, ident = identified(message)
        return Probe(json.dumps(message), frozenset({"bad_message"}), ident)
    message, ident = identified(message)
    return Probe(json.dumps(message), frozenset(expected(message, game, other)), ident)


def _not_json(text: str) -> bool:
    try:
        json.loads("{" + text)
    except ValueError:
        return True
    return False


def check(probe: Probe, answer: dict[str, Any]) -> None:
    code = answer.get("code", answer["type"])
    assert code in probe.codes, (probe.text, answer)
    assert code in CODES | {"ok", "pong"}, answer
    assert answer["ref"] == probe.ref, (probe.text, answer)


BATCHES = soak(50, 250)  # of generated messages sent by mallory


def test_generated_messages_get_their_answers_and_change_no_game(tmp_path: Path) -> None:
    with arena(tmp_path) as place:
        game, other = place.games[0].table, place.games[1].table
        sent = 0

        @settings(
            max_examples=BATCHES,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(st.lists(probes(game, other), min_size=1, max_size=10))
        def mallory_sends(batch: list[Probe]) -> None:
            nonlocal sent
            for probe in batch:  # all at once, then the answers in the same order
                place.mallory.send(probe.text)
            for probe, answer in zip(batch, replies(place.mallory, len(batch)), strict=True):
                check(probe, answer)
            sent += len(batch)

        mallory_sends()
        assert sent > 4 * BATCHES  # of 1 to 10 messages each
        place.assert_unharmed()


# --- what players may try ------------------------------------------------------------------------


def test_adversarial_players_get_the_documented_errors(tmp_path: Path) -> None:
    with arena(tmp_path) as place:
        first, second = place.games
        table, other = first.table, second.table
        mover, waiting, mallory = first.mover, first.waiting, place.mallory
        seat = mover.game["to_move"]
        version = place.before[table][0]
        legal = mover.game["legal_moves"]
        origin = sorted(legal)[0]
        move = {"type": "move", "origin": origin, "target": legal[origin][0]}
        layout = {"type": "place_layout", "layout": {}}
        theirs = f"{1 - seat}:62"  # the other seat's headquarters: not a piece of ours

        def act(action: dict[str, Any], at: int = version, where: str = table) -> dict[str, Any]:
            return {"type": "act", "table": where, "version": at, "action": action}

        cases: list[tuple[Player, dict[str, Any] | str, str]] = [
            (waiting, act(move), "not_your_turn"),  # a move in the other's turn
            (mover, act({**move, "seat": 1 - seat}), "not_your_seat"),  # for the other seat
            (waiting, act({"type": "surrender", "seat": seat}), "not_your_seat"),
            (mover, act(move, at=version - 1), "stale_version"),
            (mover, act(move, at=version + 1), "stale_version"),
            (mover, act(move, at=-(2**40)), "stale_version"),
            (mover, act({"type": "timeout"}), "not_allowed"),  # the clock's, not a player's
            (mover, act({"type": "deadline"}), "not_allowed"),
            (mover, act({"type": "escape"}), "not_allowed"),
            (mover, act({"type": "pause"}), "not_allowed"),  # a restart's, a disconnection's
            (mover, act({"type": "resume", "bonus": 600}), "not_allowed"),
            (mover, act(layout), "illegal"),  # deploying is over
            (mover, act({"type": "pick_colour", "colour": 1}), "illegal"),  # no such phase
            (mover, act({"type": "bid", "level": 1}), "illegal"),
            (mover, act({"type": "answer_proposal", "accept": True}), "illegal"),  # none made
            (mover, act({"type": "flip", "station": origin}), "illegal"),  # not 翻棋
            (mover, act({"type": "move", "origin": origin, "target": origin}), "illegal"),
            (mover, act({"type": "move", "origin": "9:99", "target": origin}), "malformed"),
            (mover, act({"type": "move", "origin": theirs, "target": origin}), "illegal"),
            (mover, act({"type": "move", "origin": origin}), "malformed"),
            (mover, act({"type": "move", "origin": 5, "target": origin}), "malformed"),
            (mover, act({**move, "extra": 1}), "malformed"),
            (mover, act({"type": "teleport"}), "malformed"),
            (mover, act({"type": None}), "malformed"),
            (mover, act({"type": 7}), "malformed"),
            (mover, act(move, where=other), "not_playing"),  # at a table one is not seated at
            (mallory, act(move), "not_playing"),  # a spectator
            (mallory, act(move, where="nope"), "no_table"),
            (mover, {"type": "sit", "table": table, "seat": 1 - seat}, "game_running"),
            (mover, {"type": "sit", "table": other, "seat": 0}, "playing_elsewhere"),
            (mover, {"type": "swap", "table": table, "seat": 1 - seat}, "game_running"),
            (mover, {"type": "ready", "table": table}, "game_running"),
            (mover, {"type": "stand", "table": table}, "game_running"),
            (mover, {"type": "add_bot", "table": table, "seat": 1}, "game_running"),
            (mover, {"type": "remove_bot", "table": table, "seat": 1}, "game_running"),
            (mallory, {"type": "ready", "table": table}, "not_seated"),
            (mallory, {"type": "swap", "table": table, "seat": 0}, "not_seated"),
            (mover, {"type": "kick", "table": table, "seat": 1 - seat, "reason": "x"}, "not_owner"),
            (mover, {"type": "dissolve", "table": table, "reason": "x"}, "not_owner"),
            (mallory, {"type": "kick", "table": other, "seat": 0, "reason": "x"}, "not_owner"),
            (mallory, {"type": "dissolve", "table": other, "reason": "x"}, "not_owner"),
            (
                mallory,
                {"type": "chat", "channel": "table", "table": table, "text": "x"},
                "wrong_channel",
            ),
            (
                mover,
                {"type": "chat", "channel": "spectators", "table": table, "text": "x"},
                "wrong_channel",
            ),
            (mover, {"type": "chat", "channel": "lobby", "text": "长" * 201}, "too_long"),
            (mover, {"type": "chat", "channel": "lobby", "text": "\x00\u202e \n"}, "empty_chat"),
            (  # the spectators of a table she does not watch
                mallory,
                {"type": "chat", "channel": "spectators", "table": other, "text": "x"},
                "not_watching",
            ),
            (mover, {"type": "chat", "channel": "lobby", "text": ""}, "bad_message"),
            (mover, {"type": "chat", "channel": "table", "text": "x"}, "bad_message"),
            (mover, {"type": "create_table", "room": "nowhere"}, "no_room"),
            (
                mover,
                {"type": "create_table", "room": "duel", "options": {"speed": 3}},
                "bad_option",
            ),
            (
                mover,
                {"type": "create_table", "room": "duel", "options": {"move_seconds": -1}},
                "bad_option",
            ),
            (
                mover,
                {"type": "create_table", "room": "duel", "options": {"move_seconds": 1e300}},
                "bad_option",
            ),
            (mover, {"type": "play_now", "room": "nowhere"}, "no_room"),
            (
                mover,
                {"type": "add_bot", "table": table, "seat": 0, "level": "godlike"},
                "bad_level",
            ),
            # bots are the table's players' (and its creator's) to seat, not anyone's
            (mallory, {"type": "add_bot", "table": table, "seat": 1}, "not_allowed"),
            (mallory, {"type": "remove_bot", "table": other, "seat": 0}, "not_allowed"),
            (mover, {"type": "add_bot", "table": other, "seat": 1}, "not_allowed"),
            (mover, {"type": "sit", "table": table, "seat": 0.5}, "bad_message"),
            (mover, {"type": "open", "table": table, "since": 1e40}, "bad_message"),
            (mover, {"type": "act", "table": table, "version": "v", "action": move}, "bad_message"),
            (
                mover,
                {"type": "act", "table": table, "version": version, "action": [move]},
                "bad_message",
            ),
            (mover, {"type": "act", "table": table, "version": version}, "bad_message"),
            (mover, {"type": "teleport", "table": table}, "bad_message"),
            (mover, "[]", "bad_message"),
            (mover, "null", "bad_message"),
            (mover, '"act"', "bad_message"),
            (mover, "{'type': 'ping'}", "bad_json"),
            (mover, '{"type": "ping"', "bad_json"),
            (mover, "", "bad_json"),
            (mover, " " * MESSAGE_LIMIT + "{}", "too_large"),
            (
                mover,
                json.dumps({"type": "chat", "channel": "lobby", "text": "长" * 6000}),
                "too_large",
            ),
        ]
        for player, message, code in cases:
            if isinstance(message, str):
                player.send(message)
                answer = replies(player, 1)[0]
                ref = None
            else:
                ref = player.send(message)
                answer = player.reply(ref)
            assert (answer["type"], answer.get("code")) == ("error", code), (message, answer)
            assert answer["ref"] == ref and answer["message"], (message, answer)
        place.assert_unharmed()


def test_floods_are_limited_and_every_message_still_answered(tmp_path: Path) -> None:
    with arena(tmp_path) as place:
        flooder, table = place.flooder, place.games[0].table
        act = {"type": "act", "table": table, "version": 0, "action": {"type": "surrender"}}
        floods: list[tuple[dict[str, Any], int, str]] = [
            (act, 100, "not_playing"),  # 100 game actions in 10 s
            ({"type": "chat", "channel": "lobby", "text": "刷屏"}, 20, "ok"),  # 20 lines a minute
            ({"type": "create_table", "room": "duel"}, 10, "ok"),  # 10 tables a minute
        ]
        for message, allowed, answer in floods:
            count = allowed + 30
            refs = [flooder.send(message) for _ in range(count)]  # pipelined: no waiting
            got = replies(flooder, count)
            assert [m["ref"] for m in got] == refs
            codes = [m.get("code", m["type"]) for m in got]
            assert codes == [answer] * allowed + ["rate_limited"] * 30, message
        # the limits are per user: the players are not held back by the flooder's
        burst = (
            [{"type": "ping"}] * 300
            + [{"type": "lobby"}] * 50
            + [{"type": "close", "table": "x"}] * 50
        )
        refs = [place.mallory.send(message) for message in burst]
        assert [m["ref"] for m in replies(place.mallory, len(burst))] == refs
        place.assert_unharmed()


# --- frames over the caps, on a real server ----------------------------------------------------


class LiveSocket:
    """A websockets (sync) client with the test client's ``send_text``/``receive_json``."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def send_bytes(self, data: bytes) -> None:
        self.ws.send(data)

    def receive_json(self) -> Any:
        return json.loads(self.ws.recv(timeout=10), parse_constant=_no_constant)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real server (tests/live.py) for the tests below, its socket frames capped as
    ``junqi serve`` caps them (four times the message limit). Server-side failures stay in
    its process, out of the test's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("UVICORN_WS_MAX_SIZE", str(FRAME_LIMIT))  # read by uvicorn's command line
        with live_server(tmp_path_factory.mktemp("live"), LIVE_ROOMS) as base:
            yield base


def live_player(base: str, name: str, stack: ExitStack) -> Player:
    answer = httpx.post(f"{base}/api/auth/register", json={"name": name, "password": "secret-pw"})
    assert answer.status_code == 201, answer.text
    token = answer.json()["token"]
    ws = stack.enter_context(live_socket(base, token, max_size=None, open_timeout=10))
    player = Player(LiveSocket(ws), name)
    assert player.receive()["type"] == "welcome"
    return player


def test_frames_over_the_caps_on_a_real_server(live: str) -> None:
    """A message over the limit gets ``too_large``; a frame over uvicorn's cap closes that
    socket (1009) before it is read; neither harms the game in play, the other sockets or the
    server."""
    base = live
    with ExitStack() as stack:
        alice, bob = live_player(base, "alice", stack), live_player(base, "bob", stack)
        table = alice.request({"type": "create_table", "room": "duel"})["table"]
        for seat, player in enumerate((alice, bob)):
            assert player.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
        start_game(alice, bob, table, 3)
        before = httpx.get(f"{base}/api/tables/{table}").json()["version"]
        mallory = live_player(base, "mallory", stack)
        for size in (MESSAGE_LIMIT + 1, FRAME_LIMIT - 100):
            mallory.send("x" * size)
            assert replies(mallory, 1)[0]["code"] == "too_large"
        assert mallory.request({"type": "ping"})["type"] == "pong"
        login = {"name": "mallory", "password": "secret-pw"}
        token = httpx.post(f"{base}/api/auth/login", json=login).json()["token"]
        for size in (FRAME_LIMIT + 1, 16 * FRAME_LIMIT):  # another socket of mallory's each
            with live_socket(base, token) as ws:
                assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
                ws.send("x" * size)
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=10)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        assert httpx.get(f"{base}/health").status_code == 200
        assert httpx.get(f"{base}/api/tables/{table}").json()["version"] == before
        for player in (alice, bob, mallory):
            assert player.request({"type": "ping"})["type"] == "pong"
        mover = alice if alice.game["to_move"] == 0 else bob
        legal = mover.game["legal_moves"]
        origin = sorted(legal)[0]
        reply = mover.act(table, {"type": "move", "origin": origin, "target": legal[origin][0]})
        assert reply["type"] == "ok" and reply["version"] == before + 1


# --- frames the server does not handle yet -------------------------------------------------------

FRAMES = [
    pytest.param('{"type": "ping", "id": "中"}', "pong", id="a CJK id"),
    pytest.param('{"type": "ping", "id": NaN}', "bad_json", id="NaN"),
    pytest.param('{"type": "ping", "id": "\\ud800"}', "bad_json", id="a lone surrogate"),
    pytest.param("[" * 500 + "]" * 500, "bad_message", id="deep JSON, no object"),
    pytest.param(
        '{"type": "ping", "id": ' + "[" * 2000 + "]" * 2000 + "}",
        "bad_json",
        id="JSON nested past the parser's depth",
    ),
    pytest.param("[" * 20000, "too_large", id="deep JSON over the size limit"),
    pytest.param(
        '{"type": "ping", "id": ' + "[" * 300 + "]" * 300 + "}",
        "bad_message",
        id="an id too deep to echo",
    ),
    pytest.param(
        b"\x00\x01",
        "bad_json",
        id="a binary frame",
    ),
]


@pytest.mark.parametrize(("frame", "answer"), FRAMES)
def test_hostile_frames_get_an_answer_and_the_socket_stays(
    live: str, frame: str | bytes, answer: str, request: pytest.FixtureRequest
) -> None:
    with ExitStack() as stack:
        eve = live_player(live, f"eve{request.node.callspec.indices['frame']}", stack)
        if isinstance(frame, bytes):
            eve.ws.send_bytes(frame)
        else:
            eve.send(frame)
        got = replies(eve, 1)[0]
        assert got.get("code", got["type"]) == answer, got
        assert eve.request({"type": "ping"})["type"] == "pong"


@pytest.mark.parametrize("kind", [["move"], {"type": "move"}], ids=["list", "object"])
def test_an_action_type_that_is_no_string_is_malformed(live: str, kind: Any) -> None:
    with ExitStack() as stack:
        name = "list" if isinstance(kind, list) else "object"
        alice = live_player(live, f"alice-{name}", stack)
        bob = live_player(live, f"bob-{name}", stack)
        table = alice.request({"type": "create_table", "room": "duel"})["table"]
        for seat, player in enumerate((alice, bob)):
            player.request({"type": "sit", "table": table, "seat": seat})
        start_game(alice, bob, table, 4)
        reply = alice.act(table, {"type": kind})
        assert reply["code"] == "malformed", reply
        assert alice.request({"type": "ping"})["type"] == "pong"


# --- REST ---------------------------------------------------------------------------------------

TARGET = "target"  # the user the admin routes act on
BODIES: dict[tuple[str, str], dict[str, Any] | None] = {  # each route with a valid body
    ("POST", "/api/auth/register"): {"name": "newbie", "password": "secret-pw"},
    ("POST", "/api/auth/login"): {"name": TARGET, "password": "secret-pw"},
    ("POST", "/api/auth/guest"): None,
    ("POST", "/api/layouts"): {"name": "mine", "variant": "siguo", "text": ""},
    ("PUT", "/api/layouts/1"): {"name": "mine", "variant": "siguo", "text": ""},
    ("POST", "/api/layouts/check"): {"variant": "siguo", "seat": 0, "layout": {}},
    ("POST", "/api/layouts/auto"): {"variant": "siguo", "seat": 0, "layout": {}},
    ("POST", "/api/layouts/parse"): {"name": "x", "variant": "siguo", "text": ""},
    ("POST", "/api/layouts/format"): {"variant": "siguo", "seat": 0, "layout": {}},
    ("POST", "/api/friends"): {"name": TARGET},
    ("POST", "/api/follows"): {"name": TARGET},
    ("POST", "/api/blocks"): {"name": TARGET},
    ("POST", "/admin/tables/nope/kick"): {"seat": 0, "reason": "test"},
    ("POST", "/admin/tables/nope/dissolve"): {"reason": "test"},
    ("POST", f"/admin/users/{TARGET}/penalty"): {"variant": "siguo", "points": 1, "reason": "t"},
    ("POST", f"/admin/users/{TARGET}/ban"): {"minutes": 1, "reason": "test"},
    ("POST", f"/admin/users/{TARGET}/unban"): {"reason": "test"},
    ("POST", f"/admin/users/{TARGET}/mute"): {"minutes": 1, "reason": "test"},
    ("POST", f"/admin/users/{TARGET}/unmute"): {"reason": "test"},
}
# and /admin/...: the routes above that need a token
GUARDED = ("/api/layouts", "/api/layouts/1", "/api/friends", "/api/follows", "/api/blocks")
# Admin routes: no NUL and no integer past 32 bits, which they answer with a 500 for now
# (server/admin.py; see test_admin_input_out_of_range_is_refused).
SAFE_TEXT = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12
)
SAFE_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**31), 2**31)
    | st.floats(allow_nan=False, allow_infinity=False)
    | SAFE_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(SAFE_TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def requests(draw: Callable[..., Any]) -> tuple[str, str, str | None, dict[str, Any]]:
    """A route, whose token (None, "bad", "player", "admin") and a body, mostly a bad one."""
    method, path = draw(st.sampled_from(sorted(BODIES)))
    valid = BODIES[(method, path)]
    values = SAFE_JSON if path.startswith("/admin/") else JSON
    who = draw(st.sampled_from([None, "bad", "player", "admin", "admin"]))
    shape = draw(st.sampled_from(["value", "field", "missing", "extra", "bytes", "text"]))
    if shape == "value" or valid is None:
        return method, path, who, {"json": draw(values)}
    body = dict(valid)
    if shape == "field":
        body[draw(st.sampled_from(sorted(body)))] = draw(values)
    elif shape == "missing":
        del body[draw(st.sampled_from(sorted(body)))]
    elif shape == "extra":
        body[draw(TEXT)] = draw(values)
    elif shape == "bytes":
        content = draw(st.binary(max_size=40))
        return (
            method,
            path,
            who,
            {"content": content, "headers": {"content-type": "application/json"}},
        )
    else:
        media = draw(
            st.sampled_from(["text/plain", "application/x-www-form-urlencoded", "application/xml"])
        )
        return method, path, who, {"content": json.dumps(body), "headers": {"content-type": media}}
    return method, path, who, {"json": body}


@dataclass
class Rest:
    client: TestClient
    tokens: dict[str, str]  # "bad", "player" (the target's) and "admin"


@pytest.fixture(scope="module")
def rest(api_database: str) -> Iterator[Rest]:
    """One app per database for the REST tests here, with a player and an admin."""
    with TestClient(create_app(make_settings(api_database))) as client:
        tokens = {
            "bad": "nope",
            "player": register(client, TARGET),
            "admin": register(client, "值班长"),
        }
        sessions = client.app.state.db.sessions  # type: ignore[attr-defined]
        assert client.portal is not None
        assert client.portal.call(functools.partial(set_role, sessions, "值班长", "admin"))
        yield Rest(client, tokens)


def test_rest_bodies_never_get_a_server_error(rest: Rest) -> None:
    client, tokens = rest.client, rest.tokens
    huge, deep = "x" * (2 * 1024 * 1024), "[" * 100_000 + "]" * 100_000
    for (method, path), valid in BODIES.items():  # the same extremes for each
        for content in (huge, deep, "", "\x00", json.dumps([valid])):
            sent = client.request(
                method,
                path,
                content=content,
                headers={**bearer(tokens["admin"]), "content-type": "application/json"},
            )
            if path == "/api/auth/guest":  # it takes no body; one past the cap is refused
                too_large = len(content.encode()) > 64 * 1024
                assert sent.status_code == (413 if too_large else 201), sent.text
            else:
                assert 400 <= sent.status_code < 500, (path, content[:20], sent.text)

    @settings(
        max_examples=soak(40, 200),
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(requests())
    def anyone_sends(request: tuple[str, str, str | None, dict[str, Any]]) -> None:
        method, path, who, body = request
        headers = {**body.pop("headers", {}), **(bearer(tokens[who]) if who else {})}
        answer = client.request(method, path, headers=headers, **body)
        assert answer.status_code < 500, (method, path, who, body, answer.text)
        if (path in GUARDED or path.startswith("/admin/")) and who in (None, "bad"):
            assert answer.status_code in (400, 401, 422), (method, path, who, answer.text)
        elif path.startswith("/admin/") and who == "player":
            assert answer.status_code in (400, 403, 422), (method, path, who, answer.text)

    anyone_sends()
    assert client.get("/health").status_code == 200
    assert client.get("/api/me", headers=bearer(tokens["admin"])).status_code == 200


@pytest.mark.parametrize(
    ("path", "body"),
    [
        pytest.param(
            f"/admin/users/{TARGET}/ban",
            {"minutes": 10**12, "reason": "x"},
            id="ban for ever and a day",
        ),
        pytest.param(
            f"/admin/users/{TARGET}/mute",
            {"minutes": 10**12, "reason": "x"},
            id="mute for ever and a day",
        ),
        pytest.param(
            f"/admin/users/{TARGET}/ban", {"minutes": 1, "reason": "a\x00b"}, id="NUL in a reason"
        ),
        pytest.param("/admin/users/a%00b/unban", {"reason": "x"}, id="NUL in a name"),
        pytest.param("/admin/users?name=a%00b", None, id="NUL in a search"),
    ],
)
def test_admin_input_out_of_range_is_refused(
    rest: Rest, path: str, body: dict[str, Any] | None
) -> None:
    """(A 500 on PostgreSQL, which refuses NUL, or past the last date, before.)"""
    admin = bearer(rest.tokens["admin"])
    if body is None:
        answer = rest.client.get(path, headers=admin)
    else:
        answer = rest.client.post(path, json=body, headers=admin)
    assert answer.status_code in (200, 404, 422), answer.text
