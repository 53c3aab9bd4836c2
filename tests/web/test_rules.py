"""Rules in the client: each room's rules page (``#rules/<room>``) says that room's own values, in
Chinese and English; the table's 规则 button shows its room's rules, with the table's own
changes, over the table; the newcomer's guide walks over the real board's stations, is offered
once, and is skipped for good. Debian's Chromium through Playwright, against a real server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.live import live_server
from tests.web.ui import (
    DESKTOP,
    PHONE,
    all_seated,
    drawn,
    enter_as_guest,
    needs_chromium,
    resize,
    shot,
    state,
    watch_errors,
)

pytestmark = needs_chromium

ROOMS = [
    {"id": "plain", "name": "四国 一室", "variant": "siguo", "options": {}},
    {
        "id": "quick",
        "name": "四国 快棋",
        "variant": "siguo",
        "options": {"move_seconds": 15, "no_capture_plies": 20, "max_skips": 3},
    },
]
CJK = re.compile(r"[\u3400-\u9fff]")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(
        tmp_path_factory.mktemp("rules"), ROOMS, {"JUNQI_BOT_PAUSE_SECONDS": "0.05"}
    ) as base:
        yield base


def fact(page: Page, name: str, scope: str = "") -> str:
    return page.locator(f"{scope} [data-fact='{name}']").first.inner_text()


def english(page: Page) -> None:
    page.click("#lang")
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    drawn(page)


def test_each_room_s_page_says_its_own_values_in_both_languages(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click("a.rules-link[data-rules='quick']")
    page.wait_for_selector(".rules[data-room='quick']")
    assert page.url.endswith("#rules/quick")
    quick = {name: fact(page, name) for name in ("move_seconds", "max_skips", "no_capture_plies")}
    assert "15" in quick["move_seconds"] and "3" in quick["max_skips"]
    assert "20" in quick["no_capture_plies"]
    army = page.locator("[data-fact='army'] tr[data-rank]")
    assert army.count() == 12  # a standard army's ranks, counted by the server
    assert page.locator("tr[data-rank='field_marshal'] .n").inner_text() == "1"
    shot(page, "rules-quick-zh-desktop")
    page.goto(f"{server}/#rules/plain")
    page.wait_for_selector(".rules[data-room='plain']")
    assert "30" in fact(page, "move_seconds") and "5" in fact(page, "max_skips")
    assert "40" in fact(page, "no_capture_plies")
    english(page)
    assert re.search(r"\b30 s a move", fact(page, "move_seconds"))
    assert "40 moves in a row" in fact(page, "no_capture_plies")
    sections = page.locator(".rules-section").all_inner_texts()
    assert len(sections) >= 9 and not CJK.search(" ".join(sections)), "Chinese in English rules"
    page.goto(f"{server}/#rules/quick")
    page.wait_for_selector(".rules[data-room='quick']")
    assert re.search(r"\b15 s a move", fact(page, "move_seconds"))
    assert "Skipped 3 times" in fact(page, "max_skips")
    resize(page, PHONE)
    shot(page, "rules-quick-en-phone")
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"]  # the fight table scrolls in its own box, not the page
    assert errors == []
    page.goto(f"{server}/#rules/nowhere")  # a dead link answers in words
    page.wait_for_selector("#rules-error")
    assert page.locator("#rules-error").inner_text() == "no such room"
    page.close()


def test_the_table_s_rules_button_shows_its_room_s_rules_over_the_table(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click("button.play-bots[data-room='quick']")
    all_seated(page)
    table = state(page, "table.id")
    page.click("#rules-button")
    dialog = ".rules-dialog"
    page.wait_for_selector(f"{dialog} .rules[data-room='quick']")
    assert "15" in fact(page, "move_seconds", dialog)
    assert "20" in fact(page, "no_capture_plies", dialog)
    assert page.locator("#rules-table").inner_text() == "本桌按房间的桌规下"
    shot(page, "rules-at-table-desktop")
    page.click("#rules-close")
    page.wait_for_selector(dialog, state="detached")
    assert state(page, "view") == "table" and state(page, "table.id") == table
    page.click("#back")
    # a table of its own clock: its rules are its room's with that change
    page.wait_for_selector("#lobby")
    page.click("form.options[data-room='plain'] >> xpath=..")  # the options' details open
    page.fill("form.options[data-room='plain'] input[name='move_seconds']", "45")
    page.click("button.create[data-room='plain']")
    page.wait_for_selector("#rules-button")
    page.click("#rules-button")
    page.wait_for_selector(f"{dialog} .rules[data-room='plain']")
    assert "45" in fact(page, "move_seconds", dialog)
    assert "40" in fact(page, "no_capture_plies", dialog)  # the room's
    assert "每步时间" in page.locator("#rules-table").inner_text()
    assert errors == []
    page.close()


def marked(page: Page) -> list[dict[str, Any]]:
    """The stations the guide marks now, as the board data has them."""
    return list(
        page.evaluate(
            """() => {
              const board = [...window.junqi.boards.values()].find(Boolean);
              const byId = new Map(board.stations.map((s) => [s.id, s]));
              const marks = [...document.querySelectorAll('[data-guide]')];
              return marks.map((m) => byId.get(m.dataset.guide));
            }"""
        )
    )


def step(page: Page) -> str:
    drawn(page)
    return str(page.get_attribute("#guide", "data-step"))


def test_the_guide_walks_the_real_board_and_ends_at_a_table(server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP)  # a new player: nothing remembered
    page = context.new_page()
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click("#guide-start")
    page.wait_for_selector("#guide[data-step='board']")
    arm = marked(page)
    assert len(arm) == 30 and len({s["seat"] for s in arm}) == 1  # the player's own arm
    seen = []
    while page.locator("#guide-next").count():
        key = step(page)
        seen.append(key)
        stations = marked(page)
        if key == "rails":
            assert len(stations) == 73 and all(s["rail"] for s in stations)
        elif key in ("camps", "hqs", "centre"):
            kind = {"camps": "camp", "hqs": "hq", "centre": "centre"}[key]
            assert stations and all(s["kind"] == kind for s in stations)
            assert len(stations) == {"camp": 20, "hq": 8, "centre": 9}[kind]
        elif key == "deploy":
            ranks = {page.get_attribute(f"[data-piece='{s['id']}']", "data-rank") for s in stations}
            assert ranks == {"flag", "landmine"}
            assert all(s["row"] >= 5 for s in stations)
        if key == "camps":
            page.click("#guide-back")  # back one step, and on again
            assert step(page) == "rails"
            page.click("#guide-next")
            assert step(page) == "camps"
        if key == "combat":
            shot(page, "guide-combat-desktop")
        page.click("#guide-next")
        drawn(page)  # the next step drawn before the loop asks whether there is one more
    assert seen == ["board", "rails", "camps", "hqs", "centre", "pieces", "combat", "deploy"]
    assert step(page) == "play"
    resize(page, PHONE)
    shot(page, "guide-play-phone")
    page.click("#guide-play")
    all_seated(page)  # a table against bots, the player seated
    assert state(page, "table.snapshot.you") is not None
    page.click("#back")
    page.wait_for_selector("#lobby .room")
    assert page.locator("#guide-offer").count() == 0  # offered once
    assert errors == []
    context.close()


def test_a_skipped_guide_does_not_come_back(server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=PHONE, has_touch=True)
    page = context.new_page()
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.wait_for_selector("#guide-offer")
    shot(page, "guide-offer-phone")
    page.click("#guide-skip")
    page.wait_for_selector("#guide-offer", state="detached")
    page.reload()
    page.wait_for_selector("#lobby .room")
    drawn(page)
    assert page.locator("#guide-offer").count() == 0
    # still there for whoever wants it: from a rules page, and skipped again inside
    page.goto(f"{server}/#rules/plain")
    page.click("#open-guide")
    page.wait_for_selector("#guide[data-step='board']")
    page.click("#guide-next")
    assert step(page) == "rails"
    page.click("#guide-skip")
    page.wait_for_selector("#lobby .room")
    assert page.locator("#guide-offer").count() == 0
    assert errors == []
    context.close()
