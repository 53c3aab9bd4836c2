// Private marks (标记): the player's guesses on hidden enemy pieces (炸?, 司令, a label of their
// own), for their own eyes. The server keeps them, follows each piece and sends them to this
// player alone (the `marks` message, docs/protocol.md "Private marks"); this page only draws
// them and offers the menu: right-click a piece, or hold a finger on it.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { command } from "./actions.js";
import { rankLabel, rankName, t } from "./i18n.js";
import { changed, store } from "./store.js";

const GUESSES = ["bomb", "landmine", "flag"]; // offered as 炸? 雷? 旗?, after the officers
export const LABEL_CHARS = 4; // the server's bound on a label

// A `marks` message: the open table's, for the seat this page plays.
export function marksMessage(m) {
  const tbl = store.table;
  if (!tbl || tbl.id !== m.table) return;
  tbl.marks = m;
  changed();
}

// The marks to draw on this snapshot (station -> mark), or null: only the viewer's own seat's
// marks of the game shown.
export function marksShown(marks, snap) {
  if (!marks || !snap?.game || snap.game_id !== marks.game_id || snap.you !== marks.seat) return null;
  return new Map(Object.entries(marks.marks));
}

// A mark as drawn on its piece: a rank's short name (the guesses with "?"), or the label.
export function markText(mark) {
  if (GUESSES.includes(mark)) return t(`markGuess_${mark}`);
  return rankLabel(mark) || mark;
}

// The board model's marks (``model.marks``, station -> mark) and each marked piece's text.
export function drawMarks(model, shown) {
  if (!shown) return;
  model.marks = shown;
  for (const p of model.pieces) if (shown.has(p.station)) p.mark = markText(shown.get(p.station));
}

// Whether the player may mark the piece on ``station``: an enemy's, its rank unseen, in play.
export function markable(snap, station) {
  const g = snap?.game, me = snap?.you;
  if (!g || g.phase !== "playing" || me === null || me === undefined) return false;
  const p = (g.pieces ?? []).find((q) => q.station === station);
  if (!p || p.rank || p.face_down || p.seat === undefined) return false;
  return g.seats[p.seat]?.team !== g.seats[me]?.team;
}

// Open the menu for ``station`` at the page point (x, y), if the piece takes a mark.
export function openMarkMenu(station, x, y) {
  const tbl = store.table;
  if (!tbl || !markable(tbl.snapshot, station)) return false;
  tbl.markMenu = { station, x, y };
  changed();
  return true;
}

function closeMenu(tbl) {
  tbl.markMenu = null;
  changed();
}

async function setMark(tbl, station, mark) {
  closeMenu(tbl);
  await command({ type: "mark", table: tbl.id, station, mark });
}

// The menu: the game's officers, 炸? 雷? 旗?, a label of one's own, clearing.
export function markMenu(tbl) {
  const menu = tbl.markMenu;
  if (!menu) return nothing;
  const choices = tbl.marks?.choices ?? [];
  const current = marksShown(tbl.marks, tbl.snapshot)?.get(menu.station);
  const officers = choices.filter((c) => !GUESSES.includes(c));
  const guesses = GUESSES.filter((c) => choices.includes(c));
  const left = Math.max(4, Math.min(menu.x, innerWidth - 244)), top = Math.max(4, Math.min(menu.y, innerHeight - 300));
  const pick = (c, text) => html`<button class=${`mark-choice${current === c ? " primary" : ""}`} data-mark-choice=${c}
    title=${rankName(c)} @click=${() => setMark(tbl, menu.station, c)}>${text}</button>`;
  const submit = (e) => {
    e.preventDefault();
    const text = e.target.elements.label.value.trim();
    if (text) setMark(tbl, menu.station, text);
  };
  // closed by a press beside it: not by a click, which a finger lifted after the long press
  // that opened it makes on whatever is under it
  const beside = (e) => { if (e.target === e.currentTarget) { e.preventDefault(); closeMenu(tbl); } };
  return html`<div class="mark-back" @pointerdown=${beside} @contextmenu=${beside}>
    <div class="mark-menu card" role="menu" aria-label=${t("markTitle")} data-mark-menu=${menu.station}
        .style=${`left:${left}px;top:${top}px`}>
      <p class="mark-title">${t("markTitle")} <small>${t("markPrivate")}</small></p>
      <div class="mark-grid">${officers.map((c) => pick(c, rankLabel(c)))}</div>
      <div class="mark-grid">${guesses.map((c) => pick(c, t(`markGuess_${c}`)))}</div>
      <form class="mark-label" @submit=${submit}>
        <input name="label" maxlength=${LABEL_CHARS} placeholder=${t("markLabel")} aria-label=${t("markLabel")}
          .value=${current && !choices.includes(current) ? current : ""}>
        <button type="submit">${t("markOk")}</button>
      </form>
      <div class="mark-foot">
        ${current ? html`<button class="mark-clear" @click=${() => setMark(tbl, menu.station, null)}>${t("markClear")}</button>` : nothing}
        <button class="mark-close" @click=${() => closeMenu(tbl)}>${t("markClose")}</button>
      </div>
    </div></div>`;
}
