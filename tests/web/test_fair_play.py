"""Fair play in the browser: the device id the page signs its socket in with, and keeps; a table
whose seats share an address says in the lobby why it plays unrated; the refusals of tables
per address and of a second game while one runs, in words; a table closed for holding only one
person; and the points that diminish between the same people, said on the result card and in
the log. Debian's Chromium through Playwright, against real servers."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page
from websockets.sync.client import ClientConnection

import engine
from tests.live import live_server
from tests.server.sockets import live_socket
from tests.web.conftest import ROOMS, SETTINGS
from tests.web.ui import (
    DESKTOP,
    PHONE,
    enter_as_guest,
    needs_chromium,
    resize,
    says,
    shot,
    state,
    watch_errors,
)

pytestmark = needs_chromium
DEVICE = re.compile(r"[A-Za-z0-9_-]{8,64}")
# every page of a test comes from one loopback address: its seats share it, and one table is
# all that address may open
SHARED = {
    **SETTINGS,
    "JUNQI_SHARED_ADDRESS_UNRATED": "true",
    "JUNQI_TABLES_PER_ADDRESS": "1",
}
LONELY = {**SETTINGS, "JUNQI_LONELY_TABLE_SECONDS": "1"}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(tmp_path_factory.mktemp("shared"), ROOMS, SHARED) as base:
        yield base


def first_frames(page: Page) -> list[dict[str, Any]]:
    """The first message of every socket the page opens from now on, as sent."""
    frames: list[dict[str, Any]] = []

    def opened(ws: Any) -> None:
        sent: list[str] = []

        def frame(payload: str | bytes) -> None:
            if not sent:
                sent.append(str(payload))
                frames.append(json.loads(str(payload)))

        ws.on("framesent", frame)

    page.on("websocket", opened)
    return frames


def test_the_page_signs_in_with_a_device_id_it_keeps(shared: str, browser: Browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    frames = first_frames(page)
    enter_as_guest(page, shared)
    page.wait_for_function("() => window.junqi.connection === 'online'")
    kept = page.evaluate("() => localStorage.getItem('junqi.device')")
    assert DEVICE.fullmatch(kept), kept
    assert frames[0]["type"] == "auth" and frames[0]["device"] == kept
    assert frames[0]["token"] == page.evaluate("() => localStorage.getItem('junqi.token')")
    page.reload()
    page.wait_for_function("() => window.junqi.connection === 'online'")
    assert len(frames) == 2 and frames[1]["device"] == kept  # the same after a reload
    other = browser.new_context(viewport=DESKTOP).new_page()  # another browser: another device
    other_frames = first_frames(other)
    enter_as_guest(other, shared)
    other.wait_for_function("() => window.junqi.connection === 'online'")
    assert DEVICE.fullmatch(other_frames[0]["device"])
    assert other_frames[0]["device"] != kept
    other.context.close()
    page.close()


def test_seats_that_share_an_address_play_unrated_and_say_why(
    shared: str, browser: Browser
) -> None:
    host = browser.new_context(viewport=DESKTOP).new_page()
    errors = watch_errors(host)
    enter_as_guest(host, shared)
    host.click("button.create[data-room='duel']")
    host.wait_for_selector(".seat-panel[data-seat]")
    table = state(host, "table.id")
    guest = browser.new_context(viewport=DESKTOP).new_page()
    errors += watch_errors(guest)
    enter_as_guest(guest, shared)
    guest.click(f"button.sit[data-table='{table}'][data-seat='1']")
    guest.wait_for_function("() => window.junqi.table?.snapshot?.you === 1")
    says(host, ".table-info .unrated-note", "有两个座位来自同一网络地址或同一设备")
    # a third account of the address: the lobby says why the table is unrated
    watcher = browser.new_context(viewport=DESKTOP).new_page()
    errors += watch_errors(watcher)
    enter_as_guest(watcher, shared)
    mark = watcher.locator(f".table-row[data-table='{table}'] .unrated")
    mark.wait_for()
    assert mark.inner_text() == "不计分 · 同一地址或设备"
    assert mark.get_attribute("title") == "有两个座位来自同一网络地址或同一设备"
    watcher.locator(f".table-row[data-table='{table}']").scroll_into_view_if_needed()
    shot(watcher, "shared-address-lobby-desktop-zh")
    watcher.click("#lang")
    says(watcher, f".table-row[data-table='{table}'] .unrated", "unrated · shared address")
    assert mark.get_attribute("title") == "two seats share an address or a device"
    shot(watcher, "shared-address-lobby-desktop-en")
    resize(watcher, PHONE)
    watcher.locator(f".table-row[data-table='{table}']").scroll_into_view_if_needed()
    shot(watcher, "shared-address-lobby-phone-en")
    watcher.click("#lang")
    watcher.locator(f".table-row[data-table='{table}']").scroll_into_view_if_needed()
    shot(watcher, "shared-address-lobby-phone-zh")
    resize(watcher, DESKTOP)
    # the address has its one table open: another is refused, in words
    watcher.click("button.create[data-room='siguo']")
    says(watcher, "#notice", "你的网络地址开的桌子已经够多了")
    # the game begins, unrated all the same; a second game meanwhile is refused
    host.click("#ready")
    guest.click("#ready")
    host.wait_for_function("() => window.junqi.table.snapshot.status === 'playing'")
    says(host, ".table-info .unrated-note", "有两个座位来自同一网络地址或同一设备")
    lobby = host.context.new_page()  # the host's lobby, in another tab
    lobby.goto(shared)
    lobby.wait_for_selector("#lobby .room")
    lobby.click("button.play-bots[data-room='siguo']")
    says(lobby, "#notice", "你在另一张桌子还有一局没下完")
    assert errors == []
    for page in (host, guest, watcher):
        page.context.close()


def test_a_table_of_one_person_closes_and_says_why(
    tmp_path_factory: pytest.TempPathFactory, browser: Browser
) -> None:
    with live_server(tmp_path_factory.mktemp("lonely"), ROOMS, LONELY) as server:
        page = browser.new_page(viewport=PHONE)
        errors = watch_errors(page)
        enter_as_guest(page, server)
        page.click("button.create[data-room='duel']")
        page.wait_for_selector(".seat-panel[data-seat]")
        says(page, "#notice", "桌子已经关闭: 长时间只有一个人坐着")
        assert page.locator("#lobby").count() == 1
        shot(page, "table-lonely-phone-zh")
        assert errors == []
        page.close()


class Seat:
    """One player's socket at a table, as a client keeps it: the last version and phase."""

    def __init__(self, ws: ClientConnection, table: str) -> None:
        self.ws = ws
        self.table = table
        self.version = 0
        self.phase: str | None = None
        self.asked = 0

    def read(self) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=15))
        if message["type"] in ("table", "update") and message["table"] == self.table:
            snap = message.get("snapshot") or message["patch"]
            self.version = snap["version"]
            self.phase = snap["game"]["phase"] if snap.get("game") else None
        return message

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.asked += 1
        self.ws.send(json.dumps({"id": self.asked, "table": self.table, **message}))
        while True:
            reply = self.read()
            if reply["type"] in ("ok", "error") and reply.get("ref") == self.asked:
                return reply

    def until(self, done: Callable[[], bool]) -> None:
        while not done():
            self.read()

    def act(self, action: dict[str, Any]) -> None:
        """The action on the latest version; again on a newer one if that moved on."""
        while True:
            sent = self.version
            reply = self.ask({"type": "act", "version": sent, "action": action})
            if reply["type"] == "ok":
                return
            assert reply["code"] == "stale_version", reply
            if self.version == sent:  # the newer version is still on its way
                self.read()


def rated_game(seats: list[Seat], escape: bool = False) -> None:
    """A game of 二人 between the two: both ready and deploy, then the second surrenders (or,
    ``escape``, leaves the table)."""
    for seat in seats:
        assert seat.ask({"type": "ready"})["type"] == "ok"
    for number, seat in enumerate(seats):
        seat.until(functools.partial(lambda s: s.phase == "deploying", seat))
        layout = engine.auto_layout("liangguo", number, 7 + number)
        seat.act({"type": "place_layout", "layout": layout})
    loser = seats[1]
    loser.until(lambda: loser.phase == "playing")
    if escape:
        assert loser.ask({"type": "leave"})["type"] == "ok"
        seats[0].until(lambda: seats[0].phase == "finished")
        return
    loser.act({"type": "surrender"})
    for seat in seats:
        seat.until(functools.partial(lambda s: s.phase == "finished", seat))


def test_points_that_diminish_between_the_same_people_are_said(
    server: str, browser: Browser
) -> None:
    """Four rated games of the same two players in a row: the third keeps half its points,
    and the result card and the log of the player's page say so; the fourth, a quarter, but
    for the escaper, and its result reads as an escape."""
    tokens = [httpx.post(f"{server}/api/auth/guest").json()["token"] for _ in range(2)]
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    page.goto(server)
    page.evaluate("(token) => localStorage.setItem('junqi.token', token)", tokens[0])
    page.reload()
    page.wait_for_selector("#lobby .room")
    with live_socket(server, tokens[0]) as first, live_socket(server, tokens[1]) as second:
        opened = json.loads(first.recv(timeout=15))  # welcome
        first.send(json.dumps({"id": 0, "type": "create_table", "room": "liangguo"}))
        while opened.get("ref") != 0:
            opened = json.loads(first.recv(timeout=15))
        assert opened["type"] == "ok", opened
        seats = [Seat(first, opened["table"]), Seat(second, opened["table"])]
        for number, seat in enumerate(seats):
            assert seat.ask({"type": "sit", "seat": number})["type"] == "ok"
        page.goto(f"{server}/#table/{seats[0].table}")
        page.wait_for_function("() => window.junqi.table?.snapshot?.you === 0")
        rated_game(seats)
        page.wait_for_selector("#result")
        assert "计分对局" in page.inner_text("#rated")
        assert page.locator("#repeat-note").count() == 0  # the first game counts in full
        rated_game(seats)
        rated_game(seats)
        says(page, "#repeat-note", "今天同一批玩家的第 3 局: 积分减半")
        page.wait_for_function(
            "() => [...document.querySelectorAll('#log li')].some((li) =>"
            " li.textContent.includes('第 3 局: 积分减半'))"
        )
        assert page.locator("#result tr.outcome").count() == 2
        shot(page, "repeat-result-desktop-zh")
        page.click("#lang")
        says(page, "#repeat-note", "3rd game of the same players today: half points")
        shot(page, "repeat-result-desktop-en")
        resize(page, PHONE)
        shot(page, "repeat-result-phone-en")
        page.click("#lang")
        says(page, "#repeat-note", "第 3 局")
        shot(page, "repeat-result-phone-zh")
        page.click("#see-board")  # the log keeps it too
        page.locator("#log li").last.scroll_into_view_if_needed()
        assert "积分减半" in page.locator("#log li").last.inner_text()
        shot(page, "repeat-log-phone-zh")
        resize(page, DESKTOP)
        rated_game(seats, escape=True)
        says(page, "#repeat-note", "今天同一批玩家的第 4 局: 积分只计四分之一 (逃跑的扣分不减)")
        reason = page.inner_text("#result .reason")  # from this viewer's side: who escaped
        assert reason.startswith("逃跑 · ") and reason.endswith("逃跑了"), reason
        escaped = page.locator("#result tr.outcome[data-seat='1']")
        assert escaped.locator("td").nth(1).inner_text() == "逃跑"
        assert int(escaped.locator("td.points").inner_text()) < 0  # in full, not a quarter
        shot(page, "repeat-escape-desktop-zh")
    assert errors == []
    page.close()


# the words of the fair-play rules, in both languages (i18n.js): none may fall back to its key
# or to the other language
WORDS = [
    "unrated_shared_address",
    "unratedShort_shared_address",
    "unratedShort_bots",
    "unratedShort_table_rules",
    "tableLonely",
    "repeatRule",
    "repeatHalf",
    "repeatQuarter",
    "repeatEighth",
    "repeatNone",
    "repeatEscape",
    "standIn",
    "standInHelp",
    "standInOnHelp",
    "standInAway",
    "escapeTimeouts",
    "changePassword",
    "currentPassword",
    "newPassword",
    "confirmPassword",
    "newPasswordHint",
    "passwordMismatch",
    "passwordNeeded",
    "passwordChanged",
    "savePassword",
    "guestNoPassword",
    "bannedNow",
    "addressBannedNow",
    "myProfile",
]


def test_the_words_of_fair_play_in_both_languages(shared: str, browser: Browser) -> None:
    page = browser.new_page()
    page.goto(shared)
    said = page.evaluate(
        """async (keys) => {
          const i18n = await import("/js/i18n.js");
          const out = {};
          for (const lang of ["zh", "en"]) {
            localStorage.setItem("junqi.lang", lang);
            const repeat = (repeat, factor, escaped = false) =>
              i18n.repeatText({ rated: true, repeat, factor }, escaped);
            out[lang] = {
              words: Object.fromEntries(keys.map((key) => [key, i18n.t(key)])),
              repeats: [repeat(3, 0.5), repeat(4, 0.25, true), repeat(5, 0.125), repeat(6, 0),
                repeat(2, 1), i18n.repeatText({ rated: false, repeat: 0, factor: 1 })],
              waits: [i18n.errorText({ code: "login_wait", retryAfter: 12 }),
                i18n.errorText({ code: "busy", retryAfter: 3 }), i18n.errorText({ code: "busy" })],
            };
          }
          localStorage.removeItem("junqi.lang");
          return out;
        }""",
        WORDS,
    )
    zh, en = said["zh"], said["en"]
    for key in WORDS:
        assert zh["words"][key] not in ("", key), key
        assert en["words"][key] not in ("", key, zh["words"][key]), key
    assert zh["repeats"] == [
        "今天同一批玩家的第 3 局: 积分减半",
        "今天同一批玩家的第 4 局: 积分只计四分之一 (逃跑的扣分不减)",
        "今天同一批玩家的第 5 局: 积分只计八分之一",
        "今天同一批玩家的第 6 局: 不再计分",
        "",
        "",
    ]
    assert en["repeats"] == [
        "3rd game of the same players today: half points",
        "4th game of the same players today: a quarter of the points"
        " (an escape still costs in full)",
        "5th game of the same players today: an eighth of the points",
        "6th game of the same players today: no points any more",
        "",
        "",
    ]
    assert zh["waits"] == [
        "这个名字的密码输错太多次, 请 12 秒后再试",
        "服务器正忙, 请 3 秒后再试",
        "服务器正忙, 请过几秒再试",
    ]
    assert en["waits"][1] == "the server is busy: try again in 3 s"
    page.close()


def test_an_escape_reads_as_one_on_the_result_card(shared: str, browser: Browser) -> None:
    """The result card of a game a seat left (an escape, said once), and of one where a seat let
    its clock run out to the skip limit (an escape too, and said how), drawn by the page's own
    ``resultCard`` from a scored game as the server sends it."""
    page = browser.new_page()
    page.goto(shared)
    rows = page.evaluate(
        """async () => {
          const { render } = await import("/vendor/lit-html/lit-html.js");
          const { resultCard } = await import("/js/log.js");
          const card = (timeouts) => {
            const snap = {
              you: 0, game_id: null, points: [1, -2], seats: [{ name: "甲" }, { name: "乙" }],
              scoring: { rated: true, stake: 1, stood_in: [], repeat: 1, factor: 1 },
              game: {
                seats: [{ skips: 0, timeouts: 0 }, { skips: timeouts, timeouts }],
                result: { reason: "escape", winners: [0], seats: [
                  { seat: 0, outcome: "win", elimination: null },
                  { seat: 1, outcome: "escape", elimination: { reason: "escape" } }] },
              },
            };
            const box = document.createElement("div");
            render(resultCard(snap, [], {}), box);
            return {
              reason: box.querySelector(".reason").textContent,
              escaped: [...box.querySelectorAll("tr[data-seat='1'] td")].map((d) => d.textContent),
              quiet: box.querySelector("#repeat-note") === null,
            };
          };
          return [card(0), card(5)];
        }"""
    )
    left, timed_out = rows
    assert left["reason"] == "逃跑 · 乙 逃跑了"  # as the winner reads it
    assert timed_out["reason"] == "逃跑 (超时) · 乙 超时次数到了上限, 算逃跑"
    assert left["escaped"][1:4] == ["逃跑", "", "-2"]  # said once
    assert timed_out["escaped"][1:4] == ["逃跑", "超时次数到了上限, 算逃跑", "-2"]
    assert left["quiet"] and timed_out["quiet"]  # a first game: no word of the repeat rule
    page.close()
