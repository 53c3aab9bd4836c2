// 自动匹配 quick match: a button per variant and information mode in the lobby, the queue's panel
// (how many wait, how long you have, the levels you accept by now, the next table's seat
// commitment), cancel, the bots offer after the wait, and on ``matched`` straight to the table.
// Closing the page closes the socket, which leaves the queue; a reconnect or a lost queue
// (``unqueued``) queues again by itself. docs/protocol.md, "Quick match".

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { command } from "./actions.js";
import { errorText, t, variantName } from "./i18n.js";
import { rememberMatch } from "./seatdraw.js";
import { changed, notify, store } from "./store.js";
import { openTable } from "./table.js";

// store.quick: null, or { variant, mode, status (the last queue_status), at (when it came),
// keep (the player chose to keep waiting past the bots offer) }

// The variants' modes that an open room plays: [{ variant, mode }], in the listing's order.
export function quickKinds() {
  const lobby = store.lobby;
  if (!lobby) return [];
  const kinds = [];
  for (const room of lobby.rooms) {
    if (room.closed) continue;
    const variant = lobby.variants.find((v) => v.key === room.variant);
    const mode = room.options?.information ?? variant?.rules?.information ?? "hidden";
    if (!kinds.some((k) => k.variant === room.variant && k.mode === mode)) kinds.push({ variant: room.variant, mode });
  }
  return kinds;
}

async function join(variant, mode) {
  store.quick = { variant, mode, status: null, at: Date.now(), keep: false };
  changed();
  const ok = await command({ type: "queue", variant, mode });
  if (!ok && store.quick?.variant === variant) store.quick = null;
  changed();
}

async function cancel() {
  store.quick = null;
  changed();
  await command({ type: "unqueue" });
}

async function withBots() {
  const ok = await command({ type: "queue_bots" });
  if (ok) {
    store.quick = null;
    openTable(ok.table);
  }
}

// The server's quick-match messages: queue_status, matched, unqueued.
export function quickMessage(m) {
  const q = store.quick;
  if (m.type === "queue_status") {
    if (!q) return;
    q.status = m;
    q.at = Date.now();
  } else if (m.type === "matched") {
    store.quick = null;
    if (m.commitment) rememberMatch(m.table, m.commitment);
    openTable(m.table);
  } else if (m.type === "unqueued" && q) {
    notify(t("queueLost"), "info");
    join(q.variant, q.mode);
  }
  changed();
}

// The socket is back after a break: the old socket's place went with it; queue again (the
// server may not have seen the old socket close yet: already_queued, so once more a little later).
export async function quickReconnected(tries = 5) {
  const q = store.quick;
  if (!q) return;
  try {
    await store.socket.send({ type: "queue", variant: q.variant, mode: q.mode });
  } catch (error) {
    if (error.code === "already_queued" && tries > 1) setTimeout(() => quickReconnected(tries - 1), 1000);
    else if (store.quick === q) { store.quick = null; notify(errorText(error)); }
  }
}

const modeName = (mode) => t(`mode_${mode}`);

function panel(q) {
  const s = q.status;
  const waited = s ? Math.floor(s.waited + (Date.now() - q.at) / 1000) : 0;
  const bands = s ? [...new Set(s.bands)].map((b) => t(`band_${b}`)).join("–") : "";
  return html`<div class="queue-panel" id="queue" data-variant=${q.variant} data-mode=${q.mode} role="status">
    <p><b>${t("queueing", { variant: variantName(q.variant), mode: modeName(q.mode) })}</b> <span class="spinner" aria-hidden="true"></span></p>
    ${s ? html`<p class="sub"><span id="queue-size" data-size=${s.size}>${t("queueSize", { n: s.size })}</span> ·
      <span id="queue-waited">${t("queueWaited", { s: waited })}</span> · ${t("queueBands", { bands })}</p>
      <p class="sub fair-line" title=${`${t("seatCommitmentHelp")}\n${s.commitment}`}>${t("seatCommitment")}
        <code id="queue-commitment" data-commitment=${s.commitment}>${s.commitment.slice(0, 8)}…${s.commitment.slice(-6)}</code></p>` : nothing}
    ${s?.bots && !q.keep ? html`<p class="queue-bots-offer">${t("queueBotsOffer")}</p>
      <div class="buttons"><button id="queue-bots" class="primary" @click=${withBots}>${t("queueBots")}</button>
        <button id="queue-keep" @click=${() => { q.keep = true; changed(); }}>${t("queueKeep")}</button></div>` : nothing}
    <button id="queue-cancel" @click=${cancel}>${t("queueCancel")}</button>
  </div>`;
}

// The lobby's quick-match card: the buttons, or the queue's panel while waiting.
export function quickCard() {
  const q = store.quick;
  return html`<section class="card quick" id="quick-match">
    <h2>${t("quickTitle")}</h2><p class="sub">${t("quickNote")}</p>
    ${q ? panel(q) : html`<div class="quick-buttons">${quickKinds().map(({ variant, mode }) => html`<button class="quick-button"
      data-variant=${variant} data-mode=${mode} @click=${() => join(variant, mode)}>${t("quickMatch")} · ${variantName(variant)}
      <small>${modeName(mode)}</small></button>`)}</div>`}
  </section>`;
}
