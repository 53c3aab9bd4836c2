"""Bots at a table: asking the engine's bot for moves away from the event loop, and what each
bot seat believes of the pieces it cannot see.

A bot plays a bot's seat and, with 托管 (a stand-in), the seat of a player who asked for it or
is away (``server.tables`` says which seats). After every update the table wakes the bot of
each such seat (``BotDriver.wake``): it decides in a worker process, within its level's thinking
budget and the move clock (``engine.bot.thinking_deadline``), answers no sooner than a pause so
that people can follow (``thinker``; for its move, no sooner than the table's pace allows, from
the start of its turn), and hands its action back to the table, which refuses it if the game
moved on meanwhile. Each bot seat keeps its beliefs (``engine.beliefs``) from the
events as that seat saw them.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import Executor
from typing import Any

import engine
from engine import Event, GameState
from engine.beliefs import Beliefs
from engine.bot import decide, thinking_deadline
from server.errors import TableError

# a bot's decision: (its seat's view, a seed, its guesses, its level, its recent moves, its
# pieces that won a fight)
Think = Callable[
    [dict[str, Any], int, dict[str, dict[str, float]], str, list[tuple[str, str]], list[str]],
    Awaitable[dict[str, Any] | None],
]
Play = Callable[[int, int, dict[str, Any]], Awaitable[None]]  # (seat, table version, action)


def thinker(workers: Executor, pause_seconds: float, budget_scale: float = 1.0) -> Think:
    """Bots that think in ``workers`` (processes: never on the event loop) for their level's
    budget times ``budget_scale`` (0: the level's fixed samples only), within the move clock,
    and answer no sooner than ``pause_seconds`` after they were asked."""

    async def think(
        view: dict[str, Any],
        seed: int,
        guesses: dict[str, dict[str, float]],
        level: str,
        recent: list[tuple[str, str]],
        proven: list[str],
    ) -> dict[str, Any] | None:
        loop = asyncio.get_running_loop()
        asked = time.monotonic()
        until = None  # taken now: time spent waiting for a free worker counts
        if budget_scale > 0:
            until = thinking_deadline(level, time.time(), view.get("deadline"), budget_scale)
        action = await loop.run_in_executor(
            workers, decide, view, seed, guesses, level, recent, until, proven
        )
        # so that people can follow
        await asyncio.sleep(max(0.0, pause_seconds - (time.monotonic() - asked)))
        return action

    return think


class BotDriver:
    """The bots of one table: their beliefs and their decisions under way."""

    def __init__(self, variant: str, think: Think | None, play: Play) -> None:
        self.variant = variant
        self.think = think  # None: no bot decides here (bots then sit and wait)
        self.play = play  # hands a decision to the table
        self.beliefs: dict[int, Beliefs] = {}  # each bot seat's, from its own events
        self.tasks: set[asyncio.Task[None]] = set()

    def new_game(self, seats: Iterable[int]) -> None:
        """A game starts, in which bots play ``seats``."""
        self.beliefs = {seat: Beliefs(self.variant, seat) for seat in seats}

    def take_over(self, seat: int, state: GameState) -> None:
        """A bot plays ``seat`` from ``state`` on (托管, or after a restart): unless it had
        beliefs already, it believes what the seat sees now."""
        if seat not in self.beliefs:
            self.beliefs[seat] = Beliefs(self.variant, seat)
            self.beliefs[seat].update(engine.view(state, seat, tracker=False))

    def learn(self, state: GameState | None, events: list[tuple[int, Event]]) -> None:
        """Each bot seat takes in the numbered ``events`` as that seat saw them."""
        if state is None or state.position is None:
            return
        for seat, beliefs in self.beliefs.items():
            beliefs.follow(
                (e.for_viewer(seat) for _, e in events), engine.view(state, seat, tracker=False)
            )

    def wake(
        self, seat: int, level: str, state: GameState, version: int, not_before: float = 0.0
    ) -> None:
        """The bot of ``level`` on ``seat`` decides on ``state`` (the table at ``version``), in
        the background, and acts no sooner than ``not_before`` (a ``time.time()``)."""
        task = asyncio.create_task(self._turn(seat, level, state, version, not_before))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _turn(
        self, seat: int, level: str, state: GameState, version: int, not_before: float
    ) -> None:
        assert self.think is not None
        view = engine.view(state, seat, tracker=False)
        beliefs = self.beliefs.get(seat)
        guesses = beliefs.table() if beliefs is not None else {}
        recent = beliefs.recent if beliefs is not None else []
        proven = sorted(beliefs.proven) if beliefs is not None else []
        action = await self.think(view, secrets.randbelow(2**31), guesses, level, recent, proven)
        if action is None:
            return
        await asyncio.sleep(not_before - time.time())  # the table's pace (none if negative)
        with contextlib.suppress(TableError):  # the table moved on meanwhile: decide again later
            await self.play(seat, version, action)
