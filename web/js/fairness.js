// Showing that the deal was fair (docs/fairness.md): the commitment at the table from the
// start, and once the game is over its seed with a "verify" action that, in this browser,
// hashes the seed (crypto.subtle) against the commitment and re-deals from it (deal.js)
// against the deal that was played.
//
// What the browser saw during a game is what it can vouch for: the commitment as first shown
// and the hands and flips it was told live are remembered here (localStorage), so that a later
// replay checks them too and not only the server's account of the game.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { commitment as hashOf, compareDeal } from "./deal.js";
import { errorText, t } from "./i18n.js";
import { changed, notify, store } from "./store.js";

const MEMORY = "junqi.deals";
const KEEP = 20; // games remembered
const DEAL_KINDS = new Set(["picking", "bidding", "redealt", "colour_picked", "banker", "hand", "flipped"]);

const here = new Map(); // this page's own entries, should localStorage keep nothing

function memory() {
  try {
    const data = JSON.parse(localStorage.getItem(MEMORY) ?? "{}");
    return data && typeof data === "object" ? data : {};
  } catch { return {}; }
}

// What this browser saw of a game: { commitment, early (seen before the end), events (of the
// deal, as told live), hands (as the views showed them) }, or null.
export function remembered(gameId) {
  return memory()[gameId] ?? here.get(gameId) ?? null;
}

export const seenEvents = (entry) => (entry ? [...entry.events, ...entry.hands] : []);

// The hand a view shows (``deal.hand``) as a hand event with its deal number, final once the
// bid is won (the banker known): the first hands of a bidding deal come in the view only, with
// no event.
function viewHand(snap) {
  const g = snap.game, hand = g.deal?.hand;
  if (!hand || snap.you === null) return null;
  const final = g.deal.banker !== null && g.deal.banker !== undefined;
  return { kind: "hand", seat: snap.you, deal: g.deal.number, final, pieces: hand };
}

// At the table, on every message: the commitment as first seen (and whether before the end),
// and the deal this page was told.
export function rememberTable(snap, events) {
  const g = snap?.game, id = snap?.game_id;
  if (!g?.commitment || !id) return;
  const dealt = events.filter((e) => DEAL_KINDS.has(e.kind)).map(({ seq, ...e }) => e);
  const hand = viewHand(snap);
  const isNew = (entry) => hand && !entry.hands.some((h) => JSON.stringify(h) === JSON.stringify(hand));
  const known = here.get(id);
  if (known && dealt.length === known.events.length && !isNew(known)) return; // nothing new
  const all = memory();
  const entry = all[id] ?? known ?? { at: Date.now(), variant: g.variant, commitment: g.commitment, early: g.phase !== "finished", events: [], hands: [] };
  entry.hands ??= [];
  entry.events = dealt;
  if (isNew(entry)) entry.hands.push(hand);
  here.set(id, entry);
  all[id] = entry;
  const kept = Object.entries(all).sort((a, b) => b[1].at - a[1].at).slice(0, KEEP);
  try { localStorage.setItem(MEMORY, JSON.stringify(Object.fromEntries(kept))); } catch { /* full: not kept */ }
}

const short = (hash) => (hash ? `${hash.slice(0, 8)}…${hash.slice(-6)}` : "");

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    notify(t("copied"), "info");
  } catch { notify(t("copyFailed"), "info"); }
}

// The table's discreet line: the commitment, shortened (the whole of it in its title, copied
// by the button).
export function commitmentLine(hash) {
  if (!hash) return nothing;
  return html`<p class="sub fair-line" id="commitment" data-commitment=${hash} title=${`${t("commitmentHelp")}\n${hash}`}>
    ${t("commitment")} <code>${short(hash)}</code>
    <button type="button" class="mini" id="copy-commitment" @click=${() => copy(hash)}>${t("copy")}</button></p>`;
}

// --- verifying ----------------------------------------------------------------------------------

// ``source()`` gives what to check, read from the store when the button is pressed: { game,
// deal (the variant's deal capability: which deal to re-derive, null for none), seed,
// commitment (published), stations (of a face-down deal), record: an async function giving the
// finished game's events and face-down start board from the server }; what this page saw of the
// game is remembered().
async function verify(state, source) {
  const s = source();
  state.game = s.game;
  state.status = "checking";
  state.result = null;
  state.count = (state.count ?? 0) + 1; // which check said what (data-check)
  changed();
  try {
    state.result = await check(s);
    state.status = "done";
  } catch (error) {
    state.status = "error";
    state.error = errorText(error);
  }
  changed();
}

async function check(s) {
  const mem = remembered(s.game);
  const hash = await hashOf(String(s.seed ?? ""));
  const out = {
    commitment: hash === s.commitment && (!mem || hash === mem.commitment),
    early: Boolean(mem?.early), // checked against the commitment this browser saw in play
    dealt: Boolean(s.deal),
    seen: null, record: null, wrong: 0, // wrong: what differs, in what this page saw and in the record
  };
  if (!out.commitment || !out.dealt) return out;
  const stations = s.stations ?? null;
  const tally = (found) => {
    out.wrong += found.wrong.length;
    const what = found.board ? "board" : found.flips ? "flips" : "hands";
    return { n: found.hands + Math.max(found.flips, found.board), what, wrong: found.wrong.length };
  };
  out.seen = tally(await compareDeal(s.deal, s.seed, { events: seenEvents(mem), stations }));
  if (s.record) {
    const { events, start } = await s.record();
    out.record = tally(await compareDeal(s.deal, s.seed, { events, stations, start }));
  }
  return out;
}

// What the check found, in words: a headline and the lines under it.
function resultText(r) {
  if (!r.commitment) return { ok: false, head: t("verifyBadSeed"), lines: [t("verifyBadSeedWhy")] };
  const lines = [t(r.early ? "verifySeedEarly" : "verifySeed")];
  if (!r.dealt) return { ok: true, head: t("verifySeedOnly"), lines: [...lines, t("verifyNothingDealt")] };
  const { seen, record } = r;
  if (r.wrong) {
    const where = [seen.wrong && t("verifyWrongSeen", { n: seen.wrong }), record?.wrong && t("verifyWrongRecord", { n: record.wrong })];
    return { ok: false, head: t("verifyBadDeal"), lines: where.filter(Boolean) };
  }
  if (record?.n) {
    lines.push(t(`verifyDeal_${record.what}`, { n: record.n }));
    if (seen.n) lines.push(t(`verifySeen_${seen.what}`, { n: seen.n }));
  } else if (seen.n) {
    lines.push(t(`verifyMine_${seen.what}`, { n: seen.n }));
  } else {
    return { ok: true, head: t("verifySeedOnly"), lines: [...lines, t("verifyNoHand")] };
  }
  return { ok: true, head: t("verifyOk"), lines };
}

// The seed, the verify button and what it found. ``state`` keeps the check's progress (one per
// view); ``source`` as for verify.
export function fairBox(state, source, { commitment = null } = {}) {
  const s = source();
  if (!s.seed) return nothing;
  const current = state.game === s.game ? state : {};
  const said = current.status === "done" ? resultText(current.result) : null;
  return html`<div class="fair" id="fair" data-status=${current.status ?? "idle"} data-check=${current.count ?? 0}>
    ${commitment ? commitmentLine(commitment) : nothing}
    <p class="sub fair-line" title=${t("seedHelp")}>${t("seed")} <code id="seed" data-seed=${s.seed}>${s.seed}</code></p>
    <button type="button" id="verify" ?disabled=${current.status === "checking"}
      @click=${() => verify(state, source)}>${current.status === "checking" ? t("verifying") : t(s.deal ? "verifyDealButton" : "verifySeedButton")}</button>
    ${said ? html`<div id="verify-result" class=${`verify-result ${said.ok ? "ok" : "bad"}`} data-ok=${String(said.ok)} role="status">
      <b>${said.ok ? "✔" : "✘"} ${said.head}</b>${said.lines.map((line) => html`<br><small>${line}</small>`)}</div>` : nothing}
    ${current.status === "error" ? html`<p id="verify-result" class="verify-result bad" data-ok="error" role="status">${t("verifyError", { why: current.error })}</p>` : nothing}
  </div>`;
}

// The stations a face-down deal (翻棋) is laid on: the board's, but its camps, in the board's order.
export function dealStations(boardKey) {
  const board = store.boards.get(boardKey);
  return board ? board.stations.filter((s) => s.kind !== "camp").map((s) => s.id) : null;
}
