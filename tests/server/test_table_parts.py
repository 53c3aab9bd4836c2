"""The parts a table holds, driven alone, without sockets or a server: seating, presence, the
game driver, the actor, the lease, and the messages between processes."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

import engine
from server import messages
from server.actor import Actor
from server.errors import TableError
from server.game_driver import GameDriver
from server.listing import LobbyEntry
from server.ownership import Lease
from server.presence import Gone, Presence
from server.seating import SeatInfo, Seating, persons


def person(user_id: int, address: str | None = None, device: str | None = None) -> SeatInfo:
    return SeatInfo(user_id=user_id, name=f"p{user_id}", address=address, device=device)


# --- seating ------------------------------------------------------------------------------------


def test_the_first_seat_filled_hosts_and_the_host_passes_on() -> None:
    seating = Seating(4)
    seating.sit(2, person(7))
    seating.sit(0, person(8))
    assert seating.host == 2
    seating.sit(3, person(7))  # moves: the host moves with them
    assert (seating.host, seating.seats[2].user_id) == (3, None)
    seating.vacate(3)
    assert seating.host == 0
    with pytest.raises(TableError) as taken:
        seating.sit(0, person(9))
    assert taken.value.code == "seat_taken"
    with pytest.raises(TableError) as bad:
        seating.sit(4, person(9))
    assert bad.value.code == "bad_seat"


def test_a_swap_happens_when_both_ask_and_unreadies_both() -> None:
    seating = Seating(2)
    seating.sit(0, person(1))
    seating.sit(1, person(2))
    seating.set_ready(1, True)
    seating.swap(1, 1)
    assert seating.seats[0].user_id == 1 and seating.swaps == {0: 1}
    seating.swap(2, 0)
    assert [s.user_id for s in seating.seats] == [2, 1]
    assert [s.ready for s in seating.seats] == [False, False] and seating.swaps == {}
    assert seating.host == 1  # the host's seat went with its player


def test_bots_take_free_seats_ready_and_games_end_with_the_absent_unseated() -> None:
    seating = Seating(3)
    seating.sit(0, person(1))
    seating.sit(1, person(2))
    seating.add_bot(2, "easy")
    assert seating.seats[2].ready and not seating.all_ready()
    seating.set_ready(1, True)
    seating.set_ready(2, True)
    assert seating.all_ready()
    seating.game_over([3, -3, 0], still_here={1})
    assert [s.points for s in seating.seats] == [3, -3, 0]
    assert [s.user_id for s in seating.seats] == [1, None, None]  # the absent one: no seat
    assert [s.ready for s in seating.seats] == [False, False, True]


def test_accounts_linked_by_an_address_or_a_device_are_one_person() -> None:
    a, b = person(1, "10.0.0.1", "d1"), person(2, "10.0.0.2", "d1")  # one browser
    c, d = person(3, "10.0.0.2", "d3"), person(4, "10.0.0.4", "d4")  # c shares b's address
    assert persons([a, b, c, d]) == (4, 2)  # a, b and c through b: one person
    assert persons([a, d]) == (2, 2)
    assert persons([a]) == (1, 1)
    seating = Seating(2)
    seating.sit(0, a)
    assert seating.one_person() and not seating.shared()
    seating.sit(1, b)
    assert seating.one_person() and seating.shared()
    seating.vacate(1)
    seating.sit(1, d)
    assert not seating.one_person() and not seating.shared()


def test_seats_shuffled_leave_the_first_seat_the_host() -> None:
    seating = Seating(3)
    for seat in range(3):
        seating.sit(seat, person(seat + 1))
    seating.shuffle(random.Random(5))
    assert sorted(s.user_id or 0 for s in seating.seats) == [1, 2, 3]
    assert seating.host == 0


# --- presence -----------------------------------------------------------------------------------


def test_a_socket_counts_once_and_the_last_to_go_is_told() -> None:
    presence = Presence()
    assert presence.watch(1, "a", True) == (0, 1)
    assert presence.watch(1, "a", True) is None  # opened again: nothing changed
    assert presence.watch(1, "b", True) == (1, 2)
    assert presence.watch(1, "a", False) == (2, 1)
    assert presence.watch(1, "b", False) == (1, 0)
    assert not presence.watching(1)
    assert presence.watch(1, None, False) == (0, 0)  # only looked


def test_a_grace_runs_out_unless_a_move_came_within_it() -> None:
    presence = Presence()
    now = time.time()
    seats = [person(1), person(2), person(3)]
    seats[0].away_until = now - 1  # gone, silent
    seats[1].away_until = now - 1  # gone, but played a second ago
    seats[2].away_until = now + 10  # gone, grace still running
    presence.played(2, now - 1)
    due = list(presence.overdue(seats, now, 5.0, lambda: True))
    assert due == [0]
    assert seats[0].away_until is None and seats[1].away_until == now - 1 + 5.0
    # between games a move counts for nothing: the seat is simply free again
    seats[1].away_until = now - 1
    assert list(presence.overdue(seats, now, 5.0, lambda: False)) == [1]


def test_what_a_game_does_when_a_player_goes() -> None:
    siguo = engine.new_game("siguo", seed="s", now=0.0)
    sandayi = engine.new_game("sandayi", seed="s", now=0.0)
    assert Presence.when_gone(siguo, 0, stand_ins=False, socket=True) is Gone.WAIT
    assert Presence.when_gone(siguo, 0, stand_ins=True, socket=True) is Gone.STAND_IN
    # after a takeover every player looks away at once: no bot takes over for that
    assert Presence.when_gone(siguo, 0, stand_ins=True, socket=False) is Gone.WAIT
    # 三打一 pauses only in play (it is bidding here)
    assert Presence.when_gone(sandayi, 0, stand_ins=False, socket=True) is Gone.WAIT


# --- the game driver ----------------------------------------------------------------------------


def test_the_driver_numbers_events_on_and_rolls_back_what_was_not_kept() -> None:
    driver = GameDriver()
    driver.seq = 4  # the table's events before this game
    driver.begin("liangguo", engine.get_variant("liangguo").rules, 0, [1, 2], "seed", False)
    assert driver.in_game and driver.log_start == 5
    layout = engine.auto_layout("liangguo", 0, 1)
    mark = driver.mark()
    events = driver.step(driver.parse(0, {"type": "place_layout", "layout": layout}))
    numbered = driver.record(events)
    assert [seq for seq, _ in numbered] == list(range(5, 5 + len(events)))
    assert driver.missed(5) == [(seq, e) for seq, e in numbered if seq > 5]
    driver.rollback(mark)
    assert (driver.seq, driver.log, driver.unsent) == (4, [], [])
    assert driver.state is mark[0]


def test_the_driver_speaks_the_tables_error_codes() -> None:
    driver = GameDriver()
    driver.begin("liangguo", engine.get_variant("liangguo").rules, 0, [1, 2], "seed", False)
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"type": "timeout"}, "not_allowed"),  # the clock's, not a player's
        ({"type": "place_layout", "layout": {}, "seat": 1}, "not_your_seat"),
        ({"type": "move", "origin": "x"}, "malformed"),
    ]
    for action, code in refusals:
        with pytest.raises(TableError) as refused:
            driver.parse(0, action)
        assert refused.value.code == code
    with pytest.raises(TableError) as refused:
        driver.step(engine.Move(seat=0, origin="0:0", target="0:1", now=time.time()))
    assert refused.value.code == "illegal"


def test_the_driver_says_what_the_clock_does() -> None:
    driver = GameDriver()
    driver.begin("liangguo", engine.get_variant("liangguo").rules, 0, [1, 2], "seed", False)
    assert driver.state is not None
    deadline = driver.state.deadline
    assert driver.deadlines() == [deadline]
    assert driver.due(deadline - 1) is None
    assert isinstance(driver.due(deadline), engine.Deadline)  # deployment's end


# --- the actor, the lease -----------------------------------------------------------------------


def test_the_actor_runs_commands_one_at_a_time_in_order_and_survives_failures() -> None:
    async def main() -> list[str]:
        ran: list[str] = []
        after: list[int] = []
        actor = Actor("t", lambda: after.append(len(ran)), _nothing, lambda: None)
        actor.start()

        async def command(name: str, fail: bool = False) -> str:
            ran.append(f"{name} in")
            await asyncio.sleep(0)
            ran.append(f"{name} out")
            if fail:
                raise TableError("illegal", "no")
            return name

        first = asyncio.ensure_future(actor.call(lambda: command("a")))
        failing = asyncio.ensure_future(actor.call(lambda: command("b", fail=True)))
        await asyncio.sleep(0)  # both sent
        assert await actor.call(lambda: command("c")) == "c"
        assert await first == "a"
        with pytest.raises(TableError):
            await failing
        assert after == [2, 4, 6]  # after each command, done
        await actor.stop()
        with pytest.raises(TableError) as stopped:
            await actor.call(lambda: command("d"))
        assert stopped.value.code == "moved"
        return ran

    assert asyncio.run(main()) == ["a in", "a out", "b in", "b out", "c in", "c out"]


async def _nothing() -> None:
    return None


def test_the_actor_ticks_when_its_deadline_comes() -> None:
    async def main() -> float:
        ticked = asyncio.Event()

        async def tick() -> None:
            ticked.set()

        due = time.time() + 0.1
        actor = Actor("t", lambda: None, tick, lambda: None if ticked.is_set() else due)
        actor.start()
        await asyncio.wait_for(ticked.wait(), 2)
        await actor.stop()
        return time.time() - due

    assert 0 <= asyncio.run(main()) < 1


def test_a_lease_that_lapsed_says_since_when_once_renewed() -> None:
    lease = Lease()
    assert lease.sure()  # one process: always sure
    lease.until = time.monotonic() + 60
    assert lease.sure() and lease.renewed(time.monotonic() + 120) is None
    lease.until = time.monotonic() - 2
    assert not lease.sure()
    since = lease.renewed(time.monotonic() + 60)
    assert since is not None and 1.5 < time.time() - since < 3
    assert lease.sure()


# --- messages between processes -----------------------------------------------------------------


def test_messages_from_another_process_are_checked_against_their_topic() -> None:
    entry = LobbyEntry({"room": "r", "status": "waiting"}, {"7": 0}, None, 7, "10.0.0.1", False)
    news: messages.EntryNews = {"table": "t", "entry": entry.to_json()}
    assert messages.checked("tables", news) == news
    assert LobbyEntry.from_json(entry.to_json()) == entry
    assert (entry.room, entry.status, entry.seat_of(7), entry.seat_of(8)) == (
        "r",
        "waiting",
        0,
        None,
    )
    assert messages.checked("table:t", messages.closed("t", "lonely")) is not None
    assert messages.checked("table:t", {"kind": "closed", "table": "t", "why": "bored"}) is None
    assert messages.checked("table:t", {"table": "t", "moved": True}) is None  # no kind
    assert messages.checked("node:n", {"kind": "answer", "answer": "n/1", "moved": True})
    assert messages.checked("user:1", {"type": "logged_out", "except": "h"}) is not None
    assert messages.checked("user:1", {"type": "promoted"}) is None
    assert messages.checked("nowhere", {}) is None
