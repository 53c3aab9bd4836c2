"""Random whole games of every variant: they always end, replay identically and never leak a
hidden rank to any seat or spectator."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

import engine
import engine.views as engine_views
from engine import GameState
from engine.game import moves_of
from engine.luanzhan import hand_is_weak
from engine.movement import mask_ids, move_tables
from tests.engine.leaks import Knowledge, check_events, check_view
from tests.soak import soak

GAMES = {  # seeded random games per variant
    "siguo": soak(10, 100),
    "liangguo": soak(12, 120),
    "sanguo": soak(10, 100),
    "luanzhan": soak(6, 60),
    "sandayi": soak(4, 40),
    "fanqi": soak(8, 80),
}
MAX_ACTIONS = 4000


def random_options(variant: str, rng: random.Random) -> dict[str, object]:
    options: dict[str, object] = {
        "information": rng.choice(["hidden", "hidden", "partners_open", "open"]),
        "engineer_scouting": rng.choice(["off", "all", "team"]),
        "mine_trades": rng.random() < 0.3,
    }
    if variant == "sandayi":
        options["max_total_moves"] = rng.choice([200, 500])
    elif variant != "fanqi":
        options["no_capture_plies"] = rng.choice([40, 40, 80])
    return options


def choose_action(state: GameState, rng: random.Random, now: float) -> engine.Action:
    """A random action for the current phase: mostly legal; now and then a deadline, a
    timeout, a proposal, a surrender, an escape or an illegal action (which must be refused
    without changing anything)."""
    roll = rng.random()
    seats = state.variant.seats
    if roll < 0.0005:
        return engine.Escape(rng.choice(seats), now=now)
    if state.phase == "picking":
        seat = min(state.deal.waiting)
        free = [c for c in range(4) if c not in state.deal.picks]
        if roll < 0.1:
            return engine.Deadline(now=state.deadline)
        return engine.PickColour(rng.choice(seats) if roll < 0.2 else seat, rng.choice(free))
    if state.phase == "redealing":
        seat = rng.choice(sorted(state.deal.waiting))
        hand = state.deal.hands[seat]
        assert hand is not None
        ask = (hand_is_weak(hand[1:]) or roll < 0.05) and rng.random() < 0.6
        return engine.AnswerRedeal(seat, ask, now=now)
    if state.phase == "bidding":
        seat = min(state.deal.waiting)
        return engine.Bid(seat, rng.choice([0, 0, 1, 2, 3]), now=now)
    if state.phase == "deploying":
        seat = rng.choice([s for s in seats if s not in state.confirmed])
        if roll < 0.1:
            return engine.Deadline(now=state.deadline)
        hand = state.deal.hands[seat] if state.variant.dealing is not None else None
        layout = engine.auto_layout(
            state.variant.key,
            seat,
            rng.randrange(10**6),
            hand=hand,
            banker=seat == state.deal.banker,
        )
        return engine.PlaceLayout(seat, layout, now=min(now, state.deadline))
    return play_action(state, rng, now, roll)


def play_action(state: GameState, rng: random.Random, now: float, roll: float) -> engine.Action:
    seat = state.to_move
    assert seat is not None
    seats = state.variant.seats
    due = [s for s, w in enumerate(state.watches) if w.raise_by is not None]
    if due:
        watch = state.watches[due[0]]
        held = sorted(watch.hqs - watch.taken)
        if roll < 0.5 and held:
            station = state.variant.board.stations[rng.choice(held)]
            return engine.RaiseFlag(due[0], station, now=now)
        assert watch.raise_by is not None
        return engine.Deadline(now=watch.raise_by)
    if state.proposal is not None and roll < 0.5:
        waiting = sorted(state.proposal.waiting)
        return engine.AnswerProposal(rng.choice(waiting), rng.random() < 0.4, now=now)
    if roll < 0.01:
        return engine.Timeout(now=state.deadline)
    if roll < 0.015:
        return engine.ProposeDraw(rng.choice(seats), now=now)
    if roll < 0.017:
        return engine.Surrender(rng.choice(seats), now=now)
    board = state.variant.board
    if roll < 0.03:
        return engine.Move(
            rng.choice(seats), rng.choice(board.stations), rng.choice(board.stations)
        )
    t = move_tables(board)
    moves = [(o, d) for o, m in moves_of(state, seat).items() for d in mask_ids(t, m)]
    if state.flip is not None and state.flip.face_down and (not moves or roll < 0.45):
        return engine.Flip(seat, rng.choice(mask_ids(t, state.flip.face_down)), now=now)
    origin, target = rng.choice(moves)
    return engine.Move(seat, board.stations[origin], target, now=now)


def check_kept_events(events: list[engine.Event], viewers: list[int | None]) -> None:
    """An event kept as JSON (to take a table over) shows every viewer what the original did."""
    for event in events:
        kept = engine.Event.from_dict(json.loads(json.dumps(event.to_dict())))
        for viewer in viewers:
            assert json.loads(json.dumps(event.for_viewer(viewer))) == kept.for_viewer(viewer)


def new_random_game(variant: str, seed: int, rng: random.Random, **kwargs: Any) -> GameState:
    """A new game with a random host and random rule options."""
    return engine.new_game(
        variant,
        seed=seed,
        host=rng.choice(engine.get_variant(variant).seats),
        options=random_options(variant, rng),
        **kwargs,
    )


def random_steps(
    state: GameState, rng: random.Random, name: str
) -> Iterator[tuple[GameState, GameState]]:
    """Play ``state`` to its end with ``choose_action`` at random times: each accepted
    action's state before and after; fails a game (``name``) that does not end."""
    now = 0.0
    for _ in range(MAX_ACTIONS):
        if state.phase == "finished":
            return
        now += rng.uniform(0.5, 6.0)
        before = state
        try:
            state, _ = engine.apply(state, choose_action(state, rng, min(now, state.deadline)))
        except engine.EngineError:
            continue
        yield before, state
    pytest.fail(f"{name} did not end in {MAX_ACTIONS} actions")


def play_random_game(variant: str, seed: int, audit: bool) -> GameState:
    rng = random.Random(f"{variant}/{seed}")
    state = new_random_game(variant, seed, rng, now=0.0)
    viewers: list[int | None] = [*state.variant.seats, None]
    knowledge = Knowledge(state)
    now = 0.0
    for step in range(MAX_ACTIONS):
        if state.phase == "finished":
            break
        now += rng.uniform(0.5, 6.0)
        action = choose_action(state, rng, min(now, state.deadline))
        before = state
        try:
            state, events = engine.apply(state, action)
        except engine.EngineError:
            assert state is before
            continue
        if audit:
            check_events(knowledge, before, action, events, viewers)
            check_kept_events(events, viewers)
        knowledge.after(before, action, state)
        if audit and (step % 5 == 0 or state.phase != before.phase):
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
        assert again.deal == final.deal
        points = [r.points for r in final.result.seats]
        escaped = any(r.outcome == "escape" for r in final.result.seats)
        if variant in ("siguo", "liangguo") and final.result.reason == "elimination":
            # a team game won on the board: every winner +1, every loser -1
            assert sorted(points) == sorted([1, -1] * (len(points) // 2))
        if variant == "sandayi" and not escaped:
            assert sum(points) == 0  # the banker wins or loses what the idles lose or win
    # random play reaches the ends that matter
    assert reasons & {"elimination", "escape"}, reasons


def test_state_after_steps_through_a_record() -> None:
    final = play_random_game("siguo", 1, audit=False)
    record = engine.record_of(final)
    assert engine.state_after(record, 0).phase == "deploying"
    started = next(n for n, s in enumerate(engine.states(record)) if s.phase == "playing")
    first = engine.state_after(record, started)
    assert first.total_moves == 0 and first.phase == "playing"
    middle = engine.state_after(record, len(record.actions) // 2)
    assert 0 < middle.total_moves <= final.total_moves
    assert engine.state_after(record, len(record.actions)).result == final.result
    with pytest.raises(engine.MalformedInput):
        engine.state_after(record, len(record.actions) + 1)
    steps = list(engine.states(record))
    assert len(steps) == len(record.actions) + 1
    # history: the same states, each with the events its action made, every secret revealable
    told = list(engine.history(record))
    assert [state for state, _ in told] == steps and told[0][1] == []
    for (before, _), (after, events), action in zip(told, told[1:], record.actions, strict=False):
        again, expected = engine.apply(before, action)
        assert again == after and events == expected
    fights = [e for _, events in told for e in events if e.kind == "moved" and e.data["outcome"]]
    assert fights and all("defender_rank" in e.revealed() for e in fights)
    for event in (e for _, events in told for e in events):  # all that anyone was told
        for viewer in (None, *final.variant.seats):
            assert (event.for_viewer(viewer) or {}).items() <= event.revealed().items()


def test_the_audit_catches_a_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    # a view showing every rank to everyone
    monkeypatch.setattr(engine_views, "visible_ranks", lambda state, viewer: -1)
    with pytest.raises(AssertionError):
        play_random_game("liangguo", 3, audit=True)  # a hidden-information game
