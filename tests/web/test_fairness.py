"""Fair deals in the browser (docs/fairness.md): the table shows the commitment from the start;
a finished game's result card and its replay show the seed and verify it in the page (SHA-256
by crypto.subtle, the deal dealt again by web/js/deal.js) against the deal played, in words;
a tampered seed or deal fails. deal.js is checked bit for bit against engine.deal on many
seeds. Debian's Chromium through Playwright, against a real server."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from engine import deal
from engine.variants import get_variant
from tests.live import live_server
from tests.soak import soak
from tests.web.ui import (
    DESKTOP,
    PHONE,
    Player,
    all_seated,
    enter_as_guest,
    needs_chromium,
    resize,
    says,
    shot,
    state,
    watch_errors,
)

pytestmark = needs_chromium

ROOMS = [  # games that end after a few moves: a draw by the move limit
    {"id": "fanqi", "name": "翻棋 快", "variant": "fanqi", "options": {"max_total_moves": 8}},
    {"id": "sandayi", "name": "三打一 快", "variant": "sandayi", "options": {"max_total_moves": 6}},
    {"id": "duel", "name": "二人 快", "variant": "liangguo", "options": {"max_total_moves": 2}},
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(
        tmp_path_factory.mktemp("fair"), ROOMS, {"JUNQI_BOT_PAUSE_SECONDS": "0.05"}
    ) as base:
        yield base


def play(page: Page, room: str, seed: int, during: Any = None) -> None:
    """A game of ``room`` against bots, through the interface, to its result card."""
    page.click(f"button.play-bots[data-room='{room}']")
    all_seated(page)
    page.click("#ready")
    Player(page, seed=seed).play_to_end(during=during, seconds=120)
    page.wait_for_selector("#result")


def verify(page: Page) -> dict[str, Any]:
    """Press verify; what it says, and whether it matched."""
    done = int(page.get_attribute("#fair", "data-check") or "0")
    page.click("#verify")
    page.wait_for_selector(f"#fair[data-check='{done + 1}']:not([data-status=checking])")
    return {
        "ok": page.get_attribute("#verify-result", "data-ok"),
        "text": page.inner_text("#verify-result"),
    }


def words_only(text: str) -> None:
    assert not any(c in text for c in "{}[]_") and "undefined" not in text and "null" not in text


# --- deal.js against engine.deal ----------------------------------------------------------------


def test_the_browser_deals_exactly_as_the_engine(server: str, browser: Browser) -> None:
    page = browser.new_page()
    page.goto(server)
    rng = random.Random(25)
    seeds = [f"{rng.getrandbits(128):032x}" for _ in range(soak(40, 300))] + ["", "7", "军棋 seed"]
    board = get_variant("fanqi").board
    stations = [s for s in board.stations if board.station(s).kind != "camp"]
    dealt = page.evaluate(
        """async ([seeds, stations]) => {
          const d = await import("/js/deal.js");
          const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
          const out = [];
          for (const seed of seeds) {
            const n = seed.length % 4; // deal numbers other than 0 too
            const l = await d.dealLuanzhan(seed, n), s = await d.dealSandayi(seed, n);
            const text = new TextEncoder().encode(`junqi-deal:${seed}`);
            out.push({
              commitment: await d.commitment(seed), fallback: hex(d.sha256Fallback(text)),
              luanzhan: [0, 1, 2, 3].map((c) => l.handFor(c)),
              sandayi: [s.hands, s.bottom, s.kept],
              fanqi: [...(await d.dealFanqi(seed, stations)).entries()],
            });
          }
          return out;
        }""",
        [seeds, stations],
    )

    def pieces(ps: Any) -> list[list[Any]]:
        return [[rank.value, army] for rank, army in ps]

    for seed, got in zip(seeds, dealt, strict=True):
        n = len(seed) % 4
        assert got["commitment"] == got["fallback"] == deal.commitment(seed), seed
        luanzhan = deal.deal_luanzhan(seed, n)
        assert got["luanzhan"] == [pieces(luanzhan.hand_for(c)) for c in range(4)], seed
        sandayi = deal.deal_sandayi(seed, n)
        assert got["sandayi"] == [
            [pieces(h) for h in sandayi.hands],
            pieces(sandayi.bottom),
            pieces(sandayi.kept),
        ], seed
        fanqi = deal.deal_fanqi(seed, stations)
        assert got["fanqi"] == [[s, [r.value, a]] for s, (r, a) in fanqi.items()], seed
    # the generator itself, seeded with integers small and large (no high zero words), and
    # the fallback SHA-256 on texts of every length around a block
    numbers = [0, 1, 5, 2**32 - 1, 2**32, 2**40 + 3, 2**255 + 17, 2**256 - 1]
    streams = page.evaluate(
        """async (keys) => {
          const d = await import("/js/deal.js");
          const out = keys.map((key) => {
            const r = new d.PyRandom(key);
            return [...Array(700)].map(() => r.next32());
          });
          const hex = (b) => [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
          const texts = [...Array(140)].map((_, i) => "军".repeat(i % 7) + "x".repeat(i));
          const hashes = [];
          for (const text of texts) {
            const bytes = new TextEncoder().encode(text);
            const subtle = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
            hashes.push([hex(subtle), hex(d.sha256Fallback(bytes))]);
          }
          return { out, hashes };
        }""",
        [_words(n) for n in numbers],
    )
    for n, stream in zip(numbers, streams["out"], strict=True):
        python = random.Random(n)
        assert stream == [python.getrandbits(32) for _ in range(700)], n
    assert all(subtle == fallback for subtle, fallback in streams["hashes"])
    page.close()


def _words(n: int) -> list[int]:
    """``n`` as CPython's random_seed cuts it: 32-bit words, least significant first."""
    words = [(n >> (32 * i)) & 0xFFFFFFFF for i in range(max(1, (n.bit_length() + 31) // 32))]
    return words


# --- at the table and in the replay -------------------------------------------------------------


@pytest.fixture(scope="module")
def fanqi(server: str, browser: Browser) -> Iterator[dict[str, Any]]:
    """A 翻棋 game against a bot played to its end; the commitment as the table showed it."""
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    seen: dict[str, Any] = {}

    def look(p: Player) -> None:
        if seen:
            return
        page.wait_for_selector("#commitment")
        seen.update(
            shown=page.get_attribute("#commitment", "data-commitment"),
            text=page.inner_text("#commitment"),
            title=page.get_attribute("#commitment", "title"),
            game=state(page, "table.snapshot.game"),
        )
        shot(page, "fair-1-table-commitment")
        resize(page, PHONE)
        page.locator("#commitment").scroll_into_view_if_needed()
        shot(page, "fair-1-table-commitment-phone")
        resize(page, DESKTOP)

    play(page, "fanqi", 3, look)
    yield {"page": page, "errors": errors, **seen}
    page.close()


def test_the_table_shows_the_commitment_from_the_start_and_never_the_seed(
    fanqi: dict[str, Any],
) -> None:
    game = fanqi["game"]
    assert game["phase"] == "playing" and game["seed"] is None
    shown = fanqi["shown"]
    assert shown == game["commitment"] and len(shown) == 64
    assert "发牌承诺" in fanqi["text"] and shown[:8] in fanqi["text"]
    assert shown not in fanqi["text"] and shown in fanqi["title"]  # short; whole in the title
    page: Page = fanqi["page"]
    assert page.get_attribute("#commitment", "data-commitment") == shown  # the same to the end


def test_a_finished_game_verifies_its_deal_in_the_browser(fanqi: dict[str, Any]) -> None:
    page: Page = fanqi["page"]
    seed = page.inner_text("#result #seed")
    assert seed == state(page, "table.snapshot.game.seed") and deal.verify(seed, fanqi["shown"])
    said = verify(page)
    assert said["ok"] == "true", said
    assert "发牌已验证: 与对局一致" in said["text"] and "翻开的" in said["text"]
    words_only(said["text"])
    shot(page, "fair-2-result-verified")
    resize(page, PHONE)
    shot(page, "fair-2-result-verified-phone")
    resize(page, DESKTOP)
    # the same in English
    page.click("#lang")
    said = verify(page)
    assert said["ok"] == "true" and "Deal verified: it matches the game" in said["text"], said
    words_only(said["text"])
    page.click("#lang")
    assert fanqi["errors"] == []


def test_a_tampered_seed_fails_at_the_table(fanqi: dict[str, Any]) -> None:
    page: Page = fanqi["page"]
    seed = state(page, "table.snapshot.game.seed")
    page.evaluate("() => { window.junqi.table.snapshot.game.seed = '0'.repeat(32); }")
    said = verify(page)
    assert said["ok"] == "false" and "验证失败: 种子与承诺不符" in said["text"], said
    words_only(said["text"])
    shot(page, "fair-3-result-tampered")
    page.evaluate(f"() => {{ window.junqi.table.snapshot.game.seed = '{seed}'; }}")
    assert verify(page)["ok"] == "true"
    # with the result closed, the table's information card has the seed and the check
    page.click("#see-board")
    page.wait_for_selector("#result", state="detached")
    page.wait_for_selector(".table-info #fair #verify")
    assert page.inner_text(".table-info #seed") == seed
    said = verify(page)
    assert said["ok"] == "true" and "发牌已验证" in said["text"], said
    shot(page, "fair-3-table-info-verified")


def test_a_dealt_hand_is_verified_at_the_table_and_in_the_replay(
    server: str, browser: Browser
) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    play(page, "sandayi", 4)
    said = verify(page)  # the hands this page was dealt: at the bidding, then after it
    assert said["ok"] == "true", said
    assert int(re.findall(r"你拿到的 (\d+) 副手牌与对局相同", said["text"])[0]) >= 2, said
    assert "你在对局中看到的承诺" in said["text"]
    game = state(page, "table.snapshot.game_id")
    page.click("#to-replay")
    page.wait_for_selector("#replay #fair #verify")
    said = verify(page)  # every hand of the record, and the page's own from the game
    assert said["ok"] == "true", said
    every = int(re.findall(r"(\d+) 副手牌与对局相同", said["text"])[0])
    assert every >= 8 and every % 4 == 0, said  # 4 seats, before and after the bidding
    assert int(re.findall(r"其中有你在对局中拿到的 (\d+) 副", said["text"])[0]) >= 2, said
    words_only(said["text"])
    shot(page, "fair-4-replay-verified")
    resize(page, PHONE)
    page.locator("#fair").scroll_into_view_if_needed()
    shot(page, "fair-4-replay-verified-phone")
    resize(page, DESKTOP)
    # a seed that is not the game's fails; so does a hand other than the one dealt
    seed = state(page, "replay.summary.seed")
    page.evaluate("() => { window.junqi.replay.summary.seed = 'f'.repeat(32); }")
    said = verify(page)
    assert said["ok"] == "false" and "验证失败: 种子与承诺不符" in said["text"], said
    page.evaluate(f"() => {{ window.junqi.replay.summary.seed = '{seed}'; }}")
    page.evaluate(
        """(game) => {
          const all = JSON.parse(localStorage.getItem("junqi.deals"));
          const hand = all[game].events.find((e) => e.kind === "hand");
          hand.pieces[0].rank = hand.pieces[0].rank === "bomb" ? "flag" : "bomb";
          localStorage.setItem("junqi.deals", JSON.stringify(all));
        }""",
        game,
    )
    said = verify(page)
    assert said["ok"] == "false" and "验证失败: 按种子发的牌与对局不一致" in said["text"], said
    words_only(said["text"])
    shot(page, "fair-5-replay-tampered")
    assert errors == []
    page.close()


def test_a_game_without_a_deal_says_so(server: str, browser: Browser) -> None:
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    play(page, "duel", 5)
    assert page.inner_text("#verify") == "验证种子"
    said = verify(page)
    assert said["ok"] == "true" and "种子已验证: 与承诺相符" in said["text"], said
    assert "本局没有发牌" in said["text"]
    words_only(said["text"])
    assert errors == []
    page.close()


def test_the_seed_is_in_no_page_state_before_the_end(server: str, browser: Browser) -> None:
    """What the page holds of a running game (its store, its remembered deals) has no seed."""
    page = browser.new_page(viewport=DESKTOP)
    enter_as_guest(page, server)
    page.click("button.play-bots[data-room='fanqi']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_function("() => window.junqi.table.snapshot.game?.phase === 'playing'")
    says(page, "#commitment", "发牌承诺")
    held = page.evaluate(
        "() => JSON.stringify(window.junqi.table) + localStorage.getItem('junqi.deals')"
    )
    assert '"seed":null' in held and json.dumps(state(page, "table.snapshot.game.seed")) == "null"
    page.close()
