// What just happened, one move after another: bots answer within a second, so the moves of a
// round come almost together. Each move of an update is queued and shown in turn (its fight's
// popup, its last-move arrow, its sound), long enough to read, faster while the queue is long.
// The board itself always shows the current position, and the player may move at any time: a
// popup takes no clicks.

import { outcomeText, rankName } from "./i18n.js";
import { sound } from "./sounds.js";
import { changed, store } from "./store.js";

const FIGHT_MS = 1200; // a fight's popup, shown alone
const MOVE_MS = 500; // a move's arrow
const LEAST_MS = 350; // however long the queue
const LINGER_MS = 2800; // the last fight stays this long in all, until the next move

// A moved or flipped event of an update: shown once those before it were.
export function queueHighlight(tbl, e) {
  const rank = (r) => (r ? rankName(r) : "?");
  const moved = e.kind === "moved";
  const fight = moved && e.outcome
    ? { key: e.seq, station: e.target, outcome: e.outcome, ranks: `${rank(e.rank)} ⚔ ${rank(e.defender_rank)}`, text: outcomeText(e.outcome) }
    : null;
  tbl.queue.push({ seq: e.seq, fight });
  if (!tbl.busy) next(tbl);
}

// A new game, or the table left: nothing more to show.
export function clearHighlights(tbl) {
  clearTimeout(tbl.highlightTimer);
  Object.assign(tbl, { queue: [], busy: false, showing: null, fights: [] });
}

// How long a highlight stays: less the more are waiting after it.
function slot(highlight, waiting) {
  const ms = highlight.fight ? FIGHT_MS : MOVE_MS;
  return Math.max(LEAST_MS, ms / (1 + 0.5 * waiting));
}

function next(tbl) {
  clearTimeout(tbl.highlightTimer);
  const highlight = tbl.queue.shift();
  if (!highlight) { tbl.busy = false; return; }
  tbl.busy = true;
  tbl.showing = highlight;
  tbl.fights = highlight.fight ? [highlight.fight] : [];
  (highlight.fight ? sound.fight : sound.move)();
  changed();
  const ms = slot(highlight, tbl.queue.length);
  tbl.highlightTimer = setTimeout(() => {
    if (store.table !== tbl) return;
    if (tbl.queue.length) { next(tbl); return; }
    tbl.busy = false; // the last one stays a while, unless a move comes
    tbl.highlightTimer = setTimeout(() => {
      if (store.table !== tbl) return;
      tbl.fights = [];
      changed();
    }, highlight.fight ? LINGER_MS - ms : 0);
  }, ms);
}
