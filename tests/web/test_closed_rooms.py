"""A room an admin closes (issue #25, point 4), in the browser: a player waiting at a table of it
is sent back to the lobby with a word that says so, and the lobby shows the room, marked closed
and with no way to open a table, while a game of it is still running. Debian's Chromium through
Playwright, against a real server; the game is played by two scripted sockets."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from server.db import Database
from server.moderation import set_role
from tests.live import live_server
from tests.server.sockets import LiveSocket, Player, live_socket
from tests.server.test_realtime import start_game
from tests.web.conftest import ROOMS, SETTINGS
from tests.web.ui import DESKTOP, enter_as_guest, needs_chromium, says, shot, watch_errors

pytestmark = needs_chromium
REASON = {"reason": "test"}


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    directory = tmp_path_factory.mktemp("rooms")
    with live_server(directory, ROOMS, SETTINGS) as base:
        yield base, directory


def player(stack: ExitStack, base: str, name: str) -> Player:
    token = httpx.post(f"{base}/api/auth/register", json={"name": name, "password": "secret-pw"})
    ws = stack.enter_context(live_socket(base, token.json()["token"]))
    joined = Player(LiveSocket(ws), name)
    assert joined.receive()["type"] == "welcome"
    return joined


def admin_headers(base: str, directory: Path) -> dict[str, str]:
    token = httpx.post(f"{base}/api/auth/register", json={"name": "boss", "password": "secret-pw"})
    database = Database(f"sqlite+aiosqlite:///{directory / 'live.db'}")

    async def appoint() -> bool:
        try:
            return await set_role(database.sessions, "boss", "admin")
        finally:
            await database.close()

    with ThreadPoolExecutor(1) as thread:  # Playwright runs an event loop in this one
        assert thread.submit(asyncio.run, appoint()).result()
    return {"Authorization": f"Bearer {token.json()['token']}"}


def test_a_closed_room_sends_its_waiting_players_away_and_shows_its_running_game(
    place: tuple[str, Path], browser: Browser
) -> None:
    base, directory = place
    headers = admin_headers(base, directory)
    with ExitStack() as stack:
        # a game of the room "liangguo", played by two sockets
        alice, bob = player(stack, base, "alice"), player(stack, base, "bob")
        running = alice.request({"type": "create_table", "room": "liangguo"})["table"]
        assert alice.request({"type": "sit", "table": running, "seat": 0})["type"] == "ok"
        assert bob.request({"type": "sit", "table": running, "seat": 1})["type"] == "ok"
        start_game(alice, bob, running, 2)

        page = browser.new_page(viewport=DESKTOP)
        errors = watch_errors(page)
        enter_as_guest(page, base)
        page.locator(".room[data-room='liangguo'] button.create").click()
        page.wait_for_selector(".seat-panel[data-seat]")
        waiting = page.url.split("#table/")[1]

        closed = httpx.post(f"{base}/admin/rooms/liangguo/close", headers=headers, json=REASON)
        assert closed.status_code == 200, closed.text
        says(page, "#notice", "管理员关闭了这个房间")
        assert "#table/" not in page.url
        room = page.locator(".room.closed[data-room='liangguo']")
        room.wait_for()
        assert "已关闭" in room.locator("header").inner_text()
        assert room.locator("button.create, button.play-bots").count() == 0
        assert room.locator(f".table-row[data-table='{running}']").count() == 1
        # the waiting table's row goes with the lobby's update that drops it, maybe a moment later
        row = room.locator(f".table-row[data-table='{waiting}']")
        row.wait_for(state="detached", timeout=5000)
        shot(page, "room-closed")
        # the game ends (bob leaves: an escape); no table of the room is left, nor the room
        assert bob.request({"type": "leave", "table": running})["type"] == "ok"
        assert alice.request({"type": "leave", "table": running})["type"] == "ok"
        page.wait_for_function(
            "() => !document.querySelector(\".room[data-room='liangguo'] .table-row\")"
            " || window.junqi.lobby.rooms.every((r) => r.id !== 'liangguo'"
            " || r.tables.every((t) => t.status !== 'playing'))"
        )
        reopened = httpx.post(f"{base}/admin/rooms/liangguo/reopen", headers=headers, json=REASON)
        assert reopened.status_code == 200
        page.locator(".room:not(.closed)[data-room='liangguo'] button.create").wait_for()
        assert errors == []
        page.close()
