"""The game state machine (docs/rules.md §5-§9): dealing → deploying → playing → finished.

``new_game`` makes a state (``engine.state``), ``apply(state, action)`` returns the next state and
the events that happened. States are immutable; ``apply`` works on a mutable working copy
(``Game``) and freezes it. Every illegal or malformed action raises a typed error
(``engine.errors``) and changes nothing. Time is passed in with each action; the engine never
reads a clock.

Every variant runs through the same machine, which never asks which variant it plays: variants
are data (``engine.variants``: the board, the teams, the ``RuleOptions``) plus the hooks of their
rulebook (``engine.rulebook``, looked up in ``engine.rulebooks``), which the machine calls at fixed
points and which bring the handlers of the variant's own actions. The working game is built in
layers, a module each: ``engine.working`` (the copy, eliminations, the end), ``engine.turns``,
``engine.flags``, ``engine.play``, ``engine.deploying`` and ``engine.proposals``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.actions import (
    Action,
    AnswerProposal,
    Deadline,
    Escape,
    Move,
    Pause,
    PlaceLayout,
    ProposeDraw,
    RaiseFlag,
    Resume,
    Surrender,
    Timeout,
)
from engine.deploying import Deploying
from engine.errors import GamePaused, IllegalAction, MalformedInput
from engine.events import Event
from engine.play import Play
from engine.proposals import Proposals
from engine.rulebook import Handler, Setup
from engine.rulebooks import VARIANT_ACTIONS, rulebook_of
from engine.state import ActionLog, DealState, GameState, Phase, Reveals, SeatState
from engine.variants import RuleOptions, get_variant


def new_game(
    variant: str,
    *,
    seed: int | str,
    host: int = 0,
    options: Mapping[str, Any] | None = None,
    rules: RuleOptions | None = None,
    now: float = 0.0,
) -> GameState:
    """A game of ``variant``: dealing (乱战, 三打一), deploying, or for 翻棋 already in play.
    ``options`` override the variant's rule defaults (JSON values, checked); or ``rules`` are
    the rules already parsed (``Variant.rules_with``: a table's). The variant's fixed options
    win either way (``Variant.fixed``)."""
    v = get_variant(variant)
    if rules is None:
        rules = v.rules_with(options or {})
    elif options is not None:
        raise MalformedInput("rule options or parsed rules, not both")
    else:
        rules = v.with_fixed(rules)
    if isinstance(host, bool) or host not in v.seats:
        raise MalformedInput(f"no seat {host!r} in {variant}")
    n = len(v.seats)
    state = GameState(
        variant=v,
        rules=rules,
        seed=str(seed),
        host=host,
        first=host,
        created_at=now,
        setup=None,
        teams=v.teams,
        phase=Phase.DEPLOYING,
        deadline=now + rules.deploy_seconds,
        deal=DealState(),
        drafts=(None,) * n,
        confirmed=frozenset(),
        layouts=(),
        position=None,
        to_move=None,
        seats=(SeatState(),) * n,
        started_at=None,
        total_moves=0,
        quiet_moves=0,
        reveals=Reveals(),
        watches=(),
        flip=None,
        proposal=None,
        result=None,
        log=ActionLog(),
    )
    game = Game(state)
    game.book.start(game, now)
    return game.freeze()


def start_from(
    variant: str,
    pieces: Mapping[str, Sequence[Any]],
    *,
    seed: int | str,
    host: int = 0,
    options: Mapping[str, Any] | None = None,
    rules: RuleOptions | None = None,
    now: float = 0.0,
    setup: Setup | None = None,
) -> tuple[GameState, list[Event]]:
    """A game already in play from a set-up position, the host (三打一: the banker) to move:
    for tests, bots and teaching. ``pieces`` is ``{station: (seat, rank key[, army])}``; the
    layouts are not checked. ``setup`` is the variant's own set-up value, made by its module
    and read by its rulebook (``sandayi.Setup``: the banker and its contract; ``fanqi.Setup``:
    the face-down stations and the colours, with pieces as ``(colour, rank key)``); the other
    variants take none. The rules come from ``options`` or ``rules`` as in ``new_game``."""
    state = new_game(variant, seed=seed, host=host, options=options, rules=rules, now=now)
    recorded: dict[str, Any] = {"pieces": {sid: list(p) for sid, p in pieces.items()}}
    if setup is not None:
        recorded |= setup.to_json()
    game = Game(dataclasses.replace(state, setup=recorded, phase=Phase.DEPLOYING, deal=DealState()))
    if game.book.set_up(game, pieces, setup, now):
        return game.freeze(), game.events
    board = state.variant.board
    drafts: list[dict[str, str]] = [{} for _ in state.variant.seats]
    for sid, (seat, rank, *army) in pieces.items():
        game.check_seat(seat)
        key = rank if not army or army[0] is None else f"{rank}/{army[0]}"
        drafts[seat][board.station(sid).id] = key
    game.drafts = list(drafts)
    game.confirmed = frozenset(state.variant.seats)
    game.start_play(now)
    return game.freeze(), game.events


def apply(state: GameState, action: Action) -> tuple[GameState, list[Event]]:
    """The state after ``action`` and the events it caused; raises and changes nothing if the
    action is malformed (MalformedInput), out of turn (NotYourTurn) or illegal (IllegalAction)."""
    handler = _HANDLERS.get(type(action))
    if handler is None:
        raise MalformedInput(f"not an action: {action!r}")
    if state.phase == Phase.FINISHED:
        raise IllegalAction("the game is over")
    if isinstance(action.now, bool) or not isinstance(action.now, int | float):
        raise MalformedInput("'now' is a number of seconds")
    if state.paused_since is not None and not isinstance(action, Resume | Escape):
        raise GamePaused("the game is paused")
    game = Game(state)
    handler(game, action)
    game.log = game.log.appended(action)
    return game.freeze(), game.events


def moves_of(state: GameState, seat: int) -> dict[int, int]:
    """The legal moves of ``seat`` now: ``{origin index: destination mask}``."""
    if state.phase != Phase.PLAYING or state.position is None:
        return {}
    return rulebook_of(state.variant).moves(state, seat)


class Game(Deploying, Play, Proposals):
    """A mutable working copy of a GameState, used inside ``apply`` only (``engine.working``),
    with every step of the shared state machine, which calls the variant's rulebook (``book``)
    at fixed points. Rulebooks see it as an ``engine.rulebook.WorkingGame``."""


_SHARED: dict[type[Action], Callable[[Game, Any], None]] = {
    PlaceLayout: Game.place_layout,
    Deadline: Game.deadline_passed,
    RaiseFlag: Game.raise_flag,
    Move: Game.move,
    Timeout: Game.timeout,
    Pause: Game.pause,
    Resume: Game.resume,
    ProposeDraw: Game.propose_draw,
    AnswerProposal: Game.answer,
    Surrender: Game.surrender,
    Escape: Game.escape,
}
_HANDLERS: dict[type, Callable[[Game, Any], None] | Handler] = {**_SHARED, **VARIANT_ACTIONS}
