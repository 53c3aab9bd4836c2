"""Configuration from the environment (pydantic-settings).

Every setting can be given as ``JUNQI_<NAME>``; ``DATABASE_URL`` and ``REDIS_URL`` are also read
without the prefix, as deployment tools usually set them.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import AliasChoices, BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO = Path(__file__).resolve().parent.parent


class RoomConfig(BaseModel):
    """A room of the lobby: a variant with its rule options and its owner (室主)."""

    id: str
    name: str
    variant: str
    options: dict[str, object] = Field(default_factory=dict)
    owner: str | None = None  # user name of the room owner
    tables: int = 20  # most tables open at once
    rated_with_bots: bool = False  # games with bots move the human players' points


def default_rooms() -> list[RoomConfig]:
    return [
        RoomConfig(id="siguo-1", name="四国军棋 一室", variant="siguo"),
        RoomConfig(
            id="siguo-open",
            name="四国军棋 双明室",
            variant="siguo",
            options={"information": "partners_open"},
        ),
        RoomConfig(id="luanzhan-1", name="乱战四国 一室", variant="luanzhan"),
        RoomConfig(id="sandayi-1", name="三打一 一室", variant="sandayi"),
        RoomConfig(
            id="sanguo-1",
            name="三国军棋 随机防作弊室",
            variant="sanguo",
            options={"random_seats": True},
        ),
        RoomConfig(id="liangguo-1", name="二人暗棋 一室", variant="liangguo"),
        RoomConfig(id="fanqi-1", name="翻棋 一室", variant="fanqi"),
    ]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JUNQI_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    database_url: str = Field(
        default=f"sqlite+aiosqlite:///{REPO / 'junqi.db'}",
        validation_alias=AliasChoices("JUNQI_DATABASE_URL", "DATABASE_URL"),
    )
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("JUNQI_REDIS_URL", "REDIS_URL")
    )
    lease_seconds: float = 3.0  # with Redis: a process owns its tables this long unless it
    # renews (every third of it); a dead process's games move to another after about this long
    token_hours: int = 24 * 7  # how long a login lasts
    rooms: list[RoomConfig] = Field(default_factory=default_rooms)
    web_dir: Path = REPO / "web"
    max_message_bytes: int = 16 * 1024
    chat_max_chars: int = 200
    chat_per_minute: int = 20
    sign_ins_per_minute: int = 30  # registrations, logins and guest entries per address
    tables_per_minute: int = 10  # tables a user may create (play now included)
    actions_per_10_seconds: int = 100  # game actions a user may send
    allowed_origins: list[str] = Field(default_factory=list)  # of web pages that may open
    # sockets; empty: the page must come from this server itself (same host and port)
    heartbeat_seconds: float = 20.0
    ws_compression: bool = False  # permessage-deflate on sockets (less traffic, more memory)
    log_json: bool = True  # log lines as JSON objects (structured logs); False: uvicorn's text
    bot_workers: int = 2  # processes in which bots think
    bot_pause_seconds: float = 0.4  # a bot waits this long before it acts


@cache
def get_settings() -> Settings:
    return Settings()
