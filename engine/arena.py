"""Bot games outside the server: seeded whole games between bots and baselines.

Tests and ``bench/bots.py`` use it. Every player gets exactly what a seat gets at a table: its
view (``engine.view``) and its events (``Event.for_viewer``); its actions go through
``engine.apply`` like a human's, so an illegal one raises. Time is simulated: a decision is
stamped one second after the last, never past its deadline; when nobody has anything to decide,
the clock does (a timeout or a deadline).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from engine.actions import Action, action_from_dict
from engine.beliefs import Beliefs
from engine.bot import choose_action, sure_gains, thinking_deadline
from engine.events import Event
from engine.game import apply, new_game
from engine.state import GameState, Phase
from engine.views import view


class Player(Protocol):
    def observe(self, event: Mapping[str, Any] | None) -> None:
        """One event as this seat was sent it (None: one it was not sent)."""

    def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        """This seat's action (JSON form, without seat and time), or None."""


class Bot:
    """``engine.bot`` at a level, following its own events with ``Beliefs``; with a
    ``budget_scale`` it thinks for that share of its level's budget a move (wall-clock time, as
    at a table), else it takes the level's fixed samples (the same game for the same seed)."""

    def __init__(
        self, variant: str, seat: int, level: str = "normal", budget_scale: float = 0.0
    ) -> None:
        self.beliefs = Beliefs(variant, seat)
        self.level = level
        self.budget_scale = budget_scale
        self.unread: list[Mapping[str, Any] | None] = []

    def observe(self, event: Mapping[str, Any] | None) -> None:
        self.unread.append(event)  # read at the next decision: only own moves move own pieces

    def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        self.beliefs.follow(self.unread, view)
        self.unread = []
        guesses = self.beliefs.table()
        until = None
        if self.budget_scale > 0:
            until = thinking_deadline(self.level, time.time(), None, self.budget_scale)
        beliefs = self.beliefs
        return choose_action(view, rng, guesses, self.level, beliefs.recent, until, beliefs.proven)


class RandomPlayer:
    """A random legal move (翻棋: or a flip); the bot's defaults before play."""

    def observe(self, event: Mapping[str, Any] | None) -> None:
        pass

    def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        moves = [(o, t) for o, targets in view.get("legal_moves", {}).items() for t in targets]
        flips = view.get("flippable") or []
        if view["phase"] != "playing" or not (moves or flips):
            return choose_action(view, rng, level="easy")
        if flips and (not moves or rng.random() < 0.5):
            return {"type": "flip", "station": rng.choice(flips)}
        origin, target = rng.choice(moves)
        return {"type": "move", "origin": origin, "target": target}


class GreedyPlayer(RandomPlayer):
    """One ply on what it sees: the best sure gain (a piece whose rank it sees and beats), else
    a random legal move."""

    def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        if view["phase"] != "playing" or not view.get("legal_moves"):
            return super().decide(view, rng)
        gains = sure_gains(view)
        origin, target = max(gains, key=lambda m: (gains[m], rng.random()))
        return {"type": "move", "origin": origin, "target": target}


def play(
    variant: str,
    seed: int,
    players: Mapping[int, Player],
    times: list[float] | None = None,
    max_steps: int = 5000,
    watch: Callable[[GameState, Action, GameState, list[Event]], None] | None = None,
) -> GameState:
    """A whole game of ``variant`` from ``seed`` between ``players`` (one per seat), to its end.
    With ``times``, every decision's thinking time (seconds) is appended to it; ``watch`` sees
    every step: the state before, the action, the state after and its events."""
    rng = random.Random(seed)
    state = new_game(variant, seed=seed)
    for step in range(max_steps):
        if state.phase == Phase.FINISHED:
            return state
        action: dict[str, Any] | None = None
        for seat in _askable(state):
            start = time.perf_counter()
            action = players[seat].decide(view(state, seat, tracker=False), rng)
            if times is not None:
                times.append(time.perf_counter() - start)
            if action is not None:
                action = {**action, "seat": seat, "now": min(state.deadline, float(step))}
                break
        if action is None:  # nobody has anything to decide: the clock decides
            kind = "timeout" if state.phase == Phase.PLAYING else "deadline"
            action = {"type": kind, "now": state.deadline}
        before, applied = state, action_from_dict(action)
        state, events = apply(before, applied)
        if watch is not None:
            watch(before, applied, state, events)
        for seat, player in players.items():
            for event in events:
                player.observe(event.for_viewer(seat))
    raise RuntimeError(f"{variant} game {seed} did not end in {max_steps} steps")


def _askable(state: GameState) -> list[int]:
    """The seats that may have something to decide, most urgent first: in play a seat that
    must raise its flag, then the seat to move (no one else has a say: bots never propose);
    before play every seat."""
    seats = list(state.variant.seats)
    if state.phase != Phase.PLAYING:
        return seats
    raising = [s for s, w in enumerate(state.watches) if w.raise_by is not None]
    return raising + ([state.to_move] if state.to_move is not None else [])
