"""The socket's error codes: docs/protocol.md lists exactly those of ``server.errors``, and the
server raises no other."""

from __future__ import annotations

import re
from pathlib import Path

from server.errors import CODES

ROOT = Path(__file__).resolve().parents[2]
SECTION = re.compile(r"## Error codes\n(.*?)Every error leaves the table as it was\.", re.S)


def outside_parentheses(text: str) -> str:
    """``text`` without what stands in parentheses (there the list explains its codes)."""
    kept, depth = [], 0
    for char in text:
        depth += char == "("
        if depth == 0:
            kept.append(char)
        depth -= char == ")" and depth > 0
    return "".join(kept)


def documented_codes() -> set[str]:
    found = SECTION.search((ROOT / "docs" / "protocol.md").read_text())
    assert found is not None, "docs/protocol.md has no list of error codes"
    return set(re.findall(r"`([a-z_]+)`", outside_parentheses(found.group(1))))


def raised_codes() -> set[str]:
    """The codes written in the server's refusals: ``TableError("code", …`` and a connection's
    ``self.error(ref, "code", …``."""
    refusal = re.compile(r'(?:TableError\(|\.error\(\s*\w+,)\s*"([a-z_]+)"')
    sources = (path.read_text() for path in (ROOT / "server").glob("*.py"))
    return {code for source in sources for code in refusal.findall(source)}


def test_the_protocol_lists_the_codes_of_the_server() -> None:
    assert documented_codes() == CODES


def test_the_server_raises_only_listed_codes() -> None:
    raised = raised_codes()
    assert len(raised) > 20  # the pattern still finds them
    assert raised <= CODES
