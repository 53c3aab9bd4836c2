"""The browser client under the server's Content-Security-Policy (``server.hardening``): the
lobby, a table, a deployment with a piece dragged, a game played and given up, its replay, 乱战's
colour pick and a phone's zoomed board, with not one violation of the policy and nothing in the
console. Debian's Chromium through Playwright, against a real server."""

from __future__ import annotations

from playwright.sync_api import Browser, FilePayload, Page

from tests.web.ui import (
    DESKTOP,
    PHONE,
    Player,
    all_seated,
    drag,
    needs_chromium,
    press,
    says,
    state,
    watch_errors,
)

pytestmark = needs_chromium
LIMIT = 64 * 1024  # JUNQI_MAX_BODY_BYTES

# every violation of the policy, as the page hears of it, from before its first script runs
VIOLATIONS = """
window.violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
});
"""


def violations(page: Page) -> list[str]:
    found: list[str] = page.evaluate("() => window.violations")
    return found


def open_page(browser: Browser, server: str, phone: bool = False) -> tuple[Page, list[str]]:
    """A guest's page in the lobby, watched for violations and console errors."""
    if phone:
        page = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True).new_page()
    else:
        page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    page.add_init_script(VIOLATIONS)
    response = page.goto(server)
    assert response is not None
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    page.click("#guest")
    page.wait_for_selector("#lobby .room")
    return page, errors


def test_the_client_runs_under_its_content_security_policy(server: str, browser: Browser) -> None:
    page, errors = open_page(browser, server)
    assert violations(page) == []
    page.click("button.play-bots[data-room='liangguo']")  # a table: seats, panels, board
    all_seated(page)
    page.click("#ready")
    page.wait_for_selector("#confirm:not([disabled])")  # deployment
    draft = state(page, "table.deploy.draft")
    drag(page, "0:12", "0:14")  # the dragged piece is a copy of the drawn one, styles and all
    page.wait_for_function(
        "(rank) => window.junqi.table.deploy.draft['0:12'] === rank", arg=draft["0:14"]
    )
    # at once a file far larger than a layout: the server refuses it unread (413), said in words
    # that stay when the dragged draft reaches the server a moment later (the page sends it by
    # itself: no action of the player's, which would end the notice)
    big: FilePayload = {"name": "big.txt", "mimeType": "text/plain", "buffer": b"#" * (LIMIT + 1)}
    page.set_input_files("#import", files=[big])
    says(page, "#notice", "内容太大")
    page.wait_for_function(
        "(rank) => window.junqi.table.snapshot.game.layout?.['0:12'] === rank", arg=draft["0:14"]
    )
    assert "内容太大" in page.evaluate("() => document.querySelector('#notice')?.textContent ?? ''")
    page.wait_for_function("() => window.junqi.table.deploy.problems.length === 0")
    page.click("#confirm")
    page.wait_for_function("() => window.junqi.table.snapshot.game?.phase === 'playing'")
    player = Player(page, seed=2)
    while state(page, "table.snapshot.game.total_moves") < 3:  # moves slide, last moves marked
        player.decide()
    page.wait_for_selector("#surrender")
    page.click("#surrender")
    page.click("#modal-confirm")  # 投降 is asked first
    page.wait_for_selector("#result")
    page.click("#to-replay")
    page.wait_for_selector("#replay svg.board")
    page.click("#prev")  # a step back, drawn
    page.wait_for_function(
        "() => window.junqi.replay.state"
        " && window.junqi.replay.step === window.junqi.replay.steps - 1"
    )
    assert page.locator("#replay .piece .label").count() > 0

    page.goto(f"{server}/#")  # 乱战: the colour pick, then the hand and the redeal question
    page.wait_for_selector("#lobby .room")
    page.click("button.play-bots[data-room='luanzhan']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_selector("#pick, #redeal", timeout=30000)
    page.wait_for_selector(".chip")
    assert violations(page) == []
    refused = [e for e in errors if "status of 413" in e]  # the big file's, logged by Chromium
    assert len(refused) == 1 and [e for e in errors if e not in refused] == []

    # the listener hears a violation when there is one: an inline style is refused
    page.evaluate("() => document.body.setAttribute('style', 'outline: 1px solid red')")
    page.wait_for_function("() => window.violations.length > 0")
    assert violations(page)[0].startswith("style-src-attr inline")
    page.close()


def test_a_phone_s_zoomed_board_runs_under_the_policy(server: str, browser: Browser) -> None:
    page, errors = open_page(browser, server, phone=True)
    page.tap("button.play-bots[data-room='siguo']")
    all_seated(page)
    assert page.locator("svg.board.overview").count() == 1
    press(page, "0:62", touch=True)  # the first tap zooms in: the board is sized by script
    page.wait_for_selector(".board-box.zoomed")
    assert violations(page) == []
    assert errors == []
    page.context.close()
