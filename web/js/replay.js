// Replays of finished games (#replay/<game id>): step through the record with every rank shown.

import { html } from "../vendor/lit-html/lit-html.js";
import { bestGeometry, boardView } from "./board.js";
import { errorText, rankLabel, t, variantName } from "./i18n.js";
import { seatColour } from "./seats.js";
import { changed, notify, store } from "./store.js";

export async function openReplay(gameId) {
  store.view = "replay";
  store.replay = { id: gameId, step: 0, steps: 0, state: null, bottom: 0 };
  changed();
  try {
    const { record } = await store.api.call("GET", `/api/games/${gameId}/record`);
    store.replay.steps = record.actions.length;
    await go(record.actions.length);
  } catch (error) { notify(errorText(error)); }
}

async function go(step) {
  const r = store.replay;
  r.step = Math.max(0, Math.min(r.steps, step));
  const answer = await store.api.call("GET", `/api/games/${r.id}/replay/${r.step}`);
  if (store.replay !== r) return;
  r.state = answer.state;
  if (!store.boards.has(r.state.board)) store.boards.set(r.state.board, await store.api.call("GET", `/api/boards/${r.state.board}`));
  changed();
}

export function replayKey(e) {
  if (store.view !== "replay" || !store.replay) return;
  const r = store.replay;
  if (e.key === "ArrowLeft") go(r.step - 1);
  else if (e.key === "ArrowRight") go(r.step + 1);
  else if (e.key === "Home") go(0);
  else if (e.key === "End") go(r.steps);
}

export function replayView() {
  const r = store.replay;
  const g = r?.state;
  const board = g && store.boards.get(g.board);
  if (!board) return html`<section class="replay-view" id="replay"><p>…</p></section>`;
  const stacked = innerWidth < 700;
  const w = stacked ? innerWidth - 8 : innerWidth - 40, h = innerHeight - 44 - 80;
  const best = bestGeometry(board, r.bottom, w, h);
  const model = {
    colourOf: (seat) => seatColour(g, seat), interactive: true, targets: new Map(), flags: new Map(),
    pieces: (g.pieces ?? []).map((p) => ({ station: p.station, army: p.army, rank: p.rank, label: rankLabel(p.rank) })),
    panels: g.seats.map((s) => ({
      seat: s.seat, colour: seatColour(g, s.seat), name: t("seat", { n: s.seat + 1 }), title: "",
      status: s.eliminated ? [{ text: t("out"), kind: "bad" }] : [],
    })),
  };
  const boxH = best.geometry.box[3] * best.scale;
  return html`<section class="replay-view" id="replay">
    <div class="bar">
      <button id="back" @click=${() => { location.hash = ""; }}>${t("back")}</button>
      <span class="variant">${variantName(g.variant)}</span>
      <button id="first" @click=${() => go(0)}>⏮ ${t("first")}</button>
      <button id="prev" @click=${() => go(r.step - 1)}>◀ ${t("prev")}</button>
      <input id="slider" type="range" min="0" max=${r.steps} .value=${String(r.step)} @input=${(e) => go(Number(e.target.value))}>
      <button id="next" @click=${() => go(r.step + 1)}>${t("next")} ▶</button>
      <button id="last" @click=${() => go(r.steps)}>${t("last")} ⏭</button>
      <span id="step">${t("step", { n: r.step, total: r.steps })}</span>
    </div>
    <div class="board-box" id="board-box" style=${`height:${Math.min(h, boxH)}px`}>
      ${boardView(best.geometry, model, { station() {}, drop() {}, seat: (seat) => { r.bottom = seat; changed(); } })}
    </div>
  </section>`;
}
