"""Ways out of a game off the board (docs/rules.md §6.3, §6.4, §11): draw proposals and their
answers, surrender (a proposal to the partners where the rules say so) and escape. What a seat
may offer is checked by ``engine.offers``, which views show too."""

from __future__ import annotations

from engine.actions import AnswerProposal, Escape, ProposeDraw, Surrender
from engine.errors import IllegalAction, MalformedInput
from engine.offers import draw_refusal, surrender_refusal
from engine.outcome import Elimination, EliminationReason, EndReason
from engine.state import Phase, Proposal
from engine.turns import Turns


class Proposals(Turns):
    """The working game's proposals, surrender and escape."""

    def use_proposal(self, seat: int) -> None:
        self.set_seat(seat, proposals=self.seats[seat].proposals + 1)

    def propose_draw(self, a: ProposeDraw) -> None:
        self.check_seat(a.seat)
        if (why := draw_refusal(self.state, a.seat)) is not None:
            raise IllegalAction(why)
        self.use_proposal(a.seat)
        # every other player still in the game must agree; one out of it (eliminated, or an
        # escaper gone for good) has no say [decision, docs/rules.md §6.3]
        waiting = frozenset(s for s in range(len(self.seats)) if s != a.seat and self.alive(s))
        self.proposal = Proposal("draw", a.seat, waiting)
        self.emit("proposal", proposal="draw", seat=a.seat, waiting=sorted(waiting))

    def answer(self, a: AnswerProposal) -> None:
        self.require(Phase.PLAYING)
        self.check_seat(a.seat)
        p = self.proposal
        if p is None or a.seat not in p.waiting:
            raise IllegalAction(f"there is no proposal waiting for seat {a.seat}'s answer")
        if not isinstance(a.accept, bool):
            raise MalformedInput("accept is true or false")
        if not a.accept:
            self.proposal = None
            self.emit("proposal_declined", proposal=p.kind, seat=a.seat)
            return
        waiting = p.waiting - {a.seat}
        self.emit("proposal_accepted", proposal=p.kind, seat=a.seat)
        if waiting:
            self.proposal = Proposal(p.kind, p.seat, waiting)
        elif p.kind == "draw":
            self.finish(EndReason.AGREEMENT, ())
        else:
            self.proposal = None
            team = self.teams[p.seat]
            for seat in [s for s, t in enumerate(self.teams) if t == team and self.alive(s)]:
                if self.phase == Phase.PLAYING:
                    self.eliminate(seat, EliminationReason.SURRENDER, None)
                    self.after_elimination_outside_move(seat, a.now)

    def surrender(self, a: Surrender) -> None:
        self.check_seat(a.seat)
        if (why := surrender_refusal(self.state, a.seat, a.now)) is not None:
            raise IllegalAction(why)
        partners = frozenset(
            s
            for s, t in enumerate(self.teams)
            if t == self.teams[a.seat] and s != a.seat and self.alive(s)
        )
        if self.rules.surrender_counts_as_proposal:
            self.use_proposal(a.seat)
        if self.rules.surrender_needs_partner and partners:
            self.proposal = Proposal("surrender", a.seat, partners)
            self.emit("proposal", proposal="surrender", seat=a.seat, waiting=sorted(partners))
            return
        self.emit("surrendered", seat=a.seat)
        self.eliminate(a.seat, EliminationReason.SURRENDER, None)
        self.after_elimination_outside_move(a.seat, a.now)

    def escape(self, a: Escape) -> None:
        self.check_seat(a.seat)
        if not self.alive(a.seat):
            raise IllegalAction(f"seat {a.seat} is already out of the game")
        self.emit("escaped", seat=a.seat)
        if self.phase != Phase.PLAYING:
            # Nobody can play on without an army: the game ends, only the escaper scores.
            self.set_seat(a.seat, elimination=Elimination(EliminationReason.ESCAPE, None, 1, 0))
            self.finish(EndReason.ESCAPE, ())
            return
        self.declare_escape(a.seat, a.now)
