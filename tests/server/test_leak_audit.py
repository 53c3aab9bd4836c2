"""Leak audit: whole games of every variant on the real app, with people, bots and spectators,
and every message each socket received checked against the true hidden ranks.

The audit does not trust the server's filtering. After the games it fetches each game's record
over REST (public once the game is over) and replays it with the engine to learn every state and
every event as it really was, with every rank. Which ranks a receiver was entitled to see at each
moment comes from ``tests.engine.leaks.Knowledge``, the test suite's own reading of docs/rules.md §8
(own pieces, partners in 双明, revealed flags, scouting, 翻棋's face-up pieces, everything once the
game is over), which shares no code with the engine's reveal bookkeeping. A receiver's seat in a
game comes from the REST game list (``None``: a spectator).

Every string of a message that names a rank (a rank key, ``rank/army``, or a Chinese name) must
be accounted for: a piece's rank in a snapshot that its receiver may see in the state the snapshot
shows, the receiver's own hand or draft, a ``moved``/``scouted`` secret the receiver may see in
the state before that move, a rank the rules make public (``flipped``, ``flag_raised``,
``commander_died``) or the end of the game (``game_over``, a finished game's snapshot). The game's
seed (it fixes every deal and every face-down piece) may appear only after the game; legal moves
(they tell which pieces can move) only to the seat to move; a face-down 翻棋 piece shows no
colour; a 三打一 piece only its holder's colour. Anything else fails, and the self-tests show
that a planted rank, seed or colour and a server whose views leak are all caught.

Sockets: one or two people play (the easy bot's choice on the view their socket was sent) with
easy server bots on the other seats; a spectator watches every game, one comes in the middle of
the first, one leaves and resyncs with ``since`` in every game, and a player does the same. Each
socket has a reader thread feeding one queue; the test's thread handles every message in order.
"""

from __future__ import annotations

import bisect
import json
import queue
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import engine
import engine.views
from engine.bot import decide
from engine.events import Event
from server import marks
from server.app import create_app
from server.config import default_rooms
from server.updates import apply_patch
from tests.engine.leaks import Knowledge
from tests.engine.tracker_reference import ReferenceTracker
from tests.server.conftest import make_settings, register
from tests.server.sockets import signed_in
from tests.soak import soak

RANK_KEYS = frozenset(r.value for r in engine.Rank)
RANK_WORDS = RANK_KEYS | frozenset(engine.CHINESE_NAME.values())
TABLE_EVENTS = {"game_created", "points"}  # the table's own events (no kicks in these games)
MARSHALS = {"field_marshal", "supreme_marshal"}

# room (the server's default rooms) -> games played there: more of the quick variants
ROOMS = {
    "siguo-1": soak(1, 3),
    "siguo-open": soak(1, 2),  # 双明: partners see each other's pieces
    "luanzhan-1": soak(1, 3),
    "sandayi-1": soak(1, 2),
    "sanguo-1": soak(2, 4),  # seats drawn at random for every game
    "liangguo-1": soak(2, 8),
    "fanqi-1": soak(1, 5),
}
GAME_SECONDS = 90  # a game that takes longer has stalled


def rank_words(data: Any) -> list[str]:
    """Every string in a JSON value (keys included) that names a rank."""
    if isinstance(data, str):
        return [data] if data in RANK_WORDS or data.partition("/")[0] in RANK_KEYS else []
    if isinstance(data, dict):
        return [w for k, v in data.items() for w in rank_words(k) + rank_words(v)]
    if isinstance(data, list | tuple):
        return [w for v in data for w in rank_words(v)]
    return []


def jsonable(data: Any) -> Any:
    return json.loads(json.dumps(data))


def state_skeleton(state: engine.GameState) -> tuple[Any, ...]:
    finished = state.phase == engine.Phase.FINISHED
    stations: frozenset[str] = frozenset()
    if state.position is not None:
        board = state.variant.board
        stations = frozenset(board.stations[i] for i, _ in state.position.indexed())
    return (
        state.phase.value,
        state.total_moves,
        state.to_move,
        None if finished else state.deadline,
        stations,
    )


def view_skeleton(game: dict[str, Any]) -> tuple[Any, ...]:
    stations = frozenset(p["station"] for p in game.get("pieces", []))
    return (game["phase"], game["total_moves"], game["to_move"], game["deadline"], stations)


# --- the truth: a finished game replayed from its record --------------------------------------


class GameTruth:
    """Every state and event of one game, numbered as the table numbered them (the table's
    ``game_created`` is ``base``, the engine's events follow one by one), with what
    ``Knowledge`` says each viewer may see in each state."""

    def __init__(
        self, game_id: str, record: engine.GameRecord, base: int, seats: dict[str, int]
    ) -> None:
        self.id = game_id
        self.seats = seats  # user name -> seat in this game
        self.seed = record.seed
        self.actions = record.actions
        self.base = base
        state = next(engine.states(record))
        self.states = [state]
        self.events: list[tuple[Event, int]] = []  # each event, the state its action led to
        self.cum = [base]  # the last event number after each number of actions
        knowledge = Knowledge(state)
        self.known: list[tuple[dict[str, frozenset[int] | None], set[int]]] = [({}, set())]
        for action in record.actions:
            before = state
            state, events = engine.apply(state, action)
            knowledge.after(before, action, state)
            self.states.append(state)
            self.events += [(e, len(self.states) - 1) for e in events]
            self.cum.append(self.cum[-1] + len(events))
            self.known.append((dict(knowledge.scouted), set(knowledge.had_marshal)))
        assert state.phase == engine.Phase.FINISHED, f"game {game_id} did not finish"
        self.last = self.cum[-1]
        self.knowledge = knowledge
        self.seen: dict[tuple[int, int | None, str], bool] = {}
        self.trackers: dict[int | None, list[Any]] = {}

    def may_see(self, k: int, viewer: int | None, station: str) -> bool:
        key = (k, viewer, station)
        if key not in self.seen:
            self.knowledge.scouted, self.knowledge.had_marshal = self.known[k]
            self.seen[key] = self.knowledge.may_see(self.states[k], viewer, station)
        return self.seen[key]

    def tracker(self, k: int, viewer: int | None) -> Any:
        """The 记牌 counts of ``viewer`` in state ``k`` by the reference, which reads only the
        events and views that viewer was sent."""
        if viewer not in self.trackers:
            first = self.states[0]
            reference = ReferenceTracker(first.variant.key, viewer, first.rules)
            events: list[list[Event]] = [[] for _ in self.states]
            for event, j in self.events:
                events[j].append(event)
            counts = []
            for j, state in enumerate(self.states):
                seen = [e for x in events[j] if (e := x.for_viewer(viewer)) is not None]
                reference.follow(seen, engine.view(state, viewer))
                counts.append(jsonable(reference.counts()))
            self.trackers[viewer] = counts
        return self.trackers[viewer][k]

    def candidates(self, seq: int) -> list[int]:
        """The states a snapshot taken when the table's last event was ``seq`` may show: the
        state after the actions published so far, or the next one (applied, being saved, not
        yet published)."""
        if seq < self.base:
            return [0]
        published = bisect.bisect_right(self.cum, seq) - 1
        same = [k for k, c in enumerate(self.cum) if c == self.cum[published]]
        return same + ([published + 1] if published + 1 < len(self.states) else [])

    def state_of(self, game: dict[str, Any], seq: int) -> list[int]:
        skeleton = view_skeleton(game)
        found = [k for k in self.candidates(seq) if state_skeleton(self.states[k]) == skeleton]
        assert found, f"game {self.id}: a snapshot at seq {seq} matches no state: {skeleton}"
        return found

    def check_view(
        self, game: dict[str, Any], seq: int, viewer: int | None, stats: Counter[str]
    ) -> tuple[int, Counter[str]]:
        """The state the view ``game`` shows and the rank words it may carry; fails if it
        shows ``viewer`` anything it may not see in that state."""
        failures = []
        for k in self.state_of(game, seq):
            counts: Counter[str] = Counter()
            try:
                words = self._check_view(game, k, viewer, counts)
            except AssertionError as failure:
                failures.append(failure)
                continue
            stats.update(counts)
            return k, words
        raise failures[0]

    def _check_view(
        self, game: dict[str, Any], k: int, viewer: int | None, stats: Counter[str]
    ) -> Counter[str]:
        state = self.states[k]
        words: Counter[str] = Counter()
        finished = state.phase == engine.Phase.FINISHED
        where = f"game {self.id} step {k}, viewer {viewer}"
        assert game["viewer"] == viewer or game["viewer"] is None, (where, game["viewer"])
        assert game["seed"] == (state.seed if finished else None), f"{where}: the seed shown"
        for entry in game.get("pieces", []):
            piece = state.board_position.piece_at(entry["station"])
            assert piece is not None, (where, entry)
            if "rank" in entry:
                assert finished or self.may_see(k, viewer, entry["station"]), (
                    f"{where}: shown {piece.rank.value} of seat {piece.seat} on {entry['station']}"
                )
                assert entry["rank"] == piece.rank.value, (where, entry, piece)
                words.update(rank_words(entry["rank"]))
                if finished:
                    stats["final"] += 1
                elif viewer is not None and piece.seat == viewer and state.flip is None:
                    stats["own"] += 1
                else:
                    stats["revealed"] += 1
            if entry.get("face_down") and not finished:
                # 翻棋: a face-down piece is a station and nothing else (no owner, no colour)
                assert set(entry) == {"station", "face_down"}, f"{where}: face down {entry}"
            elif state.variant.key == "sandayi" and not finished:
                # every piece in its holder's colour: a dealt colour tells specials and 排长
                assert entry["army"] == entry["seat"] == piece.seat, f"{where}: colour {entry}"
        if finished:  # after the game everyone sees everything
            return Counter(rank_words(game))
        if "tracker" in game:  # 记牌: exactly what the viewer's own events and views prove
            assert game["tracker"] == self.tracker(k, viewer), f"{where}: the 记牌 counts"
            words.update(rank_words(game["tracker"]))
        assert "layouts" not in game, f"{where}: the layouts before the end"
        if "legal_moves" in game:  # they tell which pieces can move: the mover's alone
            assert viewer is not None and viewer == state.to_move, f"{where}: legal moves"
            assert state.phase == engine.Phase.PLAYING, where
        draft = game.get("layout")
        if draft is not None:
            assert viewer is not None, f"{where}: a spectator sees a draft"
            assert draft == dict(state.drafts[viewer] or {}), f"{where}: not its own draft"
            words.update(rank_words(draft))
            stats["own"] += len(draft)
        deal = game.get("deal")
        if deal is not None:
            hand = deal["hand"]
            if hand is not None:
                assert viewer is not None and state.deal.hands, f"{where}: a spectator's hand"
                own = state.deal.hands[viewer]
                assert own is not None, f"{where}: a hand before the deal"
                assert hand == [
                    {"rank": r.value, "army": viewer if a is None else a} for r, a in own
                ], f"{where}: not its own hand"
                words.update(rank_words(hand))
                stats["own"] += len(hand)
            assert "may_ask_redeal" not in deal or hand is not None, f"{where}: hand strength"
        return words

    def check_event(
        self, event: dict[str, Any], viewer: int | None, stats: Counter[str]
    ) -> Counter[str]:
        """The rank words ``event`` may carry to ``viewer``; fails on anything else."""
        seq = event["seq"]
        true, k = self.events[seq - self.base - 1]
        where = f"game {self.id} event {seq} ({true.kind}), viewer {viewer}"
        assert event["kind"] == true.kind, (where, event)
        data = jsonable(dict(true.data))
        for key, value in data.items():
            assert event.get(key) == value, (where, key, event)
        secrets = set(event) - {"seq", "kind", "ply"} - set(data)  # ply: the public step
        assert secrets <= set(true.secrets), (where, secrets)
        for name in secrets:
            assert event[name] == jsonable(true.secrets[name][0]), (where, name)
        before, state = self.states[k - 1], self.states[k]
        action = self.actions[k - 1]
        if true.kind == "game_over":
            assert state.phase == engine.Phase.FINISHED, where
            words = rank_words(event)
            stats["final"] += len(words)
            return Counter(words)
        allowed: list[str] = []
        if true.kind == "moved":
            assert isinstance(action, engine.Move), where
            for name, station in (("rank", action.origin), ("defender_rank", action.target)):
                if name in event:
                    assert self.may_see(k - 1, viewer, station), f"{where}: {name} shown"
                    allowed.append(event[name])
                    stats["event"] += 1
        elif true.kind == "scouted" and "rank" in event:
            assert isinstance(action, engine.Move), where
            attacker = before.board_position.piece_at(action.origin)
            assert attacker is not None, where
            mode = before.rules.engineer_scouting
            assert mode != "off", f"{where}: scouting is off"
            entitled = (
                mode == "all"
                or (viewer is not None and before.teams[viewer] == before.teams[attacker.seat])
                or self.may_see(k - 1, viewer, event["station"])
            )
            assert entitled, f"{where}: a scouting report to someone else"
            allowed.append(event["rank"])
            stats["event"] += 1
        elif true.kind in ("hand", "draft_saved"):
            assert viewer == event["seat"], f"{where}: another seat's {true.kind}"
            allowed += rank_words(event)
        elif true.kind == "commander_died":
            assert before.rules.announce_commander_deaths, where
            assert event["rank"] in MARSHALS, where
            allowed.append(event["rank"])
        elif true.kind == "flipped":
            assert before.flip is not None, where  # 翻棋: a flipped piece is face up for all
            allowed.append(event["rank"])
        elif true.kind == "game_started" and before.variant.key == "sandayi":
            colours = {(p["seat"], p["army"]) for p in event["pieces"]}
            assert all(seat == army for seat, army in colours), f"{where}: dealt colours"
        elif true.kind == "flag_raised":
            allowed += rank_words(event)  # 乱战: the raised HQ's occupant is shown to all
        return Counter(allowed)


# --- the audit of every message --------------------------------------------------------------


class Audit:
    def __init__(self, truths: list[GameTruth]) -> None:
        self.truths = sorted(truths, key=lambda t: t.base)
        self.bases = [t.base for t in self.truths]
        self.by_id = {t.id: t for t in truths}
        self.stats: Counter[str] = Counter()

    def message(self, message: dict[str, Any], text: str, receiver: str | None) -> None:
        """Fail if ``message`` (received as ``text`` by user ``receiver``; None: anyone) shows
        a rank or a seed its receiver may not see."""
        self.stats["messages"] += 1
        allowed: Counter[str] = Counter()
        seeds: set[str] = set()  # the games whose seed this message may show
        if message["type"] in ("table", "update"):
            snapshot = message["snapshot"]
            if snapshot["game"] is not None:
                truth = self.by_id[snapshot["game_id"]]
                viewer = truth.seats.get(receiver) if receiver is not None else None
                counts: Counter[str] = Counter()
                k, words = truth.check_view(snapshot["game"], snapshot["seq"], viewer, counts)
                allowed += words
                self.stats += counts
                self.stats[f"ranks {receiver}"] += counts["own"] + counts["revealed"]
                if truth.states[k].phase == engine.Phase.FINISHED:
                    seeds.add(truth.id)
            for event in message["events"]:
                allowed += self.event(event, receiver, seeds)
        if message["type"] == "marks":  # the player's own guesses, and the variant's ranks
            truth = self.by_id[message["game_id"]]
            assert receiver is not None and truth.seats.get(receiver) == message["seat"]
            assert message["choices"] == marks.choices(truth.states[0].variant)
            allowed += Counter(rank_words([message["choices"], message["marks"]]))
        # a patch's entries are copied as they are into the snapshot it makes, audited whole
        found = Counter(rank_words({k: v for k, v in message.items() if k != "patch"}))
        assert found == allowed, f"{receiver}: ranks {found - allowed} in {message['type']}"
        for truth in self.truths:
            if truth.seed in text:
                assert truth.id in seeds, f"{receiver}: the seed of {truth.id} in {text[:200]}"

    def event(self, event: dict[str, Any], receiver: str | None, seeds: set[str]) -> Counter[str]:
        seq = event["seq"]
        i = bisect.bisect_right(self.bases, seq) - 1
        truth = self.truths[i] if i >= 0 else None
        if truth is None or seq == truth.base or seq > truth.last:
            assert event["kind"] in TABLE_EVENTS, (receiver, event)
            if event["kind"] == "game_created":
                assert self.by_id[event["game_id"]].base == seq, event
            return Counter()
        viewer = truth.seats.get(receiver) if receiver is not None else None
        if event["kind"] == "game_over":
            seeds.add(truth.id)
        return truth.check_event(event, viewer, self.stats)


# --- the clients and the table they play at ---------------------------------------------------


@dataclass
class Client:
    """A user with a socket (reopened when it reconnects) and every message it received."""

    name: str
    token: str
    seat: int | None  # the seat it sits on; None: a spectator
    log: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    ws: Any = None
    stack: ExitStack | None = None
    readers: list[threading.Thread] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None
    held: dict[int, dict[str, Any]] = field(default_factory=dict)  # each socket's snapshot
    last_seq: int = 0
    counter: int = 0
    acted: int = -1  # the table version it last acted on
    readied: int = -1
    replies: dict[int, dict[str, Any]] = field(default_factory=dict)
    requests: dict[int, dict[str, Any]] = field(default_factory=dict)
    left_in: str | None = None  # the game in which it last went away
    back_at: float = 0.0  # it comes back at this time (monotonic clock)
    back_moves: int = 0  # or once the game has this many moves


class Session:
    """One table of ``room``: the test's people play ``games`` games there with bots on the
    other seats while spectators watch, come late and reconnect."""

    def __init__(self, http: TestClient, room: str, games: int, seed: int) -> None:
        self.http = http
        self.room = room
        self.games = games
        self.rng = random.Random(seed)
        self.inbox: queue.Queue[tuple[Client, Any, str | None]] = queue.Queue()
        self.table = ""
        self.created: dict[str, int] = {}  # game id -> seq of its game_created
        self.points: dict[str, int] = {}  # game id -> seq of its points event
        self.errors: list[tuple[str, dict[str, Any] | None, dict[str, Any]]] = []
        self.rest: list[tuple[dict[str, Any], str]] = []  # GET /api/tables/{id} mid-game
        self.polled: set[str] = set()
        self.chatted: set[str] = set()
        variant = engine.get_variant(next(r.variant for r in default_rooms() if r.id == room))
        self.seats = len(variant.seats)
        people = 1 if self.seats == 2 else 2
        self.players = [self.user(f"player{s}", s) for s in range(people)]
        self.watcher = self.user("watcher", None)  # from the first game to the last
        self.flaky = self.user("flaky", None)  # leaves and comes back (since) in every game
        self.late = self.user("late", None)  # opens the table in the middle of a game
        self.clients = [*self.players, self.watcher, self.flaky, self.late]

    def user(self, name: str, seat: int | None) -> Client:
        return Client(name, register(self.http, name), seat)

    # --- sockets ------------------------------------------------------------------------------

    def connect(self, c: Client) -> None:
        c.stack = ExitStack()
        c.ws = c.stack.enter_context(signed_in(self.http, c.token))
        c.snapshot, c.acted, c.readied = None, -1, -1
        reader = threading.Thread(target=self.read, args=(c, c.ws), daemon=True)
        reader.start()
        c.readers.append(reader)

    def read(self, c: Client, ws: Any) -> None:
        try:
            while True:
                message = ws.receive()
                if message["type"] != "websocket.send":
                    break
                self.inbox.put((c, ws, message["text"]))
        except Exception:  # the socket is gone
            pass
        finally:
            self.inbox.put((c, ws, None))

    def disconnect(self, c: Client) -> None:
        assert c.stack is not None
        c.ws.close(1000)
        c.readers[-1].join(5)
        c.stack.close()
        c.ws, c.stack = None, None

    def send(self, c: Client, message: dict[str, Any]) -> int:
        c.counter += 1
        c.requests[c.counter] = message
        c.ws.send_text(json.dumps({"id": c.counter, **message}))
        return c.counter

    def request(self, c: Client, message: dict[str, Any]) -> dict[str, Any]:
        ref = self.send(c, message)
        self.pump(lambda: ref in c.replies, 30)
        reply = c.replies[ref]
        assert reply["type"] == "ok", (c.name, message, reply)
        return reply

    # --- the loop -----------------------------------------------------------------------------

    def pump(self, until: Callable[[], bool], seconds: float) -> None:
        end = time.monotonic() + seconds
        while True:
            self.choreograph()
            if until():
                return
            assert time.monotonic() < end, f"{self.room}: stalled; errors {self.errors[-5:]}"
            try:
                item = self.inbox.get(timeout=0.05)
            except queue.Empty:
                continue
            self.handle(*item)

    def handle(self, c: Client, ws: Any, text: str | None) -> None:
        if text is None:
            return
        message = json.loads(text)
        c.log.append((message, text))
        kind = message["type"]
        if kind in ("table", "update"):
            if "patch" in message:  # audited as the snapshot it makes, which holds all of it
                message["snapshot"] = apply_patch(c.held[id(ws)], message["patch"])
            c.held[id(ws)] = message["snapshot"]
            for event in message["events"]:
                c.last_seq = max(c.last_seq, event["seq"])
                if event["kind"] == "game_created":
                    self.created[event["game_id"]] = event["seq"]
                elif event["kind"] == "points":
                    self.points[event["game_id"]] = event["seq"]
            if ws is c.ws:
                c.snapshot = message["snapshot"]
        elif kind in ("ok", "error"):
            c.replies[message["ref"]] = message
            if kind == "error":
                self.errors.append((c.name, c.requests.get(message["ref"]), message))
        if ws is c.ws and c.seat is not None:
            self.play(c)

    def play(self, c: Client) -> None:
        """A person at the table: ready for the next game while games are left, and in a game
        the easy bot's choice on the view this socket was sent."""
        snap = c.snapshot
        if snap is None or snap["you"] is None:
            return
        you, version = snap["you"], snap["version"]
        if snap["status"] != "playing":
            more = len(self.created) < self.games
            if more and not snap["seats"][you]["ready"] and c.readied != version:
                c.readied = version
                self.send(c, {"type": "ready", "table": self.table})
            return
        game = snap["game"]
        if game is None or game["phase"] == "finished" or c.acted == version:
            return
        action = decide(game, self.rng.randrange(2**31), None, "easy")
        if action is not None:
            c.acted = version
            self.send(c, {"type": "act", "table": self.table, "version": version, "action": action})

    def moves(self) -> tuple[str | None, int | None]:
        """The game the watcher sees and its moves so far (None: not in play)."""
        snap = self.watcher.snapshot
        if snap is None or snap["game"] is None:
            return None, None
        game = snap["game"]
        return snap["game_id"], game["total_moves"] if game["phase"] == "playing" else None

    def choreograph(self) -> None:
        """Who comes and goes, by the moves of the game being played."""
        if not self.table:
            return
        game_id, moves = self.moves()
        now = time.monotonic()
        if self.late.ws is None and moves is not None and moves >= 8:
            self.connect(self.late)
            self.send(self.late, {"type": "open", "table": self.table})
        flaky = self.flaky
        if flaky.ws is not None and moves is not None and moves >= 6 and flaky.left_in != game_id:
            self.disconnect(flaky)
            flaky.left_in, flaky.back_moves = game_id, moves + 12
        elif flaky.ws is None and (moves is None or moves >= flaky.back_moves):
            self.connect(flaky)
            self.send(flaky, {"type": "open", "table": self.table, "since": flaky.last_seq})
        # a person goes away just after a move of theirs (it is played all the same) and is
        # back two moves later, or after a second (三打一 pauses while a player is away)
        player = self.players[0]
        if player.ws is not None and moves is not None and moves >= 10:
            just_moved = player.snapshot is not None and player.acted == player.snapshot["version"]
            if player.left_in != game_id and just_moved:
                self.disconnect(player)
                player.left_in, player.back_at = game_id, now + 1.0
                player.back_moves = moves + 2
        elif player.ws is None:
            due = moves is None or moves >= player.back_moves or now >= player.back_at
            # once it has missed an event (or ten seconds on): its old socket may have taken in
            # the moves it was away for before it closed, and an empty resync tests nothing
            missed = self.watcher.last_seq > player.last_seq or now >= player.back_at + 10
            if due and missed:
                self.connect(player)
                self.send(player, {"type": "open", "table": self.table, "since": player.last_seq})
        talker = self.players[-1]
        if (
            moves is not None
            and moves >= 3
            and game_id
            and game_id not in self.chatted
            and talker.ws
        ):
            self.chatted.add(game_id)
            self.send(
                talker, {"type": "chat", "channel": "table", "table": self.table, "text": "好棋"}
            )
            self.send(
                self.watcher,
                {"type": "chat", "channel": "spectators", "table": self.table, "text": "观战"},
            )
            self.send(self.watcher, {"type": "chat", "channel": "lobby", "text": "大家好"})
        if moves is not None and moves >= 15 and game_id and game_id not in self.polled:
            self.polled.add(game_id)
            response = self.http.get(f"/api/tables/{self.table}")
            assert response.status_code == 200
            self.rest.append(
                ({"type": "table", "snapshot": response.json(), "events": []}, response.text)
            )
            hidden = self.http.get(f"/api/games/{game_id}/record")
            assert hidden.status_code == 403, hidden.text  # no record while it runs

    def run(self) -> None:
        for c in [*self.players, self.watcher, self.flaky]:
            self.connect(c)
        owner = self.players[0]
        self.table = self.request(owner, {"type": "create_table", "room": self.room})["table"]
        for c in (self.watcher, self.flaky):
            self.request(c, {"type": "open", "table": self.table})
        for c in (owner, self.watcher):
            self.request(c, {"type": "lobby"})
        for c in self.players:
            assert c.seat is not None
            self.request(c, {"type": "sit", "table": self.table, "seat": c.seat})
        for seat in range(len(self.players), self.seats):
            self.request(
                owner, {"type": "add_bot", "table": self.table, "seat": seat, "level": "easy"}
            )

        def done() -> bool:
            if len(self.points) < self.games or self.late.ws is None:
                return False
            last = max(self.points.values())
            return all(c.ws is not None and c.last_seq >= last for c in self.clients)

        self.pump(done, GAME_SECONDS * self.games)
        for c in self.clients:
            self.disconnect(c)
        while not self.inbox.empty():
            self.handle(*self.inbox.get())
        # acting on a snapshot that a newer one has overtaken is refused, and is harmless: a
        # stale version, a ready after the game began, an act after a bot or the clock ended
        # the game, a move while 三打一 is paused
        unexpected = [
            (name, request, error)
            for name, request, error in self.errors
            if error["code"] != "stale_version"
            and not (error["code"] == "game_running" and request and request["type"] == "ready")
            and not (error["code"] == "not_playing" and request and request["type"] == "act")
            and error["code"] != "paused"
        ]
        assert not unexpected, unexpected

    def truths(self) -> list[GameTruth]:
        assert len(self.created) == self.games, self.created
        listed = {g["id"]: g for g in self.http.get("/api/games?limit=200").json()}
        out = []
        for game_id, base in self.created.items():
            response = self.http.get(f"/api/games/{game_id}/record")
            assert response.status_code == 200, response.text
            record = engine.GameRecord.from_json(json.dumps(response.json()["record"]))
            seats = {p["name"]: p["seat"] for p in listed[game_id]["players"] if p["name"]}
            assert len(seats) == len(self.players), seats
            out.append(GameTruth(game_id, record, base, seats))
        return out


def play(tmp_path: Path, room: str, games: int) -> tuple[Session, list[GameTruth]]:
    settings = make_settings(f"sqlite+aiosqlite:///{tmp_path / 'leaks.db'}")
    settings.rooms = default_rooms()
    with TestClient(create_app(settings)) as http:
        session = Session(http, room, games, seed=sum(map(ord, room)))
        session.run()
        return session, session.truths()


def audit(session: Session, truths: list[GameTruth]) -> Audit:
    checker = Audit(truths)
    for c in session.clients:
        for message, text in c.log:
            checker.message(message, text, c.name)
            if message["type"] == "chat":  # players and spectators do not read each other
                assert message["channel"] != ("spectators" if c.seat is not None else "table")
    for message, text in session.rest:
        checker.message(message, text, None)
    return checker


# --- the tests --------------------------------------------------------------------------------


def test_every_variant_has_a_room_in_the_audit() -> None:
    rooms = {r.id: r.variant for r in default_rooms()}
    assert {rooms[r] for r in ROOMS} == set(engine.VARIANTS)


@pytest.mark.parametrize(("room", "games"), list(ROOMS.items()))
def test_no_message_shows_a_rank_its_receiver_may_not_see(
    tmp_path: Path, room: str, games: int
) -> None:
    session, truths = play(tmp_path, room, games)
    checker = audit(session, truths)
    stats = checker.stats
    assert stats["event"] > 0 and stats["final"] > 0, stats
    assert stats["own"] > 0 or room == "fanqi-1", stats  # 翻棋: nobody owns a face-down piece
    for c in session.players:  # each person's seat view, with ranks in it, was audited
        assert stats[f"ranks {c.name}"] > 0, stats
    # the late spectator came in the middle of a game; the others resynced with since
    first = next(m for m, _ in session.late.log if m["type"] == "table")
    assert first["snapshot"]["game"]["total_moves"] >= 8
    for c, least in ((session.flaky, games), (session.players[0], 1)):
        resyncs = [m for m, _ in c.log if m["type"] == "table" and m["events"]]
        assert len(resyncs) >= least, (c.name, len(resyncs))
    assert session.rest, "no table was polled over REST in the middle of a game"
    plant_leaks(checker, session, truths)


def plant_leaks(checker: Audit, session: Session, truths: list[GameTruth]) -> None:
    """The audit fails on a rank a receiver may not see, planted into a real message."""
    by_id = {t.id: t for t in truths}
    planted = 0
    for c in (session.watcher, session.players[0]):
        for message, text in c.log:
            snapshot = message.get("snapshot") or {}
            if (snapshot.get("game") or {}).get("phase") != "playing" or "patch" in message:
                continue
            truth = by_id[snapshot["game_id"]]
            k = truth.state_of(snapshot["game"], snapshot["seq"])[0]
            viewer = truth.seats.get(c.name)
            hidden = [
                (i, p)
                for i, p in enumerate(snapshot["game"]["pieces"])
                if "rank" not in p and not truth.may_see(k, viewer, p["station"])
            ]
            if not hidden:
                continue
            i, entry = hidden[len(hidden) // 2]
            piece = truth.states[k].board_position.piece_at(entry["station"])
            assert piece is not None
            leaky = json.loads(text)
            leaky["snapshot"]["game"]["pieces"][i]["rank"] = piece.rank.value
            with pytest.raises(AssertionError, match="shown"):
                checker.message(leaky, json.dumps(leaky), c.name)
            seeded = json.loads(text)
            seeded["snapshot"]["game"]["seed"] = truth.seed
            with pytest.raises(AssertionError, match="the seed shown"):
                checker.message(seeded, json.dumps(seeded), c.name)
            planted += 1
            break
    assert planted == 2  # a spectator's view and a player's
    # a rank planted in a patch shows in the snapshot it makes (applying it again on that
    # snapshot is what applying it on the one before does)
    for message, text in session.watcher.log:
        if "patch" not in message:
            continue
        snapshot = message["snapshot"]
        truth = by_id[snapshot["game_id"]]
        k = truth.state_of(snapshot["game"], snapshot["seq"])[0]
        hidden_entries = [
            station
            for station, p in message["patch"]["pieces"].items()
            if p and "rank" not in p and not truth.may_see(k, None, station)
        ]
        if not hidden_entries:
            continue
        station = hidden_entries[0]
        piece = truth.states[k].board_position.piece_at(station)
        assert piece is not None
        leaky = json.loads(text)
        leaky["patch"]["pieces"][station]["rank"] = piece.rank.value
        leaky["snapshot"] = apply_patch(snapshot, leaky["patch"])
        with pytest.raises(AssertionError, match="shown"):
            checker.message(leaky, json.dumps(leaky), session.watcher.name)
        break
    else:
        assert session.room == "fanqi-1", "no patch moved a hidden piece"
    # a hidden defender's rank in a spectator's move event (翻棋 fights only face-up pieces)
    for message, text in session.watcher.log:
        moved = [
            i
            for i, e in enumerate(message.get("events", []))
            if e["kind"] == "moved" and e["outcome"] and "defender_rank" not in e
        ]
        if moved:
            leaky = json.loads(text)
            if "patch" in leaky:
                leaky["snapshot"] = message["snapshot"]  # as the client holds it
            event = leaky["events"][moved[0]]
            truth = next(t for t in truths if t.base < event["seq"] <= t.last)
            event["defender_rank"] = truth.events[event["seq"] - truth.base - 1][0].secrets[
                "defender_rank"
            ][0]
            with pytest.raises(AssertionError, match="defender_rank shown"):
                checker.message(leaky, json.dumps(leaky), session.watcher.name)
            break
    else:
        assert session.room == "fanqi-1", "no hidden fight to plant a rank in"
    # a rank anywhere else: a chat line
    line = {
        "type": "chat",
        "channel": "spectators",
        "table": session.table,
        "text": "field_marshal",
    }
    with pytest.raises(AssertionError, match="ranks"):
        checker.message(line, json.dumps(line), session.watcher.name)
    if session.room == "fanqi-1":  # a face-down 翻棋 piece that shows its colour
        for message, text in session.watcher.log:
            game = (message.get("snapshot") or {}).get("game") or {}
            down = [i for i, p in enumerate(game.get("pieces", [])) if p.get("face_down")]
            if game.get("phase") == "playing" and down and "patch" not in message:
                leaky = json.loads(text)
                leaky["snapshot"]["game"]["pieces"][down[0]]["army"] = 0
                with pytest.raises(AssertionError, match="face down"):
                    checker.message(leaky, json.dumps(leaky), session.watcher.name)
                break
        else:
            raise AssertionError("no face-down piece seen")


def test_the_audit_catches_a_server_that_leaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server whose views show every rank to everyone fails the audit."""
    monkeypatch.setattr(engine.views, "visible_ranks", lambda state, viewer: -1)
    session, truths = play(tmp_path, "liangguo-1", 1)
    with pytest.raises(AssertionError, match="shown"):
        audit(session, truths)
