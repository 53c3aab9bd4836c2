"""Each variant's rulebook, by variant key; the standard game's for the variants that change
nothing (四国, 二人, 三国: they differ by ``RuleOptions`` only)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from engine import fanqi, luanzhan, sandayi
from engine.actions import Action
from engine.rulebook import Handler, Rulebook
from engine.variants import Variant

STANDARD = Rulebook()

_BY_KEY: dict[str, Rulebook] = {
    "luanzhan": luanzhan.RULEBOOK,
    "sandayi": sandayi.RULEBOOK,
    "fanqi": fanqi.RULEBOOK,
}
RULEBOOKS: Mapping[str, Rulebook] = MappingProxyType(_BY_KEY)

VARIANT_ACTIONS: Mapping[type[Action], Handler] = MappingProxyType(
    {kind: handler for book in RULEBOOKS.values() for kind, handler in book.actions.items()}
)
"""The handlers of every variant's own actions. Each is taken in every variant and refuses a
game it does not fit by its own checks (the phase, the turn), as in the variant that has it."""


def rulebook_of(variant: Variant) -> Rulebook:
    """The rulebook the game of ``variant`` is played by."""
    return _BY_KEY.get(variant.key, STANDARD)  # a plain dict: looked up several times an action
