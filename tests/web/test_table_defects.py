"""What a player sees every move, made right (issue #44): a 棋谱 that follows the game unless
the reader scrolled up (a "latest" button brings it back), its lines numbered by ply as the
replay numbers its steps; 投降 asked before it is sent; a result's reason exact for each ending
and each viewer (checked on the page's own functions over hand-made results); skips for want
of a move told apart from timeouts; dead links answered in words; an English page without
Chinese outside names, with piece labels that fit their pieces; bots named one way everywhere."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.live import live_server
from tests.web.ui import DESKTOP, all_seated, drawn, enter_as_guest, shot, state, watch_errors

ROOMS = [
    {
        "id": "long",
        "name": "四国 长局室",
        "name_en": "Four-player, long games",
        "variant": "siguo",
        "options": {"max_total_moves": 90, "no_capture_plies": 200},
    },
    {
        "id": "duel",
        "name": "二人 投降室",
        "name_en": "Two-player, quick surrender",
        "variant": "liangguo",
        "options": {"surrender_after_seconds": 0, "max_total_moves": 400},
    },
]
SETTINGS = {"JUNQI_BOT_PAUSE_SECONDS": "0.05"}
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(tmp_path_factory.mktemp("defects"), ROOMS, SETTINGS) as base:
        yield base


def to_play(page: Page, room: str) -> None:
    """From the lobby: a table of ``room`` with bots, ready, the starting layout confirmed, in
    play."""
    page.click(f"button.play-bots[data-room='{room}']")
    all_seated(page)
    page.click("#ready")
    page.wait_for_selector("#confirm:not([disabled])")
    page.click("#confirm")
    page.wait_for_function("() => window.junqi.table.snapshot.game?.phase === 'playing'")


def last_line_in_view(page: Page) -> bool:
    return bool(
        page.evaluate(
            """() => {
              const log = document.querySelector('[data-log]');
              const last = log.lastElementChild.getBoundingClientRect();
              const box = log.getBoundingClientRect();
              return last.bottom <= box.bottom + 1 && last.top >= box.top - 1;
            }"""
        )
    )


def lines(page: Page) -> list[tuple[int, str]]:
    got: list[tuple[int, str]] = page.evaluate(
        """() => [...document.querySelectorAll('[data-log] [data-ply]')].map((li) =>
          [Number(li.dataset.ply), li.textContent.replace(/\\s+/g, ' ').trim()])"""
    )
    return [(ply, text) for ply, text in got]


def test_the_log_follows_unless_scrolled_up_and_its_plies_are_the_replay_steps(
    server: str, browser: Browser
) -> None:
    """A long 四国 game played by a bot standing in (托管): at each step the log's newest line
    is in view; scrolled up, it stays there while the game goes on, with a "最新" button that
    brings it back. Each line's ``data-ply`` is the step at which the replay, seen through this
    seat's eyes, tells the same line."""
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    to_play(page, "long")
    page.click("#stand-in")  # a bot plays for the player: the game runs at the bots' pace
    followed = 0
    while followed < 5:  # at several steps of a game whose log is longer than its box
        count = page.locator("[data-log] li").count()
        page.wait_for_function(
            f"() => document.querySelectorAll('[data-log] li').length > {count}", timeout=20000
        )
        if page.evaluate(
            "() => { const l = document.querySelector('[data-log]');"
            " return l.scrollHeight > l.clientHeight * 2; }"
        ):
            page.evaluate(
                "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
            )
            assert last_line_in_view(page), f"the newest line out of view at {count} lines"
            followed += 1
    shot(page, "defects-log-following")
    # the reader scrolls up: the log stays there while lines come, and offers the way back
    page.locator("[data-log]").hover()
    page.mouse.wheel(0, -600)
    page.wait_for_selector("#log-latest")
    top = page.evaluate("() => document.querySelector('[data-log]').scrollTop")
    count = page.locator("[data-log] li").count()
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-log] li').length > {count + 3}", timeout=20000
    )
    assert page.evaluate("() => document.querySelector('[data-log]').scrollTop") == top
    assert not last_line_in_view(page)
    shot(page, "defects-log-scrolled-up")
    page.click("#log-latest")
    page.wait_for_selector("#log-latest", state="detached")
    page.wait_for_function(
        "() => { const l = document.querySelector('[data-log]');"
        " return l.scrollHeight - l.scrollTop - l.clientHeight < 2; }"
    )
    assert last_line_in_view(page)
    # the plies: never going back, and the replay's step for each move line
    page.wait_for_selector("#result", timeout=120000)
    table = lines(page)
    plies = [ply for ply, _ in table]
    assert plies == sorted(plies) and plies[-1] > 50
    me = state(page, "table.snapshot.you")
    bot = next(s for s in state(page, "table.snapshot.seats") if s["bot"])
    panel = page.locator(f".seat-panel[data-seat='{bot['seat']}'] text:not(.svg-button text)")
    said = " ".join(panel.all_text_contents())
    assert said.count("机器人") == 1, said  # its name says what it is; its title, its level
    page.click("#to-replay")
    page.wait_for_selector("#replay svg.board")
    page.select_option("#perspective", str(me))
    page.wait_for_function(
        f"() => window.junqi.replay.perspective === '{me}' && window.junqi.replay.state"
    )
    drawn(page)  # the move list redrawn for the seat's eyes
    replay = lines(page)
    moves = [line for line in replay if "→" in line[1]]
    assert len(moves) > 40
    assert set(moves) <= set(table), set(moves) - set(table)  # the same line at the same ply
    # the current step's lines are marked, and named as the table named them
    page.click("#prev")
    page.wait_for_function("() => window.junqi.replay.step === window.junqi.replay.steps - 1")
    step = state(page, "replay.step")
    assert {
        int(p)
        for p in page.locator("[data-log] li.current").evaluate_all(
            "(els) => els.map((li) => li.dataset.ply)"
        )
    } == {step}
    assert f"机器人{bot['seat'] + 1}" in (
        page.locator(f".seat-panel[data-seat='{bot['seat']}']").text_content() or ""
    )
    assert errors == []
    page.close()


def test_surrender_asks_first_and_stands_apart(server: str, browser: Browser) -> None:
    """投降 asks as leaving does: cancelled, the game goes on; confirmed, it is lost, and the
    result card says so from the player's side. The button is not beside 求和 or 托管."""
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    to_play(page, "duel")
    button = page.locator("[data-action='surrender']")
    button.wait_for()
    assert page.evaluate(
        """() => { const b = document.querySelector("[data-action='surrender']");
          const before = b.previousElementSibling;
          return !before || !['draw', 'stand-in'].includes(before.id); }"""
    )
    button.click()
    page.wait_for_selector(".modal #modal-confirm")
    assert "投降" in page.inner_text(".modal")
    shot(page, "defects-surrender-asks")
    page.click("#modal-cancel")
    page.wait_for_selector(".modal", state="detached")
    page.wait_for_timeout(500)
    assert state(page, "table.snapshot.game.phase") == "playing"  # nothing was sent
    button.click()
    page.click("#modal-confirm")
    page.wait_for_selector("#result")
    assert (
        state(page, "table.snapshot.game.result.seats")[state(page, "table.snapshot.you")][
            "outcome"
        ]
        == "loss"
    )
    assert page.inner_text("#result .reason") == "投降 · 你投降了"
    shot(page, "defects-surrender-result")
    assert errors == []
    page.close()


# a result as the server sends it, for the page's own functions: seats 0 and 2 against 1 and 3
ENDINGS = """async ([lang, cases]) => {
  localStorage.setItem("junqi.lang", lang);
  const { endingText } = await import("/js/ending.js");
  const { colourName } = await import("/js/i18n.js");
  const names = ["阿红", "小黄", "老绿", "大蓝"];
  return cases.map(([result, you, seats]) => endingText(result, {
    you, name: (s) => names[s], arm: colourName, team: (s) => s % 2,
    skips: (s) => seats?.[s] ?? { skips: 0, timeouts: 0 },
    rules: { max_total_moves: 500, no_capture_plies: 40 },
  }));
}"""


def out(seat: int, reason: str, order: int, victor: int | None = None) -> dict[str, Any]:
    return {
        "seat": seat,
        "outcome": "loss",
        "elimination": {"reason": reason, "victor": victor, "order": order},
    }


def result(reason: str, winners: list[int], outs: list[dict[str, Any]]) -> dict[str, Any]:
    gone = {o["seat"]: o for o in outs}
    seats = [
        gone.get(s, {"seat": s, "outcome": "win" if s in winners else "draw", "elimination": None})
        for s in range(4)
    ]
    return {"reason": reason, "winners": winners, "seats": seats}


def test_a_results_reason_is_exact_for_each_ending_and_each_viewer(
    server: str, browser: Browser
) -> None:
    """The result card's reason for each way a game ends, as the winner, the loser, a partner
    and a spectator read it: never "全歼对方" for a surrender, a flag or an escape."""
    page = browser.new_page()
    page.goto(server)
    flag = result(
        "elimination", [0, 2], [out(1, "surrender", 1), out(3, "flag_captured", 2, victor=2)]
    )
    surrender = result(
        "elimination", [0, 2], [out(3, "flag_captured", 1, victor=0), out(1, "surrender", 2)]
    )
    escape = result("escape", [], [out(3, "escape", 1)])
    agreed = result("agreement", [], [])
    limit = result("move_limit", [], [])
    quiet = result("no_capture", [], [])
    blocked = result(
        "elimination", [1, 3], [out(0, "flag_captured", 1, victor=1), out(2, "skips", 2)]
    )
    timeouts = [None, None, {"skips": 5, "timeouts": 5}, None]
    stuck = [None, None, {"skips": 5, "timeouts": 0}, None]
    cases = [
        (flag, 2, None),
        (flag, 0, None),
        (flag, 3, None),
        (flag, 1, None),
        (flag, None, None),
        (surrender, 1, None),
        (surrender, 3, None),
        (surrender, 0, None),
        (surrender, None, None),
        (escape, 3, None),
        (escape, 1, None),
        (escape, 0, None),
        (escape, None, None),
        (agreed, 0, None),
        (limit, None, None),
        (quiet, 1, None),
        (blocked, 2, stuck),
        (blocked, 2, timeouts),
        (blocked, 1, stuck),
    ]
    zh = page.evaluate(ENDINGS, ["zh", cases])
    assert zh == [
        "扛旗 · 你夺下了 大蓝 的军旗",  # the winner who took it
        "扛旗 · 你的队友 老绿 夺下了 大蓝 的军旗",  # the winner's partner
        "扛旗 · 你的军旗被夺",  # the loser
        "扛旗 · 你的队友 大蓝 的军旗被夺",  # the loser's partner
        "扛旗 · 蓝方 大蓝 的军旗被夺",  # a spectator
        "投降 · 你投降了",
        "投降 · 你的队友 小黄 投降了",
        "投降 · 小黄 投降了",
        "投降 · 黄方 小黄 投降了",
        "逃跑 · 你逃跑了",
        "逃跑 · 你的队友 大蓝 逃跑了",
        "逃跑 · 大蓝 逃跑了",
        "逃跑 · 蓝方 大蓝 逃跑了",
        "协议和棋 · 各方同意和棋",
        "步数和棋 · 全局走满 500 步",
        "久无交战和棋 · 连续 40 步没有交战",
        "无子可走 · 你无棋可走, 被跳过 5 次",  # skipped for want of a move: not 超时
        "超时 · 你超时 5 次",
        "无子可走 · 老绿 无棋可走, 被跳过 5 次",
    ]
    en = page.evaluate(ENDINGS, ["en", cases[:5] + cases[9:13]])
    assert en[0] == "Flag captured · you captured 大蓝's flag"
    assert en[2] == "Flag captured · your flag was captured"
    assert en[4] == "Flag captured · 大蓝's (blue) flag was captured"  # 大蓝: a player's name
    assert en[5] == "Escape · you left the game: an escape"
    assert all(
        not CJK.search(CJK.sub("", text.replace("大蓝", "").replace("老绿", ""))) for text in en
    )
    page.close()


def test_skips_for_want_of_a_move_are_not_timeouts(server: str, browser: Browser) -> None:
    """A seat's panel counts timeouts against the table's limit and names turns skipped for want
    of a move as such; an elimination by skips says which."""
    page = browser.new_page()
    page.goto(server)
    said = page.evaluate(
        """async () => {
          const { skipsLine, outWhy } = await import("/js/ending.js");
          return [skipsLine({ skips: 2, timeouts: 2 }, 7), skipsLine({ skips: 3, timeouts: 0 }, 5),
            skipsLine({ skips: 3, timeouts: 1 }, 5), outWhy("skips", { skips: 5, timeouts: 0 }),
            outWhy("skips", { skips: 5, timeouts: 5 }), outWhy("flag_captured", null)];
        }"""
    )
    assert said == [
        "超时 2/7",
        "无棋可走 跳过 3/5",
        "跳过 3/5 (超时 1, 无棋可走 2)",
        "无棋可走, 跳过 5 次",
        "超时 5 次",
        "军旗被夺",
    ]
    page.close()


def test_dead_links_answer_in_words(server: str, browser: Browser) -> None:
    """A link to a table, a replay or a player that is not there says so, with the way back."""
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    for link, words in [
        ("#table/nosuchtable", "没有这张桌子"),
        ("#replay/nosuchgame", "没有这局棋的记录"),
        ("#user/nobody-here", "没有名叫 nobody-here 的玩家"),
    ]:
        page.evaluate(f"() => {{ location.hash = '{link}'; }}")
        page.wait_for_selector("#dead-link")
        assert words in page.inner_text("#dead-link")
        shot(page, f"defects-dead-{link[1:].split('/')[0]}")
        page.click("#dead-lobby")
        page.wait_for_selector("#lobby .room")
    # the browser reports each 404 it was answered; the page itself raised nothing
    assert [e for e in errors if not e.startswith("Failed to load resource")] == []
    page.close()


def chinese_outside_names(page: Page, names: list[str]) -> list[str]:
    """The page's words (its text and the board's) that hold a Chinese character once the
    players' names and the language switch (中文, named in its own language) are taken out."""
    texts: list[str] = page.evaluate(
        """() => {
          const out = [], walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            // an avatar draws the first character of a name: a name's, whatever the language
            if (n.parentElement.closest('#lang, .profile-link, #who, .chat, .avatar')) continue;
            if (n.textContent.trim()) out.push(n.textContent.trim());
          }
          return out;
        }"""
    )
    pattern = re.compile("|".join(re.escape(n) for n in names) + r"|游客\d+")
    return [t for t in texts if CJK.search(pattern.sub("", t))]


def test_an_english_page_holds_no_chinese_outside_names(server: str, browser: Browser) -> None:
    """With English chosen: the lobby, a table in play and its result card hold no Chinese but
    the players' names; the pieces' labels fit inside their pieces; bots are "Bot n" at the
    table, its log and its panels."""
    page = browser.new_page(viewport=DESKTOP)
    errors = watch_errors(page)
    enter_as_guest(page, server)
    page.click("#lang")
    page.wait_for_selector("#lang:has-text('中文')")
    me = state(page, "user.name")
    assert chinese_outside_names(page, [me]) == []
    assert "Four-player, long games" in page.inner_text("#lobby")
    shot(page, "defects-english-lobby")
    to_play(page, "duel")
    assert chinese_outside_names(page, [me]) == []
    too_wide = page.evaluate(
        """() => [...document.querySelectorAll('.piece .label')].filter((l) =>
          l.getBBox().width > 32).map((l) => l.textContent)"""
    )
    assert too_wide == []
    panels = page.locator(".seat-panel").all_text_contents()
    assert any("Bot 2" in p for p in panels), panels
    shot(page, "defects-english-table")
    page.click("[data-action='surrender']")
    page.click("#modal-confirm")
    page.wait_for_selector("#result")
    assert page.inner_text("#result .reason") == "Surrender · you surrendered"
    assert chinese_outside_names(page, [me]) == []
    shot(page, "defects-english-result")
    assert errors == []
    page.close()
