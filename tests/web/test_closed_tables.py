"""Tables in the browser: one that changes its room's rules says it plays unrated (in the lobby
and at the table), and one that closes for want of players sends its watchers back to the lobby
with a word. Debian's Chromium through Playwright, against a real server whose tables close
after two idle seconds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.live import live_server
from tests.web.conftest import ROOMS, SETTINGS
from tests.web.ui import DESKTOP, enter_as_guest, needs_chromium, says, shot, watch_errors

pytestmark = needs_chromium
QUICK_CLOSE = {**SETTINGS, "JUNQI_IDLE_TABLE_SECONDS": "2", "JUNQI_SEAT_GRACE_SECONDS": "0.5"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(tmp_path_factory.mktemp("closing"), ROOMS, QUICK_CLOSE) as base:
        yield base


def test_an_unrated_table_says_so_and_a_closed_one_sends_its_watchers_away(
    server: str, browser: Browser
) -> None:
    owner = browser.new_page(viewport=DESKTOP)
    enter_as_guest(owner, server)
    room = owner.locator(".room[data-room='duel']")
    room.locator("details summary").click()
    room.locator("input[name='move_seconds']").fill("45")
    room.locator("button.create").click()
    owner.wait_for_selector(".seat-panel[data-seat]")
    table = owner.url.split("#table/")[1]
    says(owner, ".table-info .unrated-note", "桌规与房间不同")

    watcher = browser.new_page(viewport={"width": 390, "height": 844})
    errors = watch_errors(watcher)
    enter_as_guest(watcher, server)
    row = watcher.locator(f".table-row[data-table='{table}']")
    assert row.locator(".unrated").inner_text() == "不计分 · 改了桌规"
    watcher.goto(f"{server}/#table/{table}")
    watcher.wait_for_selector(".seat-panel[data-seat]")

    owner.close()  # the only player leaves: the seat empties, then the table closes
    says(watcher, "#notice", "桌子无人, 已经关闭")
    shot(watcher, "table-closed-phone")
    assert "#table/" not in watcher.url
    assert watcher.locator("#lobby").count() == 1
    # the lobby's own update that drops the row may come a moment after the table's notice
    watcher.wait_for_selector(f".table-row[data-table='{table}']", state="detached", timeout=5000)
    assert errors == []
    watcher.close()
