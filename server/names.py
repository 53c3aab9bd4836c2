"""User names: one written form, one owner, no look-alikes.

A name is stored NFKC-normalised (fullwidth ``ａｌｉｃｅ`` is ``alice``). Two keys come with it:
``name_key`` (the name casefolded: unique, so ``ALICE`` cannot sit beside ``alice``) and
``skeleton`` (each character mapped to the one it is easily mistaken for, in the spirit of
Unicode's UTS #39 skeletons, then casefolded: unique too, so neither Cyrillic ``сосо`` nor
``a1ice`` can pass for ``coco`` or ``alice``). The look-alikes come from Unicode's
``confusables.txt`` and the scripts from ``Scripts.txt``, as the ``confusable_homoglyphs``
package ships them. Stored skeletons were made with the data of their day: a newer release of
that package may map a few rare characters otherwise.

``check_new_name`` applies the rules of registration; guests and existing users are not
checked again (the server names guests itself).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from typing import Any

from confusable_homoglyphs.categories import alias as script_of

NAME_PATTERN = re.compile(r"[\w\u4e00-\u9fff-]{2,20}")  # matched whole (``fullmatch``)
# scripts that may share a name: Chinese (and Japanese) characters with Latin letters, as
# Chinese players write them; digits, _ and - belong to every script (COMMON)
EAST_ASIAN_WITH_LATIN = frozenset({"HAN", "HIRAGANA", "KATAKANA", "BOPOMOFO", "LATIN"})
NEUTRAL_SCRIPTS = frozenset({"COMMON", "INHERITED"})
# the server's own names: bots are "机器人<seat>", guests "游客<six digits>"
SERVER_PREFIXES = ("机器人", "游客")
# names that would pass for the platform's staff or the server itself (also with digits, _ or
# - around them, and their look-alikes)
RESERVED = (
    "admin",
    "administrator",
    "root",
    "system",
    "sysop",
    "superuser",
    "moderator",
    "staff",
    "support",
    "official",
    "server",
    "guest",
    "bot",
    "robot",
    "管理员",
    "管理",
    "超级管理员",
    "系统",
    "系统消息",
    "机器人",
    "游客",
    "官方",
    "客服",
    "版主",
)
_DIRECTION_MARKS = "\u200e\u200f"  # confusables data wraps right-to-left glyphs in these


class NameRefused(Exception):
    """Why a new name is refused: an HTTP status, a stable code and a message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def normalised(name: str) -> str:
    """The form a name is checked and stored in (NFKC)."""
    return unicodedata.normalize("NFKC", name)


def name_key(name: str) -> str:
    """The name without regard to case or width: no two users share one."""
    return normalised(name).casefold()


@cache
def _prototype(char: str) -> str:
    """What ``char`` looks like: the centre of its group in the confusables data. The data
    links every character to its prototype and back (``а`` to ``a``, ``a`` to its two dozen
    look-alikes), so the group is two links deep and the prototype is the member with the most
    links; a group of two takes the member that sorts first, from either side alike."""
    near = _neighbours(char)
    if not near:
        return char
    group = {char} | near | {far for n in near for far in _neighbours(n)}
    # ties: the member in normal form (人, not the radical ⼈), then the one that sorts first
    return min(group, key=lambda m: (-len(_neighbours(m)), normalised(m) != m, m))


def _neighbours(text: str) -> set[str]:
    return {entry["c"].strip(_DIRECTION_MARKS) for entry in _confusables().get(text, ())}


@cache
def _confusables() -> dict[str, Any]:
    """Unicode's look-alikes, loaded when a name is first checked, not when the server starts:
    their table costs every process that imports it about a quarter of a second of CPU."""
    from confusable_homoglyphs.confusables import confusables_data  # noqa: PLC0415

    data: dict[str, Any] = confusables_data
    return data


def skeleton(name: str) -> str:
    """The name as it looks: look-alike characters mapped to one, casefolded. Names with the
    same skeleton are taken for one another. Mapped before casefolding, as capitals have
    look-alikes of their own (``I`` passes for ``l``)."""
    text = normalised(name)
    for _ in range(4):  # a prototype may casefold to another character: map until it stays
        mapped = "".join(_prototype(char) for char in text).casefold()
        if mapped == text:
            break
        text = mapped
    return text


def scripts(name: str) -> set[str]:
    """The scripts of the name's letters (Unicode script aliases: LATIN, HAN, CYRILLIC, ...)."""
    return {script_of(char) or "UNKNOWN" for char in name} - NEUTRAL_SCRIPTS


_RESERVED_SKELETONS = frozenset(skeleton(word) for word in RESERVED)
_SERVER_PREFIX_SKELETONS = tuple(skeleton(prefix) for prefix in SERVER_PREFIXES)


def reserved(name: str) -> bool:
    """A name of the server's (bots, guests) or one that would pass for its staff."""
    key = name_key(name)
    if skeleton(key).startswith(_SERVER_PREFIX_SKELETONS):
        return True
    core = re.sub(r"[\d_-]", "", key)  # "admin_1", "系统-2"
    return skeleton(key) in _RESERVED_SKELETONS or skeleton(core) in _RESERVED_SKELETONS


def check_new_name(name: str) -> str:
    """The name a registration would store (NFKC), or ``NameRefused`` with the reason. Whether
    it is taken (or too like a taken one) is for the database to say."""
    name = normalised(name)
    if any(unicodedata.category(char).startswith("C") for char in name):
        raise NameRefused(
            422, "name_control", "a name may not hold control or invisible characters"
        )
    if not NAME_PATTERN.fullmatch(name):
        raise NameRefused(422, "name_invalid", "a name is 2-20 letters, digits, _ or -")
    found = scripts(name)
    if len(found) > 1 and not found <= EAST_ASIAN_WITH_LATIN:
        raise NameRefused(
            422,
            "name_mixed_scripts",
            "a name is written in one script (Chinese characters may go with Latin letters), "
            f"not {' and '.join(sorted(s.title() for s in found))}",
        )
    if reserved(name):
        raise NameRefused(422, "name_reserved", f"the name {name!r} is reserved")
    return name
