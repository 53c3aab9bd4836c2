"""Views: exactly what a seat, or a spectator (``viewer=None``), may know of a game (docs/rules.md
§8).

``view`` returns JSON-ready data. Ranks appear only where ``rank_audience`` lets the viewer see
them; hands, drafts and redeal eligibility only to their owner; in play each seat learns what it
may offer (``may``: a draw, and from when its surrender) and the seat to move also gets its
legal moves. Events are filtered by ``Event.for_viewer`` with audiences fixed when they happened.

What a variant adds to a view comes from its rulebook (``engine.rulebook``): the dealt variants'
``deal``, and for a game played face down (翻棋) the marks on its pieces (face down, carrying the
flag, the seat playing each colour) and its entries after the pieces and the legal moves.
In play each view has its viewer's 记牌 counts (``tracker``: ``engine.tracker.counts``), which
come from that viewer's own events and visible ranks only; a bot's view goes without them
(``tracker=False``: bots do not read them, and so never make the engine work them out).

The server builds a view for every seat and spectator after every action, so ``view`` is written
for speed: which ranks the viewer sees is worked out once per view for every piece together
(``engine.visibility.visible_ranks``, the batched form of ``rank_audience``), not piece by piece.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from operator import is_not
from typing import Any

from engine import visibility
from engine.deal import commitment
from engine.errors import MalformedInput
from engine.game import moves_of
from engine.movement import mask_ids, move_tables
from engine.offers import draw_refusal, surrender_from
from engine.pieces import Rank, piece_key
from engine.rulebook import Marks
from engine.rulebooks import rulebook_of
from engine.state import GameState, Phase
from engine.tracker import counts as tracker_counts
from engine.visibility import visible_ranks

_RANK_KEYS: dict[Rank, str] = {rank: rank.value for rank in Rank}
_BEFORE_PLAY = frozenset({Phase.PICKING, Phase.REDEALING, Phase.BIDDING, Phase.DEPLOYING})
# Enum members as globals: looked up on their class, each costs more than a hook's call.
_PLAYING, _FINISHED = Phase.PLAYING, Phase.FINISHED
_commitment = lru_cache(maxsize=1024)(commitment)  # GameState.commitment, without a sha256 per view


def view(state: GameState, viewer: int | None, *, tracker: bool = True) -> dict[str, Any]:
    """The game as ``viewer`` sees it: a seat number, or None for a spectator; with its 记牌
    counts unless not ``tracker``."""
    return _view(state, viewer, _common(state), pieces=True, tracker=tracker)


def open_pieces(state: GameState) -> list[dict[str, Any]]:
    """Every piece on the board with its rank, the seat playing it and its army, as the
    ``game_over`` event lists them (an open replay)."""
    return visibility.open_pieces(state)


def _common(state: GameState) -> dict[str, Any]:
    """What every viewer's view shows alike (after its first fields)."""
    finished = state.phase == _FINISHED
    proposal = state.proposal
    result = state.result
    return {
        "host": state.host,
        "first": state.first,  # who moves first (the turn order names seats before their colours)
        "information": state.rules.information.value,
        "commitment": _commitment(state.seed),
        "seed": state.seed if finished else None,
        "to_move": state.to_move,
        "deadline": None if finished else state.deadline,
        "started_at": state.started_at,
        "paused_since": state.paused_since,
        "total_moves": state.total_moves,
        "quiet_moves": state.quiet_moves,
        "seats": _seats(state, range(len(state.teams))),  # the variant's seats
        "proposal": None
        if proposal is None
        else {"kind": proposal.kind, "seat": proposal.seat, "waiting": sorted(proposal.waiting)},
        "result": None if result is None else result.to_dict(),
    }


def _view(
    state: GameState, viewer: int | None, common: dict[str, Any], pieces: bool, tracker: bool
) -> dict[str, Any]:
    """``view``, from ``_common(state)``; without the pieces unless ``pieces``, without the
    记牌 counts unless ``tracker``."""
    variant = state.variant
    # range: the variant's seats, without the tuple ``Variant.seats`` makes on every call
    if viewer is not None and (isinstance(viewer, bool) or viewer not in range(len(state.teams))):
        raise MalformedInput(f"no seat {viewer!r} in {variant.key}")
    board = variant.board
    phase = state.phase
    finished = phase == _FINISHED
    out: dict[str, Any] = {
        "variant": variant.key,
        "board": board.key,
        "phase": phase.value,
        "viewer": viewer,
    }
    out.update(common)
    book = rulebook_of(variant)
    deal = book.deal_view(state, viewer)
    if deal is not None:
        out["deal"] = deal
    if phase in _BEFORE_PLAY:
        draft = state.drafts[viewer] if viewer is not None else None
        out["layout"] = dict(draft) if draft is not None else None
        return out
    position = state.position
    if position is None:  # the game ended before play began (an escape)
        if pieces:
            out["pieces"] = []
        return out
    if pieces:
        marks = book.marks(state)
        out["pieces"] = list(_pieces(state, viewer, position.occupied, marks).values())
    if extra := book.board_view(state):
        out.update(extra)
    if tracker:
        out["tracker"] = tracker_counts(state, viewer)
    if phase == _PLAYING and viewer is not None:
        out["may"] = {
            "propose_draw": draw_refusal(state, viewer) is None,
            "surrender_from": surrender_from(state, viewer),
        }
    if phase == _PLAYING and viewer is not None and viewer == state.to_move:
        t = move_tables(board)
        ids = board.stations
        out["legal_moves"] = {
            ids[origin]: mask_ids(t, mask) for origin, mask in moves_of(state, viewer).items()
        }
        if extra := book.turn_view(state):
            out.update(extra)
    if finished:
        out["layouts"] = [
            {sid: piece_key(p) for sid, p in layout.items()} for layout in state.layouts
        ]
    return out


def view_changes(
    before: GameState, state: GameState, viewers: Iterable[int | None]
) -> dict[int | None, dict[str, Any]] | None:
    """How each viewer's view changed from ``before`` to ``state`` (a later state of the same
    game in play): ``{"game": its view but the pieces, "pieces": {station: piece or None}}``,
    the pieces only of the stations that look different now (None: none stands there), and
    the 记牌 counts (``game``'s ``tracker``) only when they changed. None when either state is
    not in play: whole views are due then.

    A station looks different when its piece changed or whether the viewer sees its rank (or
    its marks: whether it is face down or carries the flag) changed; that is all a piece's
    entry depends on, and every one of those is compared, not inferred from the events."""
    if before.phase != _PLAYING or state.phase != _PLAYING:
        return None
    old, new = before.position, state.position
    assert old is not None and new is not None
    moved = 0
    # which cells hold another piece (or none) now: compared in C, then the few found
    differs = bytes(map(is_not, old.cells, new.cells))
    index = differs.find(1)
    while index >= 0:
        moved |= 1 << index
        index = differs.find(1, index + 1)
    book = rulebook_of(state.variant)
    marks, old_marks = book.marks(state), book.marks(before)
    if marks is not None:
        assert old_marks is not None
        if marks.owners != old_marks.owners:
            return None  # every face-up piece's seat changes
        moved |= (marks.face_down ^ old_marks.face_down) | marks.carriers ^ old_marks.carriers
    common = _common(state)  # shared by the views made here, which are for reading
    changes: dict[int | None, dict[str, Any]] = {}
    for viewer in viewers:
        changed = moved | (visible_ranks(before, viewer) ^ visible_ranks(state, viewer))
        counts = tracker_counts(state, viewer)
        game = _view(state, viewer, common, pieces=False, tracker=False)
        if counts is not (was := tracker_counts(before, viewer)) and counts != was:
            game["tracker"] = counts
        changes[viewer] = {
            "game": game,
            "pieces": _pieces(state, viewer, changed, marks),
        }
    return changes


def _pieces(
    state: GameState, viewer: int | None, stations: int, marks: Marks | None
) -> dict[str, dict[str, Any] | None]:
    """The entries of the pieces on ``stations`` (a mask of indices) as ``viewer`` sees them,
    by station id, in the board's order; None for a station without a piece. ``marks``: the
    rulebook's marks of the state's pieces."""
    position = state.position
    assert position is not None
    ids = position.board.stations
    cells = position.cells
    keys = _RANK_KEYS
    visible = visible_ranks(state, viewer)
    out: dict[str, dict[str, Any] | None] = {}
    if stations == position.occupied:  # a whole view
        indices = [index for index, piece in enumerate(cells) if piece is not None]
    else:  # a few stations
        indices = []
        while stations:
            bit = stations & -stations
            indices.append(bit.bit_length() - 1)
            stations ^= bit
    for index in indices:
        station = ids[index]
        piece = cells[index]
        if piece is None:
            out[station] = None
        elif marks is None:  # the plain entry, built in one go: most views are of these
            seat, rank, army = piece
            if army is None:
                army = seat
            out[station] = (
                {"station": station, "seat": seat, "army": army, "rank": keys[rank]}
                if visible & 1 << index
                else {"station": station, "seat": seat, "army": army}
            )
        elif marks.face_down >> index & 1:
            out[station] = {"station": station, "face_down": True}
        else:
            seat, rank, army = piece
            entry: dict[str, Any] = {
                "station": station,
                "seat": marks.owners[seat],
                "army": seat if army is None else army,
            }
            if visible >> index & 1:
                entry["rank"] = keys[rank]
            if marks.carriers >> index & 1:
                entry["carrying_flag"] = True
            out[station] = entry
    return out


def _seats(state: GameState, seats: Iterable[int]) -> list[dict[str, Any]]:
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
