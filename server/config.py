"""Configuration from the environment (pydantic-settings).

Every setting can be given as ``JUNQI_<NAME>``; ``DATABASE_URL`` and ``REDIS_URL`` are also read
without the prefix, as deployment tools usually set them.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO = Path(__file__).resolve().parent.parent


class RoomConfig(BaseModel):
    """A room of the lobby: a variant with its rule options and its owner (室主)."""

    id: str
    name: str
    name_en: str | None = None  # its name for players who chose English
    variant: str
    options: dict[str, object] = Field(default_factory=dict)
    owner: str | None = None  # user name of the room owner
    tables: int = 20  # most tables open at once
    rated_with_bots: bool = False  # games with bots move the human players' points
    rated_friend_rooms: bool = False  # games at its friend rooms (好友房) move points


@dataclass(frozen=True)
class TablePolicy:
    """How long tables and seats wait for people (and bots, so that people follow), and what
    counts as one person (the settings' ``idle_table_seconds``, ``seat_grace_seconds``,
    ``tables_per_creator``, ``tables_per_address``, ``lonely_table_seconds``,
    ``shared_address_unrated``, ``bot_pace_scale``)."""

    idle_seconds: float = 120.0  # nobody seated and no game on: the table closes
    seat_grace_seconds: float = 30.0  # between games, a seated player with no socket left
    # keeps the seat this long (a reload), then stands up
    tables_per_creator: int = 3  # tables one user may have open (play now apart)
    tables_per_address: int = 3  # tables the users of one address may have open (play now apart)
    lonely_seconds: float = 300.0  # no game on, and all seated are one person: the table closes
    shared_address_unrated: bool = True  # seats sharing an address or a device play unrated
    bot_pace_scale: float = 1.0  # times a table's pace (``server.table_options.PACES``)

    @property
    def sweep_seconds(self) -> float:
        return min(5.0, self.idle_seconds / 4, self.lonely_seconds / 4)


def default_rooms() -> list[RoomConfig]:
    return [
        RoomConfig(
            id="siguo-1", name="四国军棋 一室", name_en="Four-player, room 1", variant="siguo"
        ),
        RoomConfig(
            id="siguo-open",
            name="四国军棋 双明室",
            name_en="Four-player, partners open",
            variant="siguo",
            options={"information": "partners_open"},
        ),
        RoomConfig(
            id="luanzhan-1",
            name="乱战四国 一室",
            name_en="Free-for-all, room 1",
            variant="luanzhan",
        ),
        RoomConfig(
            id="sandayi-1",
            name="三打一 一室",
            name_en="Three against one, room 1",
            variant="sandayi",
        ),
        RoomConfig(
            id="sanguo-1",
            name="三国军棋 随机防作弊室",
            name_en="Three-player, random seats",
            variant="sanguo",
            options={"random_seats": True},
        ),
        RoomConfig(
            id="liangguo-1", name="二人暗棋 一室", name_en="Two-player, room 1", variant="liangguo"
        ),
        RoomConfig(id="fanqi-1", name="翻棋 一室", name_en="Flip Junqi, room 1", variant="fanqi"),
    ]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JUNQI_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    database_url: str = Field(
        default=f"sqlite+aiosqlite:///{REPO / 'junqi.db'}",
        validation_alias=AliasChoices("JUNQI_DATABASE_URL", "DATABASE_URL"),
    )
    # the most database connections a process holds: for its tables, their keeping, the
    # cluster and the sockets' sign-ins; and apart, for REST requests, so that no flood of
    # REST requests (logins) makes a move wait for a connection (server.db)
    database_pool: int = Field(default=15, ge=1)
    rest_pool: int = Field(default=10, ge=1)
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("JUNQI_REDIS_URL", "REDIS_URL")
    )
    lease_seconds: float = 3.0  # with Redis (a cluster): a process owns its tables this long
    # unless it renews (every third of it, in the database); a dead or frozen process's games
    # move to another after about this long
    token_hours: int = 24 * 7  # how long a login lasts
    rooms: list[RoomConfig] = Field(default_factory=default_rooms)
    web_dir: Path = REPO / "web"
    max_message_bytes: int = 16 * 1024
    max_body_bytes: int = 64 * 1024  # of a request; the largest one needed (a layout file
    # of 2,000 characters, JSON-escaped) is under 13 KiB
    chat_max_chars: int = 200
    chat_per_minute: int = 20
    phrases_per_minute: int = 10  # quick phrases (快捷语), counted apart from chat lines
    # how often each process writes its users' presence to Redis (server.whereabouts)
    presence_refresh_seconds: float = 10.0
    social_per_minute: int = 20  # changes of friends, follows and blocks, per user (server.friends)
    sign_ins_per_minute: int = 30  # registrations, logins and guest entries per address
    # an IPv6 client counts by its network of this prefix for every per-address rule
    # (server.addresses): one /64 is one home or one server
    ipv6_prefix: int = Field(default=64, ge=32, le=128)
    # login back-off per name (server.backoff): from the login_free_failures-th failed attempt
    # on, the next waits login_backoff_seconds, twice as long after each further one, at most
    # login_backoff_max_seconds
    login_free_failures: int = 5
    login_backoff_seconds: float = 2.0
    login_backoff_max_seconds: float = 300.0
    guests_per_address_per_day: int = 10  # guest accounts made from one address in 24 hours
    block_banned_addresses: bool = True  # no new guest or account from the address a user
    # who is banned signed in from, while the ban lasts
    password_threads: int = 2  # threads that hash and check passwords (argon2, ~0.25 s each)
    # hashes and checks that may wait for a thread; more are refused at once (429, busy)
    password_queue: int = 32
    # "standard": argon2-cffi's parameters (64 MiB, 3 passes); "test": the least argon2 allows,
    # ~1000 times cheaper, for test suites only (tests/conftest.py): the server warns at start
    password_cost: Literal["standard", "test"] = "standard"
    tables_per_minute: int = 10  # tables a user may create (play now included)
    tables_per_creator: int = 3  # tables a user may have open at once (play now apart)
    tables_per_address: int = 3  # tables the users of one address may have open at once
    # a table with no game on whose seated people are all one person (one account, or
    # accounts of one address) closes after this long
    lonely_table_seconds: float = 300.0
    # seats sharing an address or a device (one person's accounts, likely) play unrated
    shared_address_unrated: bool = True
    idle_table_seconds: float = 120.0  # a table with nobody seated and no game on closes
    seat_grace_seconds: float = 30.0  # between games a player with no socket left stands up
    actions_per_10_seconds: int = 100  # game actions a user may send
    seat_commands_per_10_seconds: int = 20  # open, close, sit, stand, ready, bots... per user
    allowed_origins: list[str] = Field(default_factory=list)  # of web pages that may open
    # sockets; empty: the page must come from this server itself (same host and port)
    trusted_proxies: list[str] = Field(default_factory=list)  # addresses or networks (CIDR)
    # of the proxies whose X-Forwarded-For and -Proto are believed; empty: none, the address a
    # request comes from is the client's (SECURITY.md, "Proxy trust")
    heartbeat_seconds: float = 20.0
    # an open socket's token, its user's role and bans are read again at least this often
    rights_check_seconds: float = 60.0
    # HTTP: a connection must send a request's headers within this; an idle kept-alive
    # connection closes after keep_alive_seconds
    header_timeout_seconds: float = 10.0
    keep_alive_seconds: float = 5.0
    socket_auth_seconds: float = 5.0  # a socket's first message, auth, must come within this
    sockets_per_user: int = 8  # open at once by one user, counted in each process
    # a client that does not read is closed (4008) once this much waits for it
    socket_backlog_messages: int = 500
    socket_backlog_bytes: int = 1 << 20  # of JSON text (characters, about bytes)
    ws_compression: bool = False  # permessage-deflate on sockets (less traffic, more memory)
    log_json: bool = True  # log lines as JSON objects (structured logs); False: uvicorn's text
    bot_workers: int = 2  # processes in which bots think
    bot_pause_seconds: float = 0.4  # a bot answers no sooner than this after it was asked
    # times each table's pace (a bot's least wait before its move: fast 0.5 s, normal 1.5 s,
    # slow 3 s); 0: bots move as soon as they decided (the tests)
    bot_pace_scale: float = Field(default=1.0, ge=0.0, le=4.0)
    # of each bot level's thinking time a move (normal 0.5 s, hard 2.5 s); 0: the levels' fixed
    # samples only (quick and the same for the same seed: the tests)
    bot_budget_scale: float = Field(default=1.0, ge=0.0, le=4.0)
    # quick match (server.matchmaking): after this long a waiting player may take bots instead;
    # a player accepts one band of level more either way every quick_widen_seconds
    quick_bots_seconds: float = Field(default=60.0, ge=0.0)
    quick_widen_seconds: float = Field(default=20.0, ge=0.0)
    quick_tick_seconds: float = Field(default=0.25, gt=0.0, le=5.0)  # tables formed this often
    quick_status_seconds: float = Field(default=1.0, gt=0.0)  # queue_status this often

    @field_validator("trusted_proxies")
    @classmethod
    def _addresses(cls, proxies: list[str]) -> list[str]:
        # read as uvicorn reads them; it would take a mistyped one for a name that never matches
        for proxy in proxies:  # ValueError: not an address or network (say so at start)
            ipaddress.ip_network(proxy) if "/" in proxy else ipaddress.ip_address(proxy)
        return proxies


@cache
def get_settings() -> Settings:
    return Settings()
