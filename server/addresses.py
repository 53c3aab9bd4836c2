"""Client addresses as the per-address rules count them.

An IPv4 address counts alone; an IPv6 address counts by its network (``/64`` by default, the
``ipv6_prefix`` setting): one home or one server is given a whole /64, and could otherwise
take a new address for every request. An IPv4 address mapped into IPv6 (``::ffff:1.2.3.4``)
counts as the IPv4 address it is. Anything that is not an address (a test client's name, a
Unix socket) counts as itself.

With ``block_banned_addresses``, a ban covers addresses too: the one its user was last seen at
when banned, and every one the user signs in, or tries to with the right password, from while
banned (``ban_addresses``: added, never replacing one, so the block never moves). While the ban
lasts, nobody signs in (login, registration, guest, socket) from them, nor does an account last
seen at one of them, from anywhere; an unban lifts it.
"""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, exists, or_, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.requests import HTTPConnection

from server.models import BanAddress, Token, User

DEFAULT_IPV6_PREFIX = 64


def address_key(host: str, ipv6_prefix: int = DEFAULT_IPV6_PREFIX) -> str:
    """The key under which the per-address limits count ``host``."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])  # a zone (fe80::1%eth0) apart
    except ValueError:
        return host[:64]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, ipv6_prefix), strict=False))
    return str(address)


def connection_address(connection: HTTPConnection) -> str:
    """The address key of a request or socket (its peer's, or the trusted proxy's word for
    it: SECURITY.md, "Proxy trust")."""
    host = connection.client.host if connection.client else "unknown"
    settings = getattr(connection.app.state, "settings", None)
    prefix = settings.ipv6_prefix if settings is not None else DEFAULT_IPV6_PREFIX
    return address_key(host, prefix)


# --- the addresses a ban covers (``block_banned_addresses``) ----------------------------------


def ban_lasts(now: datetime) -> ColumnElement[bool]:
    """The users whose ban is in force at ``now``."""
    return or_(User.ban_permanent.is_(True), User.banned_until > now)


async def address_banned(session: AsyncSession, address: str | None) -> bool:
    """Whether a ban in force covers ``address``: one its banned user signed in, or tried to,
    from (``ban_addresses``), or where a banned user was last seen (a ban made before that
    table, or written to the database by hand)."""
    if address is None:
        return False
    now = datetime.now(UTC)
    covered = (
        select(BanAddress.user_id)
        .join(User, User.id == BanAddress.user_id)
        .where(BanAddress.address == address, ban_lasts(now))
    )
    last_seen = select(User.id).where(User.address == address, ban_lasts(now))
    found = await session.execute(select(or_(exists(covered), exists(last_seen))))
    return bool(found.scalar())


async def sign_in_banned(session: AsyncSession, user: User, address: str) -> bool:
    """Whether a ban in force keeps ``user`` (not banned itself) from signing in from
    ``address``: that address is covered, or the one the user was last seen at. Admins are not
    kept out by an address: staff may share one with a cheater."""
    if user.role == "admin":
        return False
    return await address_banned(session, address) or (
        user.address != address and await address_banned(session, user.address)
    )


async def cover(session: AsyncSession, user_id: int, address: str) -> None:
    """Add ``address`` to those the ban of ``user_id`` covers (never replacing one; two
    requests at once add it once)."""
    row = {"user_id": user_id, "address": address, "at": datetime.now(UTC)}
    dialect = session.get_bind().dialect.name
    insert: Any = postgresql_insert if dialect == "postgresql" else sqlite_insert
    await session.execute(insert(BanAddress).values(row).on_conflict_do_nothing())


async def revoke_at(session: AsyncSession, banned: User) -> list[int]:
    """Revoke the tokens of every account last seen at an address the ban of ``banned``
    covers (but the banned user's own, which the ban itself voids, and admins'), and commit.
    Returns their ids: the caller closes their sockets (``logged_out`` on their user topic)."""
    addresses = select(BanAddress.address).where(BanAddress.user_id == banned.id)
    found = select(User.id).where(
        or_(User.address.in_(addresses), User.address == banned.address),
        User.id != banned.id,
        User.role != "admin",
    )
    ids = list((await session.execute(found)).scalars())
    if ids:
        await session.execute(delete(Token).where(Token.user_id.in_(ids)))
    await session.commit()
    return ids
