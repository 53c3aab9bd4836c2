"""Random whole games: they always end, replay identically and never leak a hidden rank."""

from __future__ import annotations

import random

import pytest

import engine
import engine.views as engine_views
from engine import GameState
from tests.engine.leaks import Knowledge, check_events, check_view

GAMES = {"siguo": 120, "liangguo": 150, "sanguo": 120}
MAX_ACTIONS = 4000


def random_options(rng: random.Random) -> dict[str, object]:
    return {
        "information": rng.choice(["hidden", "hidden", "partners_open", "open"]),
        "engineer_scouting": rng.choice(["off", "all", "team"]),
        "mine_trades": rng.random() < 0.3,
        "no_capture_plies": rng.choice([40, 40, 80]),
    }


def random_action(state: GameState, rng: random.Random, now: float) -> engine.Action:
    """Mostly legal moves; now and then a timeout, a draw proposal or answer, a surrender or an
    escape; sometimes an illegal action, which must be refused without changing anything."""
    seat = state.to_move
    assert seat is not None
    roll = rng.random()
    if state.proposal is not None and roll < 0.5:
        waiting = sorted(state.proposal.waiting)
        return engine.AnswerProposal(rng.choice(waiting), rng.random() < 0.4, now=now)
    if roll < 0.01:
        return engine.Timeout(now=state.deadline)
    if roll < 0.015:
        return engine.ProposeDraw(rng.choice(state.variant.seats), now=now)
    if roll < 0.017:
        return engine.Surrender(rng.choice(state.variant.seats), now=now)
    if roll < 0.0175:
        return engine.Escape(rng.choice(state.variant.seats), now=now)
    if roll < 0.03:
        board = state.variant.board
        return engine.Move(
            rng.choice(state.variant.seats), rng.choice(board.stations), rng.choice(board.stations)
        )
    moves = engine.legal_move_list(state.board_position, seat, state.teams, state.rules.hq_lock)
    origin, target = rng.choice(moves)
    return engine.Move(seat, origin, target, now=now)


def play_random_game(variant: str, seed: int, audit: bool) -> GameState:
    rng = random.Random(f"{variant}/{seed}")
    state = engine.new_game(
        variant,
        seed=seed,
        host=rng.choice(engine.get_variant(variant).seats),
        options=random_options(rng),
        now=0.0,
    )
    viewers: list[int | None] = [*state.variant.seats, None]
    knowledge = Knowledge(state)
    for seat in state.variant.seats:
        layout = engine.auto_layout(variant, seat, f"{seed}/{seat}")
        before = state
        state, events = engine.apply(state, engine.PlaceLayout(seat, layout, now=1.0))
        if audit:
            check_events(knowledge, before, engine.PlaceLayout(seat, layout), events, viewers)
    knowledge.start(state)
    now = 1.0
    for step in range(MAX_ACTIONS):
        if state.phase == "finished":
            break
        now += rng.uniform(0.5, 8.0)
        action = random_action(state, rng, min(now, state.deadline))
        before = state
        try:
            state, events = engine.apply(state, action)
        except engine.EngineError:
            assert state is before
            continue
        if audit:
            check_events(knowledge, before, action, events, viewers)
        knowledge.after(before, action, state)
        if audit and (step % 5 == 0 or state.phase == "finished"):
            for viewer in viewers:
                check_view(knowledge, state, viewer)
    else:
        pytest.fail(f"{variant} game {seed} did not end in {MAX_ACTIONS} actions")
    return state


@pytest.mark.parametrize("variant", sorted(GAMES))
def test_random_games_end_replay_and_do_not_leak(variant: str) -> None:
    reasons: set[str] = set()
    for seed in range(GAMES[variant]):
        final = play_random_game(variant, seed, audit=seed % 3 == 0)
        assert final.result is not None
        reasons.add(final.result.reason)
        record = engine.record_of(final)
        again = engine.replay(engine.GameRecord.from_json(record.to_json()))
        assert again.position == final.position
        assert again.result == final.result
        assert again.seats == final.seats
        assert again.reveals == final.reveals
        points = [r.points for r in final.result.seats]
        if final.result.points_unit == "stake" and final.result.reason == "elimination":
            # a team game won on the board: every winner +1, every loser -1
            assert sorted(points) == sorted([1, -1] * (len(points) // 2) + [1] * (len(points) % 2))
    # random play reaches the ends that matter
    assert {"no_capture", "elimination"} <= reasons, reasons


def test_state_after_steps_through_a_record() -> None:
    final = play_random_game("siguo", 1, audit=False)
    record = engine.record_of(final)
    assert engine.state_after(record, 0).phase == "deploying"
    first = engine.state_after(record, 4)  # after the four layouts
    assert first.total_moves == 0 and first.phase == "playing"
    middle = engine.state_after(record, len(record.actions) // 2)
    assert 0 < middle.total_moves <= final.total_moves
    assert engine.state_after(record, len(record.actions)).result == final.result
    with pytest.raises(engine.MalformedInput):
        engine.state_after(record, len(record.actions) + 1)
    steps = list(engine.states(record))
    assert len(steps) == len(record.actions) + 1


def test_the_audit_catches_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine_views, "rank_audience", lambda state, index: None)
    with pytest.raises(AssertionError):
        play_random_game("liangguo", 3, audit=True)  # a hidden-information game
