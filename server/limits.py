"""Rate limits: at most ``count`` events per key in any ``seconds`` long window.

One ``RateLimits`` per app holds a limiter per kind of request (sign-ins by address, tables
created, game actions and chat lines by user); the figures come from the settings.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, field


@dataclass
class RateLimit:
    count: int
    seconds: float
    times: dict[Hashable, deque[float]] = field(default_factory=dict)
    sweep_at: int = 1024  # keys held when the next new key sweeps out the idle ones

    def allow(self, key: Hashable, now: float | None = None) -> bool:
        """Count one event for ``key`` if the window has room for it; False if not."""
        now = time.monotonic() if now is None else now
        window = self.times.get(key)
        if window is None:
            if len(self.times) >= self.sweep_at:
                self._sweep(now)
            window = self.times[key] = deque()
        while window and now - window[0] >= self.seconds:
            window.popleft()
        if len(window) >= self.count:
            return False
        window.append(now)
        return True

    def _sweep(self, now: float) -> None:
        """Forget the keys with no event in the window: else every user and address ever seen
        would stay for the life of the process. Sweeping only when the keys have doubled keeps
        it at a constant cost per event."""
        self.times = {k: w for k, w in self.times.items() if w and now - w[-1] < self.seconds}
        self.sweep_at = max(1024, 2 * len(self.times))


class RateLimits:
    def __init__(
        self, sign_ins: int, tables: int, actions: int, chat: int, per_seconds: float = 60.0
    ) -> None:
        self.sign_ins = RateLimit(sign_ins, per_seconds)  # by client address
        self.tables = RateLimit(tables, per_seconds)  # tables created, by user
        self.actions = RateLimit(actions, 10.0)  # game actions, by user, per 10 s
        self.chat = RateLimit(chat, per_seconds)  # chat lines, by user
