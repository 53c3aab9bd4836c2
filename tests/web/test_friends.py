"""The lobby's 好友 panel and a profile's 加好友 / 关注 / 屏蔽, as two registered players use them:
one asks by name (desktop, Chinese), the other accepts on a phone (English), each then sees the
other's presence, a seat at a table with its join button; a block from the profile page hides
the blocked one's chat lines from the blocker, and the blocked list undoes it. Debian's
Chromium through Playwright."""

from __future__ import annotations

import secrets

import httpx
from playwright.sync_api import Browser, Page, ViewportSize

from tests.web.ui import DESKTOP, PHONE, needs_chromium, says, shot, small_targets, watch_errors

pytestmark = needs_chromium


def signed_in(browser: Browser, server: str, name: str, size: ViewportSize) -> Page:
    """A page of a new registered player's, in the lobby (signed in by its stored token)."""
    answer = httpx.post(f"{server}/api/auth/register", json={"name": name, "password": "secret-pw"})
    assert answer.status_code == 201, answer.text
    context = browser.new_context(viewport=size, has_touch=size == PHONE)
    token = answer.json()["token"]
    context.add_init_script(f"localStorage.setItem('junqi.token', {token!r})")
    page = context.new_page()
    page.goto(server)
    page.wait_for_selector("#lobby #friends form.add-friend")
    return page


def chat(page: Page, text: str) -> None:
    page.fill("#chat input[name=text]", text)
    page.press("#chat input[name=text]", "Enter")


def test_friends_panel_presence_and_a_block(server: str, browser: Browser) -> None:
    suffix = secrets.token_hex(2)
    ann_name, ben_name = f"ann{suffix}", f"ben{suffix}"
    ann = signed_in(browser, server, ann_name, DESKTOP)
    errors = watch_errors(ann)
    ben = signed_in(browser, server, ben_name, PHONE)
    errors += watch_errors(ben)
    ben.click("#lang")  # ben reads English

    ann.fill("#friends input[name=name]", ben_name)
    ann.click("#friends form.add-friend button")
    says(ann, "#friends .form-message", f"已向 {ben_name} 发出好友申请")
    says(ann, f"#friends .outgoing li[data-name='{ben_name}']", "等待对方回应")
    ben.wait_for_selector(f"#friends .request[data-name='{ann_name}']")  # polled in
    says(ben, "#to-friends", "1 waiting")  # on a phone, the lobby's top leads to the panel
    ben.click("#to-friends")
    ben.wait_for_function(
        "() => document.querySelector('#friends').getBoundingClientRect().top < innerHeight"
    )
    shot(ben, "friends-request-phone")
    assert [t for t in small_targets(ben) if "#friends" in t or "accept" in t] == []
    ben.click(f"#friends .request[data-name='{ann_name}'] button.accept")
    says(ben, f"#friends .friend[data-name='{ann_name}'] .presence", "online (lobby)")
    says(ann, f"#friends .friend[data-name='{ben_name}'] .presence", "在线 (大厅)")

    # ben sits at a table: ann sees it, and her button takes her there
    ben.click("button.create[data-room='duel']")
    ben.wait_for_selector(".seat-panel[data-seat]")
    table = ben.evaluate("() => window.junqi.table.id")
    friend = f"#friends .friend[data-name='{ben_name}']"
    says(ann, f"{friend} .presence", "在桌旁等待")
    shot(ann, "friends-panel-desktop")
    ann.click(f"{friend} button.go[data-table='{table}']")
    ann.wait_for_function(f"() => window.junqi.table?.id === '{table}'")
    ann.goto(f"{server}/#")
    ann.wait_for_selector("#lobby #friends")

    # ben back in the lobby says a line: ann reads it; then ann blocks him from his profile
    ben.goto(f"{server}/#")
    ben.wait_for_selector("#lobby #chat")
    chat(ben, "hello-before")
    says(ann, f"#chat .lines p[data-from='{ben_name}']", "hello-before")
    ann.goto(f"{server}/#user/{ben_name}")
    ann.wait_for_selector("#relation #block")
    shot(ann, "profile-relation-desktop")
    ann.click("#relation #block")
    says(ann, "#relation .blocking", "你已屏蔽此人")
    ann.wait_for_selector("#relation #add-friend[disabled]")
    shot(ann, "profile-blocking-desktop")
    ann.goto(f"{server}/#")
    ann.wait_for_selector("#lobby #chat")
    chat(ben, "hello-after-block")
    chat(ann, "ann-here")
    says(ben, f"#chat .lines p[data-from='{ann_name}']", "ann-here")  # the blocker is heard
    says(ann, f"#chat .lines p[data-from='{ann_name}']", "ann-here")
    assert "hello-after-block" not in ann.inner_text("#chat")
    assert ben_name not in ann.inner_text("#friends")  # the block ended the friendship

    # the blocked list on her own page undoes it
    ann.goto(f"{server}/#user/{ann_name}")
    ann.wait_for_selector(f"#blocked-users li[data-name='{ben_name}']")
    shot(ann, "profile-blocked-desktop")
    ann.click(f"#blocked-users li[data-name='{ben_name}'] button.unblock")
    ann.wait_for_selector(f"#blocked-users li[data-name='{ben_name}']", state="detached")
    ben.goto(f"{server}/#user/{ann_name}")
    ben.wait_for_selector("#relation #follow")
    shot(ben, "profile-relation-phone")
    assert [t for t in small_targets(ben) if "relation" in t] == []
    assert errors == []
    ann.context.close()
    ben.context.close()
