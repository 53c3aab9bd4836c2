#!/usr/bin/env bash
# Run every check: lint, format, types, then the whole test suite (creates or refreshes .venv first).
# Extra arguments go to pytest, after ours (`-n 0`: one process). JUNQI_SOAK=1: the soak run, every
# loop of whole games at its full count and the tests marked soak (tests/soak.py).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
echo "== ruff check"; .venv/bin/ruff check .
echo "== ruff format --check"; .venv/bin/ruff format --check .
echo "== mypy"; .venv/bin/mypy
# a worker per core and one more (pytest-xdist: many tests wait on servers, browsers and clocks;
# more workers than that starve the browser tests' pages), at most 5: each has a Redis database
# of its own (tests/live.py); a worker takes whole modules, whose servers and finished games it
# sets up once; the 25 slowest tests printed, to keep it quick
workers=$(( $(nproc) + 1 )); workers=$(( workers > 5 ? 5 : workers ))
echo "== pytest"; exec .venv/bin/pytest -n "$workers" --dist loadscope --durations 25 "$@"
