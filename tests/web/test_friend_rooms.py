"""A friend room (好友房) in the browser: made from the lobby's dialog, its link opened by a
second, fresh page that signs in as a guest and joins by the code; a 二人 game between the two
ended by a surrender, then 再来一局 pressed on both result cards starts the next game at the
same table. Debian's Chromium through Playwright."""

from __future__ import annotations

from playwright.sync_api import Browser, Page

from tests.web.ui import (
    DESKTOP,
    PHONE,
    drawn,
    enter_as_guest,
    needs_chromium,
    says,
    shot,
    state,
    watch_errors,
)

pytestmark = needs_chromium


def small_controls(page: Page, within: str) -> list[str]:
    """The controls inside ``within`` a finger would miss: under 32 CSS px either way."""
    small: list[str] = page.evaluate(
        """(within) => [...document.querySelectorAll(`${within} :is(button, input, select)`)]
          .filter((e) => {
            const r = e.getBoundingClientRect();
            return r.width < 32 || r.height < 32;
          })
          .map((e) => e.outerHTML.slice(0, 60))""",
        within,
    )
    return small


def deploy_and_wait(page: Page) -> None:
    page.wait_for_selector("#confirm:not([disabled])")
    page.click("#confirm")


def test_a_friend_room_is_joined_by_its_link_and_played_again(
    server: str, browser: Browser
) -> None:
    host = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(host)
    enter_as_guest(host, server)
    host.click(".room[data-room='liangguo'] button.create-friend")
    host.wait_for_selector("#friend-dialog")
    shot(host, "friend-room-dialog")
    host.select_option("#friend-dialog select[name='watch']", "nobody")
    host.click("#friend-create")
    host.wait_for_selector("#room-code")
    code = host.inner_text("#room-code")
    assert len(code) == 6
    says(host, "#friend-room", "不许旁观")
    shot(host, "friend-room-table")

    friend = browser.new_page(viewport=PHONE)
    errors += watch_errors(friend)
    friend.goto(f"{server}/#join/{code.lower()}")  # as a chat app opens it: not signed in
    friend.click("#guest")
    friend.wait_for_selector(".seat-panel[data-seat]")
    assert state(friend, "table.snapshot.friend_room.code") == code
    friend.click(".seat-panel[data-seat='1'] .svg-button[data-action='sit']")
    friend.wait_for_function("() => window.junqi.table?.snapshot?.you === 1")
    drawn(friend)
    friend.locator("#friend-room").scroll_into_view_if_needed()
    shot(friend, "friend-room-phone")
    assert small_controls(friend, "#friend-room") == []

    # the host swaps the two seats, and back (seat 1 and seat 2 are chosen to start with)
    for seat in (1, 0):
        host.click("#arrange button[type='submit']")
        host.wait_for_function("(seat) => window.junqi.table.snapshot.you === seat", arg=seat)
    for page in (host, friend):
        page.click("#ready")
    for page in (host, friend):
        deploy_and_wait(page)
    host.wait_for_selector("#surrender")
    host.click("#surrender")
    host.click("#modal-confirm")
    for page in (host, friend):
        page.wait_for_selector("#rematch-box #rematch")
    host.click("#rematch")
    says(friend, "#rematch-box", "同意再来一局")
    shot(friend, "rematch-card-phone")
    host.wait_for_selector("#rematch-withdraw")
    first = state(host, "table.snapshot.game_id")
    friend.click("#rematch")
    for page in (host, friend):
        page.wait_for_function(
            "(first) => window.junqi.table.snapshot.status === 'playing'"
            " && window.junqi.table.snapshot.game_id !== first",
            arg=first,
        )
    assert state(host, "table.snapshot.seats[1].name") == state(friend, "user.name")

    # an invite from the table reaches the friend's page, in English here
    friend.click("#lang")
    host.fill("#invite-form input[name='user']", state(friend, "user.name"))
    host.click("#invite-button")
    says(friend, "#invites", "invites you to a game of")
    says(host, "#notice", "已邀请")
    friend.locator("#friend-room").scroll_into_view_if_needed()
    shot(friend, "friend-room-invited-phone-en")
    host.click("#lang")
    drawn(host)
    shot(host, "friend-room-table-en")
    # the lobby lists no friend room, but offers the way back to one's own
    host.click("#to-lobby")
    host.click("#back-to-friend-room button")
    host.wait_for_function("() => window.junqi.table?.snapshot?.you === 0")
    assert errors == []
