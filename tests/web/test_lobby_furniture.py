"""The lobby's furniture: each table drawn with a chair per seat (the sitter's avatar, name,
军衔 and ready mark in the seat's colour; an empty chair sits you there at a click), spectator
counts that follow the spectators, avatars drawn from the name alone, and tap targets of 32 px
at least on a phone."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page

from tests.web.ui import (
    DESKTOP,
    PHONE,
    drawn,
    enter_as_guest,
    needs_chromium,
    resize,
    says,
    shot,
    small_targets,
    state,
    watch_errors,
)

pytestmark = needs_chromium

RED = "rgb(192, 57, 43)"  # seat 0's army (board.js ARMY_COLOURS)


def chair(page: Page, table: str, seat: int) -> str:
    return f".table-row[data-table='{table}'] .chair[data-seat='{seat}']"


def avatar_of(page: Page, selector: str) -> dict[str, Any]:
    """The avatar under ``selector``: its hash and its drawing."""
    found: dict[str, Any] = page.evaluate(
        "(s) => { const a = document.querySelector(s); return a"
        " && { hash: a.dataset.avatar, drawing: a.innerHTML.replace(/<!--.*?-->/g, '') }; }",
        selector,
    )
    assert found, selector
    return found


def test_tables_have_chairs_that_seat_you(server: str, browser: Browser) -> None:
    host = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(host)
    enter_as_guest(host, server)
    host.click("button.create[data-room='siguo']")
    host.wait_for_selector(".seat-panel[data-seat='0']")
    table = state(host, "table.id")
    name = state(host, "user.name")
    host.click("#ready")

    guest = browser.new_page(viewport=DESKTOP)
    errors += watch_errors(guest)
    enter_as_guest(guest, server)
    mine = chair(guest, table, 0)
    guest.wait_for_selector(f"{mine}.ready[data-ready='1'] .ready-mark")
    row = guest.locator(f".table-row[data-table='{table}']")
    assert row.locator(".table-top button.watch").count() == 1  # 旁观 on the table itself
    assert row.locator(".chair").count() == 4
    sitter = guest.locator(mine)
    assert sitter.get_attribute("data-name") == name and name in sitter.inner_text()
    assert sitter.locator("svg.avatar").count() == 1
    assert sitter.locator(".rank-badge").inner_text() == "兵"
    assert sitter.evaluate("(e) => getComputedStyle(e).borderTopColor") == RED
    # the other three are empty chairs that say so, each in its own seat's colour
    empty = row.locator("button.chair.sit")
    assert empty.count() == 3 and all("空位" in text for text in empty.all_inner_texts())
    colours = {c.evaluate("(e) => getComputedStyle(e).borderTopColor") for c in empty.all()}
    assert len(colours) == 3 and RED not in colours
    shot(guest, "lobby-furniture-desktop")

    guest.click(f"button.chair.sit[data-table='{table}'][data-seat='2']")
    guest.wait_for_function("() => window.junqi.table?.snapshot?.you === 2")
    me = state(guest, "user.name")
    host.wait_for_function(f"() => window.junqi.table.snapshot.seats[2].name === {me!r}")
    third = browser.new_page(viewport=DESKTOP)
    enter_as_guest(third, server)
    third.wait_for_selector(f"{chair(third, table, 2)}[data-name='{me}'][data-ready='0']")
    assert third.locator(f"{chair(third, table, 2)} .ready-mark").count() == 0
    assert errors == []


def test_spectators_are_counted_at_the_table_and_in_the_lobby(
    server: str, browser: Browser
) -> None:
    host = browser.new_page(viewport=DESKTOP)
    enter_as_guest(host, server)
    host.click("button.play-bots[data-room='duel']")
    host.wait_for_selector(".seat-panel[data-seat='1']")
    table = state(host, "table.id")
    says(host, ".table-info", "旁观 0")

    onlooker = browser.new_page(viewport=DESKTOP)
    enter_as_guest(onlooker, server)
    lobby = browser.new_page(viewport=DESKTOP)
    enter_as_guest(lobby, server)
    onlooker.click(f"button.watch[data-table='{table}']")
    onlooker.wait_for_selector(".seat-panel[data-seat='1']")
    says(lobby, f"button.watch[data-table='{table}']", "旁观 (1)")
    says(host, ".table-info", "旁观 1")  # the player's own table says so too
    says(onlooker, ".table-info", "旁观 1")
    onlooker.click("#to-lobby")
    says(lobby, f"button.watch[data-table='{table}']", "旁观 (0)")
    says(host, ".table-info", "旁观 0")


def test_an_avatar_is_the_same_for_the_same_name_everywhere(server: str, browser: Browser) -> None:
    host = browser.new_page(viewport=DESKTOP)
    enter_as_guest(host, server)
    host.click("button.create[data-room='duel']")
    host.wait_for_selector(".seat-panel[data-seat='0'] svg.avatar")
    table, name = state(host, "table.id"), state(host, "user.name")
    at_table = avatar_of(host, ".seat-panel[data-seat='0'] svg.avatar")
    assert host.locator(".seat-panel[data-seat='0'] .rank-badge").count() == 1
    shot(host, "seat-panel-avatar")

    other = browser.new_page(viewport=PHONE)
    enter_as_guest(other, server)
    other.wait_for_selector(f"{chair(other, table, 0)} svg.avatar")
    in_lobby = avatar_of(other, f"{chair(other, table, 0)} svg.avatar")
    other.goto(f"{server}/#user/{name}")
    other.wait_for_selector("#profile-view h2 svg.avatar")
    on_profile = avatar_of(other, "#profile-view h2 svg.avatar")
    assert at_table == in_lobby == on_profile
    # another name, another picture
    mine = other.evaluate("() => window.junqi.user.name")
    assert mine != name
    other.goto(f"{server}/#user/{mine}")
    other.wait_for_function(
        "(n) => document.querySelector('#profile-view h2')?.textContent.includes(n)", arg=mine
    )
    assert avatar_of(other, "#profile-view h2 svg.avatar")["hash"] != at_table["hash"]


def lobby_small_targets(page: Page) -> list[str]:
    """Every control under 32 px anywhere in the lobby, scrolled through screen by screen,
    with the options of every room open."""
    page.evaluate("() => document.querySelectorAll('#lobby details').forEach((d) => d.open = true)")
    drawn(page)
    small: set[str] = set()
    height = page.evaluate("() => document.documentElement.scrollHeight")
    for y in range(0, height, 600):
        page.evaluate(f"() => window.scrollTo(0, {y})")
        drawn(page)
        small.update(small_targets(page))
    page.evaluate("() => window.scrollTo(0, 0)")
    return sorted(small)


def test_every_lobby_control_is_a_tap_target_on_a_phone(server: str, browser: Browser) -> None:
    page = browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    # a table of each kind in view: one waiting for players, one in play
    page.click("button.create[data-room='siguo-open']")
    page.wait_for_selector(".seat-panel[data-seat='0']")
    page.evaluate(
        "() => { location.hash = ''; }"
    )  # back to the lobby (the phone's header has no link)
    other = browser.new_page(viewport=DESKTOP)
    enter_as_guest(other, server)
    other.click("button.play-bots[data-room='duel']")
    other.wait_for_selector(".seat-panel[data-seat='1']")
    page.wait_for_selector(".room[data-room='duel'] .table-row .table-top")
    page.wait_for_function("() => document.querySelectorAll('#leaderboard, #games').length === 2")
    drawn(page)
    shot(page, "lobby-furniture-phone")
    assert lobby_small_targets(page) == []
    resize(page, DESKTOP)
    assert lobby_small_targets(page) == []
    assert errors == []
