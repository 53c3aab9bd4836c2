"""Passwords: argon2 hashing off the event loop in a bounded queue, the same work for unknown
names, and the rules for a new password.

An argon2 hash or check takes about 0.2-0.3 s of CPU. On the event loop that stalled every socket
of the process (40 wrong logins at once: pings 1.1 s late); here it runs in a small pool of
threads (argon2-cffi releases the GIL meanwhile) at a low priority, so that the loop goes on and
keeps its core whenever it needs it (``bench/logins.py``). A login for a name that
does not exist checks the password against ``DUMMY_HASH``, made with the same parameters, so
that the answer takes as long as for a real user with a wrong password.

At most ``queue`` hashes and checks wait for a thread; one more is refused at once
(``PasswordsBusy``: the server answers 429, ``busy``), so that a flood of logins costs a few
seconds of waiting at most, never a growing backlog. Waiting ones are taken in order of merit,
not arrival: first those of a client (an address key) with no failed check lately, then those
of the clients that asked least lately. A real user's login thus goes ahead of a flood from a
few addresses, and, the queue full, takes the place of the flood's worst one (which is
refused).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

# the hash of a random password nobody knows, with argon2-cffi's default parameters
# (tests/server/test_accounts_security.py checks that they are still the hasher's)
DUMMY_HASH = (
    "$argon2id$v=19$m=65536,t=3,p=4$FyA9WTCQVTzbuI4aIojyWQ$"
    "GqGSyBOc1zvReXIy5Oiqq0FUe9ZYHN8PEJteyeGivbw"
)
COMMON_FILE = Path(__file__).with_name("common_passwords.txt")
NICENESS = 10  # how much nicer the hashing threads are than the event loop (even a nice server's)
MIN_LENGTH = 8  # of a new password (older accounts keep their shorter ones)
MAX_LENGTH = 128
# a failed check puts its client's next ones behind everyone else's for this long
FAILURE_SECONDS = 600.0
LOAD_SECONDS = 30.0  # the half-life of a client's asks, as the queue weighs them


class PasswordsBusy(Exception):
    """Every hashing thread is busy and ``queue`` hashes or checks wait already: refused at
    once. ``retry_after``: about when the queue will have room (seconds)."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"password checks are busy: try again in {retry_after:.0f} s")
        self.retry_after = retry_after


@dataclass
class _Job:
    order: int  # of arrival
    work: Callable[[], Any]
    key: str
    done: asyncio.Future[Any]


class Passwords:
    """Hashes and checks passwords in ``threads`` worker threads, with at most ``queue`` more
    waiting; ``cost`` "test" makes them with argon2's least time and memory (for test suites:
    hundreds of accounts a run). Used from one event loop (the app's).

    A waiting hash or check's turn comes by merit, weighed when a thread is free: first those
    of a client (``key``, an address key) without a failed check in ``FAILURE_SECONDS``, then
    those of the client that asked least lately (its asks, taken or refused, counted with a
    half-life of ``LOAD_SECONDS``), then by arrival. A flood's clients have asked a lot by the
    time a real user's login arrives: it goes ahead of all of theirs that wait."""

    def __init__(
        self, threads: int = 2, cost: Literal["standard", "test"] = "standard", queue: int = 32
    ) -> None:
        if cost == "standard":
            self.hasher, self.dummy = PasswordHasher(), DUMMY_HASH
        else:
            self.hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
            self.dummy = self.hasher.hash(secrets.token_hex(16))  # as cheap as the real ones
        # few threads: each check holds 64 MiB and a core while it runs
        self.pool = ThreadPoolExecutor(
            threads, thread_name_prefix="passwords", initializer=_lower_priority
        )
        self.threads = threads
        self.queue = queue
        self.running = 0
        self.waiting: list[_Job] = []
        self.failed: dict[str, float] = {}  # client -> its last failed check (time.monotonic)
        self.asked: dict[str, tuple[float, float]] = {}  # client -> (asks, when), decaying
        self.seconds = 0.3  # what a hash or check takes in its thread, a running mean
        self._order = itertools.count()

    async def hash(self, password: str, key: str = "") -> str:
        """The argon2 hash of ``password``, for the client ``key`` (an address key)."""
        hashed: str = await self._run(functools.partial(self.hasher.hash, password), key)
        return hashed

    async def verify(self, hashed: str | None, password: str, key: str = "") -> bool:
        """Whether ``password`` is the one ``hashed`` was made from; ``None`` (no such user, or
        a guest) takes as long and is never right. A wrong one counts against ``key``."""
        check = functools.partial(self._verify, hashed or self.dummy, password, hashed is not None)
        right: bool = await self._run(check, key)
        if not right:
            self._note_failure(key)
        return right

    def _verify(self, hashed: str, password: str, real: bool) -> bool:
        try:
            self.hasher.verify(hashed, password)
        except (VerificationError, InvalidHashError):
            return False
        return real

    def admits(self, key: str = "") -> bool:
        """Whether a hash or check for ``key`` would be taken now; if not, it counts as asked
        and refused: a request that would only be refused is refused before it costs more."""
        if self._taken(key, time.monotonic()):
            return True
        self._ask(key, time.monotonic())
        return False

    def retry_after(self) -> float:
        """About how long until the queue has room again (seconds)."""
        return max(1.0, (len(self.waiting) + self.running) * self.seconds / self.threads)

    def _merit(self, key: str, order: int, now: float) -> tuple[bool, float, int]:
        """A waiting one's place (lower first): failed lately, asked lately, arrival."""
        failed = self.failed.get(key)
        asks, when = self.asked.get(key, (0.0, now))
        return (
            failed is not None and now - failed < FAILURE_SECONDS,
            asks * 0.5 ** ((now - when) / LOAD_SECONDS),
            order,
        )

    def _taken(self, key: str, now: float) -> bool:
        """Whether one more for ``key`` (asking now) would be taken: a thread or a place in the
        queue is free, or it would take the place of a worse one."""
        if (self.running < self.threads and not self.waiting) or len(self.waiting) < self.queue:
            return True
        if not self.waiting:
            return False
        suspect, asks, _ = self._merit(key, 0, now)
        worst = self._worst(now)
        # as if it had asked already: its own ask counts against it, as the waiting ones' did
        return (suspect, asks + 1) < self._merit(worst.key, worst.order, now)[:2]

    def _worst(self, now: float) -> _Job:
        return max(self.waiting, key=lambda job: self._merit(job.key, job.order, now))

    def _ask(self, key: str, now: float) -> None:
        asks, when = self.asked.get(key, (0.0, now))
        if key not in self.asked and len(self.asked) >= 4096:  # forget the clients gone quiet
            self.asked = {
                k: (a, w) for k, (a, w) in self.asked.items() if now - w < 10 * LOAD_SECONDS
            }
        self.asked[key] = (asks * 0.5 ** ((now - when) / LOAD_SECONDS) + 1, now)

    async def _run(self, work: Callable[[], Any], key: str) -> Any:
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        if not self._taken(key, now):
            self._ask(key, now)
            raise PasswordsBusy(self.retry_after())
        self._ask(key, now)
        job = _Job(next(self._order), work, key, loop.create_future())
        if self.running < self.threads and not self.waiting:
            self._start(job, loop)
        else:
            if len(self.waiting) >= self.queue:  # it takes the place of the worst one
                worst = self._worst(now)
                self.waiting.remove(worst)
                worst.done.set_exception(PasswordsBusy(self.retry_after()))
            self.waiting.append(job)
        try:
            return await job.done
        except asyncio.CancelledError:
            if job in self.waiting:  # gone before its turn; a running one is let finish
                self.waiting.remove(job)
            raise

    def _start(self, job: _Job, loop: asyncio.AbstractEventLoop) -> None:
        self.running += 1
        try:
            running = self.pool.submit(_timed, job.work)
        except RuntimeError:  # closed: the app is stopping
            self.running -= 1
            job.done.cancel()
            return

        def finished(future: Future[tuple[Any, float]]) -> None:  # in the thread
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(self._finished, job, future, loop)

        running.add_done_callback(finished)

    def _finished(
        self, job: _Job, future: Future[tuple[Any, float]], loop: asyncio.AbstractEventLoop
    ) -> None:
        self.running -= 1
        if future.cancelled():
            if not job.done.done():
                job.done.cancel()
        elif (error := future.exception()) is not None:
            if not job.done.done():
                job.done.set_exception(error)
        else:
            result, seconds = future.result()
            self.seconds = 0.8 * self.seconds + 0.2 * seconds
            if not job.done.done():
                job.done.set_result(result)
        now = time.monotonic()
        while self.running < self.threads and self.waiting:
            best = min(self.waiting, key=lambda job: self._merit(job.key, job.order, now))
            self.waiting.remove(best)
            self._start(best, loop)

    def _note_failure(self, key: str) -> None:
        now = time.monotonic()
        if len(self.failed) >= 4096:  # forget the clients gone quiet
            self.failed = {k: t for k, t in self.failed.items() if now - t < FAILURE_SECONDS}
        self.failed[key] = now

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


def _timed(work: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    return work(), time.perf_counter() - started


def _lower_priority() -> None:
    """A hashing thread yields its core to the event loop and the bots whenever they want it
    (Linux gives each thread its own nice value; elsewhere a thread's id is no process's, and
    it is left as it is): under a flood of logins the sockets stay prompt, and logins wait."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            me = threading.get_native_id()  # its nice value is the loop's, where it was made
            os.setpriority(
                os.PRIO_PROCESS, me, min(19, os.getpriority(os.PRIO_PROCESS, me) + NICENESS)
            )


@cache
def common_passwords() -> frozenset[str]:
    """The shipped list of the best known passwords (``server/common_passwords.txt``, where
    its sources are named), casefolded."""
    lines = COMMON_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().casefold() for line in lines if not line.startswith("#"))


def password_problem(password: str) -> tuple[str, str] | None:
    """Why ``password`` will not do as a new password (a stable code and a message), or None.
    Its greatest length is checked where it arrives."""
    if not password.strip():
        return "password_blank", "a password may not be only spaces"
    if len(password) < MIN_LENGTH:
        return "password_short", f"a new password needs at least {MIN_LENGTH} characters"
    if password.strip().casefold() in common_passwords():
        return "password_common", "that password is among the most common ones: choose another"
    return None
