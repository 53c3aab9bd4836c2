// Deployment (布阵): the player's draft, which starts from their last layout of the variant or an
// automatic one (never an empty arm), swaps by click or drag, every problem on its piece, saved
// and loaded layouts, layout files, and 出征. The server checks layouts; the draft goes to it as
// it changes, so that the deadline completes the player's own layout, not a random one.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { act } from "./actions.js";
import { errorText, problemText, t } from "./i18n.js";
import { seatArmy } from "./seats.js";
import { changed, notify, store } from "./store.js";

const game = (tbl) => tbl.snapshot?.game;

export function deploying(tbl) {
  const g = game(tbl), me = tbl.snapshot?.you;
  return Boolean(g && g.phase === "deploying" && me !== null && !g.seats[me].confirmed);
}

function args(tbl) {
  const g = game(tbl), me = tbl.snapshot.you;
  const hand = g.deal?.hand ? g.deal.hand.map((p) => [p.rank, p.army]) : null;
  return { variant: g.variant, seat: me, hand, banker: g.deal?.banker === me };
}

// Called on every snapshot: a new deployment gets its starting layout (then true).
export function followDeployment(tbl) {
  if (!deploying(tbl)) return false;
  const gameId = tbl.snapshot.game_id;
  if (tbl.deploy?.game === gameId) return false;
  tbl.deploy = { game: gameId, draft: null, problems: [], note: null, saved: [], sent: null };
  const server = game(tbl).layout;
  if (server && Object.keys(server).length) {
    tbl.deploy.draft = { ...server }; // a draft the server kept (a reload)
    check(tbl);
  } else {
    start(tbl);
  }
  loadSaved(tbl);
  return true;
}

async function start(tbl) {
  const deploy = tbl.deploy;
  try {
    const answer = await store.api.call("POST", "/api/layouts/start", { ...args(tbl), seed: Math.floor(Math.random() * 1e9) });
    if (tbl.deploy !== deploy) return;
    deploy.note = answer.source === "last" ? t("lastLayout") : t("autoLayout");
    setDraft(tbl, answer.layout);
  } catch (error) { notify(errorText(error)); }
}

function setDraft(tbl, draft) {
  // the player moved on (a swap, a file, a layout): an old error goes now, not when the draft
  // is sent, which would also wipe one raised meanwhile (a file refused just after a swap)
  if (store.notice?.kind === "error") notify(null);
  tbl.deploy.draft = draft;
  tbl.selected = null;
  check(tbl);
  send(tbl);
  changed();
}

async function check(tbl) {
  const deploy = tbl.deploy;
  try {
    deploy.problems = await store.api.call("POST", "/api/layouts/check", { ...args(tbl), layout: deploy.draft ?? {} });
  } catch (error) { notify(errorText(error)); }
  changed();
}

// the draft to the server, a moment after the last change
function send(tbl) {
  const deploy = tbl.deploy;
  clearTimeout(deploy.timer);
  deploy.timer = setTimeout(() => {
    if (!deploying(tbl) || tbl.deploy !== deploy) return;
    act({ type: "place_layout", layout: deploy.draft, confirm: false }, () => deploying(tbl), { background: true });
  }, 300);
}

export function swap(tbl, a, b) {
  const draft = { ...tbl.deploy.draft };
  const pa = draft[a], pb = draft[b];
  delete draft[a]; delete draft[b];
  if (pa !== undefined) draft[b] = pa;
  if (pb !== undefined) draft[a] = pb;
  setDraft(tbl, draft);
}

// The pieces of the draft as the board draws them: in the army they belong to (a dealt hand's
// pieces say it), else in the player's own colour (乱战: the one picked, not the seat's).
export function draftPieces(tbl, labelOf) {
  const snap = tbl.snapshot;
  const own = seatArmy(snap.game, snap.capabilities, snap.you);
  return Object.entries(tbl.deploy?.draft ?? {}).map(([station, key]) => {
    const [rank, army] = key.split("/");
    const gold = ["supreme_marshal", "missile", "fortress"].includes(rank);
    return { station, rank, army: army === undefined ? own : Number(army), mine: true, gold, label: labelOf(rank) };
  });
}

// station -> the problems found there, in the player's words
export function problemMarks(tbl) {
  const marks = new Map();
  for (const p of tbl.deploy?.problems ?? []) {
    for (const station of p.stations) marks.set(station, [...(marks.get(station) ?? []), problemText(p.code)]);
  }
  return marks;
}

async function auto(tbl) {
  try {
    const layout = await store.api.call("POST", "/api/layouts/auto", { ...args(tbl), layout: {}, seed: Math.floor(Math.random() * 1e9) });
    tbl.deploy.note = t("autoLayout");
    setDraft(tbl, layout);
  } catch (error) { notify(errorText(error)); }
}

async function confirm(tbl) {
  clearTimeout(tbl.deploy.timer);
  await act({ type: "place_layout", layout: tbl.deploy.draft ?? {}, confirm: true }, () => deploying(tbl));
}

async function loadSaved(tbl) {
  const deploy = tbl.deploy;
  try {
    const rows = await store.api.call("GET", "/api/layouts");
    deploy.saved = rows.filter((r) => r.variant === game(tbl).variant);
    changed();
  } catch { /* guests without layouts: nothing to list */ }
}

async function fromText(tbl, name, text) {
  show(tbl, await store.api.call("POST", `/api/layouts/parse?seat=${tbl.snapshot.you}`, { name, variant: game(tbl).variant, text }));
}

// A file read by the server: its layout, or why it could not be read (in the player's words).
function show(tbl, parsed) {
  if (parsed.error) {
    const line = /line (\d+)/.exec(parsed.error)?.[1];
    const qq = parsed.error.startsWith("not a QQ") ? "jqlNotOne" : parsed.error.startsWith("byte") ? "jqlBad" : null;
    tbl.deploy.problems = [{ code: "file", stations: [], line, qq }];
    changed();
    return;
  }
  setDraft(tbl, parsed.layout);
}

async function save(tbl) {
  const name = prompt(t("saveName"), "");
  if (!name) return;
  try {
    const text = await store.api.call("POST", "/api/layouts/format", { ...args(tbl), layout: tbl.deploy.draft ?? {} });
    await store.api.call("POST", "/api/layouts", { name, variant: game(tbl).variant, text });
    notify(t("saved", { name }), "info");
    loadSaved(tbl);
  } catch (error) {
    error.layout = true; // the field at fault is the layout's name
    notify(errorText(error.code === "conflict" ? { code: "layout_exists" } : error));
  }
}

// A layout file to download: the project's text (.txt) or QQ游戏's (.jql).
async function exportFile(tbl, kind) {
  try {
    const path = kind === "jql" ? "/api/layouts/jql" : "/api/layouts/format";
    const blob = await store.api.blob("POST", path, { ...args(tbl), layout: tbl.deploy.draft ?? {} });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `junqi-layout.${kind}`;
    link.click();
  } catch (error) { notify(errorText(error)); }
}

const QQ_MARK = "QQGame JQL";

async function importFile(tbl, file) {
  if (!file) return;
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (file.name.toLowerCase().endsWith(".jql") || String.fromCharCode(...bytes.slice(0, 10)) === QQ_MARK) {
      const data = btoa(String.fromCharCode(...bytes.slice(0, 300)));
      show(tbl, await store.api.call("POST", `/api/layouts/parse-jql?seat=${tbl.snapshot.you}`, { data }));
    } else {
      await fromText(tbl, file.name.slice(0, 60), new TextDecoder().decode(bytes));
    }
  } catch (error) { notify(errorText(error)); }
}

// The primary deploy action, for the action bar.
export function confirmButton(tbl) {
  const legal = (tbl.deploy?.problems ?? []).length === 0 && tbl.deploy?.draft;
  return html`<button id="confirm" class="primary" ?disabled=${!legal} @click=${() => confirm(tbl)}>${t("confirm")}</button>`;
}

// The deployment tools and the list of problems, for the side panel.
export function deployTools(tbl) {
  const deploy = tbl.deploy;
  if (!deploy) return nothing;
  const dealt = Boolean(game(tbl).deal);
  const problems = deploy.problems ?? [];
  return html`<section class="card deploy-tools">
    <p class="hint">${t("deployHint")}${deploy.note ? html` · <span class="note">${deploy.note}</span>` : nothing}</p>
    <div class="buttons">
      <button id="auto" @click=${() => auto(tbl)}>${t("auto")}</button>
      ${dealt ? nothing : html`
        <select id="saved" aria-label=${t("load")} @change=${(e) => {
          const row = deploy.saved.find((r) => String(r.id) === e.target.value);
          e.target.value = "";
          if (row) fromText(tbl, row.name, row.text).catch((error) => notify(errorText(error)));
        }}>
          <option value="">${t("load")}…</option>
          ${deploy.saved.map((r) => html`<option value=${r.id}>${r.name}</option>`)}
        </select>
        <button id="save" @click=${() => save(tbl)}>${t("save")}</button>
        <button id="export" @click=${() => exportFile(tbl, "txt")}>${t("export")}</button>
        <button id="export-jql" @click=${() => exportFile(tbl, "jql")}>${t("exportJql")}</button>
        <label class="file button">${t("import")}<input id="import" type="file" accept=".txt,.jql,text/plain"
          @change=${(e) => { importFile(tbl, e.target.files[0]); e.target.value = ""; }}></label>`}
    </div>
    ${problems.length
      ? html`<h3>${t("problems")}</h3><ul class="problems">${problems.map((p) => html`
          <li class="problem-line" data-code=${p.code}>${p.code === "file" ? t(p.qq ?? (p.line ? "fileBad" : "fileUnreadable"), { n: p.line }) : problemText(p.code)}</li>`)}</ul>`
      : deploy.draft ? html`<p class="good">✓ ${t("layoutLegal")}</p>` : nothing}
  </section>`;
}
