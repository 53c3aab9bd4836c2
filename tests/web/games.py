"""A whole game of a variant against bots, played through the web client alone (clicks on
stations and buttons), with what is checked along the way: what each phase shows, attack
targets drawn on top of the pieces, each board fitting phones, tablets and screens without
scrolling, each seat's panel at its own arm, no JavaScript error, the result card. The
modules ``test_games_*.py`` play one of every variant, a few to a module: each module has a
server and a browser of its own, so that pytest-xdist's workers share the games out."""

from __future__ import annotations

from playwright.sync_api import Browser, Page, ViewportSize

from tests.web.ui import (
    DESKTOP,
    PHONE,
    Player,
    all_seated,
    board_fits,
    enter_as_guest,
    marks_on_top,
    press,
    resize,
    seats_at_their_arms,
    shot,
    state,
    wait_newer,
    watch_errors,
)

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
            resize(page, size)
            board_fits(page)
            seats_at_their_arms(page)
            if size == PHONE:
                shot(page, f"{room}-3-play-phone")
        resize(page, DESKTOP)
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


def play_a_whole_game(server: str, browser: Browser, room: str) -> None:
    """A guest plays a whole game in ``room`` (of ``tests.web.conftest.ROOMS``) against bots:
    四国 in both rooms, 乱战 with its colour pick and redeal question, 三打一 with its bidding,
    三国, 二人 (a draw offered, declined, then a surrender and the replay) and 翻棋 with its
    flips. Screenshots of each stage go to ``artifacts/``."""
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
                page.click("#modal-confirm")  # 投降 is asked first
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
