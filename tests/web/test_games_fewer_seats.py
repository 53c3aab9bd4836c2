"""Whole games of the variants of fewer than four seats through the web client alone
(``tests/web/games.py``): 三国, 二人 (a draw offered and declined, a surrender, the replay) and
翻棋 with its flips. Debian's Chromium through Playwright, against a real server."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.web.games import play_a_whole_game
from tests.web.ui import needs_chromium

pytestmark = needs_chromium


@pytest.mark.parametrize("room", ["sanguo", "liangguo", "fanqi"])
def test_a_whole_game_through_the_interface(server: str, browser: Browser, room: str) -> None:
    play_a_whole_game(server, browser, room)
