"""The web client in Debian's Chromium (Playwright, headless) against a real server process.

A player plays a whole game of every variant against bots through the interface alone
(clicks on stations and buttons): 四国 in both rooms, 乱战 with its colour pick and redeal
question, 三打一 with its bidding, 三国, 二人 and 翻棋 with its flips. Along the way: attack
targets are drawn on top of the pieces, each board fits 1280×800 and 390×844 without
scrolling, each seat's panel sits at its own arm, and no JavaScript error is logged. Then a
player on a phone zooms in, taps and drags; a registered player deploys from a layout file,
swaps by keyboard, click and drag, saves and loads, and finds their layout again next game;
a spectator sees no rank and turns the board; the lobby shows standings and escapes.
Screenshots of each stage go to ``artifacts/``.
"""

from __future__ import annotations

import contextlib
import json
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, ViewportSize
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
    press,
    seats_at_their_arms,
    shot,
    small_targets,
    state,
    tap_targets,
    touch_drag,
    wait_newer,
    watch_errors,
)

pytestmark = needs_chromium

SIZES: list[ViewportSize] = [
    PHONE,
    {"width": 360, "height": 640},
    {"width": 640, "height": 360},
    {"width": 844, "height": 390},
    {"width": 768, "height": 1024},
    {"width": 1920, "height": 1080},
]


def behind_a_bot_host(page: Page, room: str) -> None:
    """Open a table, stand up, seat bots on seats 0, 2 and 3 (the first is the host 桌主) and
    sit on seat 1: in 乱战 the host takes the last colour, so this player picks one."""
    page.click(f"button.create[data-room='{room}']")
    page.wait_for_selector("#stand")
    page.click("#stand")
    for seat in (0, 2, 3):
        button = f".seat-panel[data-seat='{seat}'] .svg-button[data-action='add_bot']"
        page.click(button)
        page.wait_for_selector(button, state="detached")
    page.click(".seat-panel[data-seat='1'] .svg-button[data-action='sit']")
    all_seated(page)
    assert state(page, "table.snapshot.you") == 1
    assert state(page, "table.snapshot.host") == 0


def check_phase(page: Page, room: str, phase: str) -> None:
    """What each phase shows before the player acts in it."""
    if phase == "picking":
        card = page.locator("#pick")
        assert card.is_visible()
        assert card.locator(".order li").count() == 4  # the order, the host last
        assert card.locator(".order li.now").count() == 1  # whose pick it is
    elif phase == "picking-yours":
        assert page.locator("#pick .your-turn").is_visible()
        assert page.locator("button.pick:not([disabled])").count() >= 1
    elif phase in ("redealing", "redealing-yours"):
        assert page.locator("#redeal .hand li").count() >= 1  # the hand is drawn
    elif phase == "bidding-yours":
        assert page.locator("#bid .hand").get_attribute("data-hand") == "20"
        assert page.locator("#bid .order li").count() == 4  # every seat's bid
    elif phase == "deploying-yours":
        page.wait_for_function("() => document.querySelectorAll('.piece').length >= 25")
        assert page.locator(".piece .label").count() >= 25  # never an empty arm
        seats_at_their_arms(page)


def during_play(page: Page, room: str, done: dict[str, bool]) -> None:
    """Checks made once in play, on the player's turn."""
    snap = state(page, "table.snapshot")
    game = snap["game"]
    mine = [p for p in game["pieces"] if p.get("seat") == snap["you"]]
    if not done.get("fits") and game["total_moves"] >= 3:
        done["fits"] = True
        board_fits(page)
        seats_at_their_arms(page)
        assert page.locator(".last-to").count() >= 2  # the last move of every seat that moved
        shot(page, f"{room}-3-play")
        for size in SIZES:  # phones, tablets and screens, portrait and landscape
            page.set_viewport_size(size)
            page.wait_for_timeout(250)
            board_fits(page)
            seats_at_their_arms(page)
            if size == PHONE:
                shot(page, f"{room}-3-play-phone")
        page.set_viewport_size(DESKTOP)
        page.wait_for_timeout(250)
    if room in ("siguo", "sandayi", "sanguo"):  # not in the first 90 s, 50 moves, at all
        assert page.locator("#surrender").count() == 0
    if room == "siguo-open" and not done.get("open"):
        done["open"] = True  # 双明: the partner's ranks are drawn, the opponents' not
        partner = (snap["you"] + 2) % 4
        assert page.locator(f".piece[data-army='{partner}']:not([data-rank=''])").count() > 0
        assert (
            page.locator(f".piece[data-army='{(partner + 1) % 4}']:not([data-rank=''])").count()
            == 0
        )
    if room == "sandayi" and not done.get("flags"):
        done["flags"] = True  # the idle players' flags are shown from the start
        assert page.locator(".flag-mark.shown").count() >= 1
    legal = game.get("legal_moves") or {}
    occupied = {p["station"] for p in game["pieces"]}
    attacks = [(o, t) for o, targets in legal.items() for t in targets if t in occupied]
    if not done.get("attack") and attacks and mine:
        origin, target = attacks[0]
        press(page, origin)
        mark = f".attack-mark[data-target='{target}']"
        page.wait_for_selector(mark)
        marks_on_top(page, target, mark)
        marks_on_top(page, origin, ".selected-mark")
        quiet = [t for t in legal[origin] if t not in occupied]
        assert page.locator(".move-dot").count() == len(quiet)  # empty destinations apart
        shot(page, f"{room}-3-attack")
        version = snap["version"]
        press(page, target)
        page.wait_for_selector(".fight")  # the outcome, on the spot
        done["attack"] = True
        wait_newer(page, version)


VARIANT_ROOMS = ["siguo", "siguo-open", "luanzhan", "sandayi", "sanguo", "liangguo", "fanqi"]


@pytest.mark.parametrize("room", VARIANT_ROOMS)
def test_a_whole_game_of_each_variant_through_the_interface(
    server: str, browser: Browser, room: str
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    if room == "luanzhan":
        behind_a_bot_host(page, room)
    else:
        page.click(f"button.play-bots[data-room='{room}']")
        all_seated(page)
    board_fits(page)
    seats_at_their_arms(page)
    shot(page, f"{room}-1-table")
    assert page.locator("#surrender, #draw").count() == 0  # nothing offered before the game
    page.click("#ready")
    player = Player(page, seed=len(room))
    done: dict[str, bool] = {}

    def before(phase: str) -> None:
        shot(page, f"{room}-2-{phase}")
        check_phase(page, room, phase)

    if room == "liangguo":  # offers a draw (the bot declines), then surrenders

        def during(p: Player) -> None:
            during_play(page, room, done)
            if done.get("attack") and not done.get("offered"):
                done["offered"] = True
                page.click("#draw")
                page.wait_for_function(
                    "() => window.junqi.table.events.some((e) => e.kind === 'proposal_declined')"
                )
            elif done.get("offered") and p.moves >= 4:
                page.click("#surrender")
                page.wait_for_selector("#result")
    else:

        def during(p: Player) -> None:
            during_play(page, room, done)

    player.play_to_end(before, during)
    page.wait_for_selector("#result")
    shot(page, f"{room}-4-result")
    assert page.locator("#result h2").inner_text()
    assert page.locator("#result tr.outcome").count() == len(state(page, "table.snapshot.seats"))
    if room == "luanzhan":
        assert "picking-yours" in player.phases
    if room == "sandayi":
        assert "bidding" in player.phases
    if room == "fanqi":
        assert player.flips > 0
    if room == "liangguo":
        assert (
            state(page, "table.snapshot.game.result.seats")[0]["outcome"] == "loss"
        )  # surrendered
        page.click("#to-replay")  # the replay steps back and forth, every rank shown
        page.wait_for_selector("#replay svg.board")
        page.click("#prev")
        page.wait_for_function(
            "() => window.junqi.replay.state"
            " && window.junqi.replay.step === window.junqi.replay.steps - 1"
        )
        assert page.locator("#replay .piece .label").count() > 0
        shot(page, f"{room}-5-replay")
    assert done.get("fits"), done
    assert errors == []
    page.close()


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
    assert board.strip().splitlines()[-1].startswith("丁兵")  # last, with −2
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
