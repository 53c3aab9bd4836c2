"""The web client in Debian's Chromium (Playwright, headless) against a real server process.

A player registers and signs in, opens a 四国 table that three socket clients fill, imports a
broken layout file and sees its problems, deploys by auto-layout, click-to-swap and drag and drop,
saves and reloads the layout, and plays moves by clicking until the game ends; a spectator
watches in a second browser page; the replay opens at the end. Screenshots of each stage go to
``artifacts/``.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from websockets.sync.client import connect

import engine
from tests.live import live_server

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
ROOM = {
    "id": "quick",
    "name": "四国 quick",
    "variant": "siguo",
    "options": {"no_capture_plies": 16, "move_seconds": 60},
}
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs /usr/bin/chromium")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    with live_server(tmp_path, [ROOM]) as base:
        yield base


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield instance
        instance.close()


def opponent(base: str, table: str, seat: int, done: threading.Event) -> None:
    """A seat over a socket: sits, readies, deploys automatically, plays random legal moves."""
    token = httpx.post(f"{base}/api/auth/guest").json()["token"]
    rng = random.Random(seat)
    url = base.replace("http", "ws") + f"/ws?token={token}"
    with connect(url) as ws:
        ws.send(json.dumps({"type": "sit", "table": table, "seat": seat}))
        ws.send(json.dumps({"type": "ready", "table": table}))
        acted = -1
        while not done.is_set():
            message = json.loads(ws.recv(timeout=120))
            if message["type"] not in ("table", "update"):
                continue
            snap = message.get("snapshot") or message["patch"]  # both: version, game
            game = snap["game"]
            if game is None or snap["version"] == acted:
                continue
            if game["phase"] == "finished":
                return
            if game["phase"] == "deploying" and not game["seats"][seat]["confirmed"]:
                layout = engine.auto_layout("siguo", seat, 9)
                action: dict[str, Any] = {"type": "place_layout", "layout": layout}
            elif game["phase"] == "playing" and game.get("legal_moves"):
                origin = rng.choice(sorted(game["legal_moves"]))
                target = rng.choice(game["legal_moves"][origin])
                action = {"type": "move", "origin": origin, "target": target}
            else:
                continue
            acted = snap["version"]
            ws.send(json.dumps({"type": "act", "table": table, "version": acted, "action": action}))


def state(page: Page, path: str) -> Any:
    return page.evaluate(f"() => window.junqi && window.junqi.{path}")


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def test_a_player_deploys_plays_and_replays_in_the_browser(
    server: str, browser: Browser, tmp_path: Path
) -> None:
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda dialog: dialog.accept("稳守"))
    page.goto(server)
    page.fill("input[name=name]", "老司令")
    page.fill("input[name=password]", "secret-pw")
    page.click("button[name=register]")
    page.wait_for_selector("#lobby")
    page.evaluate("() => localStorage.removeItem('junqi.token')")
    page.reload()
    page.fill("input[name=name]", "老司令")
    page.fill("input[name=password]", "secret-pw")
    page.click("button[name=login]")
    page.wait_for_selector("#lobby")
    assert page.inner_text("#who") == "老司令"
    shot(page, "1-lobby")
    page.click("details.options summary")
    page.fill("input[name=move_seconds][data-room='quick']", "45")
    page.click("button.create[data-room='quick']")
    page.wait_for_selector("#table svg.board")
    table = state(page, "table")
    assert state(page, "snapshot.options.move_seconds") == 45  # the table's own rule
    page.wait_for_selector("#seats .seat[data-seat='3']")
    assert page.locator("button.add-bot").count() == 3  # its creator, seated, may add bots

    spectator = browser.new_page()
    spectator.goto(server)
    spectator.click("#guest")
    spectator.wait_for_selector(f"button.watch[data-table='{table}']")
    spectator.click(f"button.watch[data-table='{table}']")
    spectator.wait_for_selector("#seats .seat[data-seat='3']")
    assert spectator.locator("button.add-bot").count() == 0  # a spectator may not
    done = threading.Event()
    for seat in (1, 2, 3):
        threading.Thread(target=opponent, args=(server, table, seat, done), daemon=True).start()

    page.wait_for_function("() => window.junqi.snapshot.seats.every((s) => s.name !== null)")
    shot(page, "1-table")
    page.click("#lang")  # English, and back
    assert page.inner_text("#ready") == "Ready"
    page.click("#lang")
    assert page.inner_text("#ready") == "开始"
    page.click("#ready")
    page.wait_for_selector("#auto")
    # an invalid layout file shows its problems
    bad = tmp_path / "bad.txt"
    bad.write_text("排 排 排\n", encoding="utf-8")
    page.set_input_files("#import", str(bad))
    page.wait_for_selector(".problem-line")
    assert "expected 5 tokens" in page.inner_text("#problems")
    broken = tmp_path / "broken.txt"
    rows = engine.format_layout(engine.auto_layout("siguo", 0, 2)).splitlines()
    rows[1] = "雷 炸 旗 炸 雷"  # mines, bombs and the flag in the front row
    broken.write_text("\n".join(rows), encoding="utf-8")
    page.set_input_files("#import", str(broken))
    page.wait_for_function("() => window.junqi.problems.length > 0")
    codes = {p["code"] for p in state(page, "problems")}
    assert {"landmine_outside_back_rows", "bomb_in_front_row", "flag_not_in_hq"} <= codes
    assert page.locator(".station.problem").count() >= 3
    # automatic layout, then a click-to-swap and a drag and drop keep it legal
    page.click("#auto")
    page.wait_for_function("() => window.junqi.draft && window.junqi.problems.length === 0")
    draft = state(page, "draft")
    page.focus("circle.hit[data-station='0:11']")  # by keyboard
    page.keyboard.press("Enter")
    page.click("circle.hit[data-station='0:15']")
    page.wait_for_function(f"() => window.junqi.draft['0:11'] === {json.dumps(draft['0:15'])}")
    page.drag_and_drop("circle.hit[data-station='0:12']", "circle.hit[data-station='0:14']")
    page.wait_for_function(f"() => window.junqi.draft['0:12'] === {json.dumps(draft['0:14'])}")
    assert state(page, "problems") == []
    page.click("#save")  # saved on the server under the name the dialog gave
    page.wait_for_function("() => document.querySelector('#notice').textContent.includes('稳守')")
    page.click("#auto")
    page.wait_for_function(
        f"() => window.junqi.draft['0:11'] !== {json.dumps(draft['0:15'])}"
        " || window.junqi.draft['0:12'] !== " + json.dumps(draft["0:14"])
    )
    page.select_option("#saved", label="稳守")  # load it back
    page.wait_for_function(f"() => window.junqi.draft['0:12'] === {json.dumps(draft['0:14'])}")
    shot(page, "2-deployment")
    page.click("#confirm")
    page.wait_for_function("() => window.junqi.snapshot.game.phase !== 'deploying'")

    moves = 0
    while state(page, "snapshot.game.phase") == "playing" and moves < 60:
        page.wait_for_function(
            "() => { const g = window.junqi.snapshot.game;"
            " return g.phase !== 'playing' || (g.to_move === 0 && g.legal_moves); }"
        )
        game = state(page, "snapshot.game")
        if game["phase"] != "playing":
            break
        origin = sorted(game["legal_moves"])[moves % len(game["legal_moves"])]
        target = game["legal_moves"][origin][0]
        version = state(page, "snapshot.version")
        page.click(f"circle.hit[data-station='{origin}']")
        page.click(f"circle.hit[data-station='{target}']")
        page.wait_for_function(f"() => window.junqi.snapshot.version > {version}")
        moves += 1
        if moves == 3:
            shot(page, "3-play")
            page.set_viewport_size({"width": 390, "height": 844})  # a phone
            shot(page, "3-play-phone")
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 400
            page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_selector(".outcome", timeout=60000)
    shot(page, "4-result")
    done.set()
    assert moves > 0
    assert state(page, "snapshot.game.phase") == "finished"
    # the spectator never saw a rank before the end
    spectator.wait_for_function("() => window.junqi.snapshot.game.phase === 'finished'")
    assert spectator.evaluate("() => window.junqi.snapshot.you") is None
    # the replay steps back and forth with every rank shown
    page.click("#to-replay")
    page.wait_for_selector("#replay svg.board")
    page.click("#prev")
    page.wait_for_function(
        "() => document.querySelector('#step').textContent"
        ".startsWith(String(window.junqi.replay.steps - 1))"
    )
    shown = page.locator("#replay .piece text").all_text_contents()
    assert any(text for text in shown)  # ranks are written on the pieces
    page.click("#next")
    assert errors == []


def test_a_newcomer_plays_at_once_against_bots(server: str, browser: Browser) -> None:
    errors: list[str] = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server)
    page.click("#guest")
    page.click("#play-now")
    page.wait_for_function(
        "() => window.junqi.snapshot && window.junqi.snapshot.seats.every((s) => s.name)"
    )
    assert [s["bot"] for s in state(page, "snapshot.seats")] == [False, True, True, True]
    page.click("#ready")
    page.click("#auto")
    page.wait_for_function("() => window.junqi.draft && window.junqi.problems.length === 0")
    page.click("#confirm")
    page.wait_for_function("() => window.junqi.snapshot.game.phase === 'playing'")
    page.wait_for_function(
        "() => window.junqi.log.some((e) => e.kind === 'moved' && e.seat !== 0)"
        " || window.junqi.snapshot.game.to_move === 0",
        timeout=30000,
    )
    shot(page, "5-bots")
    assert errors == []


def test_the_lobby_shows_the_leaderboard_my_games_and_an_escape_warning(
    server: str, browser: Browser
) -> None:
    """Four registered players sit at a table; one leaves once the game has begun (an escape,
    scored −2); signed in as that player, the lobby shows it all."""
    names = ["甲兵", "乙兵", "丙兵", "丁兵"]
    tokens = [
        httpx.post(f"{server}/api/auth/register", json={"name": n, "password": "secret-pw"}).json()[
            "token"
        ]
        for n in names
    ]
    url = server.replace("http", "ws") + "/ws?token="
    with ExitStack() as stack:
        sockets = [stack.enter_context(connect(url + token)) for token in tokens]

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
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(server)
    page.fill("input[name=name]", "丁兵")
    page.fill("input[name=password]", "secret-pw")
    page.click("button[name=login]")
    page.wait_for_selector("#my-games li")
    assert "-2" in page.inner_text("#my-games")
    page.wait_for_selector("#escapes:not([hidden])")
    assert "(1)" in page.inner_text("#escapes")
    page.wait_for_selector("#leaderboard li")
    board = page.inner_text("#leaderboard")
    assert all(name in board for name in names)
    assert board.strip().splitlines()[-1].startswith("丁兵")  # last, with −2
    shot(page, "6-standings")
