#!/usr/bin/env bash
# The scale-out topology of docker-compose.yml from real processes on loopback: several app
# processes (nodes) sharing PostgreSQL and Redis, each on its own port (no proxy: point clients at
# any node). Stops them all on Ctrl-C or TERM. The multi-process tests run it.
#
#   scripts/cluster.sh [NODES=2] [FIRST_PORT=8001]
#
# JUNQI_DATABASE_URL defaults to postgresql+asyncpg://postgres@127.0.0.1/junqi (the database must
# exist), JUNQI_REDIS_URL to redis://127.0.0.1:6379/0; every other JUNQI_ setting passes through.
# Prints one line per node once it is ready: "node N http://127.0.0.1:PORT pid PID".
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
nodes="${1:-2}"
first_port="${2:-8001}"
export JUNQI_DATABASE_URL="${JUNQI_DATABASE_URL:-postgresql+asyncpg://postgres@127.0.0.1/junqi}"
export JUNQI_REDIS_URL="${JUNQI_REDIS_URL:-redis://127.0.0.1:6379/0}"

pids=()
stop() { kill "${pids[@]}" 2>/dev/null || true; wait; }
trap stop EXIT
trap 'exit 0' INT TERM

# whether the node at $1 answers /ready within 30 s: one process asks every 0.1 s (a Python
# started for each asking, ~0.2 s of CPU each to import httpx, took the CPU the node needed to start)
ready_within_30s() {
    .venv/bin/python - "$1/ready" <<'PY'
import sys, time

import httpx

for _ in range(300):
    try:
        if httpx.get(sys.argv[1]).status_code == 200:
            sys.exit(0)
    except httpx.TransportError:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
}

for ((i = 1; i <= nodes; i++)); do
    port=$((first_port + i - 1))
    base="http://127.0.0.1:$port"
    .venv/bin/junqi serve --port "$port" >>"${JUNQI_CLUSTER_LOGS:-/dev/stderr}" 2>&1 &
    pids+=($!)
    # one node at a time: the first migrates the database, the others find it done
    ready_within_30s "$base" || { echo "node $i did not start" >&2; exit 1; }
    echo "node $i $base pid ${pids[-1]}"
done
wait
