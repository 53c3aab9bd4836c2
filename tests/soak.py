"""Soak counts: loops of whole games run a few times by default and their full counts in the
soak run (``JUNQI_SOAK=1``)."""

from __future__ import annotations

import os

SOAK = os.environ.get("JUNQI_SOAK") == "1"


def soak(default: int, full: int) -> int:
    """``full`` in the soak run, else ``default``."""
    return full if SOAK else default
