"""No rules in the client: it names no variant (its words apart), and draws each variant from the
capabilities and rules the server sends (docs/protocol.md, "Capabilities"): the skip limit of
the table's own rules, play now's variant and a room's clock in the lobby, 三打一's bidding and
its banker's side, 翻棋's colours from the first engineer and its mountain line, 乱战's picked
colours and fixed sides. Screenshots of each at a desktop's and a phone's size go to
``artifacts/``. Debian's Chromium through Playwright, against a real server."""

from __future__ import annotations

import re
import time
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from engine import VARIANTS
from engine.board import BOARD_KEYS
from server import outbound
from tests.live import live_server
from tests.web.ui import (
    DESKTOP,
    PHONE,
    Player,
    all_seated,
    drawn,
    enter_as_guest,
    needs_chromium,
    resize,
    shot,
    state,
    watch_errors,
)

ROOT = Path(__file__).resolve().parents[2]
ROOMS = [  # no 四国 room: play now takes the first room, 三打一's
    {"id": "sandayi", "name": "三打一 七次", "variant": "sandayi", "options": {"max_skips": 7}},
    {"id": "fanqi", "name": "翻棋 一室", "variant": "fanqi", "options": {}},
    {"id": "luanzhan", "name": "乱战 一室", "variant": "luanzhan", "options": {}},
]
ARMY_COLOURS = ["#c0392b", "#c27c0e", "#1e8449", "#2e5aa8"]  # web/js/board.js


# --- the client's code --------------------------------------------------------------------------


def named_keys(text: str) -> list[tuple[int, str]]:
    """Each line (by number) of ``text`` that names a variant or a board by its key."""
    keys = "|".join(sorted({*VARIANTS, *BOARD_KEYS}))
    found = re.compile(rf"\b({keys})\b")
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if found.search(line)]


def test_the_client_names_no_variant() -> None:
    """A new variant needs no change of the client beyond its words: web/js names no variant
    (nor board) but in i18n.js's names of the variants, and deal.js's labels of the seeded
    shuffles, which are engine/deal.py's own; deal.js deals by the deal capability."""
    engine_deal = (ROOT / "engine" / "deal.py").read_text()
    labels = set(re.findall(r'seeded_rng\(seed, "([a-z-]+)"', engine_deal))
    for path in sorted((ROOT / "web" / "js").glob("*.js")):
        text = path.read_text()
        if path.name == "i18n.js":  # the variants' names, and nothing else
            names = re.search(r"\nconst VARIANTS = \{\n.*?\n\};\n", text, re.S)
            assert names is not None
            text = text.replace(names.group(0), "\n")
        for n, line in named_keys(text):
            label = re.search(r'seededRng\(seed, "([a-z-]+)"', line)
            assert path.name == "deal.js" and label and label.group(1) in labels, (
                f"web/js/{path.name}:{n} names a variant: {line.strip()}"
            )
    deal = (ROOT / "web" / "js" / "deal.js").read_text()
    kinds = set(typing.get_args(outbound.DealKind))
    assert set(re.findall(r'(?<![.\w])kind === "([a-z_]+)"', deal)) == kinds


# --- a table of each variant ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(
        tmp_path_factory.mktemp("capabilities"), ROOMS, {"JUNQI_BOT_PAUSE_SECONDS": "0.05"}
    ) as base:
        yield base


def at_a_table(browser: Browser, server: str, room: str) -> tuple[Page, list[str], Player]:
    """A guest at a table of ``room`` with bots, ready."""
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click(f"button.play-bots[data-room='{room}']")
    all_seated(page)
    page.click("#ready")
    return page, errors, Player(page, seed=len(room))


def until(
    player: Player,
    done: Callable[[dict[str, Any]], bool],
    before: Callable[[str], None] | None = None,
    seconds: float = 90,
) -> None:
    """Decide as the table asks until ``done(snapshot)`` (``before``: as ``Player.decide``'s)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        snap = player.snapshot
        if snap and snap["game"] and done(snap):
            drawn(player.page)
            return
        assert not (snap and snap["game"] and snap["game"]["phase"] == "finished"), "game over"
        player.decide(before)
    raise AssertionError(f"not reached in {seconds} s: {player.phases}")


def shots(page: Page, name: str) -> None:
    """``artifacts/<name>-desktop.png`` (1280×800) and ``-phone.png`` (390×844)."""
    shot(page, f"{name}-desktop")
    resize(page, PHONE)
    shot(page, f"{name}-phone")
    resize(page, DESKTOP)


def panels(page: Page) -> list[dict[str, Any]]:
    """Each seat's panel as drawn: its badge, its status line and its colour."""
    found: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll('.seat-panel')].map((p) => ({
          seat: Number(p.dataset.seat),
          badge: p.querySelector('.badge')?.textContent ?? null,
          status: p.querySelector('.seat-status')?.textContent ?? '',
          colour: p.style.getPropertyValue('--seat').trim(),
        })).sort((a, b) => a.seat - b.seat)"""
    )
    return found


@needs_chromium
def test_the_lobby_names_play_now_s_variant_and_each_room_s_clock(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    enter_as_guest(page, server)
    assert page.inner_text("#play-now") == "马上开始 · 三打一"
    page.click(".room[data-room='sandayi'] summary")
    assert (
        page.get_attribute("form.options[data-room='sandayi'] [name=move_seconds]", "placeholder")
        == "20"
    )
    assert (
        page.get_attribute("form.options[data-room='fanqi'] [name=move_seconds]", "placeholder")
        == "30"
    )
    page.close()


@needs_chromium
def test_sandayi_bids_sides_with_the_banker_and_counts_timeouts_to_its_own_limit(
    server: str, browser: Browser
) -> None:
    page, errors, player = at_a_table(browser, server, "sandayi")
    caps = state(page, "table.snapshot.capabilities")
    assert caps["bids"] and caps["teams"] == "banker" and caps["contracts"] == [1, 2, 3]

    def bidding(phase: str) -> None:
        """The bidding card, whoever bids first; at this seat's turn a pass and the bids above
        the top one."""
        if not phase.startswith("bidding"):
            return
        assert page.locator("#bid .order li").count() == 4
        assert [p["badge"] for p in panels(page)] == [None] * 4  # no sides before the bid
        if phase == "bidding-yours":
            bids = state(page, "table.snapshot.game.deal.bids")
            top = max([b for b in bids if b is not None], default=0)
            above = [c for c in caps["contracts"] if c > top]
            assert page.locator("#bid button.bid").count() == 1 + len(above)
        shots(page, f"capabilities-sandayi-{phase}")

    until(player, lambda s: s["game"]["phase"] == "playing", bidding)
    assert "bidding" in player.phases
    snap = state(page, "table.snapshot")
    assert snap["rules"]["max_skips"] == 7
    banker, you = snap["game"]["deal"]["banker"], snap["you"]
    drawn_panels = panels(page)
    assert [p["badge"] for p in drawn_panels] == ["庄" if s == banker else "闲" for s in range(4)]
    for p in drawn_panels:
        assert re.search(r"超时 \d+/7", p["status"]), p  # the table's limit, not the variant's 3
        partner = you != banker and p["seat"] not in (you, banker)
        assert ("队友" in p["status"]) == partner, p
    shots(page, "capabilities-sandayi-play")
    assert errors == []
    page.close()


@needs_chromium
def test_fanqi_colours_come_from_the_first_engineer_across_the_mountain(
    server: str, browser: Browser
) -> None:
    page, errors, player = at_a_table(browser, server, "fanqi")
    until(player, lambda s: s["game"]["phase"] == "playing")
    assert page.text_content("svg.board .mountain") == "山 界"
    assert "未定色" in panels(page)[0]["status"]
    shots(page, "capabilities-fanqi-start")
    until(player, lambda s: s["game"].get("colours") is not None and s["game"]["total_moves"] >= 6)
    colours = state(page, "table.snapshot.game.colours")
    for p in panels(page):
        assert p["badge"] is None  # each for itself
        assert ["红", "黄"][colours[p["seat"]]] in p["status"], p
        assert p["colour"] == ARMY_COLOURS[colours[p["seat"]]], p
    shots(page, "capabilities-fanqi-play")
    assert errors == []
    page.close()


@needs_chromium
def test_luanzhan_seats_play_the_colours_picked_on_fixed_sides(
    server: str, browser: Browser
) -> None:
    page, errors, player = at_a_table(browser, server, "luanzhan")
    # a colour for each seat while the three others pick (the host takes the colour left): the
    # bots pick within a moment, so the page is watched from the start rather than looked at
    page.evaluate(
        """() => {
          const count = () => document.querySelectorAll('#pick button.pick').length;
          window.mostPicks = count();
          new MutationObserver(() => { window.mostPicks = Math.max(window.mostPicks, count()); })
            .observe(document.body, { childList: true, subtree: true });
        }"""
    )
    # picking, or past it already: the three bots and the host's last colour can settle it
    # between two looks at the page
    until(player, lambda s: s["game"]["phase"] in ("picking", "deploying", "playing"))
    if page.locator("#pick button.pick").count():
        shots(page, "capabilities-luanzhan-picking")
    until(player, lambda s: s["game"]["phase"] == "playing")
    assert page.evaluate("() => window.mostPicks") == 4
    snap = state(page, "table.snapshot")
    picks, teams = snap["game"]["deal"]["picks"], [s["team"] for s in snap["game"]["seats"]]
    assert page.locator("svg.board .mountain").count() == 0
    for p in panels(page):
        assert p["badge"] == ["甲", "乙"][teams[p["seat"]]], p
        assert p["colour"] == ARMY_COLOURS[picks[p["seat"]]], p
        assert ("队友" in p["status"]) == (p["seat"] == (snap["you"] + 2) % 4), p
    shots(page, "capabilities-luanzhan-play")
    assert errors == []
    page.close()
