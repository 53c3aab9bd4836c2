"""The ``junqi`` command: ``junqi serve`` runs the platform, ``junqi admin NAME`` appoints an
admin; the engine's commands stay."""

from __future__ import annotations

import argparse
import asyncio
import socket
import sys
from collections.abc import Sequence
from typing import Any

import uvicorn

from engine import cli as engine_cli
from server.app import create_app
from server.config import get_settings
from server.db import Database, migrate
from server.moderation import set_role
from server.observability import json_logging
from server.slow_http import header_deadline_protocol


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["admin"]:
        return appoint(args[1:])
    if args[:1] != ["serve"]:
        return engine_cli.main(args)
    parser = argparse.ArgumentParser(prog="junqi serve", description="Run the Junqi platform")
    parser.add_argument("--host", help="default from JUNQI_HOST, else 127.0.0.1")
    parser.add_argument("--port", type=int, help="default from JUNQI_PORT, else 8000")
    options = parser.parse_args(args[1:])
    settings = get_settings()
    host = options.host or settings.host
    port = options.port or settings.port
    print(f"Junqi platform on http://{host}:{port}/ (database {settings.database_url})")
    if settings.log_json:
        json_logging()
    config = uvicorn.Config(
        create_app(settings, tune_gc=True),
        host=host,
        port=port,
        log_config=None if settings.log_json else uvicorn.config.LOGGING_CONFIG,
        log_level="info",
        # frames far beyond the largest message are cut off before they are read into memory
        ws_max_size=settings.max_message_bytes * 4,
        # compression costs each socket ~37 KiB and each message ~0.1 ms of the one core
        ws_per_message_deflate=settings.ws_compression,
        # X-Forwarded-For only from the configured proxies: uvicorn would otherwise believe it
        # from 127.0.0.1, i.e. from every client of a server reached over loopback
        proxy_headers=bool(settings.trusted_proxies),
        forwarded_allow_ips=settings.trusted_proxies,
        # slow clients (SECURITY.md, "Slow clients"): a request's headers must come within
        # header_timeout_seconds, and an idle kept-alive connection closes after keep_alive_seconds
        http=header_deadline_protocol(settings.header_timeout_seconds),
        # uvicorn annotates whole seconds, but only hands the value to loop.call_later
        timeout_keep_alive=settings.keep_alive_seconds,  # type: ignore[arg-type]
    )
    HandingOverServer(config).run()
    return 0


class HandingOverServer(uvicorn.Server):
    """uvicorn's server, giving its tables up as soon as it is told to stop: with several
    processes the running games go on at once in another one, instead of after uvicorn has
    waited for every socket of this one to close (seconds, in which those games stood still)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()  # no new sockets meanwhile
        app: Any = self.config.app  # ours: create_app's
        lobby = getattr(app.state, "lobby", None)
        if lobby is not None:
            await lobby.close()
        await super().shutdown(sockets)


def appoint(args: list[str]) -> int:
    """``junqi admin NAME [--revoke]``: a registered user becomes an admin (or a player)."""
    parser = argparse.ArgumentParser(prog="junqi admin", description="Appoint or revoke an admin")
    parser.add_argument("name", help="a registered user's name")
    parser.add_argument("--revoke", action="store_true", help="make the user a player again")
    options = parser.parse_args(args)
    role = "player" if options.revoke else "admin"

    async def run() -> bool:
        url = get_settings().database_url
        await migrate(url)
        db = Database(url)
        try:
            return await set_role(db.sessions, options.name, role)
        finally:
            await db.close()

    if not asyncio.run(run()):
        print(f"no user {options.name!r}", file=sys.stderr)
        return 1
    print(f"{options.name} is now {'a player' if options.revoke else 'an admin'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
