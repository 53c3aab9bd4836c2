"""Passwords: argon2 hashing off the event loop, the same work for unknown names, and the rules
for a new password.

An argon2 hash or check takes about 0.2-0.3 s of CPU. On the event loop that stalled every socket
of the process (40 wrong logins at once: pings 1.1 s late); here it runs in a small pool of
threads (argon2-cffi releases the GIL meanwhile) at a low priority, so that the loop goes on and
keeps its core whenever it needs it (``bench/logins.py``). A login for a name that
does not exist checks the password against ``DUMMY_HASH``, made with the same parameters, so
that the answer takes as long as for a real user with a wrong password.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Literal

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


class Passwords:
    """Hashes and checks passwords in ``threads`` worker threads; ``cost`` "test" makes them
    with argon2's least time and memory (for test suites: hundreds of accounts a run)."""

    def __init__(self, threads: int = 2, cost: Literal["standard", "test"] = "standard") -> None:
        if cost == "standard":
            self.hasher, self.dummy = PasswordHasher(), DUMMY_HASH
        else:
            self.hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
            self.dummy = self.hasher.hash(secrets.token_hex(16))  # as cheap as the real ones
        # few threads: each check holds 64 MiB and a core while it runs
        self.pool = ThreadPoolExecutor(
            threads, thread_name_prefix="passwords", initializer=_lower_priority
        )

    async def hash(self, password: str) -> str:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, self.hasher.hash, password)

    async def verify(self, hashed: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``hashed`` was made from; ``None`` (no such user, or
        a guest) takes as long and is never right."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.pool, self._verify, hashed or self.dummy, password, hashed is not None
        )

    def _verify(self, hashed: str, password: str, real: bool) -> bool:
        try:
            self.hasher.verify(hashed, password)
        except (VerificationError, InvalidHashError):
            return False
        return real

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


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
    """The shipped list of the best known passwords, casefolded."""
    lines = COMMON_FILE.read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip().casefold() for line in lines if not line.startswith("#"))


def password_problem(password: str) -> tuple[str, str] | None:
    """Why ``password`` will not do for a new account (a stable code and a message), or None.
    Its length is checked where it arrives (6-128 characters)."""
    if not password.strip():
        return "password_blank", "a password may not be only spaces"
    if password.strip().casefold() in common_passwords():
        return "password_common", "that password is among the most common ones: choose another"
    return None
