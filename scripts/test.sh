#!/usr/bin/env bash
# Run every check: lint, format, types, then the whole test suite (creates or refreshes .venv first).
# Extra arguments go to pytest, after ours (`-n 0`: one process). JUNQI_SOAK=1: the soak run, every
# loop of whole games at its full count and the tests marked soak (tests/soak.py).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
# bytecode caches (__pycache__, ignored by git) even where the environment turns them off: without
# them every process (each pytest worker, server, cluster node and bot process) compiles the
# project's sources again, and pytest rewrites the asserts of every test module and plugin again
# (about 5 s of CPU a worker)
unset PYTHONDONTWRITEBYTECODE
echo "== ruff check"; .venv/bin/ruff check .
echo "== ruff format --check"; .venv/bin/ruff format --check .
# mypy (~15 s of CPU without its cache, as in CI) runs beside the tests, at a lower priority, and
# says its verdict after theirs; the exit status is the tests', or else mypy's
mypy_log="$(mktemp)"
nice -n 10 .venv/bin/mypy >"$mypy_log" 2>&1 &
mypy_pid=$!
trap 'kill "$mypy_pid" 2>/dev/null || true; rm -f "$mypy_log"' EXIT
# a worker per core and one more (pytest-xdist: many tests wait on servers, browsers and clocks;
# more workers than that starve the browser tests' pages), at most 5: each has a Redis database
# of its own (tests/live.py); a worker takes whole modules, whose servers and finished games it
# sets up once, in the order of LONGEST_FIRST (tests/conftest.py: the longest first; xdist's own
# order, the modules with the most tests first, put the longest last); the 25 slowest tests
# printed, to keep it quick
workers=$(( $(nproc) + 1 )); workers=$(( workers > 5 ? 5 : workers ))
# the soak run's long loops have no time limit (pyproject.toml: 600 s a test otherwise)
limit=(); if [ "${JUNQI_SOAK:-}" = 1 ]; then limit=(--timeout 0); fi
echo "== pytest"
tests=0
.venv/bin/pytest -n "$workers" --dist loadscope --no-loadscope-reorder --durations 25 \
    "${limit[@]}" "$@" ||
    tests=$?
echo "== mypy"
types=0; wait "$mypy_pid" || types=$?
trap 'rm -f "$mypy_log"' EXIT
cat "$mypy_log"
if [ "$tests" -ne 0 ]; then exit "$tests"; fi
exit "$types"
