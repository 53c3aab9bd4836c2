"""The web client around the game: its log after a reload and for spectators, the result,
replays from every perspective, links with back and forward, profiles, words for every
refusal, the connection's state, sounds' mute, keyboard play and QQ游戏 layout files. Debian's
Chromium through Playwright, against a real server."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route

import engine
from server.friends import CODES as SOCIAL_CODES
from tests.server.test_accounts_security import ACCOUNT_CODES
from tests.server.test_fuzz import CODES
from tests.server.test_hardening import CODES as HTTP_CODES
from tests.web.test_tracker import SHOWN, expected
from tests.web.ui import (
    DESKTOP,
    PHONE,
    Player,
    all_seated,
    drawn,
    enter_as_guest,
    needs_chromium,
    resize,
    says,
    shot,
    state,
    watch_errors,
)

pytestmark = needs_chromium


def inside(page: Page, selector: str) -> None:
    """The element lies whole inside the window."""
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box is not None and size is not None
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= size["width"] + 0.5, (box, size)
    assert box["y"] + box["height"] <= size["height"] + 0.5, (box, size)


# counts the sounds the page makes (each an oscillator of the Web Audio API)
TONES = """
window.tones = 0;
const make = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  window.tones += 1;
  return make.call(this);
};
"""


@pytest.fixture(scope="module")
def finished(server: str, browser: Browser) -> Iterator[dict[str, Any]]:
    """A 二人 game against a bot, played to its end through the interface; a spectator
    watched it. Yields the game's id and the pages (kept open for the tests)."""
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    page.add_init_script(TONES)
    enter_as_guest(page, server)
    page.click("button.play-bots[data-room='duel']")
    all_seated(page)
    table = state(page, "table.id")
    spectator = browser.new_page(viewport=DESKTOP)
    spectator_errors = watch_errors(spectator)
    enter_as_guest(spectator, server)
    spectator.goto(f"{server}/#table/{table}")
    spectator.wait_for_selector(".seat-panel")
    page.click("#ready")
    player = Player(page, seed=5)
    reloaded: dict[str, Any] = {}

    def reload_once(p: Player) -> None:
        """Mid-game, the page is reloaded: the whole log comes back."""
        if reloaded or state(page, "table.snapshot.game.total_moves") < 6:
            return
        lines = page.locator("#log li").count()
        first = page.locator("#log li").first.inner_text()
        page.reload()
        page.wait_for_function(f"() => document.querySelectorAll('#log li').length >= {lines}")
        reloaded.update(lines=lines, first=first, again=page.locator("#log li").first.inner_text())

    player.play_to_end(during=reload_once)
    page.wait_for_selector("#result")
    yield {
        "game": state(page, "table.snapshot.game_id"),
        "table": table,
        "page": page,
        "spectator": spectator,
        "errors": errors + spectator_errors,
        "reloaded": reloaded,
    }
    page.close()
    spectator.close()


def test_the_log_comes_back_after_a_reload_and_spectators_have_it(
    finished: dict[str, Any],
) -> None:
    reloaded = finished["reloaded"]
    assert reloaded["lines"] >= 6 and reloaded["again"] == reloaded["first"]
    spectator: Page = finished["spectator"]
    spectator.wait_for_selector("#result")
    spectator_log = spectator.locator("#log li").all_inner_texts()
    player_log = finished["page"].locator("#log li").all_inner_texts()
    assert len(spectator_log) >= 10
    assert len(spectator_log) == len(player_log)
    assert "暗子" in " ".join(spectator_log)  # ranks a spectator was not told stay hidden
    assert any("→" in line for line in player_log)
    assert all("{" not in line and "_" not in line for line in player_log)  # words, not data
    assert finished["errors"] == []


def test_the_game_was_heard(finished: dict[str, Any]) -> None:
    assert finished["page"].evaluate("() => window.tones") > 3  # moves, fights, turns, the end


def test_the_result_is_in_view_and_says_how_it_was_scored(finished: dict[str, Any]) -> None:
    page: Page = finished["page"]
    inside(page, "#result")
    assert "桌上有机器人" in page.inner_text("#rated")  # unrated, and why
    assert page.locator("#result tr.outcome").count() == 2
    resize(page, PHONE)
    inside(page, "#result")
    shot(page, "result-phone")
    resize(page, DESKTOP)


def engine_view(server: str, game: str, step: int, seat: int) -> dict[str, Any]:
    record = httpx.get(f"{server}/api/games/{game}/record").json()["record"]
    state_then = engine.state_after(engine.GameRecord.from_json(json.dumps(record)), step)
    return engine.view(state_then, seat)


def drawn_pieces(page: Page) -> list[list[str]]:
    """Every piece drawn: its station, army and rank ("" where the rank is not shown)."""
    drawn: list[list[str]] = page.evaluate(
        "() => [...document.querySelectorAll('.piece')].map((g) =>"
        " [g.dataset.piece, g.dataset.army, g.dataset.rank]).sort()"
    )
    return drawn


def test_a_replay_from_a_seat_shows_what_that_seat_saw_then(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    game = finished["game"]
    step = 9
    page.goto(f"{server}/#replay/{game}/{step}")  # a link to a given move
    page.wait_for_function(
        f"() => window.junqi.replay?.state && window.junqi.replay.step === {step}"
    )
    page.select_option("#perspective", "1")
    page.wait_for_function("() => window.junqi.replay.perspective === '1'")
    expected = sorted(
        [p["station"], str(p["army"]), p.get("rank", "")]
        for p in engine_view(server, game, step, 1)["pieces"]
    )
    # redrawn for seat 1: as many of seat 0's pieces with a rank as that seat was shown (a fight
    # or a shown flag may have shown some by then)
    shown = sum(1 for _, army, rank in expected if army == "0" and rank)
    page.wait_for_function(
        f'() => document.querySelectorAll(\'.piece[data-army="0"]:not([data-rank=""])\')'
        f".length === {shown}"
    )
    assert drawn_pieces(page) == expected  # no more, no less
    assert any(rank == "" for _, army, rank in expected if army == "0")  # seat 0's stayed hidden
    shot(page, "replay-seat-1")
    # back and forth: keys, buttons, the move list; the address follows the move
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => location.hash.endsWith('/{step + 1}')")
    page.click("#prev")
    page.wait_for_function(f"() => window.junqi.replay.step === {step}")
    # the first line of the list (seq 1 may be an event no line shows, e.g. a private draft_saved)
    first = page.locator("#log li").first
    seq = int(first.get_attribute("data-seq") or "0")
    assert 1 <= seq < step
    first.click()
    page.wait_for_function(f"() => window.junqi.replay.step === {seq}")
    assert page.locator("#log li.current").count() >= 1
    page.click("#last")
    steps = state(page, "replay.steps")
    page.wait_for_function(f"() => window.junqi.replay.step === {steps}")
    page.select_option("#perspective", "open")
    page.wait_for_function("() => window.junqi.replay.perspective === 'open'")
    page.click("#first")
    page.click("#play")  # autoplay, fast
    page.select_option("#speed", "4")
    # it goes on by itself, and once it has passed a move (the first steps may be deployments
    # and the start), that move is marked
    page.wait_for_function(
        "() => window.junqi.replay.step >= 3"
        " && document.querySelectorAll('.last-to.latest').length === 1"
    )
    page.click("#play")
    assert errors == []
    page.close()


def test_links_back_and_forward_and_profiles(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.wait_for_selector("#games .replay-link")
    page.click(f"#games .replay-link[data-game='{finished['game']}']")
    page.wait_for_selector("#replay svg.board")
    page.go_back()
    page.wait_for_selector("#lobby")
    page.go_forward()
    page.wait_for_selector("#replay svg.board")
    # a step back answered only after the player went to the lobby leaves them there, under the
    # lobby's address (it wrote the replay's again, and could take them back to it)
    game, steps = finished["game"], state(page, "replay.steps")
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    page.route(re.compile(rf"/api/games/{game}/replay/{steps - 1}\?"), hold)
    page.click("#prev")
    for _ in range(100):  # the request reaches the route
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "no step asked for"
    page.click("#to-lobby")
    page.wait_for_selector("#lobby")
    held[0].continue_()
    page.wait_for_function(f"() => window.junqi.replay.cache.has('open/{steps - 1}')")
    assert state(page, "view") == "lobby" and page.evaluate("() => location.hash") == ""
    page.unroute_all()
    page.evaluate(f"() => {{ location.hash = '#table/{finished['table']}'; }}")  # in this tab
    page.wait_for_selector("#table .seat-panel")
    name = finished["page"].inner_text("#who")
    page.evaluate(f"() => {{ location.hash = '#user/{name}'; }}")
    page.wait_for_selector("#profile-view .games li")
    assert name in page.inner_text("#profile-view h2")
    assert page.locator("#profile-view .standings tr").count() >= 2
    page.click("#profile-view .replay-link >> nth=0")
    page.wait_for_selector("#replay svg.board")
    assert errors == []
    page.close()


def test_every_refusal_is_said_in_words(server: str, browser: Browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    page.goto(server)
    page.fill("input[name=name]", "老 司令")  # a space: the server refuses the name
    page.fill("input[name=password]", "secret-pw")
    page.click("button[name=register]")
    # read in the same instant it is found: a notice goes after a while or when the page moves on
    said = page.wait_for_function(
        "() => document.querySelector('#notice')?.textContent"
    ).json_value()
    assert "名字 2–20 个字" in said and "{" not in said and "detail" not in said
    page.fill("input[name=name]", "长名字")
    page.fill("input[name=password]", "123")  # too short
    page.click("button[name=login]")
    says(page, "#notice", "密码")
    page.fill("input[name=password]", "secret-pw")
    page.click("button[name=register]")
    page.wait_for_selector("#lobby")
    page.on("dialog", lambda dialog: dialog.accept("很长的布局名字" * 12))  # over 64 characters
    page.click("button.play-bots[data-room='siguo']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_function("() => window.junqi.table.deploy?.draft")
    page.click("#save")
    says(page, "#notice", "布局名称太长")  # in words, never the validation JSON:
    assert page.evaluate("() => !document.querySelector('#notice')?.textContent.includes('{')")
    page.click("#lang")
    page.click("#save")
    says(page, "#notice", "layout name is too long")
    page.click("#lang")
    page.close()


def test_the_connection_the_sound_and_the_keyboard(server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=DESKTOP)  # its pages share one player's sign-in
    page = context.new_page()
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click("#mute")  # remembered
    page.reload()
    page.wait_for_selector("#lobby")
    assert page.inner_text("#mute") == "♪ 关"
    page.click("button.play-bots[data-room='duel']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_function("() => window.junqi.table.deploy?.draft")
    page.click("#confirm")
    page.wait_for_function(
        "() => window.junqi.table.snapshot.game.phase === 'playing'"
        " && window.junqi.table.snapshot.game.to_move === 0"
    )
    # keyboard play: arrows go from station to station, Enter picks a piece and its target
    legal = state(page, "table.snapshot.game.legal_moves")
    origin = sorted(legal)[0]
    page.focus(f"circle.hit[data-station='{origin}']")
    page.keyboard.press("ArrowUp")
    above = page.evaluate("() => document.activeElement.dataset.station")
    assert above != origin
    page.focus(f"circle.hit[data-station='{origin}']")
    page.keyboard.press("Enter")
    page.wait_for_selector(".selected-mark")
    page.focus(f"circle.hit[data-station='{legal[origin][0]}']")
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => window.junqi.table.events.some((e) => e.kind === 'moved' && e.seat === 0)"
    )
    # the lobby, in another tab of this browser, offers the way back to the game
    lobby = context.new_page()
    lobby.goto(server)
    lobby.wait_for_selector(".back-to-game button")
    lobby.click(".back-to-game button")
    lobby.wait_for_selector("#table .seat-panel")
    assert state(lobby, "table.snapshot.you") == 0
    lobby.close()
    # the connection drops: it is said, and the clock stops counting blind; then it is back
    page.evaluate("() => window.junqi.socket.ws.close()")
    page.wait_for_selector("#offline")
    says(page, "#status", "连接中断")
    shot(page, "connection-lost")
    page.wait_for_selector("#online", timeout=15000)
    page.wait_for_selector("#offline", state="detached")
    assert errors == []
    context.close()


def test_qq_layout_files_are_imported_and_exported(
    server: str, browser: Browser, tmp_path: Path
) -> None:
    page = browser.new_page(viewport=DESKTOP, accept_downloads=True)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click("button.play-bots[data-room='siguo']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_function("() => window.junqi.table.deploy?.draft")
    layout = {s: str(r) for s, r in engine.auto_layout("siguo", 0, 31).items()}
    qq = tmp_path / "mine.jql"
    qq.write_bytes(engine.format_jql(layout))
    page.set_input_files("#import", str(qq))
    page.wait_for_function(
        "(layout) => Object.entries(layout)"
        ".every(([s, r]) => window.junqi.table.deploy.draft[s] === r)",
        arg=layout,
    )
    assert state(page, "table.deploy.draft") == layout
    not_qq = tmp_path / "other.jql"
    not_qq.write_bytes(b"PK\x03\x04 this is a zip")
    page.set_input_files("#import", str(not_qq))
    says(page, ".deploy-tools", "这不是QQ游戏的布局文件")
    with page.expect_download() as download:
        page.click("#export-jql")
    saved = tmp_path / "out.jql"
    download.value.save_as(saved)
    assert engine.parse_jql(saved.read_bytes(), 0) == {
        s: engine.Rank(r) for s, r in state(page, "table.deploy.draft").items()
    }
    assert errors == []
    page.close()


def test_every_error_code_has_words_in_both_languages(server: str, browser: Browser) -> None:
    page = browser.new_page()
    page.goto(server)
    said = page.evaluate(
        """async (codes) => {
          const i18n = await import("/js/i18n.js");
          const out = {};
          for (const lang of ["zh", "en"]) {
            localStorage.setItem("junqi.lang", lang);
            const fallback = i18n.errorText({ code: "no-such-code" });
            out[lang] = codes.filter((code) => i18n.errorText({ code }) === fallback);
          }
          localStorage.removeItem("junqi.lang");
          return out;
        }""",
        sorted(
            CODES
            | ACCOUNT_CODES
            | SOCIAL_CODES
            | HTTP_CODES
            | {"bad_command", "moved", "unavailable", "paused", "stood_in"}
            # the accounts' refusals beyond the registration's (server/accounts.py), and the
            # socket's codes of fair play
            | {"password_short", "wrong_password", "busy", "foreign_origin", "wrong_login"}
            | {"address_tables", "playing_elsewhere", "own_table", "unauthorized"}
        ),
    )
    assert said == {"zh": [], "en": []}
    page.close()


def test_logging_out_here_and_on_every_device(server: str, browser: Browser) -> None:
    """The header's log-out control revokes the page's token (the server refuses it from then
    on); on one's own profile, "log out everywhere" signs out every device, whose pages go
    back to the sign-in form by themselves."""
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    token = page.evaluate("() => localStorage.getItem('junqi.token')")
    page.click("#logout")
    page.wait_for_selector("#login")
    assert page.evaluate("() => localStorage.getItem('junqi.token')") is None
    me = httpx.get(f"{server}/api/me", headers={"Authorization": f"Bearer {token}"})
    assert me.status_code == 401
    page.close()
    credentials = {"name": "退场者", "password": "secret-pw"}
    assert httpx.post(f"{server}/api/auth/register", json=credentials).status_code == 201
    tokens = [
        httpx.post(f"{server}/api/auth/login", json=credentials).json()["token"] for _ in "ab"
    ]
    devices = [browser.new_context(viewport=DESKTOP) for _ in tokens]  # two browsers of one user
    pages = []
    for device, device_token in zip(devices, tokens, strict=True):
        pages.append(device.new_page())
        pages[-1].goto(server)
        pages[-1].evaluate("(token) => localStorage.setItem('junqi.token', token)", device_token)
        pages[-1].reload()
        pages[-1].wait_for_selector("#lobby .room")
    pages[0].evaluate("() => { location.hash = '#user/' + encodeURIComponent('退场者'); }")
    pages[0].click("#logout-all")
    for device_page in pages:
        device_page.wait_for_selector("#login")
    for device_token in tokens:
        me = httpx.get(f"{server}/api/me", headers={"Authorization": f"Bearer {device_token}"})
        assert me.status_code == 401
    assert errors == []
    for device in devices:
        device.close()


def test_a_replay_shows_the_counts_of_its_perspective_then(
    server: str, browser: Browser, finished: dict[str, Any]
) -> None:
    """记牌 in a replay: a seat's counts as that seat had them at that step, a spectator's
    with the board open or as spectators saw it; drawn as at the table."""
    game = finished["game"]
    record = engine.GameRecord.from_json(
        json.dumps(httpx.get(f"{server}/api/games/{game}/record").json()["record"])
    )
    states = list(engine.states(record))
    counted = [k for k, s in enumerate(states) if engine.view(s, 1).get("tracker")]
    proven = [
        k
        for k in counted
        if sum(sum(a["dead"]) for a in engine.view(states[k], 1)["tracker"]["armies"])
    ]
    step = (proven or counted)[len(proven or counted) // 2]
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.goto(f"{server}/#replay/{game}/{step}")
    page.wait_for_selector("#replay [data-tracker] table[data-army]")
    for perspective, viewer in (("open", None), ("1", 1), ("public", None), ("0", 0)):
        page.select_option("#perspective", perspective)
        page.wait_for_function(
            f"() => window.junqi.replay.perspective === '{perspective}'"
            f" && window.junqi.replay.state.viewer === {'null' if viewer is None else viewer}"
        )
        drawn(page)
        counts = engine.view(states[step], viewer)["tracker"]
        assert page.evaluate(f"({SHOWN})") == expected(counts), perspective
        # a seat counts the other army only; spectators both
        assert len(counts["armies"]) == (2 if viewer is None else 1)
        if perspective == "1":
            shot(page, "replay-tracker-seat-1")
    resize(page, PHONE)  # on a phone the card comes under the board, as at the table
    page.locator("#replay [data-tracker]").scroll_into_view_if_needed()
    shot(page, "replay-tracker-phone")
    assert errors == []
    page.close()
