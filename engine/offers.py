"""What a seat may offer in play: a draw, or its surrender (docs/rules.md §6.3, §6.4).

The actions refuse with these reasons (``engine.proposals``), and views tell each seat what it may
offer (``engine.views``), so that a client offers only what the engine would take. Each check
reads the state before the action; none changes anything.
"""

from __future__ import annotations

from engine.state import GameState, Phase


def _proposal_refusal(state: GameState, seat: int) -> str | None:
    """Why ``seat`` may not make a proposal (a draw, or in 三打一 a surrender request)."""
    rules = state.rules
    if state.proposal is not None:
        return "another proposal is waiting for answers"
    if state.total_moves < rules.proposals_after_moves:
        return f"proposals are allowed after {rules.proposals_after_moves} moves"
    if state.seats[seat].proposals >= rules.draw_proposals:
        return f"seat {seat} has used all {rules.draw_proposals} proposals"
    return None


def _side_alive(state: GameState, seat: int) -> bool:
    team = state.teams[seat]
    return any(s.alive for s, t in zip(state.seats, state.teams, strict=True) if t == team)


def draw_refusal(state: GameState, seat: int) -> str | None:
    """Why ``seat`` may not propose a draw now, or None if it may."""
    if state.phase != Phase.PLAYING:
        return f"not possible while the game is {state.phase.value}"
    if not _side_alive(state, seat):
        return f"seat {seat}'s side is out of the game"
    return _proposal_refusal(state, seat)


def surrender_refusal(state: GameState, seat: int, now: float) -> str | None:
    """Why ``seat`` may not surrender at time ``now``, or None if it may."""
    rules = state.rules
    if state.phase != Phase.PLAYING:
        return f"not possible while the game is {state.phase.value}"
    if not rules.surrender_allowed:
        return f"there is no surrender in {state.variant.name}"
    if not state.seats[seat].alive:
        return f"seat {seat} is already out of the game"
    assert state.started_at is not None
    if now - state.started_at < rules.surrender_after_seconds:
        return f"no surrender in the first {rules.surrender_after_seconds} s of play"
    if state.total_moves < rules.proposals_after_moves:
        return f"no surrender before {rules.proposals_after_moves} moves have been made"
    if rules.surrender_counts_as_proposal:
        return _proposal_refusal(state, seat)
    if rules.surrender_needs_partner and state.proposal is not None and _partners(state, seat):
        return "another proposal is waiting for answers"
    return None


def _partners(state: GameState, seat: int) -> frozenset[int]:
    team = state.teams[seat]
    return frozenset(
        s
        for s, (info, t) in enumerate(zip(state.seats, state.teams, strict=True))
        if t == team and s != seat and info.alive
    )


def surrender_from(state: GameState, seat: int) -> float | None:
    """From when ``seat`` may surrender as things stand (a time, perhaps already past), or
    None if it may not at any time until the state changes."""
    if state.phase != Phase.PLAYING or state.started_at is None:
        return None
    start = state.started_at + state.rules.surrender_after_seconds
    return None if surrender_refusal(state, seat, start) else start
