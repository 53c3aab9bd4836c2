"""What a variant does, for clients: the capabilities sent with every table's snapshot and with
each variant of the lobby listing (docs/protocol.md, "Capabilities"), so that a client draws
any variant without knowing variants by name.

Each is derived from the engine's data of the variant: its rulebook's own actions (a variant
whose rulebook takes bids bids), its rulebook's hooks (a variant whose rulebook says which
colour a seat plays learns the colours in play), its teams, its dealing and its board.
"""

from __future__ import annotations

from functools import cache
from typing import Literal, assert_never

from engine import Bid, Flip, PickColour, StationKind, Variant, get_variant
from engine.rulebook import Rulebook
from engine.rulebooks import rulebook_of
from engine.variants import Dealing
from server.outbound import Capabilities, DealKind


@cache
def capabilities(variant_key: str) -> Capabilities:
    """The capabilities of the variant ``variant_key`` (one object per variant, shared: it is
    sent with every snapshot, never changed)."""
    variant = get_variant(variant_key)
    book = rulebook_of(variant)
    bids = Bid in book.actions
    picks = PickColour in book.actions
    return Capabilities(
        colour=colour(book, picks),
        teams=teams(variant, bids),
        picks_colours=picks,
        bids=bids,
        # a contract is how many of the others the banker takes out (the engine checks 1-3)
        contracts=list(range(1, len(variant.seats))) if bids else [],
        flips=Flip in book.actions,
        deal=deal_kind(variant.dealing),
        mountain=not any(
            variant.board.station(sid).kind == StationKind.CENTRE for sid in variant.board.stations
        ),
    )


def colour(book: Rulebook, picks: bool) -> Literal["seat", "picked", "first_engineer"]:
    """How a seat's colour is known: its own (its seat's army), the one it picked before the
    deal, or the one play gave it (a rulebook that says which pieces a seat plays: 翻棋's first
    engineer flipped)."""
    if picks:
        return "picked"
    if type(book).piece_seat is not Rulebook.piece_seat:
        return "first_engineer"
    return "seat"


def teams(variant: Variant, bids: bool) -> Literal["fixed", "banker", "none"]:
    """How teams are known: partners fixed by their seats, one side against the banker once
    the bid is won (before it all are one team), or none (each seat plays for itself)."""
    if bids:
        return "banker"
    if len(set(variant.teams)) < len(variant.teams):
        return "fixed"
    return "none"


def deal_kind(dealing: Dealing) -> DealKind | None:
    """Which deal a client re-derives from the revealed seed to check it (``engine.deal``)."""
    match dealing:
        case None:
            return None
        case "luanzhan":  # a hand for each colour, its engineer and 24 pieces, picked blind
            return "colours"
        case "sandayi":  # a hand for each seat, then the bottom to the banker
            return "hands"
        case "fanqi":  # the two armies face down on the board
            return "face_down"
        case _:
            assert_never(dealing)
