"""Quick match (自动匹配) in the browser: four pages press quick match for 四国 and are seated at
one table within 3 s of the fourth; once the game is over (two partners leave, through a socket
of their own accounts) each page verifies its seats from the revealed seed (验证座位). Screenshots
of the lobby's quick-match card and the queue's panel, in zh and en, desktop and phone."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from server.match_core import draw_seats, permutation
from tests.live import live_server
from tests.server.sockets import live_socket
from tests.web.ui import DESKTOP, PHONE, drawn, enter_as_guest, needs_chromium, resize, shot, state

pytestmark = needs_chromium

ROOMS = [
    {"id": "siguo", "name": "四国 一室", "variant": "siguo", "options": {}},
    {"id": "duel", "name": "二人 一室", "variant": "liangguo", "options": {}},
]
QUICK = "button.quick-button[data-variant='siguo'][data-mode='hidden']"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = {"JUNQI_QUICK_TICK_SECONDS": "0.1", "JUNQI_QUICK_BOTS_SECONDS": "3"}
    with live_server(tmp_path_factory.mktemp("quick"), ROOMS, settings) as base:
        yield base


def seated(page: Page) -> bool:
    return bool(
        page.evaluate(
            "() => (window.junqi.table?.snapshot?.seats ?? []).filter((s) => s.name).length === 4"
        )
    )


def test_four_pages_are_matched_at_one_table_and_verify_their_seats(
    server: str, browser: Browser
) -> None:
    pages = [browser.new_context(viewport=DESKTOP).new_page() for _ in range(4)]
    for page in pages:
        enter_as_guest(page, server)
    for page in pages[:3]:
        page.click(QUICK)
        page.wait_for_selector("#queue #queue-size")
    pages[0].wait_for_function("() => document.querySelector('#queue-size')?.dataset.size === '3'")
    shot(pages[0], "quick-queue-desktop")
    start = time.monotonic()
    pages[3].click(QUICK)
    for page in pages:
        page.wait_for_function(
            "() => (window.junqi.table?.snapshot?.seats ?? []).filter((s) => s.name).length === 4"
            " && document.querySelectorAll('.seat-panel').length === 4",
            timeout=3000,
        )
    assert time.monotonic() - start < 3.0
    tables = {state(page, "table.id") for page in pages}
    assert len(tables) == 1
    (table,) = tables
    shot(pages[0], "quick-matched-desktop")
    # the game ends: seats 0 and 2 (partners) leave, each through a socket of its own account
    snapshot = state(pages[0], "table.snapshot")
    assert snapshot["seat_draw"]["seed"] is None
    for page in pages:
        if state(page, "table.snapshot.you") in (0, 2):
            token = page.evaluate("() => localStorage.getItem('junqi.token')")
            with live_socket(server, token) as ws:
                ws.send(json.dumps({"type": "leave", "table": table, "id": 1}))
                while json.loads(ws.recv(timeout=10)).get("ref") != 1:
                    pass
    for page in pages:
        page.wait_for_selector("#verify-seats")
        page.click("#verify-seats")
        page.wait_for_selector("#seats-result[data-ok='true']")
    shot(pages[0], "quick-verified-desktop")
    pages[0].click("#lang")
    drawn(pages[0])
    assert "Seats verified" in pages[0].inner_text("#seats-result")
    shot(pages[0], "quick-verified-desktop-en")
    # the replay checks the same, from the draw kept with the game
    page = pages[1]
    page.goto(f"{server}/#replay/{snapshot['game_id']}")
    page.wait_for_selector("#replay #verify-seats")
    page.click("#verify-seats")
    page.wait_for_selector("#seats-result[data-ok='true']")
    resize(page, PHONE)
    page.locator("#seats-result").scroll_into_view_if_needed()
    shot(page, "quick-replay-verified-phone")
    for page in pages:
        page.context.close()


def test_the_quick_match_card_and_the_queue_in_both_languages(
    server: str, browser: Browser
) -> None:
    page = browser.new_context(viewport=PHONE, has_touch=True).new_page()
    enter_as_guest(page, server)
    page.wait_for_selector(QUICK)
    for button in page.locator(".quick-button").all():
        box = button.bounding_box()
        assert box is not None and box["height"] >= 32 and box["width"] >= 32
    shot(page, "quick-card-phone-zh")
    page.click("button.quick-button[data-variant='liangguo']")
    page.wait_for_selector("#queue #queue-size")
    page.wait_for_selector("#queue-bots", timeout=8000)  # after JUNQI_QUICK_BOTS_SECONDS
    shot(page, "quick-bots-offer-phone-zh")
    page.click("#lang")
    drawn(page)
    assert "Play with bots now" in page.inner_text("#queue")
    shot(page, "quick-bots-offer-phone-en")
    resize(page, DESKTOP)
    shot(page, "quick-bots-offer-desktop-en")
    page.click("#queue-bots")
    page.wait_for_function("() => window.junqi.view === 'table'")
    assert state(page, "quick") is None
    assert state(page, "table.snapshot.rated") is False
    page.context.close()


def test_the_page_draws_seats_as_the_server_does(server: str, browser: Browser) -> None:
    """web/js/seatdraw.js against server/match_core.py: the permutations of many seeds and
    attempts, and the check of a draw that skipped an order repeating last game's partners."""
    page = browser.new_context(viewport=DESKTOP).new_page()
    page.goto(server)
    seeds = [f"{n:032x}" for n in range(0, 4000, 97)]
    found = page.evaluate(
        """async (seeds) => {
          const s = await import("/js/seatdraw.js");
          const out = [];
          for (const seed of seeds) for (const n of [2, 3, 4]) for (const a of [0, 1])
            out.push(await s.permutation(seed, n, a));
          return out;
        }""",
        seeds,
    )
    assert found == [permutation(seed, n, a) for seed in seeds for n in (2, 3, 4) for a in (0, 1)]
    names = ["丁", "Bo", "ann", "甲"]
    seated, _ = draw_seats(seeds[1], names, (0, 1, 0, 1))
    last = [[seated[0], seated[2]]]  # partners last time: the draw takes another order
    again, attempt = draw_seats(
        seeds[1], names, (0, 1, 0, 1), lambda a, b: sorted([a, b]) == sorted(last[0])
    )
    assert attempt > 0
    draw = {
        "seed": seeds[1],
        "commitment": hashlib.sha256(f"junqi-seats:{seeds[1]}".encode()).hexdigest(),
        "players": sorted(names),
        "attempt": attempt,
        "repeated": last,
    }
    game = {"seats": [{"team": t} for t in (0, 1, 0, 1)]}
    check = """async ([draw, seats, game]) => {
      const s = await import("/js/seatdraw.js");
      return await s.checkSeats(draw, seats, game);
    }"""
    result = page.evaluate(check, [draw, again, game])
    assert result["hash"] and result["order"]
    assert not page.evaluate(check, [draw, seated, game])["order"]  # the skipped order
    assert not page.evaluate(check, [{**draw, "attempt": 0}, seated, game])["order"]
    page.context.close()
