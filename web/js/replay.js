// Replays of finished games (#replay/<game id>/<ply>), like lichess's: start, end, back,
// forward, autoplay at a speed, a slider, the arrow keys, a move list to click, the last move
// marked and the players at their arms; seen with the board open, as spectators saw it, or as
// any seat knew the game at that moment (the server's view of that seat then, nothing more),
// with that view's 记牌 counts (a spectator's with the board open).

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { bestGeometry, boardView, scrollZoom, zoomOf } from "./board.js";
import { dealStations, fairBox } from "./fairness.js";
import { seatBox } from "./seatdraw.js";
import { errorText, rankLabel, t, variantName } from "./i18n.js";
import { deadLink, logList } from "./log.js";
import { drawMarks } from "./marks.js";
import { armName, playerName, seatArmy, seatColour } from "./seats.js";
import { changed, notify, store, variantEntry } from "./store.js";
import { trackerCard } from "./tracker.js";

const SPEEDS = { 0.5: 1600, 1: 800, 2: 400, 4: 200 }; // ms a step
const HEADER = 44;

export async function openReplay(gameId, ply) {
  const wanted = ply === undefined ? null : Number(ply);
  if (store.view === "replay" && store.replay?.id === gameId) {
    if (wanted !== null && wanted !== store.replay.step) go(wanted);
    return;
  }
  stop();
  store.view = "replay";
  const r = store.replay = { id: gameId, summary: null, steps: 0, step: 0, perspective: "open", state: null,
    moves: [], cache: new Map(), speed: 1, timer: null, bottom: 0, fair: {}, marks: null, zoom: null };
  changed();
  try {
    // the variants' capabilities come with the lobby's listing, which a link may open before
    const lobby = store.lobby ? null : store.api.call("GET", "/api/lobby").then((listing) => { store.lobby ??= listing; });
    [r.summary] = await Promise.all([store.api.call("GET", `/api/games/${gameId}`), lobby]);
    r.steps = r.summary.steps ?? 0;
    await loadMoves(r);
    await go(wanted === null ? r.steps : wanted);
  } catch (error) { missing(r, error); }
}

// A replay that cannot be shown (no such game, or not over yet) says why on the page.
function missing(r, error) {
  if (store.replay !== r) return;
  r.missing = { not_found: "noSuchGame", forbidden: "gameNotOver" }[error.code] ?? null;
  if (!r.missing) notify(errorText(error));
  changed();
}

async function loadMoves(r) {
  r.moves = await store.api.call("GET", `/api/games/${r.id}/moves?perspective=${r.perspective}`);
  changed();
}

async function stateAt(r, step) {
  const key = `${r.perspective}/${step}`;
  if (!r.cache.has(key)) {
    const answer = await store.api.call("GET", `/api/games/${r.id}/replay/${step}?perspective=${r.perspective}`);
    r.cache.set(key, answer.state);
  }
  return r.cache.get(key);
}

// The player's own private marks (标记) at ``step``, in the replay from their own seat only:
// station -> mark, or null (another perspective, or not their game).
async function marksAt(r, step) {
  const mine = r.summary?.players?.find((p) => p.name === store.user?.name);
  if (!mine || String(mine.seat) !== r.perspective) return null;
  const key = `marks/${step}`;
  if (!r.cache.has(key)) {
    const answer = await store.api.call("GET", `/api/games/${r.id}/marks/${step}`).catch(() => null);
    r.cache.set(key, answer ? new Map(Object.entries(answer.marks)) : null);
  }
  return r.cache.get(key);
}

// Whether the page still shows this replay. A step answered after the player went elsewhere
// (the lobby, back) must not write the address: that would take them back to the replay (its
// hashchange not handled yet reads the address so written) or leave the lobby under a replay's.
function showing(r) {
  const hash = location.hash;
  return store.replay === r && store.view === "replay"
    && (hash === `#replay/${r.id}` || hash.startsWith(`#replay/${r.id}/`));
}

async function go(step) {
  const r = store.replay;
  if (!r) return;
  const target = Math.max(0, Math.min(r.steps, step)), perspective = r.perspective;
  try {
    const [state, marks] = await Promise.all([stateAt(r, target), marksAt(r, target)]);
    if (!store.boards.has(state.board)) store.boards.set(state.board, await store.api.call("GET", `/api/boards/${state.board}`));
    if (!showing(r) || r.perspective !== perspective) return; // another perspective came first
    r.step = target;
    r.state = state;
    r.marks = marks;
    history.replaceState(null, "", `#replay/${r.id}/${r.step}`); // a link to this very move
  } catch (error) { notify(errorText(error)); stop(); }
  changed();
}

// Another perspective, taken at once when its moves and its view and marks of this step are all
// in, and shown in one redraw: never the old one's move list under the new one's name (a page
// that reads the perspective sees its lines), nor an earlier choice's answer after a later one.
let choices = 0;
async function see(perspective) {
  const r = store.replay, choice = ++choices, step = r.step, seen = { ...r, perspective };
  const answers = await Promise.all([
    store.api.call("GET", `/api/games/${r.id}/moves?perspective=${perspective}`),
    stateAt(seen, step),
    marksAt(seen, step),
  ]).catch((error) => { notify(errorText(error)); return null; });
  if (!answers || store.replay !== r || choice !== choices) return;
  [r.moves, r.state, r.marks] = answers;
  r.perspective = perspective;
  if (/^\d$/.test(perspective)) r.bottom = Number(perspective);
  changed();
  if (r.step !== step) await go(r.step); // played on meanwhile: this step in the new eyes
}

function stop() {
  const r = store.replay;
  if (r?.timer) { clearInterval(r.timer); r.timer = null; changed(); }
}

function toggle() {
  const r = store.replay;
  if (r.timer) { stop(); return; }
  if (r.step >= r.steps) go(0);
  r.timer = setInterval(() => {
    if (store.view !== "replay" || store.replay !== r || r.step >= r.steps) { stop(); return; }
    go(r.step + 1);
  }, SPEEDS[r.speed]);
  changed();
}

function setSpeed(speed) {
  const r = store.replay;
  r.speed = speed;
  if (r.timer) { stop(); toggle(); }
  changed();
}

export function replayKey(e) {
  if (store.view !== "replay" || !store.replay || e.target.closest?.("input, select, textarea")) return;
  const r = store.replay;
  const moves = { ArrowLeft: r.step - 1, ArrowRight: r.step + 1, ArrowUp: 0, Home: 0, ArrowDown: r.steps, End: r.steps };
  if (e.key in moves) { e.preventDefault(); stop(); go(moves[e.key]); } else if (e.key === " ") { e.preventDefault(); toggle(); }
}

// a seat's player; a seat nobody's account played was a bot's, named as the table named it
function nameOf(r, seat) {
  const player = r.summary?.players?.find((p) => p.seat === seat);
  return player?.name ?? playerName({ bot: true }, seat);
}

function outcomeOf(g, seat) {
  const outcome = g.result?.seats?.[seat]?.outcome;
  return outcome ? t(outcome === "draw" ? "drawn" : outcome) : "";
}

function lastMove(r) {
  const events = r.moves[r.step - 1]?.events ?? [];
  for (const e of events) {
    if (e.kind === "moved") return { origin: e.origin, target: e.target, seat: e.seat };
    if (e.kind === "flipped") return { origin: e.station, target: e.station, seat: e.seat };
  }
  return null;
}

// What the fairness check reads: the seed and commitment shown, and the finished game's deal as
// its record tells it (every hand, every flip, a face-down deal's whole board at the start);
// what this browser saw during the game, if it was there, fairness.js remembers.
function fairSource(r) {
  const board = r.state?.board, deal = variantEntry(r.state?.variant)?.capabilities.deal ?? null;
  return {
    game: r.id, deal, seed: r.summary?.seed, commitment: r.summary?.commitment,
    stations: deal === "face_down" ? dealStations(board) : null,
    record: async () => {
      const moves = await store.api.call("GET", `/api/games/${r.id}/moves?perspective=open`);
      const start = deal === "face_down" ? (await stateAt({ ...r, perspective: "open" }, 0)).pieces : null;
      // hands dealt to the seats at the start are in each seat's first view, not in an event
      const first = deal === "hands"
        ? await Promise.all(r.state.seats.map((s) => stateAt({ ...r, perspective: String(s.seat) }, 0))) : [];
      const hands = first.filter((v) => v.deal?.hand).map((v) => ({ kind: "hand", seat: v.viewer, deal: v.deal.number, final: v.deal.banker !== null, pieces: v.deal.hand }));
      return { events: [...hands, ...moves.flatMap((m) => m.events)], start };
    },
  };
}

export function replayView() {
  const r = store.replay;
  const g = r?.state;
  const board = g && store.boards.get(g.board);
  if (r?.missing) return deadLink(t(r.missing));
  if (!board) return html`<section class="replay-view loading" id="replay"><p>…</p></section>`;
  const stacked = innerWidth < 700;
  const side = stacked ? 0 : Math.max(260, Math.min(380, innerWidth * 0.3));
  const w = stacked ? innerWidth - 8 : innerWidth - side - 24;
  // on a narrow screen the bar (sticky at the window's bottom) stands under the board: a zoomed
  // board's box leaves it room
  const h = innerHeight - HEADER - (stacked ? (r.zoom ? 260 : 150) : 16);
  const best = bestGeometry(board, r.bottom, w, h);
  // a board too small to touch is shown whole and zooms in where it is tapped, as at the table
  const { k, interactive, zoomable } = zoomOf(best, r.zoom);
  const boxW = best.geometry.box[2] * best.scale, boxH = best.geometry.box[3] * best.scale;
  if (r.zoom?.scroll) {
    r.zoom.scroll = false;
    requestAnimationFrame(() => scrollZoom(best.geometry, boxW * k, boxH * k, r.zoom ?? {}, r.bottom));
  }
  const caps = variantEntry(g.variant)?.capabilities ?? null;
  const colourOf = (seat) => seatColour(g, caps, seat);
  const last = lastMove(r);
  const model = {
    colourOf, interactive, targets: new Map(), flags: new Map(), mountain: caps?.mountain ? t("mountain") : null,
    pieces: (g.pieces ?? []).map((p) => ({ station: p.station, army: p.face_down ? null : p.army, rank: p.rank,
      faceDown: Boolean(p.face_down), carrying: Boolean(p.carrying_flag), label: p.rank ? rankLabel(p.rank) : "" })),
    last: last ? [{ ...last, colour: colourOf(last.seat), latest: true }] : [],
    panels: g.seats.map((s) => ({
      seat: s.seat, colour: colourOf(s.seat), name: nameOf(r, s.seat), you: String(s.seat) === r.perspective,
      youLabel: t("perspectiveMark"), title: outcomeOf(g, s.seat),
      status: s.eliminated ? [{ text: t("out"), kind: "bad" }] : seatArmy(g, caps, s.seat) === null ? [{ text: t("colourless") }] : [],
      toMove: g.phase === "playing" && g.to_move === s.seat,
    })),
  };
  drawMarks(model, r.marks);
  const seen = /^\d$/.test(r.perspective) ? Number(r.perspective) : null;
  const who = { name: (seat) => nameOf(r, seat), colour: colourOf, arm: (seat) => armName(g, caps, seat),
    you: seen, team: (seat) => g.seats[seat]?.team ?? seat };
  const events = r.moves.flatMap((m) => m.events.map((e) => ({ ...e, seq: m.step, ply: m.step })));
  const seats = g.seats.map((s) => s.seat);
  const zoomAt = (x, y) => { r.zoom = { x, y, scroll: true }; changed(); };
  return html`<section class=${`table-view replay-view${stacked ? " stacked" : ""}`} id="replay" .style=${stacked ? "" : `--side:${side}px`}>
    <div class="board-area">
      <div class=${`board-box${r.zoom ? " zoomed" : ""}`} id="board-box" .style=${`width:${w}px;height:${stacked && !r.zoom ? Math.min(h, boxH) : h}px`}>
        <div class="board-sizer" .style=${r.zoom ? `width:${boxW * k}px;height:${boxH * k}px` : ""}>
        ${boardView(best.geometry, model, { station() {}, drop() {}, zoom: interactive ? null : zoomAt,
          seat: (seat) => { r.bottom = seat; r.zoom = null; changed(); } })}</div>
      </div>
    </div>
    <div class="bar replay-bar">
      <p class="status" id="step">${t("step", { n: r.step, total: r.steps })} · ${variantName(g.variant)}</p>
      <div class="actions">
        <button id="first" aria-label=${t("first")} @click=${() => { stop(); go(0); }}>|◀</button>
        <button id="prev" aria-label=${t("prev")} @click=${() => { stop(); go(r.step - 1); }}>◀</button>
        <button id="play" class="primary" @click=${toggle}>${r.timer ? t("pause") : t("autoplay")}</button>
        <button id="next" aria-label=${t("next")} @click=${() => { stop(); go(r.step + 1); }}>▶</button>
        <button id="last" aria-label=${t("last")} @click=${() => { stop(); go(r.steps); }}>▶|</button>
        ${zoomable ? html`<button id="zoom" @click=${() => { r.zoom = r.zoom ? null : { x: null, y: null, scroll: true }; changed(); }}>
          ${r.zoom ? t("zoomOut") : t("zoomIn")}</button>` : nothing}
        <label class="level">${t("speed")} <select id="speed" @change=${(e) => setSpeed(Number(e.target.value))}>
          ${Object.keys(SPEEDS).map((s) => html`<option value=${s} ?selected=${Number(s) === r.speed}>${s}×</option>`)}</select></label>
      </div>
      <input id="slider" type="range" min="0" max=${r.steps} .value=${String(r.step)} aria-label=${t("step", { n: r.step, total: r.steps })}
        @input=${(e) => { stop(); go(Number(e.target.value)); }}>
      <label class="perspective">${t("perspective")} <select id="perspective" @change=${(e) => see(e.target.value)}>
        <option value="open" ?selected=${r.perspective === "open"}>${t("boardOpen")}</option>
        <option value="public" ?selected=${r.perspective === "public"}>${t("asSpectator")}</option>
        ${seats.map((s) => html`<option value=${String(s)} ?selected=${r.perspective === String(s)}>${t("asSeat", { name: nameOf(r, s) })}</option>`)}
      </select></label>
      <div class="buttons">
        <a id="share" href=${`#replay/${r.id}/${r.step}`}>${t("linkHere")}</a>
        <button id="back" @click=${() => { stop(); location.hash = ""; }}>${t("back")}</button>
      </div>
    </div>
    <aside class="side">
      ${r.summary?.seed ? html`<section class="card fair-card"><h3>${t("fairTitle")}</h3>
        ${fairBox(r.fair, () => fairSource(r), { commitment: r.summary.commitment })}
        ${seatBox(r.id, r.summary.seat_draw && { seat_draw: r.summary.seat_draw, game: g,
          seats: r.summary.players.map((p) => ({ name: p.name })) })}</section>` : nothing}
      ${trackerCard(g, caps, (seat) => nameOf(r, seat))}
      <section class="card"><h3>${t("history")}</h3>
        ${logList(events, who, { pick: (line) => { stop(); go(line.ply); } }, r.step, Infinity)}</section>
    </aside>
  </section>`;
}
