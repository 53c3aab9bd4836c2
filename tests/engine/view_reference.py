"""The straightforward ``engine.view`` as it was before it was optimised, frozen as a reference:
every piece's rank decided by its own ``rank_audience`` call. ``test_views_fast`` checks the
engine's view against it; ``bench/engine.py`` times both."""

from __future__ import annotations

from typing import Any

from engine.errors import MalformedInput
from engine.events import Audience, sees
from engine.game import moves_of
from engine.luanzhan import hand_is_weak
from engine.movement import mask_ids, move_tables
from engine.offers import draw_refusal, surrender_from
from engine.pieces import piece_key
from engine.state import GameState, Phase
from engine.tracker import counts as tracker_counts
from engine.variants import Information


def reference_view(state: GameState, viewer: int | None) -> dict[str, Any]:
    """The game as ``viewer`` sees it, computed the plain way (the old ``engine.view``)."""
    if viewer is not None and (isinstance(viewer, bool) or viewer not in state.variant.seats):
        raise MalformedInput(f"no seat {viewer!r} in {state.variant.key}")
    board = state.variant.board
    rules = state.rules
    finished = state.phase == Phase.FINISHED
    out: dict[str, Any] = {
        "variant": state.variant.key,
        "board": board.key,
        "phase": state.phase.value,
        "viewer": viewer,
        "host": state.host,
        "first": state.first,
        "information": rules.information.value,
        "commitment": state.commitment,
        "seed": state.seed if finished else None,
        "to_move": state.to_move,
        "deadline": None if finished else state.deadline,
        "started_at": state.started_at,
        "paused_since": state.paused_since,
        "total_moves": state.total_moves,
        "quiet_moves": state.quiet_moves,
        "seats": [_seat(state, seat) for seat in state.variant.seats],
        "proposal": None
        if state.proposal is None
        else {
            "kind": state.proposal.kind,
            "seat": state.proposal.seat,
            "waiting": sorted(state.proposal.waiting),
        },
        "result": None if state.result is None else state.result.to_dict(),
    }
    if state.variant.dealing in ("luanzhan", "sandayi"):
        out["deal"] = _deal(state, viewer)
    if state.phase in (Phase.PICKING, Phase.REDEALING, Phase.BIDDING, Phase.DEPLOYING):
        draft = state.drafts[viewer] if viewer is not None else None
        out["layout"] = dict(draft) if draft is not None else None
        return out
    if state.position is None:  # the game ended before play began (an escape)
        out["pieces"] = []
        return out
    position = state.position
    pieces = []
    for index, piece in enumerate(position.cells):
        if piece is None:
            continue
        entry: dict[str, Any] = {"station": board.stations[index]}
        if state.flip is not None and state.flip.face_down >> index & 1 and not finished:
            entry["face_down"] = True
        else:
            entry["seat"] = _owner(state, piece.seat)
            entry["army"] = piece.colour
            if sees(rank_audience(state, index), viewer):
                entry["rank"] = piece.rank.value
            if state.flip is not None and state.flip.carrier == index:
                entry["carrying_flag"] = True
        pieces.append(entry)
    out["pieces"] = pieces
    if state.flip is not None:
        out["colours"] = None if state.flip.colours is None else list(state.flip.colours)
        out["mines_dug"] = list(state.flip.mines_dug)
    # the 记牌 counts as the engine keeps them: tests/engine/test_tracker.py checks them
    out["tracker"] = tracker_counts(state, viewer)
    if state.phase == Phase.PLAYING and viewer is not None:
        out["may"] = {  # engine.offers, as the actions check it (tests/engine/test_offers.py)
            "propose_draw": draw_refusal(state, viewer) is None,
            "surrender_from": surrender_from(state, viewer),
        }
    if state.phase == Phase.PLAYING and viewer is not None and viewer == state.to_move:
        t = move_tables(board)
        out["legal_moves"] = {
            board.stations[origin]: mask_ids(t, mask)
            for origin, mask in moves_of(state, viewer).items()
        }
        if state.flip is not None:
            out["flippable"] = mask_ids(t, state.flip.face_down)
    if finished:
        out["layouts"] = [
            {sid: piece_key(p) for sid, p in layout.items()} for layout in state.layouts
        ]
    return out


def _owner(state: GameState, piece_seat: int) -> int | None:
    if state.flip is None:
        return piece_seat
    colours = state.flip.colours
    return None if colours is None else colours.index(piece_seat)


def _seat(state: GameState, seat: int) -> dict[str, Any]:
    s = state.seats[seat]
    out: dict[str, Any] = {
        "seat": seat,
        "team": state.teams[seat],
        "confirmed": seat in state.confirmed,
        "skips": s.skips,
        "timeouts": s.timeouts,
        "moves": s.moves,
        "proposals_left": state.rules.draw_proposals - s.proposals,
        "eliminated": None if s.elimination is None else s.elimination.to_dict(),
    }
    if state.watches:
        watch = state.watches[seat]
        board = state.variant.board
        out["flag_raised"] = None if watch.raised is None else board.stations[watch.raised]
        out["raise_flag_by"] = watch.raise_by
        out["hqs_taken"] = sorted(board.stations[i] for i in watch.taken)
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
        out["hand"] = [{"rank": r.value, "army": viewer if a is None else a} for r, a in hand]
        if state.phase == Phase.REDEALING:
            out["may_ask_redeal"] = hand_is_weak(hand[1:])
    return out


def rank_audience(state: GameState, index: int) -> Audience:
    """Who may see the rank of the piece on station ``index`` (None: everyone): the engine's
    ``rank_audience`` as it was, scanning the private reveals for this one piece."""
    rules, teams, position = state.rules, state.teams, state.position
    if state.phase == Phase.FINISHED or rules.information == Information.OPEN:
        return None
    piece = position.cells[index] if position is not None else None
    if piece is None:
        raise MalformedInput(f"no piece on station index {index}")
    if state.flip is not None:  # 翻棋: face-up pieces are public, face-down ones unknown to all
        return frozenset() if state.flip.face_down >> index & 1 else None
    if index in state.reveals.public:
        return None
    seats = {piece.seat} | {s for i, s in state.reveals.private if i == index}
    if rules.information == Information.PARTNERS_OPEN:
        seats |= {s for s, t in enumerate(teams) if t == teams[piece.seat]}
    return frozenset(seats)
