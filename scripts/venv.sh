#!/usr/bin/env bash
# Create or refresh the project virtualenv at .venv (sourced by the other scripts).
# The install step reruns only when pyproject.toml changes, so repeated runs are fast.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
stamp=".venv/.junqi-installed"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    # uv installs the dependencies in a few seconds where pip takes about 20 (a fresh clone, as
    # in CI); pip is the fallback where uv cannot be had
    if ! { .venv/bin/python -m pip install --quiet uv &&
        .venv/bin/uv pip install --quiet --python .venv/bin/python -e ".[test]"; }; then
        .venv/bin/python -m pip install --quiet --upgrade pip
        .venv/bin/python -m pip install --quiet -e ".[test]"
    fi
    echo "$want" > "$stamp"
fi
