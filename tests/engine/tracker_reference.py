"""A plain reference for the 记牌 counts (``engine.tracker``), to check the engine against.

``ReferenceTracker`` sees only what one viewer was sent: its events (``Event.for_viewer``) and its
views (``engine.view``, whose ``tracker`` it never reads), plus the table's public rule options.
It keeps every piece as a set of rank keys by station, recounts the totals from the view's own
hand, and after every action goes through the whole view, where the engine works incrementally.
So if the engine's counts equal these at every step, they depend on nothing the viewer may not
see, and their deductions are the ones written out here.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import engine
from engine.variants import RuleOptions

ALL = frozenset(r.value for r in engine.Rank)
IMMOBILE = frozenset({"landmine", "flag", "fortress"})
STANDARD = {r.value: n for r, n in engine.STANDARD_ARMY.items()}
SPECIALS = {"supreme_marshal": 1, "fortress": 1, "missile": 1}
OWN = -1


class ReferenceTracker:
    def __init__(self, variant: str, viewer: int | None, rules: RuleOptions) -> None:
        self.variant = engine.get_variant(variant)
        self.board = self.variant.board
        self.viewer = viewer
        self.rules = rules
        self.fanqi = variant == "fanqi"
        self.pieces: dict[str, tuple[int, set[str]]] = {}  # station -> (army, ranks possible)
        self.gone: list[tuple[int, set[str]]] = []
        self.flags_shown: set[int] = set()
        self.totals: dict[int, dict[str, tuple[int, bool]]] | None = None  # army -> rank -> n

    # --- what the viewer was sent -------------------------------------------------------------

    def follow(self, events: list[dict[str, Any]], view: dict[str, Any]) -> None:
        """Take in one action: the events the viewer got, then its new view."""
        if view["phase"] not in ("playing", "finished") or view.get("pieces") is None:
            return
        if self.totals is None:
            if view["phase"] != "playing":  # a game over before play (an escape) counts nothing
                return
            self.totals = self.count_totals(view)
            self.sync(view)
            return
        fallen: dict[int, int] = {}
        announced: set[int] = set()
        shown: set[int] = set()
        for event in events:
            kind = event["kind"]
            if kind == "moved":
                self.moved(event, fallen)
            elif kind == "flag_picked_up":
                self.pieces[event["target"]] = self.pieces.pop(event["origin"])
            elif kind == "commander_died" and event["seat"] in fallen:
                self.gone[fallen[event["seat"]]][1].intersection_update({event["rank"]})
                announced.add(event["seat"])
            elif kind == "flag_revealed":
                shown.add(event["seat"])
                # the flag's rank is known from now on, also if its seat goes out in this very
                # action and its pieces leave the board with it
                if event.get("station") in self.pieces:
                    army, _ = self.pieces[event["station"]]
                    self.pieces[event["station"]] = (army, {"flag"})
            elif (
                kind == "scouted"
                and "rank" in event
                and event["station"] not in self.pieces
                and event["seat"] in fallen
            ):  # the scouted piece traded with the engineer
                index = fallen[event["seat"]]
                self.gone[index] = (self.gone[index][0], {event["rank"]})
        for seat, index in fallen.items():
            army, ranks = self.gone[index]
            if self.rules.announce_commander_deaths and not self.fanqi and seat not in announced:
                narrowed = ranks - {"field_marshal", "supreme_marshal"}
                self.gone[index] = (army, narrowed or ranks)
            army, ranks = self.gone[index]
            standard = self.variant.dealing is None and not self.fanqi
            if standard and self.rules.marshal_death_reveals_flag:
                if seat in self.flags_shown:
                    continue
                if seat in shown:
                    self.gone[index] = (army, {"field_marshal"})
                elif view["phase"] == "playing" and view["seats"][seat]["eliminated"] is None:
                    self.gone[index] = (army, (ranks - {"field_marshal"}) or ranks)
        self.flags_shown |= shown
        self.sync(view)

    def moved(self, event: dict[str, Any], fallen: dict[int, int]) -> None:
        army, ranks = self.pieces.pop(event["origin"])
        if "rank" in event:
            ranks = {event["rank"]}
        ranks = (ranks - IMMOBILE) or ranks
        outcome = event["outcome"]
        if outcome is None:
            self.pieces[event["target"]] = (army, ranks)
            return
        defender_army, defender_ranks = self.pieces.pop(event["target"])
        if "defender_rank" in event:
            defender_ranks = {event["defender_rank"]}
        in_hq = self.board.station(event["target"]).kind == "hq"
        pairs = [
            (a, d)
            for a in ranks
            for d in defender_ranks
            if self.rules.fight(engine.Rank(a), engine.Rank(d), defender_in_hq=in_hq) == outcome
        ]
        if pairs:
            ranks, defender_ranks = {a for a, _ in pairs}, {d for _, d in pairs}
        if outcome != "defender":
            fallen[event["defender"]] = len(self.gone)
            self.gone.append((defender_army, defender_ranks))
        else:
            self.pieces[event["target"]] = (defender_army, defender_ranks)
        if outcome != "attacker":
            fallen[event["seat"]] = len(self.gone)
            self.gone.append((army, ranks))
        else:
            self.pieces[event["target"]] = (army, ranks)

    def sync(self, view: dict[str, Any]) -> None:
        """Go through the view: pieces gone, new pieces, every rank shown."""
        assert self.totals is not None
        on_board = {p["station"]: p for p in view["pieces"] if not p.get("face_down")}
        for station in [s for s in self.pieces if s not in on_board]:
            self.gone.append(self.pieces.pop(station))
        for station, entry in on_board.items():
            if station not in self.pieces:
                own = not self.fanqi and entry["seat"] == self.viewer
                army = OWN if own else entry["army"]
                possible = {r for r, (n, _) in self.totals.get(army, {}).items() if n}
                self.pieces[station] = (army, possible or set(ALL))
            if "rank" in entry:
                self.pieces[station] = (self.pieces[station][0], {entry["rank"]})

    # --- totals -------------------------------------------------------------------------------

    def count_totals(self, view: dict[str, Any]) -> dict[int, dict[str, tuple[int, bool]]]:
        seats = range(len(view["seats"]))
        hand = ((view.get("deal") or {}).get("hand")) or []
        if self.fanqi:
            return {c: {r: (n, False) for r, n in STANDARD.items()} for c in (0, 1)}
        if self.variant.dealing == "luanzhan":
            mine = Counter((p["rank"], p["army"]) for p in hand)
            out = {}
            for colour in seats:
                totals = {r: n - mine[r, colour] for r, n in STANDARD.items()}
                totals["general"] += totals["flag"]
                if any(totals.values()):
                    out[colour] = {r: (n, r in ("general", "flag")) for r, n in totals.items()}
            return out
        if self.variant.dealing == "sandayi":
            banker = view["deal"]["banker"]
            held = Counter(p["rank"] for p in hand)
            if self.viewer == banker:
                held -= Counter(SPECIALS)
            elif self.viewer is not None:
                held["lieutenant"] -= 5
            pool = {r: 4 * n - held[r] for r, n in STANDARD.items()}
            pool["general"] += pool["flag"]
            out = {}
            for seat in seats:
                if seat == self.viewer:
                    continue
                if seat == banker:
                    most = {r: min(39, pool.get(r, 0) + SPECIALS.get(r, 0)) for r in ALL}
                else:
                    most = {r: min(20, pool.get(r, 0)) for r in ALL}
                    most["lieutenant"] += 5
                out[seat] = {r: (n, True) for r, n in most.items()}
            return out
        army = {r.value: n for r, n in self.variant.army.items()}
        return {s: {r: (n, False) for r, n in army.items()} for s in seats if s != self.viewer}

    def counts(self) -> dict[str, Any] | None:
        """The counts as ``engine.tracker.counts`` gives them: the ranks any army counted
        has, then each army's totals and proven deaths in that order."""
        if self.totals is None:
            return None
        dead = Counter((army, next(iter(r))) for army, r in self.gone if len(r) == 1)
        ranks = [
            r.value
            for r in engine.Rank
            if any(t[r.value][0] for t in self.totals.values() if r.value in t)
        ]
        armies = []
        for army, totals in self.totals.items():
            row: dict[str, Any] = {
                "army": army,
                "total": [totals.get(r, (0, False))[0] for r in ranks],
                "dead": [dead[army, r] for r in ranks],
            }
            if any(at_most for _, at_most in totals.values()):
                row["at_most"] = [int(totals.get(r, (0, False))[1]) for r in ranks]
            armies.append(row)
        return {"ranks": ranks, "armies": armies}
