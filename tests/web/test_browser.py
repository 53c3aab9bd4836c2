"""The web client in Debian's Chromium (Playwright, headless) against a real server process,
beyond the whole games of every variant (``tests/web/games.py``, played by the modules
``test_games_*.py``): a player on a phone zooms in, taps and drags; a registered player deploys
from a layout file, swaps by keyboard, click and drag, saves and loads, and finds their layout
again next game; a spectator sees no rank and turns the board; the lobby shows standings and
escapes; a 乱战 seat whose last 司令 fell raises its flag. Screenshots of each stage go to
``artifacts/``.
"""

from __future__ import annotations

import contextlib
import json
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser
from websockets.exceptions import ConnectionClosed

import engine
from tests.engine.test_luanzhan import marshal_killed
from tests.live import live_server
from tests.server.sockets import live_socket
from tests.web.conftest import ROOMS, SETTINGS
from tests.web.ui import (
    DESKTOP,
    PHONE,
    Player,
    all_seated,
    board_fits,
    drag,
    enter_as_guest,
    label_height,
    marks_on_top,
    needs_chromium,
    shot,
    small_targets,
    state,
    tap_targets,
    touch_drag,
    watch_errors,
)

pytestmark = needs_chromium


def test_a_phone_player_zooms_in_taps_and_drags(server: str, browser: Browser) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors = watch_errors(page)
    page.goto(server)
    page.tap("#guest")
    page.wait_for_selector("#lobby .room")
    assert small_targets(page) == []
    shot(page, "phone-1-lobby")
    page.tap("button.play-bots[data-room='siguo']")
    all_seated(page)
    board_fits(page)  # the whole board, the small size: a tap zooms in
    assert page.locator("svg.board.overview").count() == 1
    assert small_targets(page) == []
    shot(page, "phone-2-table")
    page.tap("#ready")
    # deployment starts zoomed in on the player's own arm: big targets, legible labels
    page.wait_for_function("() => document.querySelectorAll('.piece .label').length >= 25")
    page.wait_for_selector("svg.board:not(.overview)")
    assert tap_targets(page) >= 32
    assert small_targets(page) == []  # nor any other control in view
    assert label_height(page) >= 11
    shot(page, "phone-3-deploy-zoomed")
    draft = state(page, "table.deploy.draft")
    page.locator("circle.hit[data-station='0:61']").scroll_into_view_if_needed()
    touch_drag(page, "0:61", "0:51")
    page.wait_for_function(
        f"() => window.junqi.table.deploy.draft['0:51'] === {json.dumps(draft['0:61'])}"
    )
    page.tap("circle.hit[data-station='0:52']")
    page.tap("circle.hit[data-station='0:53']")
    page.wait_for_function(
        f"() => window.junqi.table.deploy.draft['0:53'] === {json.dumps(draft['0:52'])}"
    )
    page.wait_for_selector("#confirm:not([disabled])")
    page.tap("#confirm")
    page.wait_for_function("() => window.junqi.table.snapshot.game.phase === 'playing'")
    page.tap("#zoom")  # the whole board again
    page.wait_for_selector("svg.board.overview")
    board_fits(page)
    player = Player(page, touch=True, seed=3)
    while player.moves < 3 and state(page, "table.snapshot.game.phase") == "playing":
        player.decide()
    assert tap_targets(page) >= 32  # zoomed in by the first tap
    assert small_targets(page) == []
    shot(page, "phone-4-play-zoomed")
    page.tap("#back")  # leaving a running game asks first: it is an escape
    page.wait_for_selector(".modal")
    shot(page, "phone-5-leave")
    page.tap("#modal-confirm")
    page.wait_for_selector("#lobby")
    assert errors == []
    context.close()


def opponent(base: str, table: str, seat: int, stop: threading.Event) -> None:
    """A seat over a socket (not the player under test): sits, readies, deploys, moves."""
    token = httpx.post(f"{base}/api/auth/guest").json()["token"]
    # closed: the test is over
    with live_socket(base, token) as ws, contextlib.suppress(ConnectionClosed):
        ws.send(json.dumps({"type": "sit", "table": table, "seat": seat}))
        ws.send(json.dumps({"type": "ready", "table": table}))
        acted = -1
        while not stop.is_set():
            try:
                message = json.loads(ws.recv(timeout=1))
            except TimeoutError:
                continue
            if message["type"] not in ("table", "update"):
                continue
            snap = message.get("snapshot") or message["patch"]
            game = snap["game"]
            if game is None or snap["version"] == acted or game["phase"] == "finished":
                continue
            if game["phase"] == "deploying" and not game["seats"][seat]["confirmed"]:
                action: dict[str, Any] = {
                    "type": "place_layout",
                    "layout": engine.auto_layout("siguo", seat, 9),
                }
            elif game["phase"] == "playing" and game.get("legal_moves"):
                origin = sorted(game["legal_moves"])[0]
                action = {
                    "type": "move",
                    "origin": origin,
                    "target": game["legal_moves"][origin][0],
                }
            else:
                continue
            acted = snap["version"]
            ws.send(json.dumps({"type": "act", "table": table, "version": acted, "action": action}))


def test_a_player_deploys_from_a_file_swaps_saves_and_finds_the_layout_again(
    server: str, browser: Browser, tmp_path: Path
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    page.on("dialog", lambda dialog: dialog.accept("稳守"))
    page.goto(server)
    page.fill("input[name=name]", "x")
    page.click("button[name=register]")
    assert "2–20" in page.inner_text("#notice")  # said in words, not a raw refusal
    page.fill("input[name=name]", "老司令")
    page.fill("input[name=password]", "secret-pw")
    page.click("button[name=register]")
    page.wait_for_selector("#lobby")
    assert page.inner_text("#who") == "老司令"
    page.click(".room[data-room='quick'] summary")  # the quick room's rules
    page.fill("form.options[data-room='quick'] input[name=move_seconds]", "45")
    page.click("button.create[data-room='quick']")
    page.wait_for_selector("#table svg.board")
    table = state(page, "table.id")
    assert state(page, "table.snapshot.rules.move_seconds") == 45  # the table's own rule
    assert page.locator(".svg-button[data-action='add_bot']").count() == 3  # its creator may

    spectator = browser.new_page(viewport=DESKTOP)
    enter_as_guest(spectator, server)
    spectator.click(f"button.watch[data-table='{table}']")
    spectator.wait_for_selector(".seat-panel[data-seat='3']")
    assert spectator.locator(".svg-button[data-action='add_bot'], #bot-level").count() == 0
    stop = threading.Event()
    for seat in (1, 2, 3):
        threading.Thread(target=opponent, args=(server, table, seat, stop), daemon=True).start()
    all_seated(page)
    page.click("#lang")  # English, and back
    page.wait_for_function("() => document.querySelector('#ready').textContent === 'Ready'")
    page.click("#lang")
    page.wait_for_function("() => document.querySelector('#ready').textContent === '开始'")
    page.click("#ready")
    page.wait_for_function("() => window.junqi.table.deploy?.draft")
    # a layout file that cannot be read, then one with problems: each marked on its piece
    bad = tmp_path / "bad.txt"
    bad.write_text("排 排 排\n", encoding="utf-8")
    page.set_input_files("#import", str(bad))
    page.wait_for_selector(".problem-line")
    assert "第 1 行" in page.inner_text(".deploy-tools")
    broken = tmp_path / "broken.txt"
    rows = engine.format_layout(engine.auto_layout("siguo", 0, 2)).splitlines()
    rows[1] = "雷 炸 旗 炸 雷"  # mines, bombs and the flag in the front row
    broken.write_text("\n".join(rows), encoding="utf-8")
    page.set_input_files("#import", str(broken))
    page.wait_for_function("() => document.querySelectorAll('.problem-mark').length >= 5")
    text = page.inner_text(".deploy-tools")
    assert (
        "地雷只能放在最后两排" in text
        and "炸弹不能放在第一排" in text
        and "军旗必须放在大本营" in text
    )
    marks_on_top(page, "0:11", ".problem-mark[data-problem='0:11']", centre=True)
    assert page.locator("#confirm[disabled]").count() == 1  # not while the layout is illegal
    shot(page, "deploy-1-problems")
    page.click("#auto")
    page.wait_for_function("() => window.junqi.table.deploy.problems.length === 0")
    draft = state(page, "table.deploy.draft")
    page.focus("circle.hit[data-station='0:11']")  # by keyboard
    page.keyboard.press("Enter")
    page.click("circle.hit[data-station='0:15']")
    page.wait_for_function(
        f"() => window.junqi.table.deploy.draft['0:11'] === {json.dumps(draft['0:15'])}"
    )
    drag(page, "0:12", "0:14")
    page.wait_for_function(
        f"() => window.junqi.table.deploy.draft['0:12'] === {json.dumps(draft['0:14'])}"
    )
    page.wait_for_function("() => window.junqi.table.deploy.problems.length === 0")
    played = state(page, "table.deploy.draft")
    page.click("#save")  # saved on the server under the name the dialog gave
    page.wait_for_function("() => document.querySelector('#notice')?.textContent.includes('稳守')")
    page.click("#auto")
    page.wait_for_function(
        "() => JSON.stringify(window.junqi.table.deploy.draft)"
        f" !== {json.dumps(json.dumps(played))}"
    )
    page.select_option("#saved", label="稳守")  # load it back
    page.wait_for_function(
        f"() => window.junqi.table.deploy.draft['0:12'] === {json.dumps(played['0:12'])}"
    )
    shot(page, "deploy-2-legal")
    page.click("#confirm")
    page.wait_for_function("() => window.junqi.table.snapshot.game.phase === 'playing'")
    # a move by dragging the piece
    page.wait_for_function("() => window.junqi.table.snapshot.game.legal_moves")
    legal = state(page, "table.snapshot.game.legal_moves")
    origin = sorted(legal)[0]
    drag(page, origin, legal[origin][0])
    page.wait_for_function(
        "() => window.junqi.table.events.some((e) => e.kind === 'moved' && e.seat === 0"
        f" && e.origin === {json.dumps(origin)})"
    )
    # the spectator never saw a rank, and chose whose arm is at the bottom
    spectator.wait_for_function("() => window.junqi.table.snapshot.game.phase === 'playing'")
    assert spectator.locator(".piece:not([data-rank=''])").count() == 0
    spectator.click(".seat-panel[data-seat='2']")
    spectator.wait_for_function(  # seat 2's panel is now the lowest, at its arm
        "() => { const top = (s) => document.querySelector(`.seat-panel[data-seat='${s}']`)"
        ".getBoundingClientRect().top; return [0, 1, 3].every((s) => top(s) < top(2)); }"
    )
    assert state(spectator, "table.bottom") == 2
    shot(spectator, "spectator-turned")
    # leaving the running game: asked first, then an escape; the next game starts from this layout
    page.click("#back")
    page.click("#modal-confirm")
    page.wait_for_selector("#lobby")
    stop.set()
    page.click("button.play-bots[data-room='siguo']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_function("() => window.junqi.table.deploy?.draft")
    assert state(page, "table.deploy.note") == "已调入你上一局的布局"
    assert state(page, "table.deploy.draft") == played
    assert errors == []


def test_the_lobby_shows_the_leaderboard_my_games_and_an_escape_warning(
    browser: Browser, tmp_path: Path
) -> None:
    """Four registered players sit at a table; one leaves once the game has begun (an escape,
    scored −2); signed in as that player, the lobby shows it all."""
    with live_server(tmp_path, ROOMS, SETTINGS) as server:
        lobby_standings(server, browser)


def lobby_standings(server: str, browser: Browser) -> None:
    names = ["甲兵", "乙兵", "丙兵", "丁兵"]
    tokens = [
        httpx.post(f"{server}/api/auth/register", json={"name": n, "password": "secret-pw"}).json()[
            "token"
        ]
        for n in names
    ]
    with ExitStack() as stack:
        sockets = [stack.enter_context(live_socket(server, token)) for token in tokens]

        def request(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
            ws.send(json.dumps({"id": 1, **message}))
            while True:
                reply: dict[str, Any] = json.loads(ws.recv(timeout=30))
                if reply["type"] in ("ok", "error") and reply.get("ref") == 1:
                    assert reply["type"] == "ok", reply
                    return reply

        table = request(sockets[0], {"type": "create_table", "room": "quick"})["table"]
        for seat, ws in enumerate(sockets):
            request(ws, {"type": "sit", "table": table, "seat": seat})
        for ws in sockets:
            request(ws, {"type": "ready", "table": table})
        request(sockets[3], {"type": "leave", "table": table})  # the game has begun: an escape
    page = browser.new_page(viewport=DESKTOP)
    page.goto(server)
    page.fill("input[name=name]", "丁兵")
    page.fill("input[name=password]", "secret-pw")
    page.click("button[name=login]")
    page.wait_for_selector("#my-games li")
    assert "-2" in page.inner_text("#my-games")
    page.wait_for_selector("#escapes")
    assert "(1)" in page.inner_text("#escapes")
    page.wait_for_selector("#leaderboard li")
    board = page.inner_text("#leaderboard")
    assert all(name in board for name in names)
    assert "丁兵" in page.locator("#leaderboard li").last.inner_text()  # last, with −2
    shot(page, "lobby-standings")


def test_a_player_whose_last_field_marshal_fell_raises_the_flag_on_an_hq(
    server: str, browser: Browser
) -> None:
    """乱战: a seat without a flag whose last 司令 died is asked, at once, to pick the HQ of its
    flag. The position is made by the engine and handed to the page as the server would send
    it; what the page sends back is read off its socket."""
    game_state, _ = marshal_killed()
    view = engine.view(game_state, 1)
    seats = [
        {
            "seat": s,
            "bot": False,
            "level": None,
            "name": f"玩家{s}",
            "points": 0,
            "title": "兵",
            "ready": True,
            "away": False,
            "away_until": None,
            "taken_over": False,
            "swap_with": None,
        }
        for s in range(4)
    ]
    snapshot = {
        "id": "raise",
        "room": "luanzhan",
        "variant": "luanzhan",
        "board": "siguo",
        "options": {},
        "status": "playing",
        "host": 0,
        "creator": None,
        "spectators": 0,
        "bots": False,
        "stand_in": False,
        "seats": seats,
        "version": 1,
        "seq": 0,
        "you": 1,
        "game_id": "g",
        "game": view,
        "points": None,
        "rules": engine.get_variant("luanzhan").rules.to_dict(),
        "may": ["leave", "stand_in_on"],
        "creator_may": [],
    }
    page = browser.new_page(viewport=DESKTOP)
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(str(frame))))
    enter_as_guest(page, server)
    page.evaluate("() => { location.hash = '#table/raise'; }")
    page.wait_for_function("() => window.junqi.table?.id === 'raise'")
    page.evaluate(
        "(snapshot) => window.junqi.socket.receive("
        "{type: 'table', table: 'raise', snapshot, events: []})",
        snapshot,
    )
    page.wait_for_selector(".raise-mark[data-target='1:64']")
    assert page.locator(".raise-mark").count() == 2  # both HQs of the seat, nothing else
    assert "升军旗" in page.inner_text("#status")
    marks_on_top(page, "1:64", ".raise-mark[data-target='1:64'] rect", centre=True)
    shot(page, "luanzhan-raise-flag")
    page.click("circle.hit[data-station='1:64']")
    wanted = {"type": "raise_flag", "station": "1:64"}
    for _ in range(50):
        if any(json.loads(text).get("action") == wanted for text in sent if text.startswith("{")):
            break
        page.wait_for_timeout(100)
    else:
        raise AssertionError(f"no raise_flag sent: {sent}")
