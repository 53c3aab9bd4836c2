"""翻棋's hunt: most ranks are in sight and the game is won by taking every enemy piece that
moves, so a bot's quick score there weighs the pieces it beats and those that beat it
(``Hunt``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.board import Board
from engine.bot_goals import distance
from engine.combat import combat
from engine.movement import legal_moves
from engine.pieces import Rank
from engine.position import Position
from engine.search import VALUE
from engine.variants import MovementRules

HUNT = 0.6  # 翻棋: the worth of a step towards an enemy piece in sight that one beats
EXPOSED_TO = 0.5  # 翻棋: the share of a piece's value at stake where one that beats it strikes


class Hunt:
    """翻棋, where most ranks are in sight and the game is won by taking every enemy piece that
    moves: what a move is worth to the hunt (``worth``). Face-down pieces neither move nor can
    be attacked; every face-up piece's rank and owner is known; pieces move by ``movement``."""

    def __init__(
        self,
        view: Mapping[str, Any],
        board: Board,
        enemies: set[int],
        movement: MovementRules,
    ) -> None:
        self.board, self.enemies, self.movement = board, enemies, movement
        self.seat = view["viewer"]
        self.teams = tuple(s["team"] for s in view["seats"])
        cells: dict[str, tuple[int, str]] = {}
        self.frozen = 0
        for p in view["pieces"]:
            if p.get("face_down") or p.get("rank") is None or p.get("seat") is None:
                # a stand-in that takes no part: it neither moves nor can be struck
                self.frozen |= 1 << board.station(p["station"]).index
                cells[p["station"]] = (self.seat, Rank.LANDMINE.value)
            else:
                cells[p["station"]] = (p["seat"], p["rank"])
        self.position = Position.from_pieces(board, cells)
        self.ranks = {s: r for s, (_, r) in cells.items() if not self._frozen(s)}
        self.owners = {s: o for s, (o, _) in cells.items() if not self._frozen(s)}

    def _frozen(self, station: str) -> bool:
        return bool(self.frozen >> self.board.station(station).index & 1)

    def worth(self, origin: str, target: str) -> float:
        """``HUNT`` for each step closer to an enemy piece the mover beats; the mover's value
        (``EXPOSED_TO`` of it) lost if it ends where an enemy piece that beats it can strike
        next (along the rails too), gained if it leaves such a place."""
        rank = self.ranks.get(origin)
        if rank is None or rank in (Rank.LANDMINE, Rank.FLAG):
            return 0.0
        prey = frozenset(
            s
            for s, r in self.ranks.items()
            if self.owners[s] in self.enemies and s != target and combat(rank, r) == "attacker"
        )
        score = HUNT * (
            distance(self.board.key, origin, prey) - distance(self.board.key, target, prey)
        )
        defender = self.ranks.get(target)
        outcome = None if defender is None else combat(rank, defender)
        if outcome not in (None, "attacker"):
            return score  # the mover does not stand there afterwards
        after = self.position.with_move(origin, target, outcome)
        exposed = self._exposed(self.position, origin, rank) - self._exposed(after, target, rank)
        return score + EXPOSED_TO * VALUE[rank] * exposed

    def _exposed(self, position: Position, station: str, rank: str) -> int:
        """Whether an enemy piece that beats ``rank`` can strike ``station`` next."""
        bit = 1 << self.board.station(station).index
        for seat in self.enemies:
            moves = legal_moves(position, seat, self.teams, self.movement, self.frozen)
            for origin, mask in moves.items():
                if mask & bit:
                    theirs = position.cells[origin]
                    if theirs is not None and combat(theirs.rank, rank) == "attacker":
                        return 1
        return 0
