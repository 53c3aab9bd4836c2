"""What the dealt variants (乱战, 三打一) share: hands sent to their owners and kept in the view,
layouts checked against the hand, decisions due by a deadline (docs/rules.md §9.2, §9.3)."""

from __future__ import annotations

from typing import Any

from engine.errors import IllegalAction
from engine.pieces import Rank
from engine.rulebook import GameLike, Rulebook, WorkingGame

_RANK_KEYS: dict[Rank, str] = {rank: rank.value for rank in Rank}


class DealtRulebook(Rulebook):
    """The hooks of a variant whose armies are dealt as hands (``DealState.hands``)."""

    def deploy_args(self, g: GameLike, seat: int) -> dict[str, Any]:
        return {"hand": g.deal.hands[seat], "banker": seat == g.deal.banker}

    def deal_view(self, g: GameLike, viewer: int | None) -> dict[str, Any] | None:
        deal = g.deal
        out: dict[str, Any] = {
            "number": deal.number,
            "redeals": deal.redeals,
            "order": list(deal.order),
            "waiting": sorted(deal.waiting),
            "picks": list(deal.picks),
            "bids": list(deal.bids),
            "banker": deal.banker,
            "contract": deal.contract,
            "hand": None,
        }
        hand = deal.hands[viewer] if viewer is not None and deal.hands else None
        if hand is not None and viewer is not None:
            keys = _RANK_KEYS
            out["hand"] = [{"rank": keys[r], "army": viewer if a is None else a} for r, a in hand]
        return out


def send_hand(g: WorkingGame, seat: int) -> None:
    """Tell ``seat`` (only) the hand it holds now."""
    hand = g.deal.hands[seat]
    assert hand is not None
    pieces = [{"rank": r.value, "army": seat if a is None else a} for r, a in hand]
    g.emit("hand", audience=frozenset({seat}), seat=seat, pieces=pieces)


def check_in_time(g: WorkingGame, now: float) -> None:
    """Refuse a decision sent after its deadline (the platform sends ``Deadline`` instead)."""
    if now > g.deadline:
        raise IllegalAction(f"the time for this ran out at {g.deadline}")
