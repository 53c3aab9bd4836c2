"""The server's messages: docs/protocol.md ("Server → client") lists exactly those of
``server.outbound``, each with every field it has and none it lacks, and its examples are such
messages."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path
from typing import Any

import pytest

from server import outbound
from tests.server.sockets import SERVER_MESSAGE

ROOT = Path(__file__).resolve().parents[2]
SECTION = re.compile(r"## Server → client\n(.*?)\nA `TABLE`", re.S)
ENTRY = re.compile(r"^- `([a-z_]+)` — (.*?)(?=^- |\Z)", re.S | re.M)


def message_types() -> dict[str, Any]:
    """Each message of ``outbound.ServerMessage`` by its ``type``."""
    union = typing.get_args(outbound.ServerMessage)[0]
    found = {}
    for message in typing.get_args(union):
        (kind,) = typing.get_args(typing.get_type_hints(message)["type"])
        found[kind] = message
    return found


def documented() -> dict[str, str]:
    """Each documented message's entry (its text) by its ``type``."""
    found = SECTION.search((ROOT / "docs" / "protocol.md").read_text())
    assert found is not None, "docs/protocol.md has no list of the server's messages"
    return dict(ENTRY.findall(found.group(1)))


def examples(entry: str) -> list[dict[str, Any]]:
    """The JSON examples of an entry, their placeholders (``SNAPSHOT``, ``[EVENT, ...]``,
    ``[...]``) made empty objects and lists."""
    shown = []
    for text in re.findall(r"`(\{\"type\".*?\})`", entry, re.S):
        text = text.replace("[...]", "[]").replace(", ...", "")
        shown.append(json.loads(re.sub(r"\b[A-Z]{3,}\b", "{}", text)))
    return shown


def test_the_protocol_lists_the_messages_of_the_server() -> None:
    assert set(documented()) == set(message_types())


@pytest.mark.parametrize("kind", sorted(message_types()))
def test_each_message_is_documented_as_it_is(kind: str) -> None:
    message, entry = message_types()[kind], documented().get(kind, "")
    shown = examples(entry)
    assert shown, f"docs/protocol.md shows no example of {kind}"
    for example in shown:  # every field it must have, each of its type, and no other
        assert SERVER_MESSAGE.validate_python(example)["type"] == kind
    # a field the examples leave out (``ok``'s ``table``) is named in the entry's text
    fields = message.__required_keys__ | message.__optional_keys__
    named = set(re.findall(r"`\"?([a-z_]+)\"?", entry)) | {k for e in shown for k in e}
    assert fields <= named, f"docs/protocol.md does not name every field of {kind}"
