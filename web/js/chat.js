// Chat: the lobby's, a table's players', and its spectators' (who do not read each other).
// Quick phrases (快捷语) are keys of a fixed list that every reader's page says in its own
// words, shown as a chat line and, a player's, as a bubble at the speaker's seat panel for a
// few seconds. A reader may mute a player: their lines and phrases are hidden for that reader
// alone, remembered in this browser per reader.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { command } from "./actions.js";
import { errorText, t } from "./i18n.js";
import { changed, notify, store } from "./store.js";

// the server's list (server/inbound.py PHRASES), each with its words in i18n.js
const PHRASES = ["hello", "hurry", "nice_move", "thanks", "again", "sorry", "teamwork", "bye"];
const BUBBLE_MS = 4000;
const bubbles = new Map(); // "table:seat" -> { key, until }

const muteKey = () => `junqi.muted.${store.user?.name ?? ""}`;

export function mutedNames() {
  try {
    const names = JSON.parse(localStorage.getItem(muteKey()) ?? "[]");
    return Array.isArray(names) ? names : [];
  } catch {
    return [];
  }
}

function setMuted(name, on) {
  const names = mutedNames().filter((n) => n !== name);
  if (on) names.push(name);
  localStorage.setItem(muteKey(), JSON.stringify(names));
  changed();
}

// A chat line or a phrase from the server.
export function heard(m) {
  store.chat.push(m);
  if (store.chat.length > 500) store.chat.splice(0, 100);
  if (m.type === "phrase" && m.seat !== null && !mutedNames().includes(m.from)) {
    bubbles.set(`${m.table}:${m.seat}`, { key: m.key, until: Date.now() + BUBBLE_MS });
    setTimeout(changed, BUBBLE_MS + 50); // gone from the panel, also where no clock redraws
  }
  changed();
}

// The words of the phrase a seat said a moment ago at a table, or null.
export function bubbleAt(table, seat) {
  const b = bubbles.get(`${table}:${seat}`);
  return b && b.until > Date.now() ? { key: b.key, text: t(`phrase_${b.key}`) } : null;
}

async function say(table, key) {
  try {
    await store.socket.send({ type: "phrase", table, key });
  } catch (error) {
    notify(error.code === "rate_limited" ? t("phraseTooFast") : errorText(error));
  }
}

function line(c) {
  const me = c.from === store.user?.name;
  const text = c.type === "phrase" ? t(`phrase_${c.key}`) : c.text;
  return html`<p class=${c.type === "phrase" ? "phrase" : ""} data-from=${c.from} data-phrase=${c.type === "phrase" ? c.key : nothing}>
    <b>${c.from}</b> ${text}
    ${me ? nothing : html`<button type="button" class="mini mute" title=${t("muteWho", { name: c.from })}
      aria-label=${t("muteWho", { name: c.from })} @click=${() => setMuted(c.from, true)}>${t("mute")}</button>`}</p>`;
}

export function chatBox(channel, table = null) {
  const muted = mutedNames();
  const lines = store.chat
    .filter((c) => (channel === "lobby" ? c.channel === "lobby" : c.table === table))
    .filter((c) => !muted.includes(c.from))
    .slice(-60);
  const submit = async (e) => {
    e.preventDefault();
    const input = e.target.elements.text;
    const text = input.value.trim();
    if (!text) return;
    if (await command({ type: "chat", channel, table, text })) input.value = "";
  };
  return html`<section class="card chat" id="chat">
    <h3>${t("chat")}</h3>
    <div class="lines">${lines.map(line)}</div>
    ${table === null ? nothing : html`<div class="phrases" role="group" aria-label=${t("phrases")}>
      ${PHRASES.map((key) => html`<button type="button" class="mini" data-phrase-key=${key} @click=${() => say(table, key)}>${t(`phrase_${key}`)}</button>`)}
    </div>`}
    <form @submit=${submit}><input name="text" maxlength="200" aria-label=${t("chat")}><button>${t("send")}</button></form>
    ${muted.length ? html`<p class="muted-names">${t("mutedNames", { names: "" })}
      ${muted.map((name) => html`<button type="button" class="mini unmute" data-unmute=${name}
        title=${t("unmute")} @click=${() => setMuted(name, false)}>${name} ✕</button>`)}</p>` : nothing}
  </section>`;
}
