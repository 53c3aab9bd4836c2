"""三打一 (docs/rules.md §9.3): the bidding, the banker's contract, its flags and its score.

Bidding → deploying → playing. Bids go round from a first bidder who rotates with every deal; the
highest bidder becomes the banker (all on one side against it), takes most of the bottom and
moves first. The idle players' flags are shown at the start, the banker's never; the banker wins
once the contracted number of idle players is out and loses when it is out; the score follows
the table of §9.3 step 9. The clocks, skips, surrender and draw rules are ``RuleOptions``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from engine.actions import Action, Bid
from engine.deal import IDLE_LIEUTENANTS, deal_sandayi
from engine.dealt import DealtRulebook, check_in_time, send_hand
from engine.errors import IllegalAction, MalformedInput, NotYourTurn
from engine.outcome import ESCAPE_STAKES, Elimination, EliminationReason, EndReason, GameResult
from engine.outcome import score as score_game
from engine.pieces import Rank
from engine.rulebook import GameLike, Handler, WorkingGame
from engine.rulebook import Setup as SetupValue
from engine.state import DealState, Phase


@dataclass(frozen=True, slots=True)
class Setup:
    """A 三打一 set-up position's banker and contract (``start_from(..., setup=Setup(...))``):
    the contract is how many idle players the banker must put out, 1, 2 or 3."""

    banker: int
    contract: int

    def to_json(self) -> dict[str, Any]:
        return {"banker": self.banker, "contract": self.contract}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Setup:
        """The set-up value from a record's ``setup``."""
        try:
            return cls(banker=data["banker"], contract=data["contract"])  # checked in use
        except KeyError as e:
            raise MalformedInput(f"a 三打一 set-up names its {e.args[0]}") from None


def start_bidding(g: WorkingGame, now: float) -> None:
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
        send_hand(g, s)


def bid(g: WorkingGame, a: Bid) -> None:
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


def record_bid(g: WorkingGame, seat: int, level: int, now: float) -> None:
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
    make_banker(g, banker)
    g.emit("banker", seat=banker, contract=top)
    for s in g.variant.seats:
        send_hand(g, s)
    g.start_deploying(now)


def make_banker(g: WorkingGame, banker: int) -> None:
    """All on one side against the banker, who moves first."""
    g.teams = tuple(0 if s == banker else 1 for s in g.variant.seats)
    g.first = banker


def points(
    eliminations: Sequence[Elimination | None],
    reason: EndReason,
    winners: Sequence[int],
    banker: int,
    contract: int,
) -> list[int]:
    """三打一's points (docs/rules.md §9.3 step 9), in stakes B: the banker wins or loses 3N, each
    idle N; the draw table depends on the contract and how many idle players are out; an
    escaper loses 2 more (§9.3 step 10)."""
    n = contract
    idles = [s for s in range(len(eliminations)) if s != banker]
    if reason.is_draw:
        out = sum(eliminations[s] is not None for s in idles)
        idle_gain = {(2, 0): 1, (3, 1): 1, (3, 0): 2}.get((n, out), 0)
    elif not winners:  # an escape ended the game before it was decided: only the escaper pays
        idle_gain = 0
    else:
        idle_gain = -n if banker in winners else n
    out_points = [idle_gain] * len(eliminations)
    out_points[banker] = -3 * idle_gain
    for s, e in enumerate(eliminations):
        if e is not None and e.reason == EliminationReason.ESCAPE:
            out_points[s] -= ESCAPE_STAKES
    return out_points


class Sandayi(DealtRulebook):
    """三打一's hooks."""

    actions: ClassVar[Mapping[type[Action], Handler]] = {Bid: bid}

    def start(self, g: WorkingGame, now: float) -> None:
        start_bidding(g, now)

    def set_up(
        self,
        g: WorkingGame,
        pieces: Mapping[str, Sequence[Any]],
        setup: SetupValue | None,
        now: float,
    ) -> bool:
        """``setup``: a ``Setup``, the banker and its contract; the banker moves first."""
        if not isinstance(setup, Setup) or setup.contract not in (1, 2, 3):
            raise MalformedInput("a 三打一 set-up names the banker and a contract of 1, 2 or 3")
        banker, contract = setup.banker, setup.contract
        g.check_seat(banker)
        g.deal = DealState(banker=banker, contract=contract)
        make_banker(g, banker)
        return False

    def read_setup(self, data: Mapping[str, Any]) -> Setup:
        return Setup.from_json(data)

    def phase_deadline(self, g: WorkingGame, now: float) -> None:
        record_bid(g, min(g.deal.waiting), 0, now)  # a bid not made in time passes

    def shows_flags_at_start(self, g: GameLike, seat: int) -> bool:
        """The idle players' flags are shown at the start, the banker's never."""
        return seat != g.deal.banker

    def may_raise_flag(self, g: GameLike, seat: int) -> bool:
        return seat != g.deal.banker  # the banker's flags are never shown

    def decided(self, g: GameLike) -> tuple[int, ...] | None:
        banker = g.deal.banker
        if banker is None:  # not reached: play starts once the banker is known
            return super().decided(g)
        seats = g.seats
        idles = [s for s in g.variant.seats if s != banker]
        if not seats[banker].alive:
            return tuple(idles)
        if sum(not seats[s].alive for s in idles) >= g.deal.contract:
            return (banker,)
        return None

    def score(self, g: GameLike, reason: EndReason, winners: tuple[int, ...]) -> GameResult:
        eliminations = [s.elimination for s in g.seats]
        banker = g.deal.banker
        if banker is None:  # an escape before the bidding ended: nobody has a contract yet
            return super().score(g, reason, winners)
        return score_game(
            g.rules,
            g.teams,
            eliminations,
            [s.moves for s in g.seats],
            reason,
            winners,
            points=points(eliminations, reason, winners, banker, g.deal.contract),
        )


RULEBOOK = Sandayi()
