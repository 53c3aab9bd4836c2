"""Driving the web client as a player does, in Debian's Chromium through Playwright: clicks and
taps on the stations (``data-station``) and buttons only, never a socket of the test's own.
The page's state (``window.junqi``) is read to choose what to click, and checks look at what is
drawn: where the board and the seat panels are, what lies on top of what."""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}

# Playwright polls a function waited for (``wait_for_function``) on every animation frame by
# default, which keeps a headless page drawing sixty frames a second for as long as it waits:
# about half as much CPU again as the page itself. The tests look every 50 ms instead.
POLL_MS = 50
_wait_for_function = Page.wait_for_function


def _wait_polled(self: Page, expression: str, **options: Any) -> Any:
    options.setdefault("polling", POLL_MS)
    return _wait_for_function(self, expression, **options)


Page.wait_for_function = _wait_polled  # type: ignore[method-assign]

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")


def launch() -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


def watch_errors(page: Page) -> list[str]:
    """Every JavaScript exception and console error of the page, as it happens."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def state(page: Page, path: str) -> Any:
    return page.evaluate(
        f"() => {{ try {{ return window.junqi.{path}; }} catch {{ return null; }} }}"
    )


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def drawn(page: Page) -> None:
    """Wait until the page has drawn what its state holds now: it redraws in the next animation
    frame after a change (``changed`` in store.js), so two frames on it is done."""
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )


# set before a resize: true two frames after the window's resize event, by when the page has
# redrawn for the new size (main.js redraws on the event, in the next frame)
RESIZE_WATCH = """() => {
  window.resized = false;
  addEventListener("resize", () => requestAnimationFrame(() => requestAnimationFrame(() => {
    window.resized = true;
  })), { once: true });
}"""


def resize(page: Page, size: ViewportSize) -> None:
    """Give the window ``size`` and wait until the page has drawn itself for it (no fixed
    pause: one long enough on a loaded machine is far too long on a quiet one)."""
    if page.viewport_size == size:
        return  # no resize event would come
    page.evaluate(RESIZE_WATCH)
    page.set_viewport_size(size)
    page.wait_for_function("() => window.resized")


def enter_as_guest(page: Page, base: str) -> None:
    page.goto(base)
    page.click("#guest")
    page.wait_for_selector("#lobby .room")


def all_seated(page: Page) -> None:
    """Wait until every seat of the open table is taken and drawn at its arm."""
    page.wait_for_function(
        "() => window.junqi.table?.snapshot?.seats.every((s) => s.name !== null)"
        " && document.querySelectorAll('.seat-panel').length"
        " === window.junqi.table.snapshot.seats.length"
    )


def says(page: Page, selector: str, text: str) -> None:
    """Wait until the element shows ``text``."""
    page.wait_for_function(
        "([selector, text]) => document.querySelector(selector)?.textContent.includes(text)",
        arg=[selector, text],
    )


def press(page: Page, station: str, touch: bool = False) -> None:
    """Click (or tap) a station; on a board too small to touch, a first tap zooms in there."""
    hit = page.locator(f"circle.hit[data-station='{station}']")
    if page.locator("svg.board.overview").count():
        box = hit.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        if touch:
            page.touchscreen.tap(x, y)
        else:
            page.mouse.click(x, y)
        page.wait_for_selector("svg.board:not(.overview)")
    if touch:
        hit.scroll_into_view_if_needed()
        hit.tap()
    else:
        hit.click()


def centre(page: Page, station: str) -> tuple[float, float]:
    box = page.locator(f"circle.hit[data-station='{station}']").bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page: Page, origin: str, target: str) -> None:
    """The mouse drags from one station to another."""
    page.mouse.move(*centre(page, origin))
    page.mouse.down()
    page.mouse.move(*centre(page, target), steps=8)
    page.mouse.up()


def touch_drag(page: Page, origin: str, target: str) -> None:
    """A finger drags from one station to another (Chrome's own touch events)."""
    cdp = page.context.new_cdp_session(page)
    (x0, y0), (x1, y1) = centre(page, origin), centre(page, target)
    touch = "Input.dispatchTouchEvent"
    cdp.send(touch, {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, 11):
        x, y = x0 + (x1 - x0) * i / 10, y0 + (y1 - y0) * i / 10
        cdp.send(touch, {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send(touch, {"type": "touchEnd", "touchPoints": []})


def wait_newer(page: Page, version: int) -> None:
    page.wait_for_function(
        f"() => window.junqi.table.snapshot.version > {version}"
        " || window.junqi.table.snapshot.game?.phase === 'finished'",
        timeout=15000,
    )


def choose_move(game: dict[str, Any], rng: random.Random) -> tuple[str, str]:
    """A legal move, a fight when one is at hand more often than not."""
    legal: dict[str, list[str]] = game["legal_moves"]
    occupied = {p["station"] for p in game["pieces"]}
    attacks = [(o, t) for o, targets in legal.items() for t in targets if t in occupied]
    if attacks and rng.random() < 0.6:
        return rng.choice(attacks)
    origin = rng.choice(sorted(legal))
    return origin, rng.choice(legal[origin])


class Player:
    """One player's page at a table, deciding by clicks what the table asks of its seat."""

    def __init__(self, page: Page, touch: bool = False, seed: int = 1) -> None:
        self.page = page
        self.touch = touch
        self.rng = random.Random(seed)
        self.phases: list[str] = []
        self.moves = 0
        self.flips = 0

    @property
    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = state(self.page, "table.snapshot")
        return snap

    def wait_for_news(self, snap: dict[str, Any] | None) -> None:
        """Wait until the table's snapshot is newer than ``snap`` (or a second has passed): the
        page says so the moment it is, where reading the whole snapshot every 0.1 s came later
        and cost the browser, the driver and the test a copy of it each time."""
        version = snap["version"] if snap else None
        with contextlib.suppress(PlaywrightTimeoutError):
            self.page.wait_for_function(
                "(v) => (window.junqi.table?.snapshot?.version ?? null) !== v",
                arg=version,
                timeout=1000,
            )

    def decide(self, before: Callable[[str], None] | None = None) -> str | None:
        """Make the seat's next decision if one is due; returns the phase, or None before a
        game. ``before`` hears of each phase the first time it comes, and again (as
        ``"<phase>-yours"``) the first time this seat has to decide in it."""
        snap = self.snapshot
        game = snap and snap["game"]
        if not game:
            self.wait_for_news(snap)
            return None
        phase: str = game["phase"]
        me = snap["you"]
        deal = game.get("deal") or {}
        due = (
            (phase in ("picking", "redealing", "bidding") and me in deal["waiting"])
            or (phase == "deploying" and not game["seats"][me]["confirmed"])
            or (
                phase == "playing" and game["to_move"] == me and game.get("legal_moves") is not None
            )
        )
        for name in (phase, f"{phase}-yours") if due else (phase,):
            if name not in self.phases:
                self.phases.append(name)
                if before is not None:
                    drawn(self.page)
                    before(name)
        if not due:
            self.wait_for_news(snap)
            return phase
        snap = self.snapshot
        if (
            snap["version"] != state(self.page, "table.snapshot.version")
            or snap["game"]["phase"] != phase
        ):
            return phase
        page = self.page
        version = snap["version"]
        try:
            if phase == "picking":
                page.click("button.pick:not([disabled])", timeout=5000)
            elif phase == "redealing":
                page.click("button.redeal[data-v='0']", timeout=5000)
            elif phase == "bidding":
                page.locator("button.bid").last.click(timeout=5000)
            elif phase == "deploying":
                page.wait_for_selector("#confirm:not([disabled])")
                page.click("#confirm")
            else:
                self.play(snap["game"])
        except PlaywrightTimeoutError:
            # the table moved on meanwhile (another seat's bid ended the bidding, a timeout
            # passed the turn): what is asked now is decided on the next round
            if state(page, "table.snapshot.version") == version:
                raise
            return phase
        wait_newer(page, version)
        return phase

    def play(self, game: dict[str, Any]) -> None:
        drawn(self.page)  # the board as the state is now: a press on the old one selects nothing
        flips = game.get("flippable") or []
        if flips and (not game["legal_moves"] or self.rng.random() < 0.5):
            press(self.page, self.rng.choice(flips), self.touch)
            self.flips += 1
            return
        origin, target = choose_move(game, self.rng)
        press(self.page, origin, self.touch)
        self.page.wait_for_selector(f"[data-target='{target}']", timeout=5000)
        press(self.page, target, self.touch)
        self.moves += 1

    def play_to_end(
        self,
        before: Callable[[str], None] | None = None,
        during: Callable[[Player], None] | None = None,
        seconds: float = 240,
    ) -> None:
        """Decide until the game is over; ``during`` runs before each of the seat's turns."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            snap = self.snapshot
            game = snap["game"] if snap else None
            if game and game["phase"] == "finished":
                return
            if during and game and game["phase"] == "playing" and game["to_move"] == snap["you"]:
                during(self)
            self.decide(before)
        raise AssertionError(f"the game did not end in {seconds} s: {self.phases}")


# --- what is drawn --------------------------------------------------------------------------


def board_fits(page: Page) -> None:
    """The whole board, panels included, lies inside the window without scrolling."""
    box = page.evaluate(
        "() => { const r = document.querySelector('svg.board').getBoundingClientRect();"
        " return {left: r.left, top: r.top, right: r.right, bottom: r.bottom,"
        " width: innerWidth, height: innerHeight, scrollX: document.documentElement.scrollWidth}; }"
    )
    assert box["left"] >= 0 and box["top"] >= 0, box
    assert box["right"] <= box["width"] + 0.5 and box["bottom"] <= box["height"] + 0.5, box
    assert box["scrollX"] <= box["width"], box  # nothing sideways either
    # the board's own drawing (the viewBox) is scaled into it whole: the felt is inside too
    felt = page.locator("svg.board rect.felt").bounding_box()
    assert felt is not None
    assert felt["x"] >= -0.5 and felt["x"] + felt["width"] <= box["width"] + 0.5, felt
    assert felt["y"] + felt["height"] <= box["height"] + 0.5, felt


def seats_at_their_arms(page: Page) -> None:
    """Each seat's panel names its player and lies nearer its own arm than any other."""
    found = page.evaluate(
        """() => {
          const snap = window.junqi.table.snapshot;
          const board = window.junqi.boards.get(snap.game?.board ?? snap.board);
          const centre = (r) => [r.left + r.width / 2, r.top + r.height / 2];
          const arms = {};
          for (const s of board.stations) {
            if (s.seat === null) continue;
            const hit = document.querySelector(`circle.hit[data-station="${s.id}"]`);
            const r = hit.getBoundingClientRect();
            (arms[s.seat] ??= []).push(centre(r));
          }
          const sum = (pts, i) => pts.reduce((a, p) => a + p[i], 0);
          const mean = (pts) => [sum(pts, 0) / pts.length, sum(pts, 1) / pts.length];
          return snap.seats.map((s) => {
            const panel = document.querySelector(`.seat-panel[data-seat="${s.seat}"]`);
            const [x, y] = centre(panel.getBoundingClientRect());
            const dist = Object.fromEntries(Object.entries(arms).map(([seat, pts]) => {
              const [ax, ay] = mean(pts); return [seat, Math.hypot(ax - x, ay - y)]; }));
            // a bot is named by its place at the table, counted from 1 (seats.js)
            const name = s.bot ? `机器人${s.seat + 1}` : s.name;
            return { seat: s.seat, name, text: panel.textContent, dist };
          });
        }"""
    )
    for seat in found:
        nearest = min(seat["dist"], key=seat["dist"].get)
        assert int(nearest) == seat["seat"], seat
        if seat["name"]:
            assert seat["name"] in seat["text"], seat


def marks_on_top(page: Page, station: str, mark: str, centre: bool = False) -> None:
    """The mark ``mark`` (a selector) of ``station`` is painted over the piece standing there:
    later in the drawing, around it, and above it under the pointer on the mark's outline (or,
    for a filled mark, at the piece's ``centre``)."""
    page.wait_for_function(  # a piece that just moved has slid to its station
        "() => document.getAnimations().every((a) => a.animationName !== 'slide'"
        " || a.playState === 'finished')"
    )
    result = page.evaluate(
        """([station, selector, centre]) => {
          const piece = document.querySelector(`[data-piece="${station}"]`);
          const mark = document.querySelector(selector);
          if (!piece || !mark) return { missing: !piece ? "piece" : "mark" };
          const p = piece.getBoundingClientRect();
          const outline = mark.matches("path, rect") ? mark : mark.querySelector("path, rect");
          const m = outline.getBoundingClientRect();
          const order = piece.compareDocumentPosition(mark);
          const after = Boolean(order & Node.DOCUMENT_POSITION_FOLLOWING);
          const covers = m.left <= p.left + 1 && m.right >= p.right - 1
            && m.top <= p.top + 1 && m.bottom >= p.bottom - 1;
          // from the top down: the mark comes before the piece
          const [x, y] = centre
            ? [p.left + p.width / 2, p.top + p.height / 2] : [m.left + 1, m.top + 1];
          const under = document.elementsFromPoint(x, y);
          const markAt = under.findIndex((e) => mark.contains(e));
          const pieceAt = under.findIndex((e) => piece.contains(e));
          const onTop = markAt >= 0 && (pieceAt < 0 ? !centre : markAt < pieceAt);
          return { after, covers, onTop, markAt, pieceAt };
        }""",
        [station, mark, centre],
    )
    assert result.get("after") and result.get("covers") and result.get("onTop"), result


def small_targets(page: Page, least: float = 32) -> list[str]:
    """Every control in view that a finger can press and that is under ``least`` CSS px wide
    or high (stations of a board too small to touch take no taps: the board zooms in)."""
    small: list[str] = page.evaluate(
        """(least) => [...document.querySelectorAll(
            "button, select, input, summary, a, .svg-button, circle.hit")].filter((e) => {
          // a control inside its label is pressed anywhere on the label
          const r = (e.closest("label") ?? e).getBoundingClientRect();
          const shown = r.width > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight
            && r.left < innerWidth && getComputedStyle(e).pointerEvents !== "none"
            && (e.checkVisibility ? e.checkVisibility() : true);
          return shown && (r.width < least || r.height < least);
        }).map((e) => `${e.tagName} ${e.id || e.className?.baseVal || e.className}`
          + ` ${e.textContent.trim().slice(0, 12)}`)""",
        least,
    )
    return small


def tap_targets(page: Page) -> float:
    """The smallest clickable station on the board, in CSS pixels (its shorter side)."""
    size: float = page.evaluate(
        "() => Math.min(...[...document.querySelectorAll('circle.hit')].map((c) => {"
        " const r = c.getBoundingClientRect(); return Math.min(r.width, r.height); }))"
    )
    return size


def label_height(page: Page) -> float:
    """The height of the pieces' rank labels as drawn, in CSS pixels."""
    height: float = page.evaluate(
        "() => Math.min(...[...document.querySelectorAll('.piece .label')]"
        ".map((t) => t.getBoundingClientRect().height).filter((h) => h > 0))"
    )
    return height
