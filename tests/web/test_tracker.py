"""记牌: the piece tracker panel at the table shows, army by army and rank by rank, exactly the
counts the server sent this viewer (``game.tracker``), through a 翻棋 game against a bot, where
every piece that dies is known; collapsible, closed at first on a phone. Debian's Chromium
through Playwright, against a real server."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Browser, Page

from tests.web.ui import (
    DESKTOP,
    PHONE,
    Player,
    all_seated,
    drawn,
    enter_as_guest,
    needs_chromium,
    shot,
    state,
    watch_errors,
)

pytestmark = needs_chromium

SHOWN = """() => [...document.querySelectorAll('[data-tracker] table[data-army]')].map((t) => ({
  army: Number(t.dataset.army),
  ranks: [...t.querySelectorAll('tr[data-rank]')].map((r) => [r.dataset.rank,
    r.querySelector('[data-total]').textContent, r.querySelector('[data-dead]').textContent,
    r.querySelector('[data-left]').textContent]),
}))"""


def expected(counts: dict[str, Any]) -> list[dict[str, Any]]:
    """The panel's cells for the server's compact counts: the ranks the army has, totals and
    remainders, ≤ where at most."""
    out = []
    for army in counts["armies"]:
        bounds = army.get("at_most", [0] * len(counts["ranks"]))
        rows = zip(counts["ranks"], army["total"], army["dead"], bounds, strict=True)
        out.append(
            {
                "army": army["army"],
                "ranks": [
                    [rank, ("≤" if bound else "") + str(total), str(dead)]
                    + [("≤" if bound else "") + str(total - dead)]
                    for rank, total, dead, bound in rows
                    if total
                ],
            }
        )
    return out


def deaths(counts: dict[str, Any]) -> int:
    return sum(sum(army["dead"]) for army in counts["armies"])


def panel_matches(page: Page) -> dict[str, Any]:
    """The counts the page holds, once the panel shows them all (read in one go)."""
    drawn(page)
    counts, shown = page.evaluate(f"() => [window.junqi.table.snapshot.game.tracker, ({SHOWN})()]")
    assert shown == expected(counts)
    held: dict[str, Any] = counts
    return held


def test_the_panel_shows_the_servers_counts_through_a_game(server: str, browser: Browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click("button.play-bots[data-room='fanqi']")
    all_seated(page)
    assert page.locator("[data-tracker]").count() == 0  # no game, nothing to count
    page.click("#ready")
    page.wait_for_selector("[data-tracker][open] table[data-army]")
    assert page.locator("[data-tracker] summary").inner_text() == "记牌"
    player = Player(page, seed=3)
    checks, dead = 0, 0
    for _ in range(400):
        game = state(page, "table.snapshot.game")
        if game["phase"] == "finished":
            break
        counts = panel_matches(page)
        checks += 1
        dead = max(dead, deaths(counts))
        if dead and checks >= 6:
            break
        player.decide()
    assert checks >= 6 and dead > 0, (checks, dead)
    assert {a["army"] for a in panel_matches(page)["armies"]} == {0, 1}  # 翻棋: both colours
    # a patch carries the counts only when they changed: those the page kept are the server's
    page.wait_for_function(
        "() => { const s = window.junqi.table.snapshot;"
        " return s.game.to_move === s.you && s.game.legal_moves; }"
    )
    held = state(page, "table.snapshot")
    page.reload()  # a whole new snapshot, while the bot waits for this seat's move
    page.wait_for_selector("[data-tracker] table[data-army]")
    fresh = state(page, "table.snapshot")
    assert (fresh["seq"], fresh["game"]["tracker"]) == (held["seq"], held["game"]["tracker"])
    shot(page, "tracker-desktop")
    page.click("[data-tracker] summary")  # it folds away
    page.wait_for_selector("[data-tracker]:not([open])")
    assert not page.locator("[data-tracker] table").first.is_visible()
    assert errors == []
    page.close()


def test_on_a_phone_the_panel_starts_folded(server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click("button.play-bots[data-room='fanqi']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_selector("[data-tracker]:not([open])", state="attached")
    summary = page.locator("[data-tracker] summary")
    summary.scroll_into_view_if_needed()
    assert summary.bounding_box()["height"] >= 32  # type: ignore[index]
    summary.tap()
    page.wait_for_selector("[data-tracker][open] table[data-army]")
    panel_matches(page)
    page.locator("[data-tracker]").scroll_into_view_if_needed()
    shot(page, "tracker-phone")
    assert errors == []
    context.close()
