// The table: the board with every seat at its arm, the action bar (only what the server says
// this viewer may do now), the cards before play and after it, the log and the chat. Deploy
// and pregame details live in deploy.js and pregame.js; the drawing in board.js.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { act, command, snapshotArrived } from "./actions.js";
import { turnBegan } from "./alerts.js";
import { bestGeometry, boardView, scrollZoom, UNIT, zoomOf } from "./board.js";
import { chatBox } from "./chat.js";
import { deploying, deployTools, confirmButton, draftPieces, followDeployment, problemMarks, swap } from "./deploy.js";
import { commitmentLine, dealStations, fairBox, rememberTable } from "./fairness.js";
import { rememberSeats, seatBox } from "./seatdraw.js";
import { endingText } from "./ending.js";
import { clearHighlights, queueHighlight } from "./highlights.js";
import { rankLabel, roomName, ruleText, t, unratedText, variantName } from "./i18n.js";
import { deadLink, endingView, logList, nameOf, resultCard } from "./log.js";
import { drawMarks, markMenu, marksShown, openMarkMenu } from "./marks.js";
import { paceName, paceSelect } from "./pace.js";
import { handTray, pregameCard } from "./pregame.js";
import { rulesDialog, showRules } from "./rules.js";
import { playerName, seatColour, seatPanels } from "./seats.js";
import { friendRoomCard, noteFriendRoom, rematchBox } from "./gathering.js";
import { sound } from "./sounds.js";
import { changed, store } from "./store.js";
import { trackerPanel } from "./tracker.js";

const HEADER = 44; // px, the page header
const BAR = 92; // px, the action bar under the board on a narrow screen
const HINT = 18; // px, the status line's hint under it
const STRIP = 52; // px, the seats' strip over a board that zooms on a narrow screen
const TOOLS = 136; // px, the deployment tools in the bar on a narrow screen

export function openTable(id) {
  if (store.table?.id === id && store.view === "table") return;
  if (store.table && store.table.id !== id) store.socket.unwatch(store.table.id);
  store.view = "table";
  store.table = { id, snapshot: null, events: [], selected: null, fights: [], slide: null, zoom: null,
    bottom: null, showResult: true, deploy: null, level: "normal", names: [], fair: {}, follow: { up: false },
    marks: null, markMenu: null };
  clearHighlights(store.table); // the moves still to show one after another (highlights.js)
  if (location.hash !== `#table/${id}`) history.pushState(null, "", `#table/${id}`);
  const tbl = store.table;
  store.socket.watch(id).catch((error) => { // a table that is not there (any more) is said so
    if (store.table !== tbl || tbl.snapshot || error.code !== "no_table") return;
    tbl.missing = error;
    store.socket.unwatch(id);
    changed();
  });
  changed();
}

export function closeTable() {
  if (store.table) { store.socket.unwatch(store.table.id); clearHighlights(store.table); }
  store.table = null;
}

const game = () => store.table?.snapshot?.game;
// A surrender, a draw offer or an answer to one, refused as stale because the board changed
// meanwhile (a bot moved), is sent again while the game still offers it: the player meant it.
const offered = () => {
  const you = store.table?.snapshot?.you;
  return game()?.phase === "playing" && you !== null && you !== undefined ? game().may : null;
};
const stillAsked = () => Boolean(game()?.proposal?.waiting?.includes(store.table?.snapshot?.you));

// A table or update message of the open table.
export function tableMessage(m) {
  const tbl = store.table;
  if (!tbl || m.table !== tbl.id) return;
  const before = tbl.snapshot;
  tbl.snapshot = m.snapshot;
  if (m.snapshot.status === "playing") tbl.names = m.snapshot.seats.map((s) => playerName(s, s.seat));
  for (const e of m.events) {
    if (e.kind === "game_created") { tbl.events = []; tbl.showResult = true; tbl.selected = null; clearHighlights(tbl); }
    if (tbl.events.length && e.seq <= tbl.events[tbl.events.length - 1].seq) continue;
    tbl.events.push(e);
    if (m.type !== "update") continue;
    if (e.kind === "moved") {
      tbl.slide = { origin: e.origin, target: e.target, key: e.seq };
      queueHighlight(tbl, e);
    } else if (e.kind === "flipped") {
      queueHighlight(tbl, e);
    } else if (e.kind === "game_over") {
      sound.end(e.result?.winners?.includes(m.snapshot.you));
    }
  }
  if (m.type === "update" && myTurn(m.snapshot) && !(before && myTurn(before))) {
    sound.turn();
    turnBegan(variantName(m.snapshot.variant)); // a notification, in a hidden tab (alerts.js)
  }
  const [was, now] = [before?.game, m.snapshot.game];
  if (was?.phase !== now?.phase || (now?.phase === "playing" && was.to_move !== now.to_move)) tbl.selected = null;
  if (followDeployment(tbl)) tbl.autoZoom = true;
  rememberTable(m.snapshot, tbl.events); // what this page saw of the deal (fairness.js)
  rememberSeats(tbl.id, m.snapshot); // and of a quick-match table's seats (seatdraw.js)
  noteFriendRoom(m.snapshot); // the lobby does not list it: the way back (gathering.js)
  snapshotArrived(m.snapshot.version);
  changed();
}

// Four times a second: the last ten seconds of the player's turn tick.
export function tick() {
  const tbl = store.table;
  const snap = tbl?.snapshot;
  if (!snap || !myTurn(snap)) return;
  const left = Math.ceil(snap.game.deadline - store.socket.now());
  if (left <= 10 && left > 0 && left !== tbl.ticked) {
    tbl.ticked = left;
    sound.low();
  }
}

// --- what the board shows -----------------------------------------------------------------------

// Whether the open table waits for the player's move now (the tab's title says so).
export const yourTurnNow = () => store.view === "table" && Boolean(store.table?.snapshot) && myTurn(store.table.snapshot);

function myTurn(snap) {
  const g = snap.game, me = snap.you;
  return Boolean(g && g.phase === "playing" && me !== null && g.to_move === me && !snap.seats[me].taken_over && !g.paused_since);
}

function raisePending(snap) {
  const me = snap.you, info = snap.game?.seats?.[me];
  return Boolean(snap.game?.phase === "playing" && info?.raise_flag_by && !info.flag_raised && !info.eliminated);
}

// 乱战: where the player may raise the flag now, their HQs not taken yet (the view says which).
function raiseStations(snap, board) {
  if (!raisePending(snap)) return [];
  const me = snap.you, taken = new Set(snap.game.seats[me].hqs_taken ?? []);
  return board.stations.filter((s) => s.kind === "hq" && s.seat === me && !taken.has(s.id)).map((s) => s.id);
}

// Each seat's last move; the one shown now (highlights.js), else the latest, is marked latest.
function lastMoves(tbl, colourOf) {
  const per = new Map();
  let latest = -1;
  for (const e of tbl.events) {
    if (e.kind === "moved") per.set(e.seat, { seat: e.seat, origin: e.origin, target: e.target, seq: e.seq });
    else if (e.kind === "flipped") per.set(e.seat, { seat: e.seat, origin: e.station, target: e.station, seq: e.seq });
    else continue;
    latest = e.seq;
  }
  const focus = tbl.busy && tbl.showing ? tbl.showing.seq : latest;
  return [...per.values()].map((m) => ({ ...m, colour: colourOf(m.seat), latest: m.seq === focus }));
}

function boardModel(tbl, snap, board) {
  const g = snap.game, me = snap.you, caps = snap.capabilities;
  const colourOf = (seat) => seatColour(g, caps, seat);
  const model = { colourOf, pieces: [], targets: new Map(), draggable: new Set(), flags: new Map(), selected: tbl.selected,
    mountain: caps?.mountain ? t("mountain") : null };
  if (!g) return model;
  if (deploying(tbl)) {
    model.pieces = draftPieces(tbl, rankLabel);
    model.draggable = new Set(model.pieces.map((p) => p.station));
    model.problems = problemMarks(tbl);
    return model;
  }
  const pieces = g.pieces ?? [];
  const byStation = new Map(pieces.map((p) => [p.station, p]));
  model.pieces = pieces.map((p) => ({
    station: p.station, army: p.face_down ? null : p.army, rank: p.rank, faceDown: Boolean(p.face_down),
    carrying: Boolean(p.carrying_flag), mine: me !== null && p.seat === me,
    gold: me !== null && p.seat === me && ["supreme_marshal", "missile", "fortress"].includes(p.rank),
    label: p.rank ? rankLabel(p.rank) : "",
  }));
  drawMarks(model, marksShown(tbl.marks, snap)); // the player's own marks (标记)
  model.last = lastMoves(tbl, colourOf);
  if (g.phase === "playing") { // 亮旗: flags shown to everyone, as long as they stand
    for (const e of tbl.events) {
      if (e.kind === "flag_revealed" && byStation.get(e.station)?.rank === "flag") model.flags.set(e.station, "shown");
    }
  }
  for (const info of g.seats) if (info.flag_raised) model.flags.set(info.flag_raised, "raised");
  model.fights = tbl.fights;
  if (tbl.hover?.origin) model.hover = tbl.hover; // the log line under the pointer
  if (tbl.slide && byStation.has(tbl.slide.target)) model.slide = slideOf(tbl.slide, tbl);
  for (const station of raiseStations(snap, board)) model.targets.set(station, "raise");
  if (myTurn(snap)) {
    const legal = g.legal_moves ?? {};
    model.draggable = new Set(Object.keys(legal));
    model.flippable = new Set(g.flippable ?? []);
    if (tbl.selected && legal[tbl.selected]) {
      for (const target of legal[tbl.selected]) model.targets.set(target, byStation.has(target) ? "attack" : "move");
    }
  }
  return model;
}

function slideOf(slide, tbl) {
  const geo = tbl.geometry;
  if (!geo) return null;
  const [ox, oy] = geo.points.get(slide.origin), [tx, ty] = geo.points.get(slide.target);
  return { target: slide.target, key: slide.key, dx: (ox - tx) * UNIT, dy: (oy - ty) * UNIT };
}

// --- clicks on the board ------------------------------------------------------------------------

function onStation(station) {
  const tbl = store.table, snap = tbl.snapshot, g = snap?.game;
  if (!g) return;
  if (deploying(tbl)) {
    if (tbl.selected && tbl.selected !== station) { swap(tbl, tbl.selected, station); return; }
    tbl.selected = tbl.selected === station || !tbl.deploy?.draft?.[station] ? null : station;
    changed();
    return;
  }
  if (raiseStations(snap, store.boards.get(g.board)).includes(station)) {
    act({ type: "raise_flag", station }, () => raisePending(store.table.snapshot));
    return;
  }
  if (!myTurn(snap)) return;
  const legal = g.legal_moves ?? {};
  if (tbl.selected && legal[tbl.selected]?.includes(station)) {
    move(tbl.selected, station);
    return;
  }
  if ((g.flippable ?? []).includes(station)) {
    tbl.selected = null;
    act({ type: "flip", station }, () => myTurn(store.table.snapshot) && (game().flippable ?? []).includes(station));
    changed();
    return;
  }
  tbl.selected = legal[station] && tbl.selected !== station ? station : null;
  changed();
}

function move(origin, target) {
  store.table.selected = null;
  changed();
  act({ type: "move", origin, target }, () => myTurn(store.table.snapshot) && game().legal_moves?.[origin]?.includes(target));
}

function onDrop(from, to) {
  const tbl = store.table, g = game();
  if (deploying(tbl)) { swap(tbl, from, to); return; }
  if (myTurn(tbl.snapshot) && g.legal_moves?.[from]?.includes(to)) move(from, to);
}

function onPanelAction(seat, action) {
  const tbl = store.table;
  if (action === "sit") command({ type: "sit", table: tbl.id, seat });
  else if (action === "add_bot") command({ type: "add_bot", table: tbl.id, seat, level: tbl.level });
  else if (action === "remove_bot") command({ type: "remove_bot", table: tbl.id, seat });
  else if (action === "swap") command({ type: "swap", table: tbl.id, seat });
}

function zoomAt(x, y) {
  const tbl = store.table;
  tbl.zoom = { x, y, scroll: true };
  changed();
}

// --- the page -----------------------------------------------------------------------------------

// Where the board goes: over the bar on a narrow screen (``stacked``: less ``below`` px for the
// bar's hint and deployment tools), else beside a side column (wider on a short landscape
// screen, whose bar holds the seats' strip and the deployment tools).
function frame(below) {
  const W = innerWidth, H = innerHeight;
  if (W < 700) return { stacked: true, w: W - 8, h: H - HEADER - BAR - below - 8 };
  const side = H < 500 ? 300 : Math.max(250, Math.min(360, W * 0.28));
  return { stacked: false, w: W - side - 24, h: H - HEADER - 16, side };
}

// The seats in a strip, for a screen on which the board zooms and the panels at the arms may be
// out of view: each seat's colour (and shape), name and clock (or its state), the seat to act
// and the viewer's own marked. On a narrow screen it sticks to the top of the window.
function seatStrip(panels) {
  const marks = ["▲", "●", "■", "◆"];
  return html`<ol class="seat-strip" id="seat-strip">${panels.map((p) => html`
    <li class=${`strip-seat${p.toMove ? " to-move" : ""}${p.you ? " you" : ""}${p.clock && p.clock.left <= 10 ? " urgent" : ""}`}
        data-strip-seat=${p.seat} .style=${`--seat:${p.colour}`}>
      <span class="swatch" aria-hidden="true">${marks[p.army] ?? ""}</span>
      <span class="strip-name">${p.name}</span>
      <span class=${p.clock ? "strip-clock" : "strip-state"}>${p.clock ? p.clock.label : p.status.at(-1)?.text ?? ""}</span>
    </li>`)}</ol>`;
}

function statusLine(tbl) {
  const snap = tbl.snapshot, g = snap.game, me = snap.you;
  const now = store.socket.now();
  const left = (until) => Math.max(0, Math.ceil(until - now));
  const name = (seat) => nameOf(snap, seat, tbl.names);
  if (!g || g.phase === "finished") {
    if (g?.phase === "finished") return { text: `${t("gameOver")}: ${endingText(g.result, endingView(snap, tbl.names))}` };
    const ready = snap.seats.filter((s) => s.ready).length;
    return { text: `${t("waiting")} · ${ready}/${snap.seats.length} ${t("isReady")}` };
  }
  if (store.connection === "offline") return { text: t("offline"), kind: "warn" };
  if (g.paused_since) return { text: t("paused"), kind: "warn" };
  if (g.phase === "deploying") {
    if (me === null) return { text: `${t("deploying")} · ${left(g.deadline)}s` };
    return g.seats[me].confirmed ? { text: t("deployDone") } : { text: t("deployLeft", { s: left(g.deadline) }), kind: "mine" };
  }
  if (["picking", "redealing", "bidding"].includes(g.phase)) {
    const mine = me !== null && g.deal.waiting.includes(me);
    const ask = { picking: "pickYours", redealing: "redealTitle", bidding: "bidYours" }[g.phase];
    return { text: `${t(mine ? ask : g.phase)} · ${left(g.deadline)}s`, kind: mine ? "mine" : "" };
  }
  if (raisePending(snap)) return { text: `${t("raiseFlag")} · ${left(g.seats[me].raise_flag_by)}s`, kind: "mine urgent" };
  if (me !== null && snap.seats[me].taken_over) return { text: t("stoodIn"), kind: "warn" };
  if (myTurn(snap)) {
    const hint = !tbl.interactive ? t("tapToZoom") : snap.capabilities?.flips ? t("flipHint") : null;
    return { text: `${t("yourTurn")} · ${left(g.deadline)}s`, hint, kind: left(g.deadline) <= 10 ? "mine urgent" : "mine" };
  }
  return { text: `${t("waitingFor", { name: name(g.to_move) })} · ${left(g.deadline)}s` };
}

function leave(tbl) {
  const snap = tbl.snapshot, me = snap.you;
  const running = snap.status === "playing" && me !== null && !snap.game?.seats?.[me]?.eliminated;
  const go = async () => {
    if (me !== null) await command({ type: "leave", table: tbl.id });
    location.hash = "";
  };
  if (!running) { go(); return; }
  store.modal = { text: t("leaveWarning"), confirm: t("sure"), onConfirm: go };
  changed();
}

// 投降 loses the game: asked first, as leaving is.
function surrender() {
  store.modal = { text: t("surrenderWarning"), confirm: t("sureSurrender"),
    onConfirm: () => act({ type: "surrender" }, () => offered()?.surrender_from != null) };
  changed();
}

function actionBar(tbl, f, zoomable, strip) {
  const snap = tbl.snapshot, g = snap.game, me = snap.you;
  const may = new Set(snap.may ?? []);
  const creator = store.user?.name && snap.creator === store.user.name;
  const botsMay = new Set([...may, ...(creator ? snap.creator_may ?? [] : [])]);
  const buttons = [];
  const table = tbl.id;
  if (may.has("ready")) buttons.push(html`<button id="ready" class="primary" @click=${() => command({ type: "ready", table, ready: true })}>${t("ready")}</button>`);
  if (may.has("unready")) buttons.push(html`<button id="ready" @click=${() => command({ type: "ready", table, ready: false })}>${t("unready")}</button>`);
  if (deploying(tbl)) buttons.push(confirmButton(tbl));
  const offers = g?.phase === "playing" && me !== null && !snap.seats[me].taken_over ? g.may : null;
  const proposal = g?.proposal;
  if (proposal && me !== null && proposal.waiting.includes(me)) {
    const name = nameOf(snap, proposal.seat, tbl.names);
    const text = t(proposal.kind === "draw" ? "proposalDraw" : "proposalSurrender", { name });
    buttons.push(html`<span class="proposal">${text}</span>
      <button class="answer primary" data-v="1" @click=${() => act({ type: "answer_proposal", accept: true }, stillAsked)}>${t("accept")}</button>
      <button class="answer" data-v="0" @click=${() => act({ type: "answer_proposal", accept: false }, stillAsked)}>${t("decline")}</button>`);
  } else if (offers?.propose_draw) {
    buttons.push(html`<button id="draw" @click=${() => act({ type: "propose_draw" }, () => offered()?.propose_draw)}>${t("draw")}</button>`);
  }
  // kept apart from 求和 and 托管, at the end of the bar, and confirmed: one click must not lose a game
  const mayGiveUp = !(proposal && me !== null && proposal.waiting.includes(me)) && offers
    && offers.surrender_from !== null && store.socket.now() >= offers.surrender_from;
  const alive = g && me !== null && !g.seats[me]?.eliminated;
  if (may.has("stand_in_on") && alive) buttons.push(html`<button id="stand-in" title=${t("standInOnHelp")} @click=${() => command({ type: "stand_in", table, on: true })}>${t("standInOn")}</button>`);
  if (may.has("stand_in_off")) buttons.push(html`<button id="stand-in" class="primary" @click=${() => command({ type: "stand_in", table, on: false })}>${t("standInOff")}</button>`);
  if (botsMay.has("add_bot")) {
    buttons.push(html`<label class="level">${t("botLevel")} <select id="bot-level" @change=${(e) => { tbl.level = e.target.value; }}>
      ${["easy", "normal", "hard"].map((l) => html`<option value=${l} ?selected=${tbl.level === l}>${t(l)}</option>`)}</select></label>`);
  }
  if (may.has("stand")) buttons.push(html`<button id="stand" @click=${() => command({ type: "stand", table })}>${t("stand")}</button>`);
  if (zoomable) {
    buttons.push(html`<button id="zoom" @click=${() => { tbl.zoom = tbl.zoom ? null : { x: null, y: null, scroll: true }; changed(); }}>
      ${tbl.zoom ? t("zoomOut") : t("zoomIn")}</button>`);
  }
  buttons.push(html`<button id="back" @click=${() => leave(tbl)}>${t("back")}</button>`);
  if (mayGiveUp) buttons.push(html`<button id="surrender" class="danger" data-action="surrender" @click=${surrender}>${t("surrender")}</button>`);
  const status = statusLine(tbl);
  return html`<div class=${`bar${f.stacked ? " stacked" : ""}`}>
    ${strip}
    <p id="status" class=${`status ${status.kind ?? ""}`} role="status" title=${status.text}>${status.text}</p>
    ${status.hint ? html`<p class="status-hint" id="status-hint" title=${status.hint}>${status.hint}</p>` : nothing}
    <div class="actions" id="actions">${buttons}</div>
    ${deploying(tbl) ? deployTools(tbl) : nothing}
  </div>`;
}

export function tableView() {
  const tbl = store.table;
  const snap = tbl?.snapshot;
  if (tbl?.missing && !snap) return deadLink(t("noSuchTable")); // a snapshot after all: it is there
  if (!snap) return html`<section class="table-view loading"><p>…</p></section>`;
  const g = snap.game;
  const board = store.boards.get(g?.board ?? snap.board);
  if (!board) return html`<section class="table-view loading"><p>…</p></section>`;
  const me = snap.you;
  const bottom = me ?? tbl.bottom ?? 0;
  let f = frame((g?.phase === "playing" ? HINT : 0) + (deploying(tbl) ? TOOLS : 0)); // the same all game
  let best = bestGeometry(board, bottom, f.w, f.h);
  let zoom = zoomOf(best, tbl.zoom);
  if (zoom.zoomable && f.stacked) { // room for the seats' strip over the board
    f = { ...f, h: f.h - STRIP };
    best = bestGeometry(board, bottom, f.w, f.h);
    zoom = zoomOf(best, tbl.zoom);
  }
  const geo = best.geometry;
  tbl.geometry = geo;
  const boxW = geo.box[2] * best.scale, boxH = geo.box[3] * best.scale;
  if (tbl.autoZoom) { // a phone's deployment starts zoomed in on the player's own arm
    tbl.autoZoom = false;
    if (best.scale < zoom.need && !tbl.zoom) {
      tbl.zoom = { x: null, y: null, scroll: true };
      zoom = zoomOf(best, tbl.zoom);
    }
  }
  const { k, interactive, zoomable } = zoom;
  tbl.interactive = interactive;
  const model = boardModel(tbl, snap, board);
  model.interactive = interactive;
  model.label = `${variantName(g?.variant ?? snap.variant)} · ${t(snap.status)}`;
  const creator = store.user?.name && snap.creator === store.user.name;
  const may = new Set([...(snap.may ?? []), ...(creator ? snap.creator_may ?? [] : [])]);
  model.panels = seatPanels(snap, store.socket.now(), {
    maySit: may.has("sit"), mayAddBot: may.has("add_bot"), mayRemoveBot: may.has("remove_bot"),
    maySwap: may.has("swap"), level: tbl.level, offline: store.connection === "offline",
  });
  const handlers = {
    station: onStation, drop: onDrop, panelAction: onPanelAction, zoom: interactive ? null : zoomAt, mark: openMarkMenu,
    seat: me === null ? (seat) => { tbl.bottom = seat; tbl.zoom = null; changed(); } : null, // a spectator turns the board
  };
  const boxStyle = `width:${f.w}px;height:${f.stacked && !tbl.zoom ? Math.min(f.h, boxH) : f.h}px`;
  const svgStyle = tbl.zoom ? `width:${boxW * k}px;height:${boxH * k}px` : "";
  if (tbl.zoom?.scroll) {
    tbl.zoom.scroll = false;
    requestAnimationFrame(() => scrollZoom(geo, boxW * k, boxH * k, tbl.zoom ?? {}, me ?? tbl.bottom ?? 0));
  }
  const finished = g?.phase === "finished" && g.result;
  // after a game 再来一局 is a rematch (gathering.js), where the snapshot offers one
  const again = !snap.rematch && (snap.may ?? []).includes("ready") ? () => command({ type: "ready", table: tbl.id, ready: true }) : null;
  const overlay = finished && tbl.showResult
    ? resultCard(snap, tbl.names, {
      onClose: () => { tbl.showResult = false; changed(); },
      onReady: again,
      onReplay: () => { location.hash = `#replay/${snap.game_id}`; },
      onLobby: () => leave(tbl),
      fair: html`${fairBox(tbl.fair, () => fairSource(tbl))}${seatBox(tbl.id, snap)}`,
      rematch: rematchBox(snap, tbl.id),
    })
    : pregameCard(snap);
  return html`<section class=${`table-view${f.stacked ? " stacked" : ""}`} id="table" data-variant=${g?.variant ?? snap.variant}
      data-phase=${g?.phase ?? snap.status} .style=${f.stacked ? "" : `--side:${f.side}px`}>
    ${zoomable && f.stacked ? seatStrip(model.panels) : nothing}
    <div class="board-area">
      <div class=${`board-box${tbl.zoom ? " zoomed" : ""}`} id="board-box" .style=${boxStyle}>
        <div class="board-sizer" .style=${svgStyle}>${boardView(geo, model, handlers)}</div>
      </div>
      ${overlay === nothing ? nothing : html`<div class="overlay">${overlay}</div>`}
    </div>
    ${actionBar(tbl, f, zoomable, zoomable && !f.stacked ? seatStrip(model.panels) : nothing)}
    ${markMenu(tbl)}
    <aside class="side">
      <section class="card table-info">
        <h2>${variantName(g?.variant ?? snap.variant)} <small>${roomName(roomOf(snap.room))}</small>
          <button id="rules-button" class="small" @click=${() => showRules(snap.room, tbl.id)}>${ruleText("rulesTitle")}</button></h2>
        <p class="sub">${t(snap.status)} · ${t("spectators", { n: snap.spectators })}${g ? ` · ${t("moves", { n: g.total_moves })}` : ""}</p>
        ${snap.rated === false ? html`<p class="sub unrated-note">${t("unrated", { why: unratedText(snap.unrated_because) })}</p>` : nothing}
        ${paceLine(tbl)}
        ${me === null ? html`<p class="sub">${t("viewFrom")}</p>` : nothing}
        ${commitmentLine(g?.commitment)}
        ${finished && !tbl.showResult ? fairBox(tbl.fair, () => fairSource(tbl)) : nothing}
        ${finished && tbl.showResult ? nothing : seatBox(tbl.id, snap)}
      </section>
      ${friendRoomCard(snap, tbl.id)}
      ${trackerPanel(snap)}
      ${g?.deal?.hand && g.phase === "deploying" && !deploying(tbl) ? html`<section class="card">${handTray(g.deal.hand)}</section>` : nothing}
      <section class="card"><h3>${t("history")}</h3>${logList(tbl.events, who(tbl), { hover: (line) => { tbl.hover = line; changed(); } }, null, 300, tbl.follow)}</section>
      ${chatBox(me === null ? "spectators" : "table", tbl.id)}
    </aside>
    ${rulesDialog()}
  </section>`;
}

// The bots' pace (pace.js), at a table with bots: its creator chooses it, the others read it.
function paceLine(tbl) {
  const snap = tbl.snapshot;
  if (!snap.pace || !(snap.bots || snap.seats.some((s) => s.taken_over))) return nothing;
  if (!store.user?.name || snap.creator !== store.user.name) {
    return html`<p class="sub pace" data-pace=${snap.pace} title=${t("paceHelp")}>${t("pace")}: ${paceName(snap.pace)}</p>`;
  }
  return html`<p class="sub pace" data-pace=${snap.pace}>${paceSelect("pace", snap.pace, (pace) => command({ type: "pace", table: tbl.id, pace }))}</p>`;
}

// How the log names the table's seats: their players (also those who left) and colours.
function who(tbl) {
  const snap = tbl.snapshot;
  const caps = snap.capabilities;
  return { ...endingView(snap, tbl.names), colour: (seat) => seatColour(snap.game, caps, seat) };
}

// What the fairness check reads when its button is pressed: the seed and commitment shown (and
// what this page saw of the deal during the game, which rememberTable kept).
function fairSource(tbl) {
  const snap = tbl.snapshot, g = snap.game, deal = snap.capabilities?.deal ?? null;
  return { game: snap.game_id, deal, seed: g?.seed, commitment: g?.commitment,
    stations: deal === "face_down" ? dealStations(g.board) : null };
}

function roomOf(id) {
  return store.lobby?.rooms?.find((r) => r.id === id) ?? null;
}
