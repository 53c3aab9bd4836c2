"""How each bot level thinks (``LEVEL``): its noise, the positions it searches, how deep and
how wide, in one stage or two, the risk it takes, and its time: ``thinking_deadline`` gives the
instant by which it decides on a clock, ``first_stage`` how a two-stage search shares it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from engine.search import RISK


@dataclass(frozen=True)
class Level:
    """How a level thinks: ``noise`` added to every move's score; ``samples`` guessed positions
    searched per move at least (0: a one-move look-ahead only), ``rounds`` of the other seats'
    answers in each, and ``width`` quiet moves searched beside every capture (the best by the
    quick score; ``EVERY_MOVE``: all of them); ``budget``: the seconds a move may take at a
    table, spent on more guessed positions (``most`` at most). With ``finalists``, the search
    runs in two stages: every candidate on ``samples`` positions (on a clock: as many of them as
    ``FIRST_STAGE`` of the time allows, ``FIRST_STAGE_LEAST`` at least), then the ``finalists``
    best of them weighed again, on fresh positions, for the rest of the time (0: one stage).
    ``risk``: what a standard deviation of a move's worth over the positions costs it."""

    noise: float
    samples: int
    rounds: int
    width: int
    budget: float = 0.0
    most: int = 0
    finalists: int = 0
    risk: float = RISK


EVERY_MOVE = 1 << 30  # a width that searches every quiet move: a step back out of reach too

LEVEL = {
    "easy": Level(noise=6.0, samples=0, rounds=0, width=0),
    "normal": Level(noise=0.5, samples=8, rounds=1, width=10, budget=0.5, most=400),
    "hard": Level(
        noise=0.2,
        samples=32,
        rounds=2,
        width=EVERY_MOVE,
        budget=2.5,
        most=1500,
        finalists=8,
        risk=RISK / 3,  # sharp means on many positions; two rounds spread a fight wider
    ),
}
FIRST_STAGE = 0.4  # the share of its time a two-stage search may spend on its first stage...
FIRST_STAGE_LEAST = 8  # ...and the positions its first stage takes even when that share is spent
CLOCK_MARGIN = 2.0  # seconds of the move clock a bot leaves unused (transport, its pause)
LEVELS = tuple(LEVEL)


def first_stage(settings: Level, until: float | None) -> tuple[int, float | None, int]:
    """A two-stage search's first stage: the positions it takes at least, until when it may go
    on, and the positions it takes at most. Without a clock, the level's fixed samples; on one,
    up to as many in ``FIRST_STAGE`` of the time left, so that a short clock still leaves time
    for the finalists."""
    if until is None:
        return settings.samples, None, settings.samples
    now = time.time()
    least = min(settings.samples, FIRST_STAGE_LEAST)
    return least, now + FIRST_STAGE * max(0.0, until - now), settings.samples


def thinking_deadline(
    level: str, now: float, clock_deadline: float | None, scale: float = 1.0
) -> float:
    """Until when a bot of ``level`` may think on a move asked for at ``now``: its budget (times
    ``scale``), but never past the move clock (``clock_deadline``, less ``CLOCK_MARGIN``)."""
    until = now + LEVEL.get(level, LEVEL["normal"]).budget * scale
    return until if clock_deadline is None else max(now, min(until, clock_deadline - CLOCK_MARGIN))
