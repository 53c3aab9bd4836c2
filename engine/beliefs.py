"""What a seat can infer about hidden enemy pieces from what it has seen (docs/rules.md §8 view).

``Beliefs`` follows the events a seat received (``Event.for_viewer``), in order, and keeps for
every piece it cannot see the set of ranks still possible, with a weight for each:

- a piece that moved is no landmine, flag or fortress; one that turned on the rail is an
  engineer (or the 三打一 missile);
- a fight bounds the unknown side's rank by the outcome against the known side's rank;
- flags revealed, scouted and raised pieces and every rank the view shows are certain; once a
  seat's flag is shown (or raised), none of its hidden pieces is a flag;
- stock counting: when every copy of a rank of an army is accounted for (seen alive or seen
  die), no other piece of that army can have it; repeated until nothing changes;
- layout priors (``layout_prior``): a flag stands in an HQ (even odds for each of the two),
  landmines in the last two rows (the HQ without the flag mostly holds one), no bomb in the
  front row (where the variant says so) and bombs likeliest in rows 2 and 3.

It knows nothing the seat does not: a bot built on it is fair by construction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.board import Board, Station, StationKind, get_board
from engine.combat import combat
from engine.deployment import FRONT_ROW, LANDMINE_ROWS
from engine.pieces import IMMOBILE_RANKS, RAIL_FLYERS, STANDARD_ARMY, Rank
from engine.variants import Variant, get_variant

ALL_RANKS = frozenset(STANDARD_ARMY)
# how much likelier than its share of the stock a landmine is where it may stand: in an HQ (the
# one without the flag mostly holds one) and elsewhere in the last two rows
HQ_MINES = 6.0
BACK_MINES = 1.5
# how much likelier than its share a bomb is in the second and third rows, right behind the front
# line, where it meets a piece that has just taken one of the front row's (and where strong
# layouts put it: of 40 bombs in 20 layouts of a public Junqi AI, 39)
MIDDLE_BOMBS = 3.0
BOMB_ROWS = (2, 3)


@dataclass
class Guess:
    """One hidden piece: its owner and the ranks it may still have, with weights."""

    seat: int
    weights: dict[Rank, float] = field(default_factory=dict)

    def keep(self, allowed: Iterable[Rank]) -> None:
        allowed = set(allowed)
        narrowed = {r: w for r, w in self.weights.items() if r in allowed}
        if narrowed:  # never drop to nothing: the rules beyond this model (deals) may surprise
            self.weights = narrowed

    def probabilities(self) -> dict[Rank, float]:
        total = sum(self.weights.values())
        return {r: w / total for r, w in self.weights.items()}

    @property
    def certain(self) -> Rank | None:
        return next(iter(self.weights)) if len(self.weights) == 1 else None


def layout_prior(variant: Variant, station: Station) -> dict[Rank, float]:
    """The ranks that may stand on ``station`` at the start (docs/rules.md §5, §9), weighted by
    the stock (dealt armies: any rank alike): the flag only in an HQ; in the standard armies
    landmines only in the last two rows (likelier than their share there, above all in an HQ),
    no bomb in the front row unless the rules allow and bombs likeliest in rows 2 and 3, and an
    HQ holds the flag as often as anything else (the flag is in one of the two)."""
    standard = variant.dealing is None
    army = variant.army if standard else dict.fromkeys(STANDARD_ARMY, 1)  # in a fixed order
    weights = {}
    for rank, count in army.items():
        if rank == Rank.FLAG and station.kind != StationKind.HQ:
            continue
        if standard and rank == Rank.LANDMINE and station.row not in LANDMINE_ROWS:
            continue
        front = station.row == FRONT_ROW and not variant.rules.bombs_in_front_row
        if standard and rank == Rank.BOMB and front:
            continue
        weights[rank] = float(count)
    if standard and Rank.LANDMINE in weights:  # mines guard the flag: the HQs above all
        weights[Rank.LANDMINE] *= HQ_MINES if station.kind == StationKind.HQ else BACK_MINES
    if standard and Rank.BOMB in weights and station.row in BOMB_ROWS:
        weights[Rank.BOMB] *= MIDDLE_BOMBS
    if standard and Rank.FLAG in weights:  # the flag is in one of the two HQs: even odds here
        weights[Rank.FLAG] = sum(w for r, w in weights.items() if r != Rank.FLAG)
    return weights


def flags_known(view: Mapping[str, Any]) -> set[int]:
    """The seats whose flags the view shows (or which raised one): the rules show all of a
    seat's flags at once (docs/rules.md §7, §9.2, §9.3), so no hidden piece of theirs is a flag."""
    shown = {p.get("seat") for p in view.get("pieces", []) if p.get("rank") == Rank.FLAG}
    raised = {s["seat"] for s in view.get("seats", []) if s.get("flag_raised") is not None}
    return {s for s in shown | raised if s is not None}


def own_flag_shown(view: Mapping[str, Any]) -> bool:
    """Whether the other seats know where the viewer's flag is: it raised one, or it has a flag
    and the rules show it: 三打一's idle seats from the start (docs/rules.md §9.3 step 7), elsewhere
    once its last 司令 has died, where that shows the flag (§7, §9.2 step 5). The view shows the
    viewer its own flag either way, so it is read from the rules and the 司令."""
    seat = view["viewer"]
    if view["seats"][seat].get("flag_raised") is not None:
        return True
    own = [p.get("rank") for p in view["pieces"] if p.get("seat") == seat]
    if Rank.FLAG not in own:
        return False
    variant = get_variant(view["variant"])
    if variant.dealing == "sandayi":
        return (view.get("deal") or {}).get("banker") not in (None, seat)
    return variant.rules.marshal_death_reveals_flag and Rank.FIELD_MARSHAL not in own


def straight(board: Board, origin: str, target: str) -> bool:
    """Whether a piece could go from ``origin`` to ``target`` without turning on the rail."""
    if target in board.neighbours(origin):
        return True
    return any(origin in line and target in line for line in board.lines)


class Beliefs:
    def __init__(self, variant: str, seat: int) -> None:
        self.variant = get_variant(variant)
        self.board: Board = get_board(self.variant.board_key)
        self.seat = seat
        self.pieces: dict[str, Guess] = {}  # station -> belief about the enemy piece there
        self.dead: Counter[tuple[int, Rank]] = Counter()  # ranks seen to die, per seat
        self.known: dict[str, Rank] = {}  # our own pieces' ranks, by station, as last seen
        self.recent: list[tuple[str, str]] = []  # our own last moves, newest last
        self.proven: set[str] = set()  # our pieces that won a fight: its loser's owner knows more
        self.standard = self.variant.dealing is None  # dealt armies: no stock to count

    # --- the view ---------------------------------------------------------------------------

    def follow(self, events: Iterable[Mapping[str, Any] | None], view: Mapping[str, Any]) -> None:
        """Take in what the seat was just sent: its events (as ``Event.for_viewer`` gave them;
        None for those it did not get), then its new view."""
        for event in events:
            if event is not None:
                self.observe(event)
        self.update(view)

    def update(self, view: Mapping[str, Any]) -> None:
        """Take in the pieces of a view: new unknown pieces get their priors, shown ranks are
        certain, pieces gone are forgotten."""
        present = set()
        self.known = {}
        for p in view.get("pieces", []):
            station, seat = p["station"], p.get("seat")
            if seat == self.seat and "rank" in p:
                self.known[station] = Rank(p["rank"])
            if seat is None or seat == self.seat or p.get("face_down"):
                continue
            present.add(station)
            guess = self.pieces.get(station)
            if guess is None or guess.seat != seat:
                guess = self.pieces[station] = Guess(seat, self.prior(station))
            if "rank" in p:
                guess.weights = {Rank(p["rank"]): 1.0}
        for station in list(self.pieces):
            if station not in present:
                del self.pieces[station]
        self.proven &= set(self.known)
        flagged = flags_known(view)
        for guess in self.pieces.values():
            if guess.seat in flagged and guess.certain is None:
                guess.keep(r for r in guess.weights if r != Rank.FLAG)
        self.count_stock()

    def prior(self, station: str) -> dict[Rank, float]:
        return layout_prior(self.variant, self.board.station(station))

    # --- events -----------------------------------------------------------------------------

    def observe(self, event: Mapping[str, Any]) -> None:
        """Take in one event as this seat saw it."""
        known = self.known
        if event.get("kind") != "moved":
            return
        origin, target, outcome = event["origin"], event["target"], event.get("outcome")
        ours = known.get(origin) if event.get("seat") == self.seat else None
        if event.get("seat") == self.seat:
            self.recent = [*self.recent[-3:], (origin, target)]
        mover = self.pieces.pop(origin, None)
        defender = self.pieces.get(target)
        if mover is not None:
            mover.keep(ALL_RANKS - IMMOBILE_RANKS)
            if not self.straight(origin, target):
                mover.keep(RAIL_FLYERS)
        self.follow_own_pieces(ours, origin, target, outcome)
        if outcome is None:
            if mover is not None:
                self.pieces[target] = mover
            return
        if mover is not None and target in known:  # an enemy attacked one of ours
            mine = known[target]
            mover.keep(
                r for r in mover.weights if r not in IMMOBILE_RANKS and combat(r, mine) == outcome
            )
            self.after_fight(mover, target, survived=outcome == "attacker")
            if outcome != "defender":
                del known[target]
                self.proven.discard(target)
            else:
                self.proven.add(target)  # ours held: the attacker's owner knows it is above his
        elif mover is None and ours is not None and defender is not None:  # we attacked
            defender.keep(r for r in defender.weights if combat(ours, r) == outcome)
            if outcome != "defender":
                self.pieces.pop(target, None)
                self.died(defender)
        elif mover is not None and defender is not None:  # two other seats fought
            if outcome == "both":
                self.pieces.pop(target, None)
                self.died(defender)
                self.died(mover)
            elif outcome == "attacker":
                self.pieces[target] = mover
                self.died(defender)
            else:
                self.died(mover)
        self.count_stock()

    def follow_own_pieces(
        self, rank: Rank | None, origin: str, target: str, outcome: str | None
    ) -> None:
        """Keep ``known`` true between views: one of our pieces moved (and maybe fought)."""
        if rank is None:
            return
        del self.known[origin]
        proven = origin in self.proven
        self.proven.discard(origin)
        if outcome in (None, "attacker"):
            self.known[target] = rank
            if proven or outcome == "attacker":  # it beat the piece there: its owner knows
                self.proven.add(target)

    def after_fight(self, mover: Guess, target: str, survived: bool) -> None:
        if survived:
            self.pieces[target] = mover
        else:
            self.died(mover)

    def died(self, guess: Guess) -> None:
        if guess.certain is not None:
            self.dead[guess.seat, guess.certain] += 1

    def straight(self, origin: str, target: str) -> bool:
        return straight(self.board, origin, target)

    def count_stock(self) -> None:
        """When all copies of a rank of an army are accounted for, no other piece has it."""
        if not self.standard:
            return
        changed = True
        while changed:
            changed = False
            for seat in {g.seat for g in self.pieces.values()}:
                sure = Counter(g.certain for g in self.pieces.values() if g.seat == seat)
                for rank, count in self.variant.army.items():
                    if sure[rank] + self.dead[seat, rank] < count:
                        continue
                    for guess in self.pieces.values():
                        if guess.seat == seat and guess.certain is None and rank in guess.weights:
                            guess.keep(r for r in guess.weights if r != rank)
                            changed = True

    def table(self) -> dict[str, dict[str, float]]:
        """The beliefs as plain data: station -> {rank key: probability} (the keys are
        ``Rank`` members, which are their own keys as strings)."""
        out: dict[str, dict[str, float]] = {}
        for station, guess in self.pieces.items():
            total = sum(guess.weights.values())
            out[station] = {rank: weight / total for rank, weight in guess.weights.items()}
        return out
