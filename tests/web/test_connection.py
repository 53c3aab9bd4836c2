"""A connection that notices: the page reaches the server through a proxy of the test's that
can go silent (nothing forwarded, nothing closed: a network that drops packets), and the page
must say so within 5 s (``[data-connection="reconnecting"]``), come back within about a second
once traffic flows, send the move made while it was down, and take the moves made after. The
browser's own offline switch: back the moment the ``online`` event comes, not at the end of a
backoff. Debian's Chromium through Playwright, against a real server."""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page

from tests.web.ui import (
    DESKTOP,
    all_seated,
    choose_move,
    enter_as_guest,
    needs_chromium,
    press,
    shot,
    state,
    watch_errors,
)

pytestmark = needs_chromium


class SilentProxy:
    """A TCP proxy on loopback in front of the server that can stop forwarding and start again
    (``hold``, ``flow``): while held, bytes wait in it, new connections are taken and wait too,
    and nothing is closed - what a client sees of a network that went silent."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.flowing = threading.Event()
        self.flowing.set()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self.accept, daemon=True).start()

    def hold(self) -> None:
        self.flowing.clear()

    def flow(self) -> None:
        self.flowing.set()

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                return
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pump, args=(source, sink), daemon=True).start()

    def pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self.flowing.wait()  # read as the hold began: it waits for the flow too
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.flow()
        self.listener.close()
        for end in self.sockets:
            with contextlib.suppress(OSError):
                end.close()


@pytest.fixture
def proxy(server: str) -> Iterator[SilentProxy]:
    port = urlsplit(server).port
    assert port is not None
    silent = SilentProxy(port)
    yield silent
    silent.close()


def my_turn(page: Page) -> None:
    page.wait_for_function(
        "() => Object.keys(window.junqi.table?.snapshot?.game?.legal_moves ?? {}).length > 0",
        timeout=20000,
    )


def play_until_my_turn(page: Page, base: str) -> None:
    """A guest at a table of 二人 against a bot, in play, on the guest's turn."""
    enter_as_guest(page, base)
    page.click("button.play-bots[data-room='liangguo']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_function("() => window.junqi.table.deploy?.draft")
    page.click("#confirm")
    page.wait_for_function("() => window.junqi.table.snapshot.game?.phase === 'playing'")
    my_turn(page)


def moves(page: Page) -> int:
    total: int = state(page, "table.snapshot.game.total_moves")
    return total


def test_a_silent_connection_is_noticed_and_a_move_made_meanwhile_goes_out(
    proxy: SilentProxy, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    play_until_my_turn(page, f"http://127.0.0.1:{proxy.port}")
    assert page.locator("[data-connection]").get_attribute("data-connection") == "online"
    rng = random.Random(5)
    proxy.hold()
    held = time.monotonic()
    page.wait_for_selector("[data-connection='reconnecting']", timeout=6000)
    noticed = time.monotonic() - held
    assert noticed < 5, f"the banner came {noticed:.1f} s after the silence began"
    assert page.locator("[data-connection]").count() == 1  # one element says it
    assert "正在重新连接" in page.inner_text("[data-connection='reconnecting']")
    # a move made while the connection is down: the player is told it waits
    before = moves(page)
    origin, target = choose_move(state(page, "table.snapshot.game"), rng)
    press(page, origin)
    press(page, target)
    page.wait_for_selector("#notice:has-text('重新连接后发出')")
    shot(page, "connection-silent")
    time.sleep(1.5)  # some attempts to reconnect hang in the silence meanwhile
    assert moves(page) == before
    proxy.flow()
    flowed = time.monotonic()
    page.wait_for_selector("[data-connection='online']", timeout=10000)
    back = time.monotonic() - flowed
    assert back < 2.5, f"back online {back:.1f} s after the traffic flowed again"
    # the move made while down went out on the resynced table, and the server took it
    you = state(page, "table.snapshot.you")
    page.wait_for_function(
        """([seat, origin, target]) => window.junqi.table.events.some((e) => e.kind === "moved"
          && e.seat === seat && e.origin === origin && e.target === target)""",
        arg=[you, origin, target],
    )
    # and a move made now the network is back is taken too
    my_turn(page)
    before = moves(page)
    origin, target = choose_move(state(page, "table.snapshot.game"), rng)
    press(page, origin)
    press(page, target)
    page.wait_for_function(f"() => window.junqi.table.snapshot.game.total_moves > {before}")
    assert page.locator("#notice.error").count() == 0
    assert errors == []
    page.close()


def test_the_page_is_back_the_moment_the_browser_is_online(server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    errors = watch_errors(page)
    enter_as_guest(page, server)  # in the lobby, where the backoff grows longest
    page.wait_for_selector("[data-connection='online']")
    context.set_offline(True)
    gone = time.monotonic()
    page.wait_for_selector("[data-connection='reconnecting']", timeout=6000)
    assert time.monotonic() - gone < 2  # the offline event says it at once
    time.sleep(8)  # attempts fail meanwhile, each waiting longer than the last
    context.set_offline(False)
    online = time.monotonic()
    page.wait_for_selector("[data-connection='online']", timeout=10000)
    back = time.monotonic() - online
    assert back < 1.5, f"back online {back:.1f} s after the browser was"
    page.click("button.play-bots[data-room='liangguo']")  # and the socket serves again
    all_seated(page)
    assert [e for e in errors if "ERR_INTERNET_DISCONNECTED" not in e] == []
    context.close()
