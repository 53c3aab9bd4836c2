"""Bytes of the table updates a 四国 game sends: prints figures, asserts nothing.

Usage: ``.venv/bin/python bench/update_bytes.py [--games 10]``

Random 四国 games (``random_action``) through ``engine.apply``; after each action in play, each
seat's and the spectators' ``update`` message as ``server.updates.render_update`` makes it (the
events as that viewer sees them and a patch: ``engine.view_changes``), as JSON text. Prints
their mean size and how much of it is the 记牌 counts (the view's ``tracker``), with the size of
those counts when they are sent.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.sampling import random_action
from server.updates import json_text


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    updates, tracker_bytes, sent = [], 0, []
    for seed in range(args.games):
        rng = random.Random(seed)
        state = engine.new_game("siguo", seed=seed)
        while state.phase != "finished":
            before = state
            state, events = engine.apply(state, random_action(state, rng))
            viewers = [*state.variant.seats, None]
            changes = engine.view_changes(before, state, viewers)
            if changes is None:
                continue
            for viewer in viewers:
                message = {
                    "type": "update",
                    "table": "t" * 12,
                    "epoch": 1,
                    "version": 100,
                    "events": [
                        {"seq": 1000, **seen}
                        for e in events
                        if (seen := e.for_viewer(viewer)) is not None
                    ],
                    "patch": {"version": 100, "seq": 1000, **changes[viewer]},
                }
                updates.append(len(json_text(message)))
                if "tracker" in changes[viewer]["game"]:
                    size = len(json_text(changes[viewer]["game"]["tracker"]))
                    tracker_bytes += size
                    sent.append(size)
    mean = statistics.fmean(updates)
    print(f"{args.games} random 四国 games, {len(updates)} updates (one per viewer and action)")
    print(f"  an update, mean:                 {mean:8.0f} B")
    print(f"  of it the 记牌 counts, mean:      {tracker_bytes / len(updates):8.0f} B")
    print(f"  updates with the counts:         {len(sent) / len(updates):8.1%}")
    if sent:
        print(f"  the counts when sent, median:    {statistics.median(sent):8.0f} B")


if __name__ == "__main__":
    main()
