#!/usr/bin/env bash
# Run the platform (creates or refreshes .venv first). Extra arguments go to `junqi`.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
exec .venv/bin/junqi "${@:-serve}"
