"""The browser client's socket: it signs in by its first message (no token in its address),
comes back after a close for being too far behind (4008) and reopens its table from the last
event it saw, and says so while its user has too many sockets open (4429). Debian's Chromium
through Playwright, against a real server."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from typing import Any

from playwright.sync_api import Browser, Page
from websockets.exceptions import ConnectionClosed

from tests.server.sockets import live_socket
from tests.web.ui import (
    DESKTOP,
    all_seated,
    enter_as_guest,
    needs_chromium,
    says,
    shot,
    watch_errors,
)

pytestmark = needs_chromium

# every frame the page's sockets send, in order, as [the socket's number, the frame] (installed
# before the page's own scripts run)
RECORD_FRAMES = """
window.sentFrames = [];
const numbers = new WeakMap();
let sockets = 0;
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) {
  if (!numbers.has(this)) numbers.set(this, ++sockets);
  window.sentFrames.push([numbers.get(this), JSON.parse(data)]);
  return send.call(this, data);
};
"""


def frames(page: Page, socket: int) -> list[dict[str, Any]]:
    """What the page's ``socket``-th socket sent, in order."""
    sent = page.evaluate("() => window.sentFrames")
    return [frame for number, frame in sent if number == socket]


def test_the_client_signs_in_by_message_and_resyncs_after_falling_behind(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    page.add_init_script(RECORD_FRAMES)
    enter_as_guest(page, server)
    token = page.evaluate("() => localStorage.getItem('junqi.token')")
    device = page.evaluate("() => localStorage.getItem('junqi.device')")  # this browser's id
    auth = {"type": "auth", "token": token, "device": device}
    assert page.evaluate("() => window.junqi.socket.ws.url") == server.replace("http", "ws") + "/ws"
    assert frames(page, 1)[0] == auth
    page.click("button.play-bots[data-room='duel']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_function("() => window.junqi.table.deploy?.draft")
    table = page.evaluate("() => window.junqi.table.id")
    seen = page.evaluate(f"() => window.junqi.socket.open.get('{table}')")
    assert seen > 0  # the game's first events came
    # the server gives a socket up that reads too slowly (4008): here the page's own close,
    # which the server answers with the same code, stands in for it
    page.evaluate("() => window.junqi.socket.ws.close(4008, 'too far behind')")
    page.wait_for_selector("#offline")
    page.wait_for_selector("#online", timeout=15000)
    page.wait_for_function("() => window.sentFrames.some(([n, f]) => n === 2 && f.type === 'open')")
    again = frames(page, 2)
    assert again[0] == auth  # signed in first, then the rest
    (reopened,) = [f for f in again if f["type"] == "open"]
    assert (reopened["table"], reopened["since"]) == (table, seen)
    page.click("#confirm")  # the table plays on over the new socket
    page.wait_for_function("() => window.junqi.table.snapshot.game.phase === 'playing'")
    assert errors == []
    page.close()


def test_the_client_says_when_its_user_has_too_many_sockets(server: str, browser: Browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    token = page.evaluate("() => localStorage.getItem('junqi.token')")
    page.goto("about:blank")  # the page's socket goes
    with ExitStack() as stack:
        for _ in range(8):  # the 8 a user may open (once the server has seen the page's go)
            for _ in range(50):
                ws = stack.enter_context(live_socket(server, token))
                try:
                    assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
                    break
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None and closed.rcvd.code == 4429
                    time.sleep(0.1)
        page.goto(server)  # the page comes back: its socket is refused, and it says why
        says(page, "#offline", "页面太多")
        shot(page, "too-many-sockets")
        stack.pop_all().close()  # the others close: it gets in
        page.wait_for_selector("#online", timeout=20000)
    page.wait_for_selector("#offline", state="detached")
    assert page.evaluate("() => window.junqi.connection") == "online"
    assert errors == []
    page.close()


# The client's socket handling, fed by hand: a snapshot of the table's owner at epoch 2, then
# what a server that lost the table still sends (epoch 1), an update older than the snapshot,
# the owner's next update, and a new owner's snapshot (epoch 3). Returns the versions shown.
FEED_EPOCHS = """
async () => {
  const { Socket } = await import("/js/api.js");
  const shown = [];
  const socket = new Socket("", { message: (m) => shown.push(m.snapshot?.version ?? null) });
  const snapshot = (version) => ({ version, seq: version, game: null });
  const message = (type, epoch, version) =>
    ({ type, table: "t", epoch, version, events: [], snapshot: snapshot(version) });
  for (const [type, epoch, version] of [
    ["table", 2, 10], ["update", 1, 11], ["update", 2, 9], ["update", 2, 11], ["table", 1, 12],
    ["table", 3, 12],
  ]) socket.receive(message(type, epoch, version));
  return shown;
}
"""


def test_the_client_drops_what_a_server_that_lost_the_table_sends(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    try:
        page.goto(server)
        assert page.evaluate(FEED_EPOCHS) == [10, 11, 12]
    finally:
        page.close()
