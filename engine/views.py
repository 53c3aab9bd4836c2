"""Views: exactly what a seat, or a spectator (``viewer=None``), may know of a game (RULES.md §8).

``view`` returns JSON-ready data. Ranks appear only where ``rank_audience`` lets the viewer see
them; the seat to move also gets its legal moves. Events are filtered by ``Event.for_viewer``
with the same audiences, fixed when the event happened.
"""

from __future__ import annotations

from typing import Any

from engine.errors import MalformedInput
from engine.events import sees
from engine.game import GameState, Phase, rank_audience
from engine.movement import legal_moves, mask_ids, move_tables


def view(state: GameState, viewer: int | None) -> dict[str, Any]:
    """The game as ``viewer`` sees it: a seat number, or None for a spectator."""
    if viewer is not None and (isinstance(viewer, bool) or viewer not in state.variant.seats):
        raise MalformedInput(f"no seat {viewer!r} in {state.variant.key}")
    board = state.variant.board
    rules = state.rules
    out: dict[str, Any] = {
        "variant": state.variant.key,
        "board": board.key,
        "phase": state.phase.value,
        "viewer": viewer,
        "host": state.host,
        "information": rules.information.value,
        "to_move": state.to_move,
        "deadline": state.deadline if state.phase != Phase.FINISHED else None,
        "started_at": state.started_at,
        "total_moves": state.total_moves,
        "quiet_moves": state.quiet_moves,
        "seats": [
            {
                "seat": seat,
                "team": state.teams[seat],
                "confirmed": seat in state.confirmed,
                "skips": s.skips,
                "timeouts": s.timeouts,
                "moves": s.moves,
                "proposals_left": rules.draw_proposals - s.proposals,
                "eliminated": None
                if s.elimination is None
                else {
                    "reason": s.elimination.reason.value,
                    "victor": s.elimination.victor,
                    "order": s.elimination.order,
                },
            }
            for seat, s in enumerate(state.seats)
        ],
        "proposal": None
        if state.proposal is None
        else {
            "kind": state.proposal.kind,
            "seat": state.proposal.seat,
            "waiting": sorted(state.proposal.waiting),
        },
        "result": None if state.result is None else state.result.to_dict(),
    }
    if state.phase == Phase.DEPLOYING:
        draft = state.drafts[viewer] if viewer is not None else None
        out["layout"] = dict(draft) if draft is not None else None
        return out
    position = state.board_position
    pieces = []
    for index, piece in enumerate(position.cells):
        if piece is None:
            continue
        entry: dict[str, Any] = {"station": board.stations[index], "seat": piece.seat}
        if sees(rank_audience(state, index), viewer):
            entry["rank"] = piece.rank.value
        pieces.append(entry)
    out["pieces"] = pieces
    if state.phase == Phase.PLAYING and viewer is not None and viewer == state.to_move:
        t = move_tables(board)
        moves = legal_moves(position, viewer, state.teams, rules.hq_lock)
        out["legal_moves"] = {
            board.stations[origin]: mask_ids(t, mask) for origin, mask in moves.items()
        }
    if state.phase == Phase.FINISHED:
        out["layouts"] = [{sid: r.value for sid, r in layout.items()} for layout in state.layouts]
    return out
