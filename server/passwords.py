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
of clients with fewer waiting already. A real user's login thus goes ahead of a flood from a few
addresses, and, the queue full, takes the place of the flood's last one (which is refused).
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
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
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


class PasswordsBusy(Exception):
    """Every hashing thread is busy and ``queue`` hashes or checks wait already: refused at
    once. ``retry_after``: about when the queue will have room (seconds)."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"password checks are busy: try again in {retry_after:.0f} s")
        self.retry_after = retry_after


@dataclass(order=True)
class _Job:
    # lower goes first: a client with a failed check lately last, then the clients with more
    # waiting, then by arrival
    rank: tuple[bool, int, int]
    work: Callable[[], Any] = field(compare=False)
    key: str = field(compare=False)
    done: asyncio.Future[Any] = field(compare=False)


class Passwords:
    """Hashes and checks passwords in ``threads`` worker threads, with at most ``queue`` more
    waiting; ``cost`` "test" makes them with argon2's least time and memory (for test suites:
    hundreds of accounts a run). Used from one event loop (the app's)."""

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
        self.in_flight: Counter[str] = Counter()  # by client: waiting or running
        self.failed: dict[str, float] = {}  # client -> its last failed check (time.monotonic)
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
        """Whether a hash or check for ``key`` would be taken now (else it would be refused at
        once): a request that would only be refused is refused before it costs anything."""
        if self.running < self.threads and not self.waiting:
            return True
        worst = max(self.waiting, default=None)
        return len(self.waiting) < self.queue or (
            worst is not None and self._rank(key)[:2] < worst.rank[:2]
        )

    def _rank(self, key: str) -> tuple[bool, int, int]:
        failed = self.failed.get(key)
        suspect = failed is not None and time.monotonic() - failed < FAILURE_SECONDS
        return suspect, self.in_flight[key], next(self._order)

    def retry_after(self) -> float:
        """About how long until the queue has room again (seconds)."""
        return max(1.0, (len(self.waiting) + self.running) * self.seconds / self.threads)

    async def _run(self, work: Callable[[], Any], key: str) -> Any:
        loop = asyncio.get_running_loop()
        job = _Job(self._rank(key), work, key, loop.create_future())
        if self.running < self.threads and not self.waiting:
            self.in_flight[key] += 1
            self._start(job, loop)
        else:
            if len(self.waiting) >= self.queue:
                worst = max(self.waiting, default=None)
                if worst is None or worst.rank < job.rank:
                    raise PasswordsBusy(self.retry_after())
                self._unwait(worst)  # the better one takes its place
                worst.done.set_exception(PasswordsBusy(self.retry_after()))
            self.in_flight[key] += 1
            self.waiting.append(job)
        try:
            return await job.done
        except asyncio.CancelledError:
            if job in self.waiting:  # gone before its turn; a running one is let finish
                self._unwait(job)
            raise

    def _unwait(self, job: _Job) -> None:
        self.waiting.remove(job)
        self._leave(job.key)

    def _leave(self, key: str) -> None:
        self.in_flight[key] -= 1
        if self.in_flight[key] <= 0:
            del self.in_flight[key]

    def _start(self, job: _Job, loop: asyncio.AbstractEventLoop) -> None:
        self.running += 1
        try:
            running = self.pool.submit(_timed, job.work)
        except RuntimeError:  # closed: the app is stopping
            self.running -= 1
            self._leave(job.key)
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
        self._leave(job.key)
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
        while self.running < self.threads and self.waiting:
            best = min(self.waiting)
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
