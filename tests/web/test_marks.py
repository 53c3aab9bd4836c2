"""Private marks (标记) in the browser: a right-click on a hidden enemy piece opens the menu, 炸?
or a label of one's own marks it (``data-mark`` on its station, a tag drawn on the piece), a
reload keeps it, a finger held on a piece opens the menu too; the other player's page and a
spectator's never receive a mark (every frame their sockets got is checked). Debian's Chromium
through Playwright, against a real server."""

from __future__ import annotations

import json
from typing import Any

from playwright.sync_api import Browser, BrowserContext, Page

from tests.web.ui import (
    DESKTOP,
    PHONE,
    all_seated,
    drawn,
    enter_as_guest,
    needs_chromium,
    resize,
    shot,
    state,
    watch_errors,
)

pytestmark = needs_chromium

LABEL = "猜Z"
# every frame the page's sockets receive, as text (installed before the page's own scripts)
RECORD_RECEIVED = """
window.receivedFrames = [];
const Native = WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (e) => window.receivedFrames.push(String(e.data)));
  }
};
"""


def received(page: Page) -> list[dict[str, Any]]:
    frames: list[str] = page.evaluate("() => window.receivedFrames")
    return [json.loads(frame) for frame in frames]


def guest(browser: Browser, server: str, touch: bool = False) -> tuple[BrowserContext, Page]:
    """A guest of their own (a browser context each: a page's token is in its storage)."""
    context = browser.new_context(viewport=DESKTOP, has_touch=touch)
    page = context.new_page()
    page.add_init_script(RECORD_RECEIVED)
    enter_as_guest(page, server)
    return context, page


def deploy(page: Page) -> None:
    page.wait_for_selector("#confirm:not([disabled])")
    page.click("#confirm")


def hidden_enemy(page: Page) -> list[str]:
    snap = state(page, "table.snapshot")
    return [
        p["station"]
        for p in snap["game"]["pieces"]
        if p.get("seat") not in (None, snap["you"]) and "rank" not in p
    ]


def marked(page: Page, station: str, mark: str) -> None:
    page.wait_for_selector(f"circle.hit[data-station='{station}'][data-mark='{mark}']")


def test_marks_are_set_kept_after_a_reload_and_seen_by_nobody_else(
    server: str, browser: Browser
) -> None:
    alice_context, alice = guest(browser, server)
    bob_context, bob = guest(browser, server, touch=True)
    carol_context, carol = guest(browser, server)
    errors = [*watch_errors(alice), *watch_errors(bob)]
    alice.click("button.create[data-room='liangguo']")
    alice.wait_for_selector("#ready")
    table = state(alice, "table.id")
    bob.goto(f"{server}/#table/{table}")
    bob.click(".seat-panel[data-seat='1'] .svg-button[data-action='sit']")
    carol.goto(f"{server}/#table/{table}")
    for page in (alice, bob):
        all_seated(page)
        page.click("#ready")
    for page in (alice, bob):
        deploy(page)
    for page in (alice, bob, carol):
        page.wait_for_function("() => window.junqi.table?.snapshot?.game?.phase === 'playing'")

    # alice right-clicks a hidden piece of bob's, picks 炸?: it reads so on the board
    theirs = hidden_enemy(alice)
    alice.click(f"circle.hit[data-station='{theirs[0]}']", button="right")
    menu = alice.locator(".mark-menu")
    menu.wait_for()
    assert menu.locator("[data-mark-choice]").count() >= 12  # the ranks, and 炸? 雷? 旗?
    shot(alice, "marks-1-menu")
    menu.locator("[data-mark-choice='bomb']").click()
    marked(alice, theirs[0], "bomb")
    assert alice.locator(".mark-menu").count() == 0
    tag = alice.locator(f".piece[data-piece='{theirs[0]}'] .mark-tag")
    assert tag.text_content() == "炸?"
    # a label of her own on another; her own pieces take none
    alice.click(f"circle.hit[data-station='{theirs[1]}']", button="right")
    alice.fill(".mark-menu input[name='label']", LABEL)
    alice.click(".mark-menu button[type='submit']")
    marked(alice, theirs[1], LABEL)
    mine = state(alice, "table.snapshot.game.pieces")
    own = next(p["station"] for p in mine if p.get("seat") == 0)
    alice.click(f"circle.hit[data-station='{own}']", button="right")
    drawn(alice)
    assert alice.locator(".mark-menu").count() == 0
    shot(alice, "marks-2-marked")

    # a reload keeps them
    alice.reload()
    alice.wait_for_selector("svg.board")
    marked(alice, theirs[0], "bomb")
    marked(alice, theirs[1], LABEL)
    assert alice.locator(".piece .mark-tag").count() == 2

    # bob, on a touch screen, holds a finger on one of alice's pieces: the menu opens; 雷?
    ours = hidden_enemy(bob)
    if bob.locator("svg.board.overview").count():
        bob.click("#zoom")
        bob.wait_for_selector("svg.board:not(.overview)")
    hit = bob.locator(f"circle.hit[data-station='{ours[0]}']")
    hit.scroll_into_view_if_needed()
    box = hit.bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = bob_context.new_cdp_session(bob)
    point = {"x": x, "y": y}
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    bob.wait_for_selector(".mark-menu", timeout=3000)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    shot(bob, "marks-3-touch-menu")
    bob.locator("[data-mark-choice='landmine']").tap()
    marked(bob, ours[0], "landmine")
    shot(bob, "marks-4-touch-marked")
    resize(bob, PHONE)  # a phone held upright: the mark is drawn on the whole board too
    marked(bob, ours[0], "landmine")
    assert bob.locator(f".piece[data-piece='{ours[0]}'] .mark-tag").text_content() == "雷?"
    shot(bob, "marks-5-phone")

    # alice's marks reached alice alone; bob's, bob alone; the spectator, none
    for page in (alice, bob, carol):
        page.evaluate("() => window.junqi.socket.send({ type: 'ping' })")
    mine_got = [m for m in received(alice) if m["type"] == "marks"]
    assert mine_got and all(m["seat"] == 0 for m in mine_got)
    for page, seat in ((bob, 1), (carol, None)):
        for message in received(page):
            assert message["type"] != "marks" or message["seat"] == seat, message
            assert LABEL not in json.dumps(message, ensure_ascii=False), message
    assert not any(m["type"] == "marks" for m in received(carol))
    assert carol.locator("circle.hit[data-mark]").count() == 0
    assert bob.locator(f"circle.hit[data-station='{theirs[1]}'][data-mark]").count() == 0
    assert errors == []
    for context in (alice_context, bob_context, carol_context):
        context.close()
