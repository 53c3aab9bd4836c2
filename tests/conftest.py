"""The whole suite's settings: the soak switch (``JUNQI_SOAK=1``, read by ``tests.soak``) and
the password cost.

By default the loops of whole games and of generated examples run at small counts, and the
tests marked ``soak`` (those that only make sense at their full count) are deselected, so that
``scripts/test.sh`` stays quick; with ``JUNQI_SOAK=1`` every loop runs at its full count and the
``soak`` tests run too. A hypothesis test without a count of its own takes the loaded profile's.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests.soak import SOAK

# every app and server the tests start (their processes inherit it) hashes passwords at the
# test cost: a test run makes hundreds of accounts (server/passwords.py)
os.environ.setdefault("JUNQI_PASSWORD_COST", "test")
# every client of a test comes from one loopback address: the rules per address (tables open,
# seats that share one play unrated) have tests of their own, which set them
os.environ.setdefault("JUNQI_TABLES_PER_ADDRESS", "100000")
os.environ.setdefault("JUNQI_SHARED_ADDRESS_UNRATED", "false")
# bots take their levels' fixed samples, not their thinking time (quick, reproducible); the
# budgets have tests of their own
os.environ.setdefault("JUNQI_BOT_BUDGET_SCALE", "0")

settings.register_profile("quick", max_examples=20)
settings.register_profile("soak", max_examples=100)  # hypothesis's own default
settings.load_profile("soak" if SOAK else "quick")


def pytest_report_header() -> str:
    # said at the top of every run: with xdist the summary line counts no deselected tests
    if SOAK:
        return "soak run (JUNQI_SOAK=1): full counts, the soak tests included"
    return "quick run: small counts, the soak tests deselected (JUNQI_SOAK=1 for the soak run)"


# The modules that take longest, longest first, as one run of the whole suite on the 2-core
# machine measured them (browsers, clusters of real processes, clocks that run out: from ~90 s
# of one worker down to ~10 s); the workers take whole modules (``--dist loadscope``) in this
# order (``--no-loadscope-reorder``, scripts/test.sh: xdist would otherwise start the modules
# with the most tests first, and these last), so the many short modules, after them in their
# usual order, fill the gaps at the end instead of one long module ending the run alone. A
# module that grows long belongs here; a long one is better split (tests/web/test_games_*.py).
LONGEST_FIRST = (
    "tests/server/test_cluster.py",
    "tests/web/test_games_four_seats.py",
    "tests/server/test_cluster_faults.py",
    "tests/server/test_social_cluster.py",
    "tests/web/test_phone.py",
    "tests/server/test_scored_games.py",
    "tests/web/test_navigation.py",
    "tests/web/test_table_defects.py",
    "tests/engine/test_bot.py",
    "tests/server/test_leak_audit.py",
    "tests/server/test_updates.py",
    "tests/web/test_fairness.py",
    "tests/server/test_schema.py",
    "tests/server/test_admin_rooms.py",
    "tests/server/test_accounts_security.py",
    "tests/web/test_games_fewer_seats.py",
    "tests/web/test_browser.py",
    "tests/server/test_table_reaping.py",
    "tests/server/test_realtime.py",
    "tests/server/test_socket_limits.py",
    "tests/server/test_admin.py",
    "tests/server/test_bots.py",
    "tests/engine/test_views_fast.py",
    "tests/server/test_live_server.py",
    "tests/server/test_slow_http.py",
    "tests/server/test_fair_play.py",
    "tests/web/",  # the others: each starts a server and a browser of its own
    "tests/engine/test_deployment.py",
    "tests/server/test_hardening.py",
    "tests/server/test_security.py",
    "tests/engine/test_random_games.py",
    "tests/engine/test_offers.py",
    "tests/server/test_fuzz.py",
)


def _started_at(item: pytest.Item) -> int:
    path = item.nodeid.split("::")[0]
    return next((i for i, p in enumerate(LONGEST_FIRST) if path.startswith(p)), len(LONGEST_FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    items.sort(key=_started_at)  # stable: each module's tests keep their order
    if SOAK:
        return
    soaks = [item for item in items if item.get_closest_marker("soak")]
    if soaks:
        config.hook.pytest_deselected(items=soaks)
        items[:] = [item for item in items if not item.get_closest_marker("soak")]
