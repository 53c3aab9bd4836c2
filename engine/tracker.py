"""记牌 (the piece tracker): for each viewer, how many pieces of each rank of the other armies are
known dead and how many may still be on the board, counting only what that viewer has seen
(docs/engine.md, "The piece tracker").

Every state in play keeps ``Tracks``: one ``Seen`` per seat and one for spectators (last). A
``Seen`` holds, for each piece on the board, its army and the ranks it may still have, and the
same for every piece gone, and is carried from state to state by ``follow`` from exactly what
its viewer was given: the events as ``Event.for_viewer`` shows them and the ranks
``visible_ranks`` lets it see. So nothing a viewer may not see can reach its counts. What it
proves:

- a rank the viewer sees (its own pieces, flags shown or raised, scouting, flips, 明棋, the end)
  or an event tells it (the ranks in a fight it may see, a commander's death announced);
- a piece that moves is no landmine, flag or fortress;
- a fight's outcome under the table's combat rules, against what is known of the other side
  (each side keeps only the ranks some rank of the other side gives that outcome with);
- with announced commander deaths (三打一), a piece lost in a fight without an announcement
  for its seat was neither 司令 nor 帅;
- in standard armies where a 司令's death shows the flag (四国, 二人), a piece lost in a fight is
  the 司令 exactly when its seat's flag is shown by that fight (while its seat plays on).

A piece gone with a single rank left is a known death. Totals are the variant's army per army
(翻棋: both colours, face-down pieces included); 乱战's are counted per colour, less the
viewer's own hand, and 三打一's per seat as the most its hand can hold: both are upper bounds
(``at_most``), since dealt flags may be played as 军长 and hands are secret.

Nothing of this is worked out when an action is applied: ``follow`` only links the new state
to the one before and the action's events (a ``Tracking``), so bots, searches and replays that
never look at the counts never pay for them. The first ``counts`` asked of a state works out
every viewer's ``Seen`` for it, from the last state worked out before it, keeps them and lets
go of the link. A step does little work: a move changes one or two entries; the whole board is
gone through only when pieces leave or ranks are shown (eliminations, flips, flags, the end).

``counts`` is compact, as it goes to every viewer (docs/protocol.md): the ranks counted once,
then per army a list of numbers in their order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from typing import Any, NamedTuple

from engine.combat import resolve_combat
from engine.deal import BANKER_KEEPS, IDLE_LIEUTENANTS, SANDAYI_EXTRAS
from engine.events import Event, sees
from engine.pieces import IMMOBILE_RANKS, STANDARD_ARMY, Rank
from engine.rulebook import GameLike
from engine.rulebooks import rulebook_of
from engine.state import GameState, Phase, Tracking
from engine.visibility import visible_ranks

RANKS = tuple(Rank)
_BIT = {rank: 1 << i for i, rank in enumerate(RANKS)}
_BY_KEY = {rank.value: 1 << i for i, rank in enumerate(RANKS)}
_ALL = (1 << len(RANKS)) - 1
_IMMOBILE = sum(_BIT[r] for r in IMMOBILE_RANKS)
_COMMANDERS = _BIT[Rank.FIELD_MARSHAL] | _BIT[Rank.SUPREME_MARSHAL]
_MARSHAL = _BIT[Rank.FIELD_MARSHAL]
OWN = -1  # the army key of the viewer's own pieces, which no count includes
# events after which the whole board is gone through: pieces left, or every rank is shown
_SWEEP = frozenset({"eliminated", "game_over"})
# events that show the rank of a piece on the board (or of one just taken by a scout)
_SHOWN = frozenset({"flipped", "flag_raised", "scouted"})

# the events that change what a viewer has proven; the others are not looked at
_FOLLOWED = _SWEEP | _SHOWN | {"moved", "flag_picked_up", "commander_died", "flag_revealed"}

Entry = tuple[int, int]  # a piece: its army (OWN for the viewer's), the ranks it may have (a mask)


class Army(NamedTuple):
    """An army the viewer counts: its key (the pieces' ``army`` in the view), the most pieces of
    each rank it has (by ``RANKS`` index) and which of those are upper bounds only (a mask)."""

    army: int
    totals: tuple[int, ...]
    at_most: int


class Seen(NamedTuple):
    """What one viewer has proven: its armies, each piece on the board by station index (None:
    none, or face down) and each piece gone, and the seats whose flags it has seen shown. (A
    named tuple: one is made for every viewer after every move.)"""

    armies: tuple[Army, ...]
    cells: tuple[Entry | None, ...]
    gone: tuple[Entry, ...]
    flags_shown: frozenset[int]


Tracks = tuple[Seen, ...]  # by seat, spectators last


def follow(before: GameState, g: GameLike, events: Sequence[Event]) -> Tracking | None:
    """The tracking of the state an action took ``before`` to (``g``, being made) with
    ``events``; None before play. Nothing is worked out yet."""
    if g.position is None or g.phase not in (Phase.PLAYING, Phase.FINISHED):
        return None
    old = before.tracks
    if old is None:
        return Tracking(None, ())
    if not events:
        return old
    return Tracking(before, events)


def counts(state: GameState, viewer: int | None) -> dict[str, Any] | None:
    """The viewer's 记牌 table, or None before play: ``ranks``, the ranks some army it counts
    has (in ``Rank`` order), and for each army ``army`` and, rank by rank in that order,
    ``total`` (the most pieces of it the army had) and ``dead`` (the deaths proven), with
    ``at_most`` (1 where the total is an upper bound only) when there is such a rank. Made once
    per state and viewer and shared: read it, never change it."""
    tracking = state.tracks
    if tracking is None:
        return None
    seen = _worked_out(state)
    index = len(seen) - 1 if viewer is None else viewer
    if not tracking.counts:
        tracking.counts = [None] * len(seen)
    made = tracking.counts[index]
    if made is None:
        made = tracking.counts[index] = _table(seen[index])
    return made


def _table(seen: Seen) -> dict[str, Any]:
    dead = {army.army: [0] * len(RANKS) for army in seen.armies}
    for army_key, mask in seen.gone:
        if mask and mask & (mask - 1) == 0 and army_key in dead:
            dead[army_key][mask.bit_length() - 1] += 1
    used, ranks, armies = _frame(seen.armies)
    return {
        "ranks": ranks,
        "armies": [{**army, "dead": [dead[army["army"]][i] for i in used]} for army in armies],
    }


@lru_cache(maxsize=256)
def _frame(
    armies: tuple[Army, ...],
) -> tuple[list[int], list[str], list[dict[str, Any]]]:
    """What a viewer's table shows alike all game: the ranks some army has (indices, keys) and
    each army's totals (one per game and viewer, so made once)."""
    used = [i for i in range(len(RANKS)) if any(army.totals[i] for army in armies)]
    out = []
    for army in armies:
        entry: dict[str, Any] = {"army": army.army, "total": [army.totals[i] for i in used]}
        if army.at_most:
            entry["at_most"] = [army.at_most >> i & 1 for i in used]
        out.append(entry)
    return used, [RANKS[i].value for i in used], out


def _worked_out(state: GameState) -> Tracks:
    """Every viewer's ``Seen`` in ``state``: stepped from the last state worked out before it
    (in a loop, not recursively: a game not looked at for long has a long chain)."""
    tracking = state.tracks
    assert tracking is not None
    chain: list[tuple[GameState, Tracking]] = []
    while tracking.seen is None and tracking.before is not None:
        chain.append((state, tracking))
        state = tracking.before
        assert state.tracks is not None
        tracking = state.tracks
    if tracking.seen is None:  # the first state in play
        tracking.seen = tuple(_start(state, viewer) for viewer in _viewers(state))
    seen, made = tracking.seen, tracking.counts
    for g, step in reversed(chain):
        viewers = _viewers(g)
        old = seen
        seen = tuple(
            _step(one, g, viewer, step.events) for one, viewer in zip(old, viewers, strict=True)
        )
        step.seen, step.before, step.events = seen, None, ()
        if made:  # the tables of the viewers who lost sight of no piece are as they were
            step.counts = [
                c if s.gone is o.gone else None for c, s, o in zip(made, seen, old, strict=True)
            ]
        made = step.counts
    return seen


def _viewers(g: GameLike) -> list[int | None]:
    return [*range(len(g.teams)), None]


# --- the start of play -------------------------------------------------------------------------


def _start(g: GameLike, viewer: int | None) -> Seen:
    armies = _armies(g, viewer)
    possible = {a.army: sum(1 << i for i, n in enumerate(a.totals) if n) for a in armies}
    cells = _sweep(g, viewer, [None] * len(g.variant.board.stations), [], possible)
    return Seen(armies, tuple(cells), (), frozenset())


def _armies(g: GameLike, viewer: int | None) -> tuple[Army, ...]:
    """The armies ``viewer`` counts, with their totals (docs/engine.md)."""
    variant = g.variant
    standard = [STANDARD_ARMY.get(r, 0) for r in RANKS]
    if rulebook_of(variant).face_down(g) is not None:  # 翻棋: both colours
        return tuple(Army(c, tuple(standard), 0) for c in range(2))
    if variant.dealing == "luanzhan":
        return _luanzhan(g, viewer, standard)
    if variant.dealing == "sandayi":
        return _sandayi(g, viewer, standard)
    army = tuple(variant.army.get(r, 0) for r in RANKS)
    return tuple(Army(s, army, 0) for s in range(len(g.teams)) if s != viewer)


def _hand(g: GameLike, viewer: int | None) -> list[tuple[Rank, int | None]]:
    hands = g.deal.hands
    if viewer is None or not hands or hands[viewer] is None:
        return []
    return list(hands[viewer] or ())


def _with_flags_as_generals(totals: list[int]) -> list[int]:
    """A dealt flag may be played as a 军长 (docs/rules.md §9.2 step 3)."""
    general, flag = RANKS.index(Rank.GENERAL), RANKS.index(Rank.FLAG)
    totals[general] += totals[flag]
    return totals


_DEALT = 20  # 三打一: the pieces each hand is dealt (docs/rules.md §9.3 step 2)
_DEALT_BOUNDS = _BIT[Rank.GENERAL] | _BIT[Rank.FLAG]  # 乱战: a flag may be a 军长


def _luanzhan(g: GameLike, viewer: int | None, standard: list[int]) -> tuple[Army, ...]:
    """Per colour: that colour's army less the viewer's own hand (as dealt)."""
    mine = Counter((r, viewer if a is None else a) for r, a in _hand(g, viewer))
    out = []
    for colour in range(len(g.teams)):
        totals = [n - mine[r, colour] for r, n in zip(RANKS, standard, strict=True)]
        if any(totals):
            out.append(Army(colour, tuple(_with_flags_as_generals(totals)), _DEALT_BOUNDS))
    return tuple(out)


def _sandayi(g: GameLike, viewer: int | None, standard: list[int]) -> tuple[Army, ...]:
    """Per seat: the most of each rank its hand can hold, from the four standard armies and the
    banker's specials less the viewer's own hand; idle players hold 5 more 排长 each."""
    banker = g.deal.banker
    hand = Counter(r for r, _ in _hand(g, viewer))
    extras = Counter(r for r, _ in SANDAYI_EXTRAS)
    if viewer is not None and viewer != banker:
        hand[Rank.LIEUTENANT] -= IDLE_LIEUTENANTS
    elif viewer is not None:
        hand -= extras
    pool = [4 * n - hand[r] for r, n in zip(RANKS, standard, strict=True)]
    pool = _with_flags_as_generals(pool)
    out = []
    for seat in range(len(g.teams)):
        if seat == viewer:
            continue
        if seat == banker:
            size = _DEALT + BANKER_KEEPS
            totals = [min(size, n + extras[r]) for r, n in zip(RANKS, pool, strict=True)]
        else:
            totals = [
                min(_DEALT, n) + (IDLE_LIEUTENANTS if r == Rank.LIEUTENANT else 0)
                for r, n in zip(RANKS, pool, strict=True)
            ]
        out.append(Army(seat, tuple(totals), _ALL))
    return tuple(out)


# --- one action ---------------------------------------------------------------------------------


def _step(seen: Seen, g: GameLike, viewer: int | None, events: Sequence[Event]) -> Seen:
    cells: list[Entry | None] | None = None
    gone = list(seen.gone)
    fallen: dict[int, int] = {}  # seat -> its piece lost in this action's fight (index in gone)
    announced: set[int] = set()
    shown: set[int] = set()
    sweep = False
    board = g.variant.board
    for event in events:
        kind = event.kind
        if kind not in _FOLLOWED:
            continue
        seen_event = _told(event, viewer)
        if seen_event is None:
            continue
        if kind == "moved":
            if cells is None:
                cells = list(seen.cells)
            _moved(seen_event, g, cells, gone, fallen)
        elif kind == "flag_picked_up":  # 翻棋: the officer takes its flag along
            if cells is None:
                cells = list(seen.cells)
            origin = board.station(seen_event["origin"]).index
            cells[board.station(seen_event["target"]).index] = cells[origin]
            cells[origin] = None
        elif kind == "commander_died" and seen_event["seat"] in fallen:
            index = fallen[seen_event["seat"]]
            gone[index] = (gone[index][0], _BY_KEY[seen_event["rank"]])
            announced.add(seen_event["seat"])
        elif kind == "flag_revealed":
            shown.add(seen_event["seat"])
            if cells is None:
                cells = list(seen.cells)
            _show(kind, seen_event, Rank.FLAG.value, g, cells, gone, fallen)
        elif kind in _SHOWN and "rank" in seen_event:  # a flip, a flag raised, a scout's find
            if cells is None:
                cells = list(seen.cells)
            _show(kind, seen_event, seen_event["rank"], g, cells, gone, fallen)
        if kind in _SWEEP:
            sweep = True
    if fallen:
        _deduce(g, seen, gone, fallen, announced, shown)
    if sweep:
        possible = {a.army: sum(1 << i for i, n in enumerate(a.totals) if n) for a in seen.armies}
        cells = _sweep(g, viewer, cells or list(seen.cells), gone, possible)
    # gone only changes by growing: fallen pieces, then what is proven of them
    same = len(gone) == len(seen.gone)
    if cells is None and same and not shown:
        return seen
    return Seen(
        seen.armies,
        seen.cells if cells is None else tuple(cells),
        seen.gone if same else tuple(gone),
        seen.flags_shown | shown,
    )


def _told(event: Event, viewer: int | None) -> Mapping[str, Any] | None:
    """``Event.for_viewer`` without its ``kind``, and without a copy where no secret is told."""
    if not sees(event.audience, viewer):
        return None
    told = [
        (name, value) for name, (value, audience) in event.secrets.items() if sees(audience, viewer)
    ]
    return {**event.data, **dict(told)} if told else event.data


def _show(
    kind: str,
    event: Mapping[str, Any],
    key: str,
    g: GameLike,
    cells: list[Entry | None],
    gone: list[Entry],
    fallen: dict[int, int],
) -> None:
    """A rank an event shows: a flip's, a flag shown or raised, a scout's find."""
    index = g.variant.board.station(event["station"]).index
    rank = _BY_KEY[key]
    entry = cells[index]
    if entry is not None:
        cells[index] = (entry[0], rank)
    elif kind == "flipped":  # a new face-up piece (翻棋 counts both colours)
        cells[index] = (event["army"], rank)
    elif kind == "scouted" and event["seat"] in fallen:  # it traded with the engineer
        lost = fallen[event["seat"]]
        gone[lost] = (gone[lost][0], rank)


def _moved(
    event: Mapping[str, Any],
    g: GameLike,
    cells: list[Entry | None],
    gone: list[Entry],
    fallen: dict[int, int],
) -> None:
    board = g.variant.board
    origin = board.station(event["origin"]).index
    target_station = board.station(event["target"])
    target = target_station.index
    mover = cells[origin]
    cells[origin] = None
    if mover is None:  # not a piece this viewer follows (cannot happen in play)
        return
    army, ranks = mover
    if "rank" in event:
        ranks = _BY_KEY[event["rank"]]
    ranks = ranks & ~_IMMOBILE or ranks  # it moved
    outcome = event["outcome"]
    if outcome is None:
        cells[target] = (army, ranks)
        return
    defender = cells[target]
    if defender is None:
        return
    defender_ranks = _BY_KEY[event["defender_rank"]] if "defender_rank" in event else defender[1]
    rules = g.rules
    table = _fights(
        rules.mine_trades, rules.bomb_takes_flag, rules.hq_dig and target_station.kind == "hq"
    )[outcome]
    attackers = defenders = 0
    for i in range(len(RANKS)):
        if ranks >> i & 1 and (hit := table[i] & defender_ranks):
            attackers |= 1 << i
            defenders |= hit
    if attackers:  # else the table's rules surprised this model: keep what was known
        ranks, defender_ranks = attackers, defenders
    cells[target] = None
    if outcome != "defender":
        fallen[event["defender"]] = len(gone)
        gone.append((defender[0], defender_ranks))
    else:
        cells[target] = (defender[0], defender_ranks)
    if outcome != "attacker":
        fallen[event["seat"]] = len(gone)
        gone.append((army, ranks))
    else:
        cells[target] = (army, ranks)


@cache
def _fights(mine_trades: bool, bomb_takes_flag: bool, dug: bool) -> dict[str, tuple[int, ...]]:
    """By outcome, by attacker rank index: the defender ranks (a mask) giving that outcome
    under these combat options (``dug``: the defender stands in an HQ and ``hq_dig`` is on)."""
    out: dict[str, list[int]] = {"attacker": [], "defender": [], "both": []}
    for attacker in RANKS:
        row = dict.fromkeys(out, 0)
        if attacker not in IMMOBILE_RANKS:
            for j, defender in enumerate(RANKS):
                outcome = resolve_combat(
                    attacker,
                    defender,
                    mine_trades=mine_trades,
                    bomb_takes_flag=bomb_takes_flag,
                    hq_dig=dug,
                    defender_in_hq=dug,
                )
                row[outcome.value] |= 1 << j
        for outcome_key, mask in row.items():
            out[outcome_key].append(mask)
    return {outcome: tuple(masks) for outcome, masks in out.items()}


def _deduce(
    g: GameLike,
    seen: Seen,
    gone: list[Entry],
    fallen: dict[int, int],
    announced: set[int],
    shown: set[int],
) -> None:
    """What the announcements after a fight, or their absence, prove of the pieces it took."""
    rules = g.rules
    book = rulebook_of(g.variant)
    if rules.announce_commander_deaths and book.standard_aftermath:
        for seat, index in fallen.items():
            army, ranks = gone[index]
            if seat not in announced:
                gone[index] = (army, ranks & ~_COMMANDERS or ranks)
    standard = g.variant.dealing is None and book.face_down(g) is None
    if standard and rules.marshal_death_reveals_flag:
        for seat, index in fallen.items():
            army, ranks = gone[index]
            if seat in seen.flags_shown:
                continue
            if seat in shown:  # its last (and only) 司令 died in this fight
                gone[index] = (army, _MARSHAL)
            elif g.phase == Phase.PLAYING and g.seats[seat].elimination is None:
                gone[index] = (army, ranks & ~_MARSHAL or ranks)


def _sweep(
    g: GameLike,
    viewer: int | None,
    cells: list[Entry | None],
    gone: list[Entry],
    possible: dict[int, int],
) -> list[Entry | None]:
    """The board gone through: pieces that left are gone, new face-up pieces are followed, and
    every rank the viewer sees now is certain."""
    position = g.position
    assert position is not None
    book = rulebook_of(g.variant)
    face_down = book.face_down(g)
    hidden = 0 if face_down is None or g.phase == Phase.FINISHED else face_down
    visible = visible_ranks(g, viewer)
    out: list[Entry | None] = [None] * len(cells)
    for index, piece in enumerate(position.cells):
        entry = cells[index]
        if piece is None or hidden >> index & 1:
            if entry is not None:
                gone.append(entry)
            continue
        if entry is None:
            own = face_down is None and viewer is not None and piece.seat == viewer
            army = OWN if own else piece.colour
            entry = (army, possible.get(army, _ALL))
        if visible >> index & 1:
            entry = (entry[0], _BIT[piece.rank])
        out[index] = entry
    return out
