"""Combat (docs/rules.md §4): the full matrix and every option."""

from __future__ import annotations

import pytest

import engine
from engine import Outcome, Rank

# Rows: attacker; columns: defender. A = attacker wins, D = defender wins, B = both removed.
# Default options: mine_trades off, bomb_takes_flag off. Worked out from docs/rules.md §4 by hand.
COLUMNS = "SM FM GE MG BR CO MA CA LI EN LM BO FL MI FO"
MATRIX = """
SM  B  A  A  A  A  A  A  A  A  A  D  B  A  B  D
FM  D  B  A  A  A  A  A  A  A  A  D  B  A  B  D
GE  D  D  B  A  A  A  A  A  A  A  D  B  A  B  D
MG  D  D  D  B  A  A  A  A  A  A  D  B  A  B  D
BR  D  D  D  D  B  A  A  A  A  A  D  B  A  B  D
CO  D  D  D  D  D  B  A  A  A  A  D  B  A  B  D
MA  D  D  D  D  D  D  B  A  A  A  D  B  A  D  D
CA  D  D  D  D  D  D  D  B  A  A  D  B  A  D  D
LI  D  D  D  D  D  D  D  D  B  A  D  B  A  D  D
EN  D  D  D  D  D  D  D  D  D  B  A  B  A  D  D
BO  B  B  B  B  B  B  B  B  B  B  B  B  B  B  B
MI  B  B  B  B  B  B  A  A  A  A  B  B  A  B  D
"""
ABBREVIATION = {
    "SM": Rank.SUPREME_MARSHAL,
    "FM": Rank.FIELD_MARSHAL,
    "GE": Rank.GENERAL,
    "MG": Rank.MAJOR_GENERAL,
    "BR": Rank.BRIGADIER,
    "CO": Rank.COLONEL,
    "MA": Rank.MAJOR,
    "CA": Rank.CAPTAIN,
    "LI": Rank.LIEUTENANT,
    "EN": Rank.ENGINEER,
    "LM": Rank.LANDMINE,
    "BO": Rank.BOMB,
    "FL": Rank.FLAG,
    "MI": Rank.MISSILE,
    "FO": Rank.FORTRESS,
}
LETTER = {"A": Outcome.ATTACKER, "D": Outcome.DEFENDER, "B": Outcome.BOTH}


def matrix_cases() -> list[tuple[Rank, Rank, Outcome]]:
    defenders = [ABBREVIATION[c] for c in COLUMNS.split()]
    cases = []
    for row in MATRIX.strip().splitlines():
        head, *cells = row.split()
        assert len(cells) == len(defenders)
        cases += [(ABBREVIATION[head], d, LETTER[c]) for d, c in zip(defenders, cells, strict=True)]
    return cases


def test_matrix_covers_every_mobile_attacker_and_every_defender() -> None:
    cases = matrix_cases()
    assert {a for a, _, _ in cases} == {
        r for r in Rank if r not in ("landmine", "flag", "fortress")
    }
    assert len(cases) == 12 * 15


@pytest.mark.parametrize(("attacker", "defender", "outcome"), matrix_cases())
def test_default_matrix(attacker: Rank, defender: Rank, outcome: Outcome) -> None:
    assert engine.combat(attacker, defender) == outcome
    assert engine.combat(attacker.value, defender.value) == outcome.value


@pytest.mark.parametrize("attacker", [Rank.FIELD_MARSHAL, Rank.MAJOR, Rank.BOMB, Rank.MISSILE])
def test_hq_dig_removes_any_hq_occupant(attacker: Rank) -> None:
    for defender in (Rank.FIELD_MARSHAL, Rank.LANDMINE, Rank.FLAG, Rank.BOMB, Rank.FORTRESS):
        assert (
            engine.resolve_combat(attacker, defender, hq_dig=True, defender_in_hq=True)
            == Outcome.ATTACKER
        )
        # outside an HQ, or with the option off, the ranks fight as usual
        usual = engine.combat(attacker, defender)
        assert engine.resolve_combat(attacker, defender, hq_dig=True) == usual
        assert engine.resolve_combat(attacker, defender, defender_in_hq=True) == usual


def test_bomb_against_flag_under_both_options() -> None:
    assert engine.combat("bomb", "flag") == "both"
    assert engine.combat("bomb", "flag", bomb_takes_flag=True) == "attacker"
    # the option only changes the flag case
    assert engine.combat("bomb", "general", bomb_takes_flag=True) == "both"


@pytest.mark.parametrize(
    ("attacker", "without", "with_trades"),
    [
        ("field_marshal", "defender", "both"),
        ("captain", "defender", "both"),
        ("supreme_marshal", "defender", "both"),
        ("engineer", "attacker", "attacker"),  # engineers dig mines either way
        ("bomb", "both", "both"),
        ("missile", "both", "both"),
    ],
)
def test_mine_trades(attacker: str, without: str, with_trades: str) -> None:
    assert engine.combat(attacker, "landmine") == without
    assert engine.combat(attacker, "landmine", mine_trades=True) == with_trades


def test_missile_against_officers() -> None:
    assert engine.combat("missile", "colonel") == "both"
    assert engine.combat("missile", "major") == "attacker"
    assert engine.combat("colonel", "missile") == "both"
    assert engine.combat("major", "missile") == "defender"
    assert engine.combat("missile", "supreme_marshal") == "both"


def test_fortress_falls_only_to_a_bomb() -> None:
    assert engine.combat("bomb", "fortress") == "both"
    for rank in ("supreme_marshal", "engineer", "missile", "field_marshal"):
        assert engine.combat(rank, "fortress") == "defender"


@pytest.mark.parametrize("rank", ["landmine", "flag", "fortress"])
def test_immobile_pieces_never_attack(rank: str) -> None:
    with pytest.raises(engine.MalformedInput, match="cannot attack"):
        engine.combat(rank, "major")
    with pytest.raises(engine.MalformedInput, match="cannot attack"):
        engine.resolve_combat(Rank(rank), Rank.MAJOR, hq_dig=True, defender_in_hq=True)


def test_unknown_ranks_are_malformed() -> None:
    with pytest.raises(engine.MalformedInput, match="unknown rank"):
        engine.combat("admiral", "major")


@pytest.mark.parametrize(
    ("defender", "outcome", "reveals"),
    [
        ("field_marshal", "defender", True),
        ("major", "defender", True),
        ("engineer", "both", True),
        ("missile", "defender", True),
        ("landmine", "attacker", False),
        ("bomb", "both", False),
        ("flag", "attacker", False),
        ("fortress", "defender", False),
    ],
)
def test_engineer_scouting(defender: str, outcome: str, reveals: bool) -> None:
    assert engine.combat("engineer", defender) == outcome
    assert engine.scouting_reveals(Rank.ENGINEER, Rank(defender), Outcome(outcome)) is reveals


def test_only_engineers_scout() -> None:
    assert not engine.scouting_reveals(Rank.LIEUTENANT, Rank.GENERAL, Outcome.DEFENDER)
