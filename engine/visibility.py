"""Who sees what (docs/rules.md §8): which seats may see the rank of each piece.

A rank is everyone's once the game is over or in 明棋; otherwise its owner's, its partners' in
双明, and whoever the rules showed it to (``Reveals``: shown flags, scouting). A game played face
down (翻棋, the rulebook's ``face_down``) instead shows every face-up rank and none face down.
Events take their audiences from ``rank_audience`` when they happen; views use
``visible_ranks``, the same answer for every piece at once.
"""

from __future__ import annotations

from typing import Any

from engine.errors import MalformedInput
from engine.events import Audience
from engine.rulebook import GameLike
from engine.rulebooks import rulebook_of
from engine.state import Phase
from engine.variants import Information

# Enum members as globals: looked up on their class, each costs more than a hook's call.
_FINISHED = Phase.FINISHED
_OPEN, _PARTNERS_OPEN = Information.OPEN, Information.PARTNERS_OPEN


def rank_audience(g: GameLike, index: int) -> Audience:
    """Who may see the rank of the piece on station ``index`` (None: everyone)."""
    rules, teams = g.rules, g.teams
    if g.phase == _FINISHED or rules.information == _OPEN:
        return None
    position = g.position
    piece = position.cells[index] if position is not None else None
    if piece is None:
        raise MalformedInput(f"no piece on station index {index}")
    face_down = rulebook_of(g.variant).face_down(g)
    if face_down is not None:
        return frozenset() if face_down >> index & 1 else None
    reveals = g.reveals
    if index in reveals.public:
        return None
    seats = {piece.seat} | {s for i, s in reveals.private if i == index}
    if rules.information == _PARTNERS_OPEN:
        seats |= {s for s, t in enumerate(teams) if t == teams[piece.seat]}
    return frozenset(seats)


def visible_ranks(g: GameLike, viewer: int | None) -> int:
    """The stations (a mask of indices) holding a piece whose rank ``viewer`` may see: for every
    piece at once, exactly ``sees(rank_audience(g, index), viewer)``, with the reveals looked
    through once instead of once per piece."""
    position = g.position
    if position is None:
        return 0
    rules = g.rules
    if g.phase == _FINISHED or rules.information == _OPEN:
        return position.occupied
    face_down = rulebook_of(g.variant).face_down(g)
    if face_down is not None:
        return position.occupied & ~face_down
    reveals = g.reveals
    mask = 0
    for index in reveals.public:
        mask |= 1 << index
    if viewer is not None:
        for index, seat in reveals.private:
            if seat == viewer:
                mask |= 1 << index
        if rules.information == _PARTNERS_OPEN:
            teams = g.teams
            team = teams[viewer]
            for seat, pieces in enumerate(position.seat_masks):
                if teams[seat] == team:
                    mask |= pieces
        else:
            mask |= position.seat_masks[viewer]
    return mask & position.occupied


def open_pieces(g: GameLike) -> list[dict[str, Any]]:
    """Every piece on the board with its rank, the seat playing it and its army (colour): the
    ``game_over`` event's list, and an open replay's."""
    position = g.position
    if position is None:
        return []
    book = rulebook_of(g.variant)
    stations = g.variant.board.stations
    return [
        {"station": stations[i], "seat": book.owner(g, p), "army": p.colour, "rank": p.rank.value}
        for i, p in position.indexed()
    ]
