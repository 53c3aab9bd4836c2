"""Whole games of the four-seat variants through the web client alone (``tests/web/games.py``):
四国 in both rooms (hidden and 双明), 乱战 with its colour pick and redeal question, 三打一 with
its bidding. Debian's Chromium through Playwright, against a real server."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.web.games import play_a_whole_game
from tests.web.ui import needs_chromium

pytestmark = needs_chromium


@pytest.mark.parametrize("room", ["siguo", "siguo-open", "luanzhan", "sandayi"])
def test_a_whole_game_through_the_interface(server: str, browser: Browser, room: str) -> None:
    play_a_whole_game(server, browser, room)
