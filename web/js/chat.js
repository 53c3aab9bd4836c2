// Chat: the lobby's, a table's players', and its spectators' (who do not read each other).

import { html } from "../vendor/lit-html/lit-html.js";
import { command } from "./actions.js";
import { t } from "./i18n.js";
import { store } from "./store.js";

export function chatBox(channel, table = null) {
  const lines = store.chat
    .filter((c) => (channel === "lobby" ? c.channel === "lobby" : c.table === table))
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
    <div class="lines">${lines.map((c) => html`<p><b>${c.from}</b> ${c.text}</p>`)}</div>
    <form @submit=${submit}><input name="text" maxlength="200" aria-label=${t("chat")}><button>${t("send")}</button></form>
  </section>`;
}
