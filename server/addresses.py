"""Client addresses as the per-address rules count them.

An IPv4 address counts alone; an IPv6 address counts by its network (``/64`` by default, the
``ipv6_prefix`` setting): one home or one server is given a whole /64, and could otherwise
take a new address for every request. An IPv4 address mapped into IPv6 (``::ffff:1.2.3.4``)
counts as the IPv4 address it is. Anything that is not an address (a test client's name, a
Unix socket) counts as itself.
"""

from __future__ import annotations

import ipaddress

from starlette.requests import HTTPConnection

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
