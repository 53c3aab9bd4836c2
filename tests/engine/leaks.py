"""An independent reading of docs/rules.md §8: which ranks a viewer may see, to audit views and
events.

``Knowledge`` follows a game action by action from the true state and keeps its own record of
scouting reveals; it shares no code with the engine's reveal bookkeeping. The few public facts it
reads from the state (who the banker is, which HQ a player raised its flag on, which pieces are
face down) are themselves shown to everyone.
"""

from __future__ import annotations

from typing import Any

import engine
from engine import GameState

RANK_KEYS = {r.value for r in engine.Rank}
OFFICERS = {
    "supreme_marshal",
    "field_marshal",
    "general",
    "major_general",
    "brigadier",
    "colonel",
    "major",
    "captain",
    "lieutenant",
    "engineer",
    "missile",
}
PRE_PLAY = ("picking", "redealing", "bidding", "deploying")


class Knowledge:
    def __init__(self, state: GameState) -> None:
        self.scouted: dict[str, frozenset[int] | None] = {}  # station -> audience, None = all
        self.had_marshal: set[int] = set()

    def start(self, state: GameState) -> None:
        self.had_marshal = {
            p.seat for p in state.board_position.pieces().values() if p.rank == "field_marshal"
        }

    def may_see(self, state: GameState, viewer: int | None, station: str) -> bool:
        """Whether ``viewer`` may know the rank of the piece on ``station`` in ``state``."""
        position = state.board_position
        piece = position.piece_at(station)
        assert piece is not None
        rules = state.rules
        index = state.variant.board.station(station).index
        if state.phase == "finished" or rules.information == "open":
            return True
        if state.flip is not None:  # 翻棋: face up is public, face down is nobody's
            return not state.flip.face_down >> index & 1
        if viewer is not None and piece.seat == viewer:
            return True
        if (
            viewer is not None
            and rules.information == "partners_open"
            and state.teams[viewer] == state.teams[piece.seat]
        ):
            return True
        if piece.rank == "flag":
            if state.variant.key == "sandayi" and piece.seat != state.deal.banker:
                return True  # idle flags are shown at the start
            no_marshal = position.count(piece.seat, engine.Rank.FIELD_MARSHAL) == 0
            dealt = state.variant.key == "luanzhan"
            if (
                rules.marshal_death_reveals_flag
                and no_marshal
                and (dealt or piece.seat in self.had_marshal)
            ):
                return True
        if state.watches and state.watches[piece.seat].raised == index:
            return True  # a raised flag is marked for everyone
        if station in self.scouted:
            audience = self.scouted[station]
            return audience is None or viewer in audience
        return False

    def after(self, before: GameState, action: engine.Action, after: GameState) -> None:
        """Follow ``action``: move scouting reveals with their pieces, add new ones."""
        if before.phase != "playing" and after.phase == "playing":
            self.start(after)
        if not isinstance(action, engine.Move) or before.position is None:
            self._drop_missing(after)
            return
        attacker = before.board_position.piece_at(action.origin)
        defender = before.board_position.piece_at(action.target)
        assert attacker is not None
        moved = self.scouted.pop(action.origin, "none")
        survivor = after.board_position.piece_at(action.target)
        if defender is not None and survivor != defender:
            self.scouted.pop(action.target, None)
        if moved != "none" and survivor is not None and survivor == attacker:
            self.scouted[action.target] = moved  # type: ignore[assignment]
        mode = before.rules.engineer_scouting
        if (
            mode != "off"
            and defender is not None
            and attacker.rank == "engineer"
            and defender.rank in OFFICERS
            and survivor == defender
        ):
            team = before.teams[attacker.seat]
            audience = (
                None
                if mode == "all"
                else frozenset(s for s, t in enumerate(before.teams) if t == team)
            )
            known = self.scouted.get(action.target, frozenset())
            # a piece scouted twice is known to both scouts' teams
            merged = None if audience is None or known is None else known | audience
            self.scouted[action.target] = merged
        self._drop_missing(after)

    def _drop_missing(self, state: GameState) -> None:
        if state.position is None:
            return
        for station in list(self.scouted):
            if state.board_position.piece_at(station) is None:
                del self.scouted[station]


def ranks_in(data: Any) -> list[str]:
    """Every string in a JSON-like value that is a rank key."""
    if isinstance(data, str):
        return [data] if data in RANK_KEYS else []
    if isinstance(data, dict):
        return [r for k, v in data.items() for r in ranks_in(k) + ranks_in(v)]
    if isinstance(data, list | tuple):
        return [r for v in data for r in ranks_in(v)]
    return []


def check_view(knowledge: Knowledge, state: GameState, viewer: int | None) -> None:
    """Fail if the view of ``viewer`` shows a rank it may not see, or hides its own."""
    seen = engine.view(state, viewer)
    deal = seen.get("deal")
    if deal is not None:
        hand = state.deal.hands[viewer] if viewer is not None and state.deal.hands else None
        expected = None if hand is None else len(hand)
        assert (None if deal["hand"] is None else len(deal["hand"])) == expected
    if state.phase in PRE_PLAY:
        rest = {k: v for k, v in seen.items() if k not in ("layout", "deal")}
        assert ranks_in(rest) == []
        assert seen["layout"] is None or viewer is not None
        if deal is not None:
            assert ranks_in({k: v for k, v in deal.items() if k != "hand"}) == []
        return
    shown = 0
    for entry in seen["pieces"]:
        piece = state.board_position.piece_at(entry["station"])
        assert piece is not None
        if entry.get("face_down"):
            assert set(entry) == {"station", "face_down"}, entry
            continue
        if "rank" in entry:
            assert knowledge.may_see(state, viewer, entry["station"]), (viewer, entry)
            assert entry["rank"] == piece.rank
            shown += 1
        else:
            assert piece.seat != viewer or state.flip is not None, "a seat sees its own ranks"
    if "legal_moves" in seen:
        assert viewer == state.to_move and viewer is not None
    # the 记牌 counts name ranks: tests/engine/test_tracker.py checks them at every step against a
    # reference that reads only what this viewer was sent
    rest = {
        k: v
        for k, v in seen.items()
        if k not in ("pieces", "layouts", "legal_moves", "deal", "tracker")
    }
    assert ranks_in(rest) == [], rest
    if deal is not None:
        assert ranks_in({k: v for k, v in deal.items() if k != "hand"}) == []
    if state.phase != "finished":
        assert "layouts" not in seen
    assert len(ranks_in(seen["pieces"])) == shown


def check_events(
    knowledge: Knowledge,
    before: GameState,
    action: engine.Action,
    events: list[engine.Event],
    viewers: list[int | None],
) -> None:
    """Fail if an event gives a viewer a rank it may not see."""
    for event in events:
        for viewer in viewers:
            seen = event.for_viewer(viewer)
            if seen is None or event.kind == "game_over":
                continue
            allowed: list[str] = []
            if event.kind == "moved":
                assert isinstance(action, engine.Move)
                if "rank" in seen:
                    assert knowledge.may_see(before, viewer, action.origin), (viewer, seen)
                    allowed.append(seen["rank"])
                if "defender_rank" in seen:
                    assert knowledge.may_see(before, viewer, action.target), (viewer, seen)
                    allowed.append(seen["defender_rank"])
            elif event.kind == "scouted" and "rank" in seen:
                assert isinstance(action, engine.Move)
                mode = before.rules.engineer_scouting
                attacker = before.board_position.piece_at(action.origin)
                assert attacker is not None
                team = before.teams[attacker.seat]
                ok = (
                    mode == "all"
                    or before.rules.information == "open"
                    or (viewer is not None and before.teams[viewer] == team)
                    or knowledge.may_see(before, viewer, seen["station"])
                )
                assert ok, (viewer, seen)
                allowed.append(seen["rank"])
            elif event.kind == "hand":
                assert viewer == seen["seat"], (viewer, seen)
                allowed += [p["rank"] for p in seen["pieces"]]
            elif event.kind == "commander_died":
                assert seen["rank"] in ("field_marshal", "supreme_marshal")
                allowed.append(seen["rank"])
            elif event.kind in ("flipped", "flag_raised"):
                allowed.append(seen["rank"])  # turned face up, or marked as the flag, for all
            elif event.kind == "draft_saved":
                assert viewer == seen["seat"]
            assert sorted(ranks_in(seen)) == sorted(allowed), (event.kind, viewer, seen)
