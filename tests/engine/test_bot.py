"""Bots: always legal, in every variant and level; deciding from the view alone; sensible."""

from __future__ import annotations

import random
import time
from collections import Counter
from typing import Any

import pytest

import engine
from engine.arena import Bot, play
from engine.beliefs import Beliefs, own_flag_shown
from engine.bot import CLOCK_MARGIN, LEVEL, choose_action, choose_layout, thinking_deadline
from engine.bot_goals import NEAR_FLAG, NEAR_SHOWN_FLAG, distance, enemy_flags, homeward
from engine.bot_hunt import HUNT, Hunt
from engine.bot_layout import layout_strength
from engine.bot_levels import FIRST_STAGE, FIRST_STAGE_LEAST, first_stage
from engine.bot_moves import attack_value
from engine.deal import deal_luanzhan
from engine.search import LOCKED, VALUE, defends_shown_flag
from tests.engine.game_helpers import Pieces, act, setup
from tests.engine.leaks import Knowledge, check_events, check_view
from tests.soak import soak

GAMES = 200  # seeded games per variant with the quick (easy) bots, in the soak run only
SEARCHED = {"normal": soak(1, 3), "hard": 1}  # seeded games per variant with a searching bot
# three more pieces of seat 0 that can move, far from the action: no seat of ours is short of them
RESERVE: Pieces = {"0:21": (0, "colonel"), "0:23": (0, "colonel"), "0:25": (0, "colonel")}
# a 二人 position where seat 0 has many more quiet moves than the normal bot searches
MANY_MOVES: Pieces = {
    "0:62": (0, "flag"),
    "0:11": (0, "colonel"),
    "0:13": (0, "major"),
    "0:15": (0, "captain"),
    "0:55": (0, "engineer"),
    "1:62": (1, "flag"),
    "1:13": (1, "major"),
    **RESERVE,
}


def bots(variant: str, levels: list[str]) -> dict[int, Bot]:
    return {s: Bot(variant, s, levels[s % len(levels)]) for s in engine.get_variant(variant).seats}


@pytest.mark.soak  # the whole games of the quick suite are below and in tests/server
@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
def test_hundreds_of_bot_games_end_with_legal_actions_only(variant: str) -> None:
    """``arena.play`` applies every action with ``engine.apply``, which refuses illegal ones."""
    reasons: Counter[str] = Counter()
    for seed in range(GAMES):
        final = play(variant, seed, bots(variant, ["easy"]))
        assert final.result is not None
        reasons[final.result.reason] += 1
    assert reasons["elimination"] > 0  # the games are played, not drawn out


def searched(level: str, variant: str) -> Any:
    """A hard bot's whole game of three or four seats takes ~10 s: those only in the soak run."""
    slow = level == "hard" and len(engine.get_variant(variant).seats) > 2
    return pytest.param(level, variant, marks=[pytest.mark.soak] if slow else [])


@pytest.mark.parametrize(
    ("level", "variant"), [searched(lv, v) for lv in SEARCHED for v in sorted(engine.VARIANTS)]
)
def test_searching_bots_play_whole_games(level: str, variant: str) -> None:
    for seed in range(SEARCHED[level]):
        final = play(variant, seed, bots(variant, [level, "easy"]))
        assert final.result is not None


def test_a_bot_cannot_tell_hidden_ranks_apart() -> None:
    """Two positions that differ only in a rank seat 0 cannot see: the same decisions."""
    base: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "0:41": (0, "engineer"),
        "1:62": (1, "flag"),
        "1:15": (1, "captain"),
        "1:14": (1, "major"),
    }
    other = {**base, "1:15": (1, "field_marshal")}
    for seed in range(20):
        views = [engine.view(setup("liangguo", pieces), 0) for pieces in (base, other)]
        assert views[0] == views[1]
        decisions = [choose_action(v, random.Random(seed)) for v in views]
        assert decisions[0] == decisions[1]


def test_a_bot_takes_a_known_weaker_piece() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:62": (1, "flag"),
        "1:15": (1, "captain"),
        "1:14": (1, "major"),
    }
    state = setup("liangguo", pieces, information="open")
    for seed in range(10):
        action = choose_action(engine.view(state, 0), random.Random(seed))
        assert action == {"type": "move", "origin": "0:51", "target": "1:15"}


def test_a_bot_does_not_throw_its_general_at_a_known_field_marshal() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "1:62": (1, "flag"),
        "1:15": (1, "field_marshal"),
        "1:14": (1, "major"),
    }
    state = setup("liangguo", pieces, information="open")
    for seed in range(10):
        action = choose_action(engine.view(state, 0), random.Random(seed), level="hard")
        assert action is not None and action.get("target") != "1:15"


def test_a_bot_does_not_go_back_and_forth_for_nothing() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:52": (0, "captain"),
        "1:62": (1, "flag"),
        "1:11": (1, "major"),
    }
    view = engine.view(setup("liangguo", pieces), 0)
    view["legal_moves"] = {"0:52": ["0:51", "0:42"]}  # two quiet steps, equally far
    for seed in range(20):
        action = choose_action(view, random.Random(seed), recent=[("0:51", "0:52")])
        assert action == {"type": "move", "origin": "0:52", "target": "0:42"}


def test_a_bot_hides_its_engineer_when_it_can() -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:55": (0, "engineer"),
        "1:62": (1, "flag"),
        "1:42": (1, "major"),  # in a camp: it cannot reach 0:21 or 0:25 next
    }
    view = engine.view(setup("liangguo", pieces), 0)
    # 0:21 (a turn at 0:11) would show the engineer; 0:25, straight up and as far, would not
    view["legal_moves"] = {"0:55": ["0:21", "0:25"]}
    picks = {
        choose_action(view, random.Random(seed), level="hard")["target"]  # type: ignore[index]
        for seed in range(20)
    }
    assert picks == {"0:25"}


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_bot_hits_an_enemy_next_to_its_flag(level: str) -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:51": (0, "general"),
        "0:14": (0, "captain"),
        "1:62": (1, "flag"),
        "1:11": (1, "major"),
        "0:52": (1, "lieutenant"),  # one step from 0:62
    }
    view = engine.view(setup("liangguo", pieces), 0)
    for seed in range(20):
        action = choose_action(view, random.Random(seed), level="normal")
        assert action == {"type": "move", "origin": "0:51", "target": "0:52"}


def test_a_bot_blocks_the_way_to_its_flag() -> None:
    """An enemy in a camp (where it cannot be hit) is one step from the open side of the flag:
    the bot fills that side before the enemy gets there, rather than race its major to the
    enemy flag (the enemy would get to ours first). Its thinking time at a table buys it the
    guessed positions to be sure (on its 8 fixed ones it sometimes races). (Looking two rounds
    ahead, the hard bot may rather keep the colonel back to strike the enemy once it steps
    out.)"""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:51": (0, "colonel"),
        "0:21": (0, "major"),
        "0:23": (0, "major"),
        "0:25": (0, "major"),
        "0:42": (1, "lieutenant"),
        "1:62": (1, "flag"),
        "1:11": (1, "captain"),
    }
    view = engine.view(setup("liangguo", pieces), 0)
    for seed in range(10):
        # time enough to draw the most positions: the same decision for the same seed
        action = choose_action(view, random.Random(seed), level="normal", until=time.time() + 60)
        assert action == {"type": "move", "origin": "0:51", "target": "0:52"}


@pytest.mark.parametrize("enemy", ["0:44", "1:11"])
def test_an_enemy_near_the_flag_calls_the_defenders_back(enemy: str) -> None:
    """With an enemy two steps from the stations beside its flag, the moves that bring a piece
    closer to them are searched too (the colonel down the rail, not up it); with the enemy far
    away, none are singled out."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:21": (0, "colonel"),
        enemy: (1, "major"),
        "1:62": (1, "flag"),
    }
    view = engine.view(setup("liangguo", pieces), 0)
    board = engine.get_board("liangguo")
    pieces_at = {p["station"]: p for p in view["pieces"]}
    moves = [(o, t) for o, targets in view["legal_moves"].items() for t in targets]
    quiet = [m for m in moves if m[1] not in pieces_at]
    sides = {"0:52", "0:61", "0:63"}
    home = homeward(board, quiet, sides, pieces_at, {1}, engine.MovementRules())
    if enemy == "0:44":
        assert ("0:21", "0:51") in home and ("0:21", "0:41") in home
        assert ("0:21", "0:11") not in home and ("0:21", "0:51") in quiet
    else:
        assert home == []


@pytest.mark.parametrize("shown", [False, True])
def test_an_enemy_further_away_calls_the_defenders_back_to_a_shown_flag(shown: bool) -> None:
    """An enemy six steps from the stations beside the flag is no threat while the flag is
    hidden (``NEAR_FLAG``); once the 司令's death has shown it, it is (``NEAR_SHOWN_FLAG``)."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:61": (0, "landmine"),
        "0:63": (0, "landmine"),
        "0:21": (0, "colonel"),
        "0:25": (0, "colonel") if shown else (0, "field_marshal"),
        "1:12": (1, "major"),
        "1:62": (1, "flag"),
    }
    view = engine.view(setup("liangguo", pieces), 0)
    board = engine.get_board("liangguo")
    pieces_at = {p["station"]: p for p in view["pieces"]}
    quiet = [(o, t) for o, ts in view["legal_moves"].items() for t in ts if t not in pieces_at]
    sides = {"0:52", "0:61", "0:63"}
    locked = engine.MovementRules(hq_lock=True)
    assert distance("liangguo", "1:12", frozenset(sides), locked) == NEAR_SHOWN_FLAG > NEAR_FLAG
    assert own_flag_shown(view) == shown
    near = NEAR_SHOWN_FLAG if shown else NEAR_FLAG
    home = homeward(board, quiet, sides, pieces_at, {1}, locked, near)
    assert (("0:21", "0:51") in home) == shown


@pytest.mark.parametrize("variant", sorted(engine.VARIANTS))
def test_a_bot_is_given_its_view_and_its_events_and_nothing_more(variant: str) -> None:
    """Every input of every bot, checked by the leak checker as it is handed over."""
    now: list[engine.GameState] = []
    knowledge: list[Knowledge] = []
    seats = list(engine.get_variant(variant).seats)

    class Watched(Bot):
        def decide(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
            if now:  # from the first step on: the view of exactly this seat, nothing hidden
                assert view == engine.view(now[0], self.beliefs.seat, tracker=False)
                check_view(knowledge[0], now[0], self.beliefs.seat)
            return super().decide(view, rng)

    def watch(
        before: engine.GameState,
        action: engine.Action,
        after: engine.GameState,
        events: list[engine.Event],
    ) -> None:
        if not knowledge:
            knowledge.append(Knowledge(before))
        check_events(knowledge[0], before, action, events, [*seats])
        knowledge[0].after(before, action, after)
        now[:] = [after]

    for seed in range(soak(1, 2)):
        now.clear()
        knowledge.clear()
        players = {s: Watched(variant, s, "normal") for s in seats}
        assert play(variant, seed, players, watch=watch).result is not None


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_bot_takes_a_flag_it_can_see(level: str) -> None:
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "0:21": (0, "major"),
        "0:23": (0, "major"),
        "0:25": (0, "major"),
        "1:62": (1, "flag"),
        "1:52": (0, "lieutenant"),  # one step from the enemy flag
        "1:15": (1, "captain"),  # a fair capture elsewhere: less than the flag
        "0:15": (0, "colonel"),
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    for seed in range(10):
        action = choose_action(view, random.Random(seed), level=level)
        assert action == {"type": "move", "origin": "1:52", "target": "1:62"}


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_bot_bombs_a_known_field_marshal(level: str) -> None:
    """The enemy flag is walled in by landmines: no race to it, the 司令 is the prize."""
    pieces: Pieces = {
        "1:52": (1, "landmine"),
        "1:61": (1, "landmine"),
        "1:63": (1, "landmine"),
        "0:62": (0, "flag"),
        "0:23": (0, "major"),
        "0:25": (0, "major"),
        "0:45": (0, "major"),
        "0:21": (0, "bomb"),
        "1:62": (1, "flag"),
        "1:15": (1, "field_marshal"),  # down the rail from the bomb
        "1:13": (1, "lieutenant"),
    }
    view = engine.view(setup("liangguo", pieces, information="open"), 0)
    assert "1:15" in view["legal_moves"]["0:21"]
    for seed in range(10):
        action = choose_action(view, random.Random(seed), level=level)
        assert action == {"type": "move", "origin": "0:21", "target": "1:15"}


# --- the other HQ, once a flag is shown (issue #23) ---------------------------------------------


def flag_shown(pieces: Pieces) -> tuple[dict[str, Any], Beliefs]:
    """Seat 0's view and beliefs in 二人 after its bomb on 0:15 traded with seat 1's 司令 on
    1:11, which shows seat 1's flag to everyone, and seat 1 answered 1:31-1:32."""
    state = setup(
        "liangguo",
        {**pieces, "0:15": (0, "bomb"), "1:11": (1, "field_marshal"), "1:31": (1, "captain")},
    )
    beliefs = Beliefs("liangguo", 0)
    beliefs.update(engine.view(state, 0))
    for action in (engine.Move(0, "0:15", "1:11"), engine.Move(1, "1:31", "1:32")):
        state, events = act(state, action)
        beliefs.follow((e.for_viewer(0) for e in events), engine.view(state, 0))
    view = engine.view(state, 0)
    assert {"station": "1:62", "seat": 1, "rank": "flag"}.items() <= next(
        p for p in view["pieces"] if p["station"] == "1:62"
    ).items()
    return view, beliefs


OTHER_HQ: Pieces = {
    "0:62": (0, "flag"),
    "0:61": (0, "landmine"),
    "0:63": (0, "landmine"),
    "1:62": (1, "flag"),
    "1:64": (1, "landmine"),  # the other HQ: nothing to win there
    "1:13": (1, "lieutenant"),
}


def test_a_bot_heads_for_a_shown_flag_not_the_other_hq() -> None:
    """From 1:55, 1:65 is a step towards the other HQ (and, through it, the flag: but a piece
    entering an HQ stays there); 1:45 is on the way to the flag round the HQs."""
    view, beliefs = flag_shown({**OTHER_HQ, **RESERVE, "1:55": (0, "major")})
    view["legal_moves"] = {"1:55": ["1:45", "1:65"]}
    for seed in range(10):
        action = choose_action(view, random.Random(seed), beliefs.table(), "hard")
        assert action == {"type": "move", "origin": "1:55", "target": "1:45"}


@pytest.mark.parametrize("rank", ["captain", "bomb"])
def test_a_bot_leaves_the_other_hq_alone_once_the_flag_is_shown(rank: str) -> None:
    """Its last piece that moves stands beside the other HQ: hitting it can win nothing but
    a piece stuck there, and the winner would be stuck too."""
    pieces = {**OTHER_HQ, "1:35": (1, "captain"), "1:41": (1, "lieutenant"), "1:65": (0, rank)}
    view, beliefs = flag_shown(pieces)
    for seed in range(10):
        for level in ("normal", "hard"):
            action = choose_action(view, random.Random(seed), beliefs.table(), level)
            assert action is not None and action["target"] != "1:64"


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_bot_does_not_dig_the_other_hq_in_luanzhan(level: str) -> None:
    """乱战: seat 1 has no 司令, so its flag on 1:62 is shown from the start; any attacker digs
    an HQ's occupant, but the one on 1:64 is no flag (a seat's flags are shown all at once)."""
    pieces: Pieces = {
        "0:62": (0, "flag"),
        "1:65": (0, "captain"),
        "1:62": (1, "flag"),
        "1:64": (1, "landmine"),
        "1:51": (1, "major"),
        "1:31": (1, "captain"),
        "2:62": (2, "flag"),
        "2:51": (2, "major"),
        "3:62": (3, "flag"),
        "3:51": (3, "major"),
        **RESERVE,
    }
    view = engine.view(setup("luanzhan", pieces), 0)
    beliefs = Beliefs("luanzhan", 0)
    beliefs.update(view)
    for seed in range(10):
        action = choose_action(view, random.Random(seed), beliefs.table(), level)
        assert action is not None and action["target"] != "1:64"


def test_an_attack_into_an_hq_pays_for_the_winner_stuck_there() -> None:
    captain = {"captain": 1.0}
    assert attack_value("general", None, captain) == VALUE["captain"]
    stuck = attack_value("general", None, captain, locked=True)
    assert stuck == (1 - LOCKED) * VALUE["captain"] - LOCKED * VALUE["general"]
    assert attack_value("lieutenant", "flag", None, locked=True) == VALUE["flag"]


def test_the_goals_are_where_enemy_flags_may_stand() -> None:
    view, beliefs = flag_shown({**OTHER_HQ, **RESERVE})
    board = engine.get_board("liangguo")
    pieces = {p["station"]: p for p in view["pieces"]}
    assert enemy_flags(view, board, pieces, {1}, beliefs.table()) == {"1:62"}  # shown
    hidden = engine.view(setup("liangguo", {**OTHER_HQ, **RESERVE}), 0)
    pieces = {p["station"]: p for p in hidden["pieces"]}
    assert enemy_flags(hidden, board, pieces, {1}, {}) == {"1:62", "1:64"}
    no_flag = {"1:64": {"landmine": 1.0}}  # say, a fight told
    assert enemy_flags(hidden, board, pieces, {1}, no_flag) == {"1:62"}


# --- thinking time and layouts (issue #23) ------------------------------------------------------


def test_a_bot_thinks_for_its_budget_but_never_past_the_move_clock() -> None:
    assert thinking_deadline("easy", 100.0, None) == 100.0  # instant
    assert thinking_deadline("normal", 100.0, None) == 100.0 + LEVEL["normal"].budget
    assert thinking_deadline("hard", 100.0, None, scale=0.5) == 100.0 + LEVEL["hard"].budget / 2
    assert thinking_deadline("hard", 100.0, 101.0 + CLOCK_MARGIN) == 101.0  # the clock first
    assert thinking_deadline("hard", 100.0, 100.5) == 100.0  # no time left: at once
    assert LEVEL["easy"].budget < LEVEL["normal"].budget < LEVEL["hard"].budget


@pytest.mark.parametrize("variant", ["siguo", "liangguo", "sanguo"])
def test_a_bots_layouts_are_legal_varied_and_guard_the_flag(variant: str) -> None:
    """Legal; never the same twice in twenty; the flag in either HQ; and stronger, by
    ``layout_strength``, than the automatic layouts they are chosen from on the whole."""
    board = engine.get_board(engine.get_variant(variant).board_key)
    chosen = [choose_layout(variant, 0, random.Random(seed)) for seed in range(20)]
    for layout in chosen:
        assert engine.deployment_problems(variant, 0, layout) == []
    assert len({tuple(sorted(layout.items())) for layout in chosen}) == 20
    flags = {s for layout in chosen for s, key in layout.items() if key.startswith("flag")}
    assert len(flags) == 2
    drafts = [engine.auto_layout(variant, 0, seed) for seed in range(20)]
    strength = sum(layout_strength(board, layout) for layout in chosen)
    assert strength > sum(layout_strength(board, layout) for layout in drafts) + 8


@pytest.mark.parametrize("variant", ["siguo", "liangguo", "sanguo"])
def test_a_bots_flag_is_shut_in_by_landmines(variant: str) -> None:
    """Every station next to the flag holds a landmine (only an engineer or a bomb gets
    through, even once the flag is shown); the other HQ, whose piece never moves, holds no
    piece worth more than a 连长."""
    board = engine.get_board(engine.get_variant(variant).board_key)
    for seed in range(10):
        layout = choose_layout(variant, 0, random.Random(seed))
        flag = next(s for s, key in layout.items() if key.startswith("flag"))
        assert {layout[s].split("/")[0] for s in board.neighbours(flag)} == {"landmine"}
        other = next(s for s in layout if board.station(s).kind == "hq" and s != flag)
        assert VALUE[layout[other].split("/")[0]] <= VALUE["captain"], layout[other]


@pytest.mark.parametrize("deal", range(8))
def test_a_dealt_hand_shuts_its_flag_in_as_far_as_its_landmines_go(deal: int) -> None:
    """乱战: as many of the flags' sides hold landmines as the hand has landmines for, and the
    layout stays legal."""
    board = engine.get_board(engine.get_variant("luanzhan").board_key)
    hand = [(engine.Rank.ENGINEER, 0), *deal_luanzhan(f"lz-{deal}").hands[0]]
    layout = choose_layout("luanzhan", 0, random.Random(deal), [(r, None) for r, _ in hand])
    assert engine.deployment_problems("luanzhan", 0, layout, hand=hand) == []
    flags = [s for s, key in layout.items() if key.startswith("flag")]
    sides = {n for f in flags for n in board.neighbours(f)}
    mines = sum(1 for r, _ in hand if r == engine.Rank.LANDMINE)
    assert sum(layout[s].startswith("landmine") for s in sides) == min(mines, len(sides))


def test_fanqi_bots_hunt_to_a_win_rather_than_shuffle_to_a_draw() -> None:
    """Once the ranks are in sight, 翻棋 is won by taking every enemy piece that moves: the
    bots chase what they beat and keep away from what beats them, so that their games end in a
    win, seldom in the 40 quiet moves' draw (which ended 29 of 30 such games before)."""
    reasons = Counter(
        play("fanqi", seed, bots("fanqi", ["normal"])).result.reason.value  # type: ignore[union-attr]
        for seed in range(10)
    )
    assert reasons["elimination"] >= 7, reasons


def test_in_fanqi_a_piece_steps_towards_what_it_beats_not_where_what_beats_it_strikes() -> None:
    board = engine.get_board("liangguo")

    def hunt(pieces: dict[str, tuple[int, str]], origin: str, target: str) -> float:
        listed = [{"station": s, "seat": seat, "rank": r} for s, (seat, r) in pieces.items()]
        listed.append({"station": "1:65", "face_down": True})  # takes no part
        view = {"viewer": 0, "seats": [{"team": 0}, {"team": 1}], "pieces": listed}
        return Hunt(view, board, {1}, engine.get_variant("fanqi").rules.movement).worth(
            origin, target
        )

    pieces = {
        "0:33": (0, "colonel"),
        "1:33": (1, "major"),  # prey
        "0:13": (1, "general"),  # beats the colonel, from its front row
    }
    assert hunt(pieces, "0:33", "0:32") == pytest.approx(0.0)  # sideways: no closer, not struck
    assert hunt(pieces, "0:33", "0:23") < -1  # next to the general
    assert hunt(pieces, "0:33", "0:43") == pytest.approx(-HUNT)  # away from the prey
    beside = {**pieces, "0:23": (0, "colonel")}
    del beside["0:33"]
    assert hunt(beside, "0:23", "0:33") > 1  # away from the general
    assert hunt({**pieces, "0:11": (1, "general")}, "0:33", "0:31") < -1  # down its rail


@pytest.mark.parametrize("variant", ["liangguo", "luanzhan"])
def test_a_shown_flag_is_defended_harder_with_the_standard_armies_only(variant: str) -> None:
    """Seat 0 has no 司令: its flag is shown in both variants, but only with the standard
    armies does the bot defend it harder; with dealt hands (乱战, 三打一: often shown from the
    start) that measured worse."""
    pieces: Pieces = {"0:62": (0, "flag"), "0:51": (0, "major"), "1:62": (1, "flag")}
    pieces["1:51"] = (1, "field_marshal")
    if variant == "luanzhan":
        pieces.update({"2:62": (2, "flag"), "3:62": (3, "flag"), "3:51": (3, "major")})
        pieces["2:51"] = (2, "field_marshal")
    view = engine.view(setup(variant, pieces), 0)
    assert own_flag_shown(view)
    assert defends_shown_flag(view) == (variant == "liangguo")


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_the_hard_bot_weighs_every_move_the_normal_one_its_likeliest(
    level: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A step back out of reach heads nowhere, so it scores low before the search: a bot that
    searches only its best quiet moves never weighs it. Level hard searches every legal move;
    normal its captures and its 10 best quiet moves."""
    searched: list[tuple[str, str]] = []

    def record(view: Any, guesses: Any, rng: Any, candidates: Any, *rest: Any, **kw: Any) -> Any:
        searched.extend(candidates)
        return dict.fromkeys(candidates, 0.0)

    monkeypatch.setattr("engine.bot_moves.expected_gains", record)
    view = engine.view(setup("liangguo", MANY_MOVES), 0)
    moves = {(o, t) for o, targets in view["legal_moves"].items() for t in targets}
    assert len(moves) > LEVEL["normal"].width + 10
    choose_action(view, random.Random(1), level=level)
    assert (set(searched) == moves) == (level == "hard")


def test_the_hard_bot_decides_among_its_finalists_on_fresh_guesses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Level hard screens every candidate on its first guessed positions, in at most
    ``FIRST_STAGE`` of its time, then weighs its best ``finalists`` again on fresh ones for the
    rest of it, and decides by those: a move that looked best at first only by luck does not win
    on it."""
    calls: list[tuple[list[tuple[str, str]], tuple[Any, ...]]] = []
    hard = LEVEL["hard"]

    def search(view: Any, guesses: Any, rng: Any, candidates: Any, samples: int, **kw: Any) -> Any:
        calls.append((list(candidates), (samples, kw["rounds"], kw["until"], kw["most"])))
        assert kw["risk"] == hard.risk
        screened = calls[0][0]  # each move worth far more than the one before it, at first
        worth = {m: 100.0 * screened.index(m) for m in candidates}
        return worth if len(calls) == 1 else worth | {screened[-1]: -1e6}  # then the best fails

    monkeypatch.setattr("engine.bot_moves.expected_gains", search)
    view = engine.view(setup("liangguo", MANY_MOVES), 0)
    asked = time.time()
    until = asked + 60
    action = choose_action(view, random.Random(1), level="hard", until=until)
    assert action is not None
    (screened, (least, _, first_until, first_most)), (finals, final) = calls
    assert len(screened) > hard.finalists
    assert (least, first_most) == (FIRST_STAGE_LEAST, hard.samples)
    assert asked < first_until <= time.time() + FIRST_STAGE * 60  # the rest goes to the finalists
    assert final == (hard.samples, hard.rounds, until, hard.most)
    assert sorted(finals) == sorted(screened[-hard.finalists :])
    assert (action["origin"], action["target"]) == screened[-2]


def test_without_a_clock_the_first_stage_takes_the_fixed_samples() -> None:
    """Off the clock (the gate's fixed samples) a two-stage search screens on exactly the level's
    samples, so the same seed plays the same game."""
    hard = LEVEL["hard"]
    assert first_stage(hard, None) == (hard.samples, None, hard.samples)
