"""Before deployment in the dealt variants: 乱战's colour pick and redeal, 三打一's bidding.

Each function works on the game's mutable working copy (``engine.game._Game``) inside ``apply``.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from engine.actions import AnswerRedeal, Bid, PickColour
from engine.deal import IDLE_LIEUTENANTS, DealtPiece, deal_luanzhan, deal_sandayi
from engine.errors import IllegalAction, MalformedInput, NotYourTurn
from engine.pieces import Rank
from engine.state import DealState, Phase

if TYPE_CHECKING:
    from engine.game import _Game


def hand_is_weak(hand: tuple[DealtPiece, ...]) -> bool:
    """乱战: no officer above 旅长 in the hand as dealt, so it may ask for a redeal."""
    strong = {Rank.FIELD_MARSHAL, Rank.GENERAL, Rank.MAJOR_GENERAL}
    return not any(rank in strong for rank, _ in hand)


# --- 乱战: colour pick and redeal ------------------------------------------------------------


def start_picking(g: _Game, now: float) -> None:
    n = len(g.seats)
    turn = [(g.host + k * g.step) % n for k in range(n)]
    order = tuple(reversed(turn[1:]))  # the last mover picks first; the host gets the rest
    g.deal = dataclasses.replace(
        g.deal,
        order=order,
        picks=(None,) * n,
        hands=(None,) * n,
        waiting=frozenset({order[0]}),
        redeal_asked=False,
    )
    g.phase = Phase.PICKING
    g.deadline = now + g.rules.move_seconds
    g.emit("picking", deal=g.deal.number, order=list(order), deadline=g.deadline)


def check_in_time(g: _Game, now: float) -> None:
    if now > g.deadline:
        raise IllegalAction(f"the time for this ran out at {g.deadline}")


def pick_colour(g: _Game, a: PickColour) -> None:
    g.require(Phase.PICKING)
    g.check_seat(a.seat)
    check_in_time(g, a.now)
    if a.seat not in g.deal.waiting:
        raise NotYourTurn(f"it is seat {min(g.deal.waiting)}'s turn to pick")
    if isinstance(a.colour, bool) or a.colour not in range(len(g.seats)):
        raise MalformedInput(f"no colour {a.colour!r}")
    if a.colour in g.deal.picks:
        raise IllegalAction(f"colour {a.colour} is taken")
    record_pick(g, a.seat, a.colour, a.now)


def record_pick(g: _Game, seat: int, colour: int, now: float) -> None:
    picks = list(g.deal.picks)
    picks[seat] = colour
    g.emit("colour_picked", seat=seat, colour=colour)
    done = [s for s in g.deal.order if picks[s] is not None]
    if len(done) < len(g.deal.order):
        nxt = g.deal.order[len(done)]
        g.deal = dataclasses.replace(g.deal, picks=tuple(picks), waiting=frozenset({nxt}))
        g.deadline = now + g.rules.move_seconds
        return
    last = next(c for c in range(len(g.seats)) if c not in picks)
    picks[g.host] = last
    g.emit("colour_picked", seat=g.host, colour=last)
    dealt = deal_luanzhan(g.seed, g.deal.number)
    hands = tuple(dealt.hand_for(c) for c in picks if c is not None)
    g.deal = dataclasses.replace(g.deal, picks=tuple(picks), hands=hands, waiting=frozenset())
    for s in g.variant.seats:
        g.send_hand(s)
    if g.deal.redeals < g.rules.redeals:
        # Everyone answers, so that nobody learns whose hand is weak.
        g.deal = dataclasses.replace(g.deal, waiting=frozenset(g.variant.seats))
        g.phase = Phase.REDEALING
        g.deadline = now + g.rules.move_seconds
        g.emit("redeal_window", deadline=g.deadline)
    else:
        g.start_deploying(now)


def answer_redeal(g: _Game, a: AnswerRedeal) -> None:
    g.require(Phase.REDEALING)
    g.check_seat(a.seat)
    check_in_time(g, a.now)
    if a.seat not in g.deal.waiting:
        raise IllegalAction(f"seat {a.seat} has already answered")
    hand = g.deal.hands[a.seat]
    assert hand is not None
    if a.redeal and not hand_is_weak(hand[1:]):
        raise IllegalAction("a redeal needs a hand without 司令, 军长 or 师长")
    g.deal = dataclasses.replace(
        g.deal,
        waiting=g.deal.waiting - {a.seat},
        redeal_asked=g.deal.redeal_asked or a.redeal,
    )
    g.emit("redeal_answered", seat=a.seat)
    if not g.deal.waiting:
        close_redeal(g, a.now)


def close_redeal(g: _Game, now: float) -> None:
    if g.deal.redeal_asked:
        g.deal = DealState(number=g.deal.number + 1, redeals=g.deal.redeals + 1)
        g.emit("redealt", deal=g.deal.number)
        start_picking(g, now)
    else:
        g.start_deploying(now)


# --- 三打一: bidding --------------------------------------------------------------------------


def start_bidding(g: _Game, now: float) -> None:
    n = len(g.seats)
    number = g.deal.number
    first = (g.host + number * g.step) % n  # rotates with every deal and redeal
    order = tuple((first + k * g.step) % n for k in range(n))
    dealt = deal_sandayi(g.seed, number)
    g.deal = DealState(
        number=number,
        hands=dealt.hands,
        order=order,
        bids=(None,) * n,
        waiting=frozenset({first}),
    )
    g.phase = Phase.BIDDING
    g.deadline = now + g.rules.move_seconds
    g.emit("bidding", deal=number, order=list(order), deadline=g.deadline)
    for s in g.variant.seats:
        g.send_hand(s)


def bid(g: _Game, a: Bid) -> None:
    g.require(Phase.BIDDING)
    g.check_seat(a.seat)
    check_in_time(g, a.now)
    if a.seat not in g.deal.waiting:
        raise NotYourTurn(f"it is seat {min(g.deal.waiting)}'s turn to bid")
    if isinstance(a.level, bool) or a.level not in (0, 1, 2, 3):
        raise MalformedInput("a bid is 0 (pass), 1, 2 or 3")
    top = max((b for b in g.deal.bids if b is not None), default=0)
    if a.level and a.level <= top:
        raise IllegalAction(f"a bid must be higher than {top}")
    record_bid(g, a.seat, a.level, a.now)


def record_bid(g: _Game, seat: int, level: int, now: float) -> None:
    bids = list(g.deal.bids)
    bids[seat] = level
    g.emit("bid", seat=seat, level=level)
    done = sum(b is not None for b in bids)
    if level < 3 and done < len(g.seats):
        nxt = g.deal.order[done]
        g.deal = dataclasses.replace(g.deal, bids=tuple(bids), waiting=frozenset({nxt}))
        g.deadline = now + g.rules.move_seconds
        return
    top = max(b or 0 for b in bids)
    if top == 0:
        g.deal = DealState(number=g.deal.number + 1)
        g.emit("redealt", deal=g.deal.number)
        start_bidding(g, now)
        return
    banker = bids.index(top)
    dealt = deal_sandayi(g.seed, g.deal.number)
    # Every piece plays in its holder's colour: dealt colours would tell the specials and
    # the extra 排长 (which have none) from the rest [decision].
    hands = tuple(
        tuple(
            (rank, None)
            for rank, _ in (
                (*hand, *dealt.kept)
                if s == banker
                else (*hand, *[(Rank.LIEUTENANT, None)] * IDLE_LIEUTENANTS)
            )
        )
        for s, hand in enumerate(dealt.hands)
    )
    g.deal = dataclasses.replace(
        g.deal,
        bids=tuple(bids),
        hands=hands,
        waiting=frozenset(),
        banker=banker,
        contract=top,
    )
    g.teams = tuple(0 if s == banker else 1 for s in g.variant.seats)
    g.first = banker  # the banker moves first
    g.emit("banker", seat=banker, contract=top)
    for s in g.variant.seats:
        g.send_hand(s)
    g.start_deploying(now)
