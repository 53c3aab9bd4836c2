// The newcomer's guide (#guide): a walk over the real board of play now's room, step by step
// (Next / Back / Skip), each step marking real stations (data-guide on the board's marks) and
// saying what they are in the words of the room's rules page (its facts, from the server); it
// ends at a table against bots. Offered once in the lobby (localStorage), then from the rules
// page only.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { command } from "./actions.js";
import { ARMY_COLOURS, bestGeometry, boardView } from "./board.js";
import { errorText, language, rankLabel, rankName, ruleText as r, t, variantName } from "./i18n.js";
import { mineSentence } from "./rules.js";
import { changed, store } from "./store.js";
import { openTable } from "./table.js";

const SEEN = "junqi.guide"; // "started", "skipped" or "done": the lobby offers it no more
const HEADER = 44, CARD = 290; // px: the page header; the guide's card under a phone's board

const guide = { step: 0, room: null, facts: null, layout: null, error: null, loading: false };

const seen = () => Boolean(localStorage.getItem(SEEN));

// The offer in the lobby, to a player who never saw the guide.
export function guideOffer() {
  if (seen() || !store.lobby) return nothing;
  const skip = () => { localStorage.setItem(SEEN, "skipped"); changed(); };
  return html`<section class="card guide-offer" id="guide-offer">
    <p><b>${r("guideOfferTitle")}</b> ${r("guideOffer")}</p>
    <div class="buttons"><a class="button primary" id="guide-start" href="#guide">${r("guideStart")}</a>
      <button id="guide-skip" @click=${skip}>${r("guideSkip")}</button></div>
  </section>`;
}

export function openGuide() {
  if (!seen()) localStorage.setItem(SEEN, "started");
  store.view = "guide";
  guide.step = 0;
  load();
  changed();
}

// play now's room: the first open room of the variant the server marks play_now
function room() {
  const variant = store.lobby?.variants?.find((v) => v.play_now)?.key;
  return store.lobby?.rooms?.find((x) => x.variant === variant && !x.closed) ?? null;
}

async function load() {
  const chosen = room();
  if (guide.loading || (guide.facts && guide.room === chosen?.id)) return;
  if (!chosen) return; // the lobby's listing is on its way: guideView asks again
  guide.loading = true;
  guide.room = chosen.id;
  try {
    const api = store.api;
    const facts = await api.call("GET", `/api/rooms/${encodeURIComponent(chosen.id)}/rules`);
    const key = facts.board.key;
    if (!store.boards.get(key)) store.boards.set(key, await api.call("GET", `/api/boards/${key}`));
    const seat = store.boards.get(key).seats[0];
    // an automatic layout of the player's arm, to show pieces and deployment (none for a variant
    // dealt face down, or dealt hands: the guide then shows the board alone)
    guide.layout = facts.variant.capabilities.flips || !facts.pieces.army ? {}
      : await api.call("POST", "/api/layouts/auto", { variant: facts.variant.key, seat }).catch(() => ({}));
    guide.facts = facts;
    guide.error = null;
  } catch (error) {
    guide.error = errorText(error);
  }
  guide.loading = false;
  changed();
}

// --- the steps ----------------------------------------------------------------------------------

const joined = (ranks) => ranks.map(rankName).join(language() === "zh" ? "、" : ", ");
const kind = (board, k) => board.stations.filter((s) => s.kind === k).map((s) => s.id);
const holding = (layout, ranks) => Object.entries(layout).filter(([, rank]) => ranks.includes(rank)).map(([id]) => id);

// Each step: its words (from the facts) and the stations it marks; ``pieces``: the layout shown.
function steps(f, board, layout) {
  const o = f.rules, caps = f.variant.capabilities, c = f.combat, seat = board.seats[0];
  const list = [
    { key: "board", marks: board.stations.filter((s) => s.seat === seat).map((s) => s.id),
      say: [r("boardStations", { ...f.board, n: f.board.stations }), r("boardArms", { ...f.board.arm, seats: f.board.seats }), r("guideYourArm")] },
    { key: "rails", marks: board.stations.filter((s) => s.rail).map((s) => s.id),
      say: [r("moveRail"), r("moveTurners", { ranks: joined(f.movement.rail_turners) }), r("moveRoad")] },
    { key: "camps", marks: kind(board, "camp"), say: [r("moveCamps"), r("campsEmpty")] },
    { key: "hqs", marks: kind(board, "hq"), say: [r("flagInHq"), r(o.hq_lock ? "hqLock" : "hqFree")] },
  ];
  if (f.board.centre) list.push({ key: "centre", marks: kind(board, "centre"), say: [r("boardCentre", { n: f.board.centre })] });
  if (caps.mountain) {
    list.push({ key: "mountain", marks: board.stations.filter((s) => s.row === 1).map((s) => s.id), say: [r("boardMountain")] });
  }
  list.push(
    { key: "pieces", pieces: true, marks: [],
      say: [r("combatRanks", { ranks: c.officers.map(rankName).join(" > ") }), r("moveImmobile", { ranks: joined(f.movement.immobile) })] },
    { key: "combat", pieces: true, marks: holding(layout, ["bomb", "landmine", "engineer"]),
      say: [mineSentence(c), r(o.bomb_takes_flag ? "bombTakesFlag" : "bombTradesFlag"), r("guideFlag"), teams(f)] },
  );
  if (!caps.flips) {
    list.push({ key: "deploy", pieces: true, marks: holding(layout, ["flag", "landmine"]),
      say: [r("deploySeconds", { s: o.deploy_seconds }), r("landmineRows", { rows: f.deployment.landmine_rows.join(language() === "zh" ? "、" : ", ") }),
        r(o.bombs_in_front_row ? "bombsFrontYes" : "bombsFrontNo"), r("guideSwap")] });
  }
  list.push({ key: "play", pieces: true, marks: [], say: [r("moveSeconds", { s: o.move_seconds }), r("guidePlay")] });
  return list;
}

// who plays with whom, as the rules page says it
function teams(f) {
  const caps = f.variant.capabilities, n = f.variant.seats;
  if (caps.teams === "fixed") return r("teamsFixed");
  return caps.teams === "banker" ? r("teamsBanker", { n: n - 1 }) : r("teamsNone", { n });
}

function finish(how) {
  localStorage.setItem(SEEN, how);
}

async function play() {
  finish("done");
  const ok = await command({ type: "play_now", room: guide.room });
  if (ok) openTable(ok.table);
}

function skip() {
  finish("skipped");
  location.hash = "";
}

function go(step) {
  guide.step = step;
  changed();
}

export function guideView() {
  if (!guide.facts || guide.room !== room()?.id) load();
  const f = guide.facts;
  const board = f && store.boards.get(f.board.key);
  if (guide.error) return html`<section class="guide-view"><p class="card warning">${guide.error}</p></section>`;
  if (!f || !board) return html`<section class="guide-view" id="guide"><p>…</p></section>`;
  const layout = guide.layout ?? {};
  const list = steps(f, board, layout);
  const i = Math.min(guide.step, list.length - 1), step = list[i];
  const phone = innerWidth < 700;
  const w = phone ? innerWidth - 8 : innerWidth - 400, h = phone ? innerHeight - HEADER - CARD : innerHeight - HEADER - 20;
  const seat = board.seats[0];
  const best = bestGeometry(board, seat, w, h), geo = best.geometry;
  const height = phone ? geo.box[3] * best.scale : h; // a phone's card follows the board at once
  const model = {
    colourOf: (s) => ARMY_COLOURS[s] ?? "#6b7280", targets: new Map(), draggable: new Set(), flags: new Map(),
    pieces: step.pieces ? Object.entries(layout).map(([station, rank]) => ({ station, rank, army: seat, mine: true, label: rankLabel(rank) })) : [],
    mountain: f.variant.capabilities.mountain ? t("mountain") : null, guide: step.marks, interactive: true,
    label: variantName(f.variant.key), panels: [],
  };
  const nothingToDo = { station: () => {}, drop: () => {}, panelAction: () => {}, zoom: null, seat: null };
  const last = i === list.length - 1;
  return html`<section class=${`guide-view${phone ? " stacked" : ""}`} id="guide" data-step=${step.key}>
    <div class="guide-board" .style=${`width:${w}px;height:${height}px`}>${boardView(geo, model, nothingToDo)}</div>
    <section class="card guide-card">
      <p class="sub">${r("guideOpen")} · ${i + 1} / ${list.length} · ${variantName(f.variant.key)}</p>
      <h2>${r(`guide_${step.key}`)}</h2>
      <ul>${step.say.map((s) => html`<li>${s}</li>`)}</ul>
      <div class="buttons">
        <button id="guide-back" ?disabled=${i === 0} @click=${() => go(i - 1)}>${r("guideBack")}</button>
        ${last ? html`<button id="guide-play" class="primary" @click=${play}>${t("playNow")}</button>`
          : html`<button id="guide-next" class="primary" @click=${() => go(i + 1)}>${r("guideNext")}</button>`}
        <button id="guide-skip" @click=${skip}>${r("guideSkip")}</button>
      </div>
      ${last ? html`<p class="sub"><a href=${`#rules/${encodeURIComponent(guide.room)}`}>${r("guideRules")}</a></p>` : nothing}
    </section>
  </section>`;
}
