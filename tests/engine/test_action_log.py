"""``ActionLog``: the states of a game share one list of actions, and still each behave as an
immutable tuple of their own actions."""

from __future__ import annotations

import gc
import pickle
from typing import Any

import pytest

import engine
from engine import Flip, Move, Surrender
from engine.state import ActionLog
from tests.engine.game_helpers import setup
from tests.engine.test_game import QUIET, shuffle


def moves(count: int) -> list[Move]:
    return [Move(seat=n % 4, origin="0:51", target="0:52", now=float(n)) for n in range(count)]


def test_appending_to_the_newest_log_shares_its_list() -> None:
    a, b, c = moves(3)
    first = ActionLog([a])
    second = first.appended(b)
    third = second.appended(c)
    assert third._items is first._items  # no copy
    assert (len(first), len(second), len(third)) == (1, 2, 3)
    assert tuple(first) == (a,) and tuple(second) == (a, b) and tuple(third) == (a, b, c)


def test_appending_to_an_older_log_branches_without_touching_the_newer() -> None:
    a, b, c, d = moves(4)
    first = ActionLog([a])
    second = first.appended(b)
    branch = first.appended(c)  # from the older state: a copy
    assert branch._items is not first._items
    assert tuple(branch) == (a, c)
    assert tuple(second) == (a, b)
    assert tuple(second.appended(d)) == (a, b, d)
    assert tuple(branch.appended(d)) == (a, c, d)


def test_an_action_appended_meanwhile_by_another_thread_is_not_taken_for_ours() -> None:
    a, b, theirs = moves(3)

    class Interleaved(list[Any]):
        """A list on which another thread appends just before ours lands."""

        def append(self, item: Any) -> None:
            super().append(theirs)
            super().append(item)

    log = ActionLog([a])
    log._items = Interleaved(log._items)
    mine = log.appended(b)
    assert tuple(mine) == (a, b)
    assert mine._items is not log._items


def test_a_log_reads_like_the_tuple_of_its_actions() -> None:
    actions = moves(5)
    log = ActionLog()
    for action in actions:
        log = log.appended(action)
    longer = log.appended(Surrender(seat=0, now=9.0))  # shares the list: not seen from log
    assert len(longer) == 6
    assert list(log) == actions
    assert log[0] == actions[0] and log[-1] == actions[-1]
    with pytest.raises(IndexError):
        log[5]
    assert log[2:] == tuple(actions[2:])
    assert log[::-1] == tuple(reversed(actions))
    assert log[-2:] == tuple(actions[-2:])
    assert log == ActionLog(actions) and hash(log) == hash(ActionLog(actions))
    assert log != longer
    assert log != ActionLog(actions[:4])
    assert repr(ActionLog(actions[:1])) == f"ActionLog(({actions[0]!r},))"


def test_moves_and_flips_are_kept_as_tuples_the_collector_lets_go_of() -> None:
    move, flip, other = Move(1, "0:51", "0:52", now=2.5), Flip(0, "0:33", 3.0), Surrender(2, 4.0)
    log = ActionLog([move]).appended(flip).appended(other)
    gc.collect()  # a pass untracks the tuples that hold only numbers and strings
    assert [gc.is_tracked(item) for item in log._items] == [False, False, True]
    assert list(log) == [move, flip, other]
    assert log[0] == move and type(log[1]) is Flip and log[1:] == (flip, other)


def test_a_pickled_log_carries_its_own_actions_only() -> None:
    a, b, c = moves(3)
    first = ActionLog([a])
    first.appended(b).appended(c)  # the shared list is longer than this log
    copy = pickle.loads(pickle.dumps(first))
    assert copy == first and len(copy._items) == 1


def test_states_of_a_game_share_the_log_and_keep_their_own_lengths() -> None:
    state = setup("siguo", QUIET)
    before = len(state.log)
    states = [state]
    for n in range(6):
        states.append(shuffle(states[-1], now=1.0 + n))
    assert [len(s.log) for s in states] == [before + n for n in range(7)]
    assert all(s.log._items is states[-1].log._items for s in states[1:])
    # a record of an earlier state holds that state's actions only
    record = engine.record_of(states[3])
    assert record.actions == tuple(states[3].log) and len(record.actions) == before + 3
    # replaying the later record gives the same state
    assert engine.replay(engine.record_of(states[-1])) == states[-1]
