"""四国, 三国 and 翻棋 on a phone (390×844 portrait and 844×390 landscape, touch): a whole game
against bots with the player's own clock and the turn in view at every step, tap targets of
32 px at least at the table, in deployment and in the replay, the deployment tools in view
without scrolling, a replay that zooms; 翻棋's status line and panel clock that cover nothing,
and its seats named before their colours are known; 乱战's draft drawn in the colour picked.
Screenshots of the table, deployment and replay at each size go to ``artifacts/``."""

from __future__ import annotations

import contextlib
import re
import time

import pytest
from playwright.sync_api import Browser, Page, ViewportSize
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.web.games import behind_a_bot_host
from tests.web.ui import (
    DESKTOP,
    PHONE,
    Player,
    all_seated,
    enter_as_guest,
    needs_chromium,
    shot,
    small_targets,
    state,
    tap_targets,
    watch_errors,
)

pytestmark = needs_chromium

LANDSCAPE: ViewportSize = {"width": 844, "height": 390}
GARBAGE = re.compile(r"(座位|seat) ?\d")  # a seat named by its number, as "座位 243" was

IN_VIEW = """(selector) => [...document.querySelectorAll(selector)].map((e) => {
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.left >= -0.5 && r.top >= -0.5
    && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5;
})"""

# The player's own seat and the seat to act (with its clock) are in the window, as the table's
# state says now (the page draws a change in the next frame: the check waits for it).
TURN_IN_VIEW = """() => {
  const snap = window.junqi.table.snapshot, game = snap.game;
  const inView = (e) => { if (!e) return false; const r = e.getBoundingClientRect();
    return r.width > 0 && r.left >= -0.5 && r.top >= -0.5
      && r.right <= innerWidth + 0.5 && r.bottom <= innerHeight + 0.5; };
  const chip = (seat) => document.querySelector(`#seat-strip [data-strip-seat="${seat}"]`);
  if (!inView(chip(snap.you)) || !inView(document.querySelector("#status"))) return false;
  if (game.phase !== "playing" || game.paused_since !== null) return true;
  const mover = chip(game.to_move);
  return inView(mover) && mover.classList.contains("to-move")
    && inView(mover.querySelector(".strip-clock"));
}"""


def in_view(page: Page, selector: str) -> bool:
    """Every element of ``selector`` (at least one) lies wholly inside the window."""
    shown: list[bool] = page.evaluate(IN_VIEW, selector)
    return bool(shown) and all(shown)


def phone_page(browser: Browser, size: ViewportSize) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport=size, is_mobile=True, has_touch=True)
    page = context.new_page()
    return page, watch_errors(page)


def turn_in_view(page: Page, where: str) -> None:
    """The player's own seat, the seat to move and its clock (yours on your turn) are in the
    window: at once, or by the next frames for a state that just changed."""
    try:
        page.wait_for_function(TURN_IN_VIEW, timeout=3000)
    except PlaywrightTimeoutError:
        shot(page, "phone-turn-out-of-view")
        raise AssertionError(f"the turn or your seat out of view at {where}") from None


@pytest.mark.parametrize(
    ("room", "size"), [("siguo", PHONE), ("siguo", LANDSCAPE), ("sanguo", PHONE)]
)
def test_a_whole_game_on_a_phone_keeps_your_clock_and_the_turn_in_view(
    server: str, browser: Browser, room: str, size: ViewportSize
) -> None:
    name = f"phone-{room}-{size['width']}x{size['height']}"
    page, errors = phone_page(browser, size)
    page.goto(server)
    page.tap("#guest")
    page.wait_for_selector("#lobby .room")
    page.tap(f"button.play-bots[data-room='{room}']")
    all_seated(page)
    assert page.locator("svg.board.overview").count() == 1  # too small to touch: it zooms
    assert small_targets(page) == []
    shot(page, f"{name}-1-table")
    page.tap("#ready")
    page.wait_for_selector("#auto")  # deployment: zoomed in on the player's arm
    page.wait_for_function("() => document.querySelectorAll('.piece .label').length >= 20")
    page.wait_for_selector("svg.board:not(.overview)")
    shot(page, f"{name}-2-deploy")
    # every deployment tool and 出征 in the window, without scrolling
    assert page.evaluate("() => scrollY") == 0
    for tool in ("#auto", "#save", "#export", "#export-jql", "label.file", "#confirm", "#zoom"):
        assert in_view(page, tool), tool
    assert tap_targets(page) >= 32
    assert small_targets(page) == []
    turn_in_view(page, "deploying")
    player = Player(page, touch=True, seed=size["width"])
    steps = 0
    while state(page, "table.snapshot.game.phase") != "finished":
        player.decide()
        steps += 1
        if state(page, "table.snapshot.game.phase") == "playing":
            turn_in_view(page, f"step {steps}")
            if player.moves == 2:
                assert small_targets(page) == []
                shot(page, f"{name}-3-play")
        assert steps < 2000
    assert player.moves >= 2
    page.wait_for_selector("#result")
    page.tap("#to-replay")
    page.wait_for_selector("#replay svg.board")
    page.wait_for_function("() => window.junqi.replay.state")
    # the replay shows the board whole and zooms in where it is tapped, as the table does
    assert page.locator("#replay svg.board.overview").count() == 1
    assert small_targets(page) == []
    shot(page, f"{name}-4-replay")
    page.locator("#replay svg.board").tap()
    page.wait_for_selector("#replay svg.board:not(.overview)")
    assert page.locator("#board-box.zoomed").count() == 1
    assert tap_targets(page) >= 32
    assert small_targets(page) == []
    shot(page, f"{name}-5-replay-zoomed")
    page.tap("#zoom")  # 全图: the whole board again
    page.wait_for_selector("#replay svg.board.overview")
    assert errors == []
    page.context.close()


def test_fanqi_on_a_phone_cuts_no_button_and_no_clock_covers_the_timeouts(
    server: str, browser: Browser
) -> None:
    page, errors = phone_page(browser, PHONE)
    page.goto(server)
    page.tap("#guest")
    page.wait_for_selector("#lobby .room")
    page.tap("button.play-bots[data-room='fanqi']")
    all_seated(page)
    page.tap("#ready")
    page.wait_for_function(
        "() => { const s = window.junqi.table.snapshot;"
        " return s.game?.phase === 'playing' && s.game.to_move === s.you; }"
    )
    me = state(page, "table.snapshot.you")
    boxes = page.evaluate(
        """(me) => {
          const box = (e) => { const r = e.getBoundingClientRect();
            return { l: r.left, t: r.top, r: r.right, b: r.bottom }; };
          const panel = document.querySelector(`.seat-panel[data-seat="${me}"]`);
          return {
            status: box(document.querySelector("#status")),
            buttons: [...document.querySelectorAll("#actions button")].map(box),
            bar: box(document.querySelector(".bar")),
            clock: box(panel.querySelector(".clock")),
            skips: box(panel.querySelector(".seat-status")),
            width: innerWidth, height: innerHeight,
          };
        }""",
        me,
    )
    status = boxes["status"]
    assert status["b"] - status["t"] < 32, status  # one line, not wrapped over the buttons
    assert boxes["buttons"]
    for b in boxes["buttons"]:  # whole, under the status line, in the bar and the window
        assert b["t"] >= status["b"] - 0.5 and b["b"] <= boxes["bar"]["b"] + 0.5, (b, boxes)
        assert b["l"] >= 0 and b["r"] <= boxes["width"] and b["b"] <= boxes["height"], b
    clock, skips = boxes["clock"], boxes["skips"]
    apart = (
        clock["r"] <= skips["l"]
        or skips["r"] <= clock["l"]
        or clock["b"] <= skips["t"]
        or skips["b"] <= clock["t"]
    )
    assert apart, (clock, skips)
    assert small_targets(page) == []
    shot(page, "phone-fanqi-play")
    # a seat without its colour yet is named by its turn: no "座位 2" anywhere
    Player(page, touch=True, seed=5).play_to_end(
        during=lambda p: no_garbage(page, "table"), seconds=300
    )
    page.wait_for_selector("#result")
    page.tap("#to-replay")
    page.wait_for_function("() => window.junqi.replay?.state")
    for step in (0, 1, 2):
        page.evaluate("(n) => { location.hash = `#replay/${window.junqi.replay.id}/${n}`; }", step)
        page.wait_for_function("(n) => window.junqi.replay.step === n", arg=step)
        page.wait_for_selector("#replay .seat-panel")
        no_garbage(page, f"replay step {step}")
        if state(page, "replay.state.colours") is None:  # grey panels say so
            assert "未定色" in (page.locator("#replay svg.board").text_content() or "")
    shot(page, "phone-fanqi-replay")
    assert errors == []
    page.context.close()


def no_garbage(page: Page, where: str) -> None:
    text = page.locator("#log").inner_text() + (page.locator("svg.board").text_content() or "")
    assert not GARBAGE.search(text), (where, GARBAGE.search(text))


def test_seats_without_a_colour_are_named_by_their_turn(server: str, browser: Browser) -> None:
    """翻棋 before the first engineer: the arms (and so the log's places) are 先手 and 后手, from
    the seat that moves first; once the colours are fixed, the colours."""
    page = browser.new_page(viewport=DESKTOP)
    page.goto(server)
    names = page.evaluate(
        """async () => {
          const { armName } = await import("/js/seats.js");
          const caps = { colour: "first_engineer" };
          const game = (first, colours) => ({ first, colours, seats: [{}, {}] });
          return [armName(game(0, null), caps, 0), armName(game(0, null), caps, 1),
            armName(game(1, null), caps, 1), armName(game(1, [3, 0]), caps, 0)];
        }"""
    )
    assert names == ["先手", "后手", "先手", "蓝"], names
    page.close()


def test_luanzhan_deployment_is_drawn_in_the_colour_picked(server: str, browser: Browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    behind_a_bot_host(page, "luanzhan")  # seat 1: a colour other than the seat's is picked
    page.click("#ready")
    page.wait_for_selector("button.pick:not([disabled])", timeout=30000)
    page.locator("button.pick:not([disabled]):not([data-colour='1'])").first.click()
    page.click("button.redeal[data-v='0']", timeout=30000)  # the player wants no redeal
    # a bot may want one: the hands are dealt again and asked about again, until they stand
    end = time.monotonic() + 60
    while (game := state(page, "table.snapshot.game"))["phase"] != "deploying":
        assert time.monotonic() < end, game["phase"]
        if game["phase"] == "redealing" and 1 in game["deal"]["waiting"]:
            with contextlib.suppress(PlaywrightTimeoutError):  # drawn again meanwhile
                page.click("button.redeal[data-v='0']", timeout=2000)
        time.sleep(0.1)
    page.wait_for_function("() => document.querySelectorAll('.piece .label').length >= 25")
    picked = state(page, "table.snapshot.game.deal.picks[1]")
    assert picked != 1
    # the draft's pieces name no army (the hand's get theirs when placed): drawn in the
    # player's colour, the one picked, until play shows each piece in its own army's
    armies = set(page.eval_on_selector_all(".piece", "ps => ps.map((p) => p.dataset.army)"))
    assert armies == {str(picked)}, (armies, picked)
    shot(page, "luanzhan-deploy-colour")
    assert errors == []
    page.close()
