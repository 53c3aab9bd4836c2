"""乱战四国 (docs/rules.md §9.2): the colour pick, the hands, the redeal, and flags shown at the
start.

Picking → redealing → deploying → playing. In reverse turn order each player picks an engineer's
colour (the host gets the last); each seat's hand follows from the colour and is sent to it
alone; then every seat answers whether it wants a redeal (only a weak hand may ask). The flag
rules of dealt armies (``FlagWatch``: no flag, one, two; raising one) and the rest of play are the
shared machine's, set by the variant's ``RuleOptions``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.actions import Action, AnswerRedeal, PickColour
from engine.deal import DealtPiece, deal_luanzhan, seeded_rng
from engine.dealt import DealtRulebook, check_in_time, send_hand
from engine.errors import IllegalAction, MalformedInput, NotYourTurn
from engine.pieces import Rank
from engine.rulebook import GameLike, Handler, WorkingGame
from engine.state import DealState, Phase


def hand_is_weak(hand: tuple[DealtPiece, ...]) -> bool:
    """No officer above 旅长 in the hand as dealt, so it may ask for a redeal."""
    strong = {Rank.FIELD_MARSHAL, Rank.GENERAL, Rank.MAJOR_GENERAL}
    return not any(rank in strong for rank, _ in hand)


def start_picking(g: WorkingGame, now: float) -> None:
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


def pick_colour(g: WorkingGame, a: PickColour) -> None:
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


def record_pick(g: WorkingGame, seat: int, colour: int, now: float) -> None:
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
        send_hand(g, s)
    if g.deal.redeals < g.rules.redeals:
        # Everyone answers, so that nobody learns whose hand is weak.
        g.deal = dataclasses.replace(g.deal, waiting=frozenset(g.variant.seats))
        g.phase = Phase.REDEALING
        g.deadline = now + g.rules.move_seconds
        g.emit("redeal_window", deadline=g.deadline)
    else:
        g.start_deploying(now)


def answer_redeal(g: WorkingGame, a: AnswerRedeal) -> None:
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


def close_redeal(g: WorkingGame, now: float) -> None:
    if g.deal.redeal_asked:
        g.deal = DealState(number=g.deal.number + 1, redeals=g.deal.redeals + 1)
        g.emit("redealt", deal=g.deal.number)
        start_picking(g, now)
    else:
        g.start_deploying(now)


class Luanzhan(DealtRulebook):
    """乱战四国's hooks."""

    actions: ClassVar[Mapping[type[Action], Handler]] = {
        PickColour: pick_colour,
        AnswerRedeal: answer_redeal,
    }

    def start(self, g: WorkingGame, now: float) -> None:
        start_picking(g, now)

    def phase_deadline(self, g: WorkingGame, now: float) -> None:
        if g.phase == Phase.PICKING:  # a pick not made in time is drawn from the seed
            seat = min(g.deal.waiting)
            free = [c for c in range(len(g.seats)) if c not in g.deal.picks]
            colour = seeded_rng(g.seed, "pick", g.deal.number, seat).choice(free)
            record_pick(g, seat, colour, now)
        else:  # redealing: whoever has not answered wants none
            for seat in sorted(g.deal.waiting):
                g.emit("redeal_answered", seat=seat)
            g.deal = dataclasses.replace(g.deal, waiting=frozenset())
            close_redeal(g, now)

    def shows_flags_at_start(self, g: GameLike, seat: int) -> bool:
        """A flag dealt without any 司令 is shown at the start."""
        pos = g.position
        assert pos is not None
        return g.rules.marshal_death_reveals_flag and not pos.count(seat, Rank.FIELD_MARSHAL)

    def deal_view(self, g: GameLike, viewer: int | None) -> dict[str, Any] | None:
        out = super().deal_view(g, viewer)
        assert out is not None
        hand = g.deal.hands[viewer] if viewer is not None and g.deal.hands else None
        if hand is not None and g.phase == Phase.REDEALING:
            out["may_ask_redeal"] = hand_is_weak(hand[1:])
        return out


RULEBOOK = Luanzhan()
