"""Accounts in the browser: new passwords of 8 characters, the password change on one's own
profile (its refusals in words, the other sessions signed out, the old password refused), a
guest's profile without the form, a wait said in seconds, and the sign-in page saying why the
server closed the socket for good. Debian's Chromium through Playwright, against a real server.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, WebSocketRoute

from tests.live import live_server
from tests.web.conftest import ROOMS, SETTINGS
from tests.web.test_content_policy import VIOLATIONS, violations
from tests.web.ui import (
    DESKTOP,
    PHONE,
    enter_as_guest,
    needs_chromium,
    resize,
    says,
    shot,
    small_targets,
    watch_errors,
)

pytestmark = needs_chromium
# a name's fifth failed login makes the next wait half a minute: long enough to be seen waiting
SLOW_RETRIES = {**SETTINGS, "JUNQI_LOGIN_BACKOFF_SECONDS": "30"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(tmp_path_factory.mktemp("accounts"), ROOMS, SLOW_RETRIES) as base:
        yield base


def unexpected(errors: list[str]) -> list[str]:
    """The console's errors but the refusals the test asked for (Chromium logs each refused
    request: the page says it in words)."""
    refused = re.compile(r"Failed to load resource: .* status of (401|403|422|429)")
    return [e for e in errors if not refused.search(e)]


def sign_in(page: Page, server: str, token: str) -> None:
    """The page signed in with ``token`` (another device of the same player), in the lobby."""
    page.goto(server)
    page.evaluate("(token) => localStorage.setItem('junqi.token', token)", token)
    page.reload()
    page.wait_for_selector("#lobby .room")


def submit_password(page: Page, current: str, new: str, again: str | None = None) -> None:
    page.fill("#change-password input[name=current]", current)
    page.fill("#change-password input[name=next]", new)
    page.fill("#change-password input[name=again]", new if again is None else again)
    page.click("#save-password")


def message(page: Page, text: str) -> None:
    says(page, "#password-message", text)


def test_a_player_changes_the_password_and_the_other_sessions_end(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    page.add_init_script(VIOLATIONS)
    page.goto(server)
    page.fill("input[name=name]", "换密码")
    page.fill("input[name=password]", "seven77")  # 7: enough for a login, not for a new one
    assert "8" in page.inner_text("#login .sub")
    page.click("button[name=register]")
    says(page, "#notice", "新密码至少要 8 位")
    page.fill("input[name=password]", "old-secret")
    page.click("button[name=register]")
    page.wait_for_selector("#lobby .room")
    # another device of the same player
    token = httpx.post(
        f"{server}/api/auth/login", json={"name": "换密码", "password": "old-secret"}
    ).json()["token"]
    elsewhere = browser.new_context(viewport=DESKTOP).new_page()
    sign_in(elsewhere, server, token)

    page.click("#who")  # the name in the header leads to one's own profile
    page.wait_for_selector("#change-password input[name=current]")
    assert small_targets(page) == []
    submit_password(page, "not-it-at-all", "new-secret-1")
    message(page, "当前密码不对")
    shot(page, "password-wrong-desktop-zh")
    page.click("#lang")
    message(page, "the current password is wrong")  # the same message, in the other language
    shot(page, "password-wrong-desktop-en")
    page.click("#lang")
    submit_password(page, "old-secret", "new-secret-1", "new-secret-2")
    message(page, "两次输入的新密码不一样")
    submit_password(page, "old-secret", "short")
    message(page, "新密码至少要 8 位")
    submit_password(page, "old-secret", "12345678")  # refused by the server: too common
    message(page, "这个密码太常见了")
    submit_password(page, "old-secret", "new-secret-1")
    message(page, "密码已修改, 其他设备上的登录已退出")
    assert page.locator("#password-message.ok").count() == 1
    assert page.input_value("#change-password input[name=current]") == ""  # the form emptied
    shot(page, "password-changed-desktop-zh")
    resize(page, PHONE)
    shot(page, "password-changed-phone-zh")
    page.click("#lang")
    message(page, "Password changed; your other sessions were signed out")
    shot(page, "password-changed-phone-en")
    page.click("#lang")
    resize(page, DESKTOP)

    # the other device is signed out and told why; this one goes on
    elsewhere.wait_for_selector("#login")
    says(elsewhere, "#notice", "登录已失效, 请重新登录")
    page.click("#to-lobby")
    page.wait_for_selector("#lobby .room")
    page.wait_for_function("() => window.junqi.connection === 'online'")
    # the old password no longer signs in, the new one does
    elsewhere.fill("input[name=name]", "换密码")
    elsewhere.fill("input[name=password]", "old-secret")
    elsewhere.click("button[name=login]")
    says(elsewhere, "#notice", "名字或密码不对")
    elsewhere.fill("input[name=password]", "new-secret-1")
    elsewhere.click("button[name=login]")
    elsewhere.wait_for_selector("#lobby .room")
    assert violations(page) == []
    assert unexpected(errors) == []
    elsewhere.context.close()
    page.close()


def test_the_form_at_a_phone_and_a_guest_without_a_password(server: str, browser: Browser) -> None:
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    errors = watch_errors(phone)
    credentials = {"name": "手机玩家", "password": "phone-secret"}
    token = httpx.post(f"{server}/api/auth/register", json=credentials).json()["token"]
    sign_in(phone, server, token)
    phone.tap("#who")
    phone.wait_for_selector("#change-password input[name=current]")
    assert small_targets(phone) == []
    shot(phone, "password-form-phone-zh")
    submit_password(phone, "wrong-one", "new-secret-1")
    message(phone, "当前密码不对")
    shot(phone, "password-wrong-phone-zh")
    phone.context.close()

    guest = browser.new_page(viewport=DESKTOP)
    errors += watch_errors(guest)
    enter_as_guest(guest, server)
    guest.click("#who")
    guest.wait_for_selector("#guest-no-password")
    assert guest.locator("#change-password input").count() == 0
    assert "注册" in guest.inner_text("#guest-no-password")
    shot(guest, "password-guest-desktop-zh")
    assert unexpected(errors) == []
    guest.close()


def test_a_wait_is_said_in_seconds(server: str, browser: Browser) -> None:
    """Failed logins for a name make the next wait (login_wait, Retry-After): the page says how
    long. The hashing queue's busy answer says so too (made here by the page's route)."""
    name = "等一等"
    httpx.post(f"{server}/api/auth/register", json={"name": name, "password": "right-one"})
    for _ in range(5):
        httpx.post(f"{server}/api/auth/login", json={"name": name, "password": "wrong-one"})
    page = browser.new_page(viewport=DESKTOP)
    page.goto(server)
    page.fill("input[name=name]", name)
    page.fill("input[name=password]", "wrong-one")
    page.click("button[name=login]")
    said = page.wait_for_function(
        "() => document.querySelector('#notice')?.textContent"
    ).json_value()
    assert re.search(r"请 \d+ 秒后再试", said), said

    def busy(route: Route) -> None:
        route.fulfill(
            status=429,
            headers={"X-Error-Code": "busy", "Retry-After": "3"},
            json={"detail": "too many password checks at once: try again in a moment"},
        )

    page.route("**/api/auth/login", busy)
    page.click("#lang")
    page.click("button[name=login]")
    says(page, "#notice", "the server is busy: try again in 3 s")
    page.close()


def closed_for_good(browser: Browser, server: str, code: int, reason: str) -> tuple[str, int]:
    """A signed-in page whose socket the server closes with ``code`` and ``reason``: what the
    sign-in page it goes back to says, and how many sockets it opened meanwhile."""
    token = httpx.post(f"{server}/api/auth/guest").json()["token"]
    page = browser.new_page(viewport=DESKTOP)
    opened: list[WebSocketRoute] = []

    def refuse(ws: WebSocketRoute) -> None:
        opened.append(ws)
        ws.on_message(lambda _: ws.close(code=code, reason=reason))

    page.route_web_socket("**/ws", refuse)
    page.goto(server)
    page.evaluate("(token) => localStorage.setItem('junqi.token', token)", token)
    page.reload()  # signed in, then refused: back on the sign-in page, which says why
    said = page.wait_for_function(
        "() => document.querySelector('#notice')?.textContent"
    ).json_value()
    page.wait_for_timeout(800)  # longer than the first reconnection's backoff
    assert page.evaluate("() => localStorage.getItem('junqi.token')") is None
    page.close()
    return said, len(opened)


def test_a_socket_closed_for_a_ban_or_an_ended_login_is_not_reopened(
    server: str, browser: Browser
) -> None:
    said, sockets = closed_for_good(browser, server, 4003, "a ban covers this address")
    assert "网络地址" in said and "封禁" in said and sockets == 1
    said, sockets = closed_for_good(browser, server, 4003, "banned")
    assert said == "你的账号已被封禁, 不能登录" and sockets == 1
    said, sockets = closed_for_good(browser, server, 4401, "the login expired")
    assert said == "登录已失效, 请重新登录" and sockets == 1
