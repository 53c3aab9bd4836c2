"""A socket's sign-in, and its rights while it is open.

A socket signs in by its first message (``auth``, with the token: a token in the URL would be
written to every proxy's access log), and may name the id its browser keeps for itself
(``device``). Its rights are checked when they are used, not only then: the token's end on
every message (``Connection.handle``), the token, the user's role and bans every
``rights_check_seconds`` for every open socket (``watch_rights``) and before every moderation
command (``Connection.check_rights``).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson
from fastapi import WebSocket
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from server.accounts import token_hash
from server.addresses import connection_address, sign_in_banned
from server.models import Token, User, aware
from server.outbound import BANNED, UNAUTHORIZED

log = logging.getLogger("junqi")
RIGHTS_BATCH = 500  # sockets whose tokens one query reads again (``watch_rights``)
# the id a browser keeps for itself, sent with ``auth`` (seats sharing one play unrated)
DEVICE = re.compile(r"[A-Za-z0-9_-]{8,64}")


async def rights_of(
    session: AsyncSession, token_hashes: list[str]
) -> dict[str, tuple[datetime, User]]:
    """The end and the user of each of the tokens (by hash) that still exist."""
    rows = await session.execute(
        select(Token.token_hash, Token.expires_at, User)
        .join(User, User.id == Token.user_id)
        .where(Token.token_hash.in_(token_hashes))
    )
    found: dict[str, tuple[datetime, User]] = {}
    for hashed, expires, user in rows.all():
        found[hashed] = aware(expires) or expires, user
    return found


async def watch_rights(app: Any) -> None:
    """Every ``rights_check_seconds``, read again the token and user of every socket of this
    process (``Connection.apply_rights``): an expired or revoked token, or a ban, closes it;
    a role taken away is gone. A batch at a time, so a thousand sockets cost a few queries."""
    while True:
        await asyncio.sleep(app.state.settings.rights_check_seconds)
        connections = list(app.state.connections)
        try:
            for start in range(0, len(connections), RIGHTS_BATCH):
                batch = connections[start : start + RIGHTS_BATCH]
                async with app.state.db.sessions() as session:
                    rights = await rights_of(session, list({c.token_hash for c in batch}))
                for connection in batch:
                    await connection.apply_rights(rights.get(connection.token_hash))
        except Exception:  # the database away for a moment: the next round reads them
            log.exception("the sockets' rights could not be read again")


def _auth(frame: Mapping[str, Any], max_bytes: int) -> tuple[str, str | None] | None:
    """The token of a socket's first frame, if that is ``{"type": "auth", "token": ...}``, and
    the ``device`` id it names, if any and well formed (``DEVICE``)."""
    raw = frame.get("text")
    if raw is None or len(raw) > max_bytes:
        return None
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(data, dict) or data.get("type") != "auth":
        return None
    token, device = data.get("token"), data.get("device")
    if not isinstance(token, str) or not token:
        return None
    return token, device if isinstance(device, str) and DEVICE.fullmatch(device) else None


async def sign_in(ws: WebSocket) -> tuple[User, str, str | None] | None:
    """The user, token and device id of an accepted socket, from its first message
    (``auth``); None if the socket was closed instead: no token in time, a bad or expired one
    (4401), a ban (4003): the user's, or one that covers the socket's address or the user's
    last one (``block_banned_addresses``, ``server.addresses``)."""
    settings = ws.app.state.settings
    if "token" in ws.query_params:  # the URL is logged by every proxy on the way
        await ws.close(code=UNAUTHORIZED, reason="send the token in an auth message, not the URL")
        return None
    try:
        frame = await asyncio.wait_for(ws.receive(), settings.socket_auth_seconds)
    except TimeoutError:
        await ws.close(code=UNAUTHORIZED, reason="no auth message in time")
        return None
    if frame["type"] == "websocket.disconnect":
        return None
    auth = _auth(frame, settings.max_message_bytes)
    if auth is None:
        await ws.close(code=UNAUTHORIZED, reason="the first message must be auth, with a token")
        return None
    token, device = auth
    now, hashed = datetime.now(UTC), token_hash(token)
    # one short session (none kept with the socket): the token, its user, the bans
    async with ws.app.state.db.sessions() as session:
        found = (await rights_of(session, [hashed])).get(hashed)
        user = found[1] if found is not None and found[0] > now else None
        blocked = (
            user is not None
            and not user.banned(now)
            and settings.block_banned_addresses
            and await sign_in_banned(session, user, connection_address(ws))
        )
    if user is None:
        await ws.close(code=UNAUTHORIZED, reason="a valid token is needed")
        return None
    if user.banned(now):
        await ws.close(code=BANNED, reason="banned")
        return None
    if blocked:
        await ws.close(code=BANNED, reason="a ban covers this address")
        return None
    return user, token, device
