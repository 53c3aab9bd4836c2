#!/usr/bin/env bash
# Run every check: lint, format, types, then the whole test suite (creates or refreshes .venv first).
# Extra arguments go to pytest.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/venv.sh"
echo "== ruff check"; .venv/bin/ruff check .
echo "== ruff format --check"; .venv/bin/ruff format --check .
echo "== mypy"; .venv/bin/mypy
echo "== pytest"; exec .venv/bin/pytest "$@"
