"""The browser tests' server (one for each module: a real process on a fresh database, its
rooms quick to play out) and browser (Debian's Chromium)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.live import live_server
from tests.web.ui import launch

ROOMS = [
    {"id": "siguo", "name": "四国 一室", "variant": "siguo", "options": {"max_total_moves": 36}},
    {
        "id": "siguo-open",
        "name": "四国 双明室",
        "variant": "siguo",
        "options": {"information": "partners_open", "max_total_moves": 24},
    },
    {
        "id": "luanzhan",
        "name": "乱战 一室",
        "variant": "luanzhan",
        "options": {"max_total_moves": 32},
    },
    {
        "id": "sandayi",
        "name": "三打一 一室",
        "variant": "sandayi",
        "options": {"max_total_moves": 32},
    },
    {
        "id": "sanguo",
        "name": "三国 随机防作弊室",
        "variant": "sanguo",
        "options": {"max_total_moves": 30, "random_seats": True},
    },
    {
        "id": "liangguo",
        "name": "二人 一室",
        "variant": "liangguo",
        "options": {"max_total_moves": 200, "surrender_after_seconds": 0},
    },
    {"id": "fanqi", "name": "翻棋 一室", "variant": "fanqi", "options": {"max_total_moves": 40}},
    {"id": "duel", "name": "二人 短局", "variant": "liangguo", "options": {"max_total_moves": 24}},
    {
        "id": "quick",
        "name": "四国 quick",
        "variant": "siguo",
        "options": {"move_seconds": 60, "no_capture_plies": 16},
    },
]
SETTINGS = {"JUNQI_BOT_PAUSE_SECONDS": "0.05"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_server(tmp_path_factory.mktemp("web"), ROOMS, SETTINGS) as base:
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()
