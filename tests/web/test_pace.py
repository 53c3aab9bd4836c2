"""Seeing what happened (issue 44, part 6), in Debian's Chromium against a real server whose
bots keep their table's pace: two fights that come almost together are both shown, one after
the other; the tab's title says when it is your turn; a browser notification, asked for only
when the player turns it on, comes when it is your turn in a hidden tab; the table's creator
sets the bots' pace."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.live import live_server
from tests.server.sockets import LiveSocket, Player, live_socket
from tests.server.test_realtime import start_game
from tests.web.ui import (
    DESKTOP,
    enter_as_guest,
    needs_chromium,
    shot,
    state,
    wait_newer,
    watch_errors,
)
from tests.web.ui import Player as PagePlayer

pytestmark = needs_chromium

ROOMS = [
    {
        "id": "liangguo",
        "name": "二人 一室",
        "variant": "liangguo",
        "options": {"max_total_moves": 400, "surrender_after_seconds": 0},
    }
]
# bots keep their table's pace as it is (the other browser tests' servers scale it to 0)
SETTINGS = {"JUNQI_BOT_PAUSE_SECONDS": "0.05", "JUNQI_BOT_PACE_SCALE": "1"}

# every fight popup the page draws: its event's number, when it came and went (ms), and which
# seat's last move the board marked as the latest meanwhile (installed before the page's scripts)
WATCH_FIGHTS = """
window.fightsShown = [];
new MutationObserver((changes) => {
  const now = performance.now();
  for (const change of changes) {
    for (const node of change.addedNodes) {
      if (node.nodeType !== 1) continue;
      for (const f of [node, ...node.querySelectorAll("*")].filter((n) => n.dataset?.fight)) {
        const latest = document.querySelector(".last-to.latest")?.dataset.last;
        const seq = Number(f.dataset.seq);
        window.fightsShown.push({ seq, shown: now, gone: null, latest: Number(latest) });
      }
    }
    for (const node of change.removedNodes) {
      if (node.nodeType !== 1) continue;
      for (const f of [node, ...node.querySelectorAll("*")].filter((n) => n.dataset?.fight)) {
        const shown = window.fightsShown.findLast((s) => s.seq === Number(f.dataset.seq));
        if (shown) shown.gone = now;
      }
    }
  }
}).observe(document, { childList: true, subtree: true });
"""

# window.Notification as the page sees it, observed: what was asked and shown; and a tab the
# test hides (``window.hideTab``)
FAKE_NOTIFICATIONS = """
window.notified = [];
window.permissionAsked = 0;
window.hideTab = false;
class Watched {
  static permission = "default";
  static async requestPermission() {
    window.permissionAsked += 1;
    Watched.permission = "granted";
    return "granted";
  }
  constructor(title, options) { window.notified.push({ title, body: options?.body }); }
  close() {}
}
window.Notification = Watched;
const visibility = () => (window.hideTab ? "hidden" : "visible");
Object.defineProperty(document, "visibilityState", { get: visibility });
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(tmp_path_factory.mktemp("pace"), ROOMS, SETTINGS) as base:
        yield base


def guest(stack: ExitStack, base: str, name: str) -> Player:
    token = httpx.post(f"{base}/api/auth/guest").json()["token"]
    player = Player(LiveSocket(stack.enter_context(live_socket(base, token))), name)
    assert player.receive()["type"] == "welcome"
    return player


def attack(game: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A move: a fight whenever one is at hand."""
    legal: dict[str, list[str]] = game["legal_moves"]
    occupied = {p["station"] for p in game["pieces"]}
    fights = [(o, t) for o, targets in legal.items() for t in targets if t in occupied]
    origin, target = (
        rng.choice(fights) if fights else (o := rng.choice(sorted(legal)), rng.choice(legal[o]))
    )
    return {"type": "move", "origin": origin, "target": target}


def test_two_fights_of_a_round_are_both_shown_one_after_the_other(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    page.add_init_script(WATCH_FIGHTS)
    rng = random.Random(4)
    with ExitStack() as stack:
        players = [guest(stack, server, "red"), guest(stack, server, "blue")]
        table = players[0].request({"type": "create_table", "room": "liangguo"})["table"]
        for seat, player in enumerate(players):
            assert player.request({"type": "sit", "table": table, "seat": seat})["type"] == "ok"
        enter_as_guest(page, server)  # a spectator
        page.evaluate(f"location.hash = '#table/{table}'")
        page.wait_for_function("() => window.junqi.table?.snapshot?.seats.every((s) => s.name)")
        start_game(players[0], players[1], table, 8)
        # each side attacks when it can, at once: until two fights in a row came within half a
        # second (when, the event's number if it was a fight, the seat)
        moves: list[tuple[float, int | None, int]] = []

        def paired() -> bool:
            return (
                len(moves) > 1
                and all(m[1] for m in moves[-2:])
                and (moves[-1][0] - moves[-2][0] < 0.5)
            )

        while not paired():
            game = players[0].game
            assert game["phase"] == "playing", "the game ended before two fights in a row"
            seat = game["to_move"]
            mover = players[seat]
            mover.sync(players[0].version)
            reply = mover.act(table, attack(mover.game, rng))
            assert reply["type"] == "ok", reply
            for p in players:
                p.sync(reply["version"])
            update = next(
                m
                for m in reversed(players[0].received)
                if m["type"] == "update" and m["version"] == reply["version"]
            )
            moved = next(e for e in update["events"] if e["kind"] == "moved")
            moves.append((time.monotonic(), moved["seq"] if moved["outcome"] else None, seat))
        time.sleep(3.5)  # the page shows what it was sent
    seen = page.evaluate("() => window.fightsShown")
    shown = {s["seq"]: s for s in seen}
    real = [(seq, seat) for _, seq, seat in moves if seq]
    assert [s["seq"] for s in seen if s["seq"] in dict(real)] == [seq for seq, _ in real]
    for seq, seat in real:  # each with its mover's last move marked as the latest
        assert shown[seq]["latest"] == seat, (seq, seen)
    (first, _), (second, _) = real[-2:]  # the two that came within half a second
    assert shown[first]["gone"] - shown[first]["shown"] >= 700, seen  # long enough to read
    assert shown[second]["shown"] >= shown[first]["gone"], seen  # then the next one
    assert errors == []
    page.close()


def against_a_bot(page: Page, server: str, pace: str) -> None:
    """Play now (二人, one bot) at ``pace``, chosen before in this browser; deployed, in play."""
    enter_as_guest(page, server)
    page.evaluate(f"localStorage.setItem('junqi.pace', '{pace}')")
    assert page.title() == "军棋"
    page.click("button.play-bots[data-room='liangguo']")
    page.wait_for_selector("#ready")
    page.click("#ready")
    page.wait_for_selector("#confirm:not([disabled])")
    page.click("#confirm")
    page.wait_for_function("() => window.junqi.table?.snapshot?.game?.phase === 'playing'")
    assert state(page, "table.snapshot.pace") == pace


def play_once(page: Page, me: PagePlayer) -> None:
    """One move of the player's, and the table's answer to it: the next look at the table is
    at the state after the move, not at the one it was made in."""
    version = state(page, "table.snapshot.version")
    me.play(state(page, "table.snapshot.game"))
    wait_newer(page, version)


def my_turn(page: Page) -> None:
    page.wait_for_function(
        "() => { const s = window.junqi.table.snapshot;"
        " return s.game.to_move === s.you && Boolean(s.game.legal_moves); }",
        timeout=15000,
    )


def test_the_tab_title_says_when_it_is_your_turn(server: str, browser: Browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    against_a_bot(page, server, "slow")
    me = PagePlayer(page, seed=2)
    for _ in range(2):
        my_turn(page)
        page.wait_for_function("() => document.title === '轮到你走棋 · 军棋'")
        play_once(page, me)
        # the bot waits 3 s (slow): meanwhile the title is the usual one
        page.wait_for_function("() => document.title === '军棋'", timeout=2000)
        assert state(page, "table.snapshot.game.to_move") != state(page, "table.snapshot.you")
    page.click("#lang")
    my_turn(page)
    page.wait_for_function("() => document.title === 'Your turn · Junqi'")
    shot(page, "pace-title-your-turn")
    assert errors == []
    page.close()


def test_a_notification_when_it_is_your_turn_in_a_hidden_tab(server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP, permissions=["notifications"])
    page = context.new_page()
    errors = watch_errors(page)
    page.add_init_script(FAKE_NOTIFICATIONS)
    against_a_bot(page, server, "fast")
    assert page.evaluate("() => window.permissionAsked") == 0  # not before the player asks
    assert page.get_attribute("#notify", "aria-pressed") == "false"
    page.click("#notify")
    page.wait_for_selector("#notify[aria-pressed='true']")
    assert page.evaluate("() => window.permissionAsked") == 1
    me = PagePlayer(page, seed=3)
    my_turn(page)
    play_once(page, me)  # visible: the bot answers, no notification
    my_turn(page)
    assert page.evaluate("() => window.notified") == []
    page.evaluate("() => { window.hideTab = true; }")
    play_once(page, me)
    page.wait_for_function("() => window.notified.length === 1")
    note = page.evaluate("() => window.notified[0]")
    assert note["title"] == "轮到你走棋"
    page.evaluate("() => { window.hideTab = false; }")
    page.click("#notify")  # off again: no more
    page.wait_for_selector("#notify[aria-pressed='false']")
    page.evaluate("() => { window.hideTab = true; }")
    play_once(page, me)
    my_turn(page)
    time.sleep(0.3)
    assert page.evaluate("() => window.notified.length") == 1
    assert errors == []
    context.close()


def test_the_creator_sets_the_bots_pace_at_the_table(server: str, browser: Browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    against_a_bot(page, server, "normal")
    assert page.locator("#pace").input_value() == "normal"
    page.select_option("#pace", "fast")
    page.wait_for_function("() => window.junqi.table.snapshot.pace === 'fast'")
    assert page.evaluate("() => localStorage.getItem('junqi.pace')") == "fast"  # the next table's
    shot(page, "pace-at-table")
    assert errors == []
    page.close()
