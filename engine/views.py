"""Views: exactly what a seat, or a spectator (``viewer=None``), may know of a game (RULES.md §8).

``view`` returns JSON-ready data. Ranks appear only where ``rank_audience`` lets the viewer see
them; hands, drafts and redeal eligibility only to their owner; the seat to move also gets its
legal moves. Events are filtered by ``Event.for_viewer`` with audiences fixed when they happened.

The server builds a view for every seat and spectator after every action, so ``view`` is written
for speed: which ranks the viewer sees is worked out once per view for every piece together
(``engine.game.visible_ranks``, the batched form of ``rank_audience``), not piece by piece.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from engine.deal import commitment
from engine.errors import MalformedInput
from engine.game import moves_of, visible_ranks
from engine.movement import mask_ids, move_tables
from engine.pieces import Rank, piece_key
from engine.position import Position
from engine.pregame import hand_is_weak
from engine.state import GameState, Phase

_RANK_KEYS: dict[Rank, str] = {rank: rank.value for rank in Rank}
_BEFORE_PLAY = frozenset({Phase.PICKING, Phase.REDEALING, Phase.BIDDING, Phase.DEPLOYING})
_commitment = lru_cache(maxsize=1024)(commitment)  # GameState.commitment, without a sha256 per view


def view(state: GameState, viewer: int | None) -> dict[str, Any]:
    """The game as ``viewer`` sees it: a seat number, or None for a spectator."""
    variant = state.variant
    seats = variant.seats
    if viewer is not None and (isinstance(viewer, bool) or viewer not in seats):
        raise MalformedInput(f"no seat {viewer!r} in {variant.key}")
    board = variant.board
    phase = state.phase
    finished = phase == Phase.FINISHED
    proposal = state.proposal
    result = state.result
    out: dict[str, Any] = {
        "variant": variant.key,
        "board": board.key,
        "phase": phase.value,
        "viewer": viewer,
        "host": state.host,
        "information": state.rules.information.value,
        "commitment": _commitment(state.seed),
        "seed": state.seed if finished else None,
        "to_move": state.to_move,
        "deadline": None if finished else state.deadline,
        "started_at": state.started_at,
        "total_moves": state.total_moves,
        "quiet_moves": state.quiet_moves,
        "seats": _seats(state, seats),
        "proposal": None
        if proposal is None
        else {"kind": proposal.kind, "seat": proposal.seat, "waiting": sorted(proposal.waiting)},
        "result": None if result is None else result.to_dict(),
    }
    if variant.dealing in ("luanzhan", "sandayi"):
        out["deal"] = _deal(state, viewer)
    if phase in _BEFORE_PLAY:
        draft = state.drafts[viewer] if viewer is not None else None
        out["layout"] = dict(draft) if draft is not None else None
        return out
    position = state.position
    if position is None:  # the game ended before play began (an escape)
        out["pieces"] = []
        return out
    flip = state.flip
    if flip is None:
        out["pieces"] = _pieces(position, visible_ranks(state, viewer))
    else:
        out["pieces"] = _flip_pieces(state, viewer, position, finished)
        out["colours"] = None if flip.colours is None else list(flip.colours)
        out["mines_dug"] = list(flip.mines_dug)
    if phase == Phase.PLAYING and viewer is not None and viewer == state.to_move:
        t = move_tables(board)
        ids = board.stations
        out["legal_moves"] = {
            ids[origin]: mask_ids(t, mask) for origin, mask in moves_of(state, viewer).items()
        }
        if flip is not None:
            out["flippable"] = mask_ids(t, flip.face_down)
    if finished:
        out["layouts"] = [
            {sid: piece_key(p) for sid, p in layout.items()} for layout in state.layouts
        ]
    return out


def _rows(position: Position) -> list[tuple[int, str, int, int, str]]:
    """Every piece of ``position``: its station's bit and id, seat, army and rank key."""
    ids = position.board.stations
    keys = _RANK_KEYS
    return [
        (1 << index, ids[index], seat, seat if army is None else army, keys[rank])
        for index, piece in enumerate(position.cells)
        if piece is not None
        for seat, rank, army in (piece,)
    ]


def _pieces(position: Position, visible: int) -> list[dict[str, Any]]:
    """The pieces of a game without face-down pieces (every game but 翻棋)."""
    return [
        {"station": station, "seat": seat, "army": army, "rank": rank}
        if visible & bit
        else {"station": station, "seat": seat, "army": army}
        for bit, station, seat, army, rank in _rows(position)
    ]


def _flip_pieces(
    state: GameState, viewer: int | None, position: Position, finished: bool
) -> list[dict[str, Any]]:
    """翻棋's pieces: face down (shown as such until the game ends) or face up, with the
    piece's colour, the seat playing it once colours are assigned, and the flag carry."""
    flip = state.flip
    assert flip is not None
    hidden = 0 if finished else flip.face_down
    visible = visible_ranks(state, viewer)
    carrier = 0 if flip.carrier is None else 1 << flip.carrier
    colours = flip.colours
    pieces: list[dict[str, Any]] = []
    for bit, station, seat, army, rank in _rows(position):
        if hidden & bit:
            pieces.append({"station": station, "face_down": True})
            continue
        entry: dict[str, Any] = {
            "station": station,
            "seat": None if colours is None else colours.index(seat),
            "army": army,
        }
        if visible & bit:
            entry["rank"] = rank
        if carrier & bit:
            entry["carrying_flag"] = True
        pieces.append(entry)
    return pieces


def _seats(state: GameState, seats: tuple[int, ...]) -> list[dict[str, Any]]:
    draw_proposals = state.rules.draw_proposals
    confirmed = state.confirmed
    teams = state.teams
    watches = state.watches
    ids = state.variant.board.stations if watches else ()
    out: list[dict[str, Any]] = []
    for seat in seats:
        s = state.seats[seat]
        elimination = s.elimination
        entry: dict[str, Any] = {
            "seat": seat,
            "team": teams[seat],
            "confirmed": seat in confirmed,
            "skips": s.skips,
            "timeouts": s.timeouts,
            "moves": s.moves,
            "proposals_left": draw_proposals - s.proposals,
            "eliminated": None if elimination is None else elimination.to_dict(),
        }
        if watches:
            watch = watches[seat]
            entry["flag_raised"] = None if watch.raised is None else ids[watch.raised]
            entry["raise_flag_by"] = watch.raise_by
            entry["hqs_taken"] = sorted(ids[i] for i in watch.taken)
        out.append(entry)
    return out


def _deal(state: GameState, viewer: int | None) -> dict[str, Any]:
    deal = state.deal
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
        if state.phase == Phase.REDEALING:
            out["may_ask_redeal"] = hand_is_weak(hand[1:])
    return out
