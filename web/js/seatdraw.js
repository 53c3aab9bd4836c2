// 验证座位: checking a quick-match table's seats in the browser, from the seat draw its snapshot
// carries (``seat_draw``) once the game is over and its seed is out. The page recomputes what
// server/match_core.py drew, with nothing from the server but the seed: the commitment is
// sha256("junqi-seats:" + seed); the players sorted by name (by code point) are shuffled by
// Fisher-Yates, place i (from the last down) swapping with
// int(sha256("junqi-seats:<seed>:<attempt>:<i>")) mod (i + 1); seat k gets place k. An attempt
// above 0 must follow from the pairs of last game's partners (each earlier attempt made one of
// them partners again). The seats compared are those this page saw in play, and the
// commitment the one it was shown when the table was formed (docs/protocol.md, "Quick match").

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { sha256 } from "./deal.js";
import { t } from "./i18n.js";
import { changed } from "./store.js";

const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const hashText = async (text) => hex(await sha256(text));

// table id -> { commitment (as ``matched`` said), seats (names seat by seat, as seen in play) }
const seen = new Map();

export function rememberMatch(table, commitment) {
  seen.set(table, { ...(seen.get(table) ?? {}), commitment });
}

// Every snapshot of the open table: the seats as they were while the drawn game was played.
export function rememberSeats(table, snap) {
  if (!snap.seat_draw || snap.status !== "playing") return;
  const entry = seen.get(table) ?? { commitment: snap.seat_draw.commitment };
  if (!entry.seats) entry.seats = snap.seats.map((s) => s.name);
  seen.set(table, entry);
}

const byCodePoint = (a, b) => {
  const x = [...a].map((c) => c.codePointAt(0)), y = [...b].map((c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
};

export async function permutation(seed, n, attempt = 0) {
  const order = [...Array(n).keys()];
  for (let i = n - 1; i > 0; i--) {
    const j = Number(BigInt(`0x${await hashText(`junqi-seats:${seed}:${attempt}:${i}`)}`) % BigInt(i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

// The partner seats of a game view (the seats of one team), as pairs.
function partnerPairs(game) {
  const teams = (game?.seats ?? []).map((s) => s.team);
  const pairs = [];
  teams.forEach((a, i) => teams.forEach((b, j) => { if (i < j && a === b) pairs.push([i, j]); }));
  return pairs;
}

// What the check finds: { hash, early (the commitment this page was shown matches), order, attempt }.
export async function checkSeats(draw, seats, game, shown = null) {
  const hash = (await hashText(`junqi-seats:${draw.seed}`)) === draw.commitment;
  const early = Boolean(shown) && shown === draw.commitment;
  const players = [...draw.players].sort(byCodePoint);
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const repeated = new Set(draw.repeated.map(([a, b]) => [a, b].sort(byCodePoint).join("\u0000")));
  const repeats = (order) => partnerPairs(game).some(([a, b]) =>
    repeated.has([players[order[a]], players[order[b]]].sort(byCodePoint).join("\u0000")));
  let fair = same(players, draw.players) && same([...seats].sort(byCodePoint), players);
  for (let k = 0; fair && k < draw.attempt; k++) fair = repeats(await permutation(draw.seed, players.length, k));
  const order = await permutation(draw.seed, players.length, draw.attempt);
  fair = fair && !repeats(order) && same(order.map((k) => players[k]), seats);
  return { hash: hash && (!shown || early), early, order: fair, attempt: draw.attempt, n: players.length };
}

const state = { table: null, status: "idle", result: null };

async function verify(tableId, snap) {
  Object.assign(state, { table: tableId, status: "checking", result: null });
  changed();
  const entry = seen.get(tableId);
  const seats = entry?.seats ?? snap.seats.map((s) => s.name);
  state.result = await checkSeats(snap.seat_draw, seats, snap.game, entry?.commitment ?? null);
  state.status = "done";
  changed();
}

function resultLines(r) {
  if (!r.hash) return { ok: false, head: t("seatsBad"), lines: [t("seatsBadHash")] };
  if (!r.order) return { ok: false, head: t("seatsBad"), lines: [t("seatsBadOrder")] };
  const lines = [`${t("seatsHash")}${r.early ? ` ${t("seatsSeenEarly")}` : ""}`, t("seatsOrder", { n: r.n })];
  if (r.attempt) lines.push(t("seatsAttempt", { n: r.attempt + 1 }));
  return { ok: true, head: t("seatsOk"), lines };
}

// The seat commitment of a quick-match table, and once its seed is out, 验证座位 and what it found.
export function seatBox(tableId, snap) {
  const draw = snap?.seat_draw;
  if (!draw) return nothing;
  const mine = state.table === tableId ? state : { status: "idle" };
  const said = mine.status === "done" ? resultLines(mine.result) : null;
  return html`<div class="fair seats-fair" id="seat-draw" data-status=${mine.status}>
    <p class="sub fair-line" title=${`${t("seatCommitmentHelp")}\n${draw.commitment}`}>${t("seatCommitment")}
      <code id="seat-commitment" data-commitment=${draw.commitment}>${draw.commitment.slice(0, 8)}…${draw.commitment.slice(-6)}</code></p>
    ${draw.seed ? html`<button type="button" id="verify-seats" ?disabled=${mine.status === "checking"}
      @click=${() => verify(tableId, snap)}>${mine.status === "checking" ? t("verifying") : t("verifySeatsButton")}</button>` : nothing}
    ${said ? html`<div id="seats-result" class=${`verify-result ${said.ok ? "ok" : "bad"}`} data-ok=${String(said.ok)} role="status">
      <b>${said.ok ? "✔" : "✘"} ${said.head}</b>${said.lines.map((line) => html`<br><small>${line}</small>`)}</div>` : nothing}
  </div>`;
}
