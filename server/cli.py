"""The ``junqi`` command: ``junqi serve`` runs the platform; the engine's commands stay."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import uvicorn

from engine import cli as engine_cli
from server.app import create_app
from server.config import get_settings


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
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
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
    return 0


if __name__ == "__main__":
    sys.exit(main())
