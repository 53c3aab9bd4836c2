// The client's start: sign-in, the socket, the address (#table/<id>, #replay/<id>, #rules/<room>,
// #join/<code>, #guide, …) and the page
// around the views. It holds no rules: legal moves, layout problems, automatic layouts and
// what a viewer may do all come from the server.

import { html, nothing, render } from "../vendor/lit-html/lit-html.js";
import { notifying, pageTitle, toggleNotify } from "./alerts.js";
import { Api, Socket } from "./api.js";
import { heard } from "./chat.js";
import { errorText, t, toggleLanguage } from "./i18n.js";
import { friendDialog, invited, invitesView, joinByCode } from "./gathering.js";
import { enterLobby, lobbyView } from "./lobby.js";
import { followLog } from "./log.js";
import { loginView } from "./login.js";
import { marksMessage } from "./marks.js";
import { openProfile, profileView } from "./profile.js";
import { openReplay, replayKey, replayView } from "./replay.js";
import { openRules, rulesView } from "./rules.js";
import { guideOffer, guideView, openGuide } from "./guide.js";
import { quickMessage, quickReconnected } from "./quick.js";
import { changed, notify, onChange, store } from "./store.js";
import { muted, toggleMute } from "./sounds.js";
import { closeTable, openTable, tableMessage, tableView, tick, yourTurnNow } from "./table.js";

store.api = new Api();
const root = document.querySelector("#app");

async function ensureBoard(key) {
  if (!key || store.boards.has(key)) return;
  store.boards.set(key, null);
  try {
    store.boards.set(key, await store.api.call("GET", `/api/boards/${key}`));
  } catch (error) {
    store.boards.delete(key);
    notify(errorText(error));
  }
  changed();
}

function onMessage(m) {
  if (m.type === "lobby") {
    store.lobby = m.lobby;
    changed();
  } else if (m.type === "table" || m.type === "update") {
    ensureBoard(m.snapshot.game?.board ?? m.snapshot.board);
    tableMessage(m);
  } else if (m.type === "chat" || m.type === "phrase") {
    heard(m);
  } else if (m.type === "closed") {
    if (store.table?.id === m.table) { // back to the lobby, where the notice is shown
      closeTable();
      enterLobby();
      const words = { lost: "tableLost", room_closed: "roomClosed", lonely: "tableLonely", blocked: "tableBlocked", private: "tablePrivate" }[m.why] ?? "tableClosed";
      notify(t(words), m.why === "lost" ? "error" : "info");
      location.hash = "";
    }
  } else if (m.type === "marks") {
    marksMessage(m);
  } else if (m.type === "queue_status" || m.type === "matched" || m.type === "unqueued") {
    quickMessage(m);
  } else if (m.type === "invited") {
    invited(m);
  } else if (m.type === "muted") {
    notify(errorText({ code: "muted" }));
  }
}

function route() {
  if (!store.socket) return;
  const hash = location.hash;
  if (hash.startsWith("#table/")) { openTable(hash.slice(7)); return; }
  closeTable();
  if (hash.startsWith("#join/")) { // a friend room's link: joined by its code, then its table opens
    history.replaceState(null, "", "#");
    enterLobby();
    joinByCode(decodeURIComponent(hash.slice(6)));
    return;
  }
  if (hash.startsWith("#replay/")) openReplay(...hash.slice(8).split("/"));
  else if (hash.startsWith("#user/")) openProfile(decodeURIComponent(hash.slice(6)));
  else if (hash.startsWith("#rules/")) openRules(...hash.slice(7).split("/").map(decodeURIComponent));
  else if (hash === "#guide") openGuide();
  else enterLobby();
}

async function start() {
  try {
    const me = await store.api.call("GET", "/api/me");
    store.user = me.user;
    store.profile = me;
  } catch {
    store.api.forget();
    store.view = "login";
    changed();
    return;
  }
  store.socket = new Socket(store.api.token, {
    message: onMessage,
    status: (status, code) => {
      store.crowded = code === 4429; // closed for too many sockets of this user: says so
      if (status === "online" && store.connection === "offline") {
        quickReconnected(); // the closed socket's place in the queue went with it
        store.backOnline = true; // says so for a moment
        setTimeout(() => { store.backOnline = false; changed(); }, 2500);
      }
      store.connection = status;
      changed();
    },
    refused: (code, reason) => {
      if (!store.leaving) sessionStorage.setItem("junqi.farewell", farewell(code, reason));
      store.api.forget();
      location.reload();
    },
  });
  store.socket.send({ type: "lobby" }).catch(() => {});
  route();
}

// Why the server closed the socket for good (4401: the login ended; 4003: a ban, the user's or
// one that covers this address), said on the sign-in page the reload leads to.
function farewell(code, reason) {
  if (code !== 4003) return errorText({ code: "unauthorized" });
  return t(reason === "a ban covers this address" ? "addressBannedNow" : "bannedNow");
}

// Log out (the server revokes the token and closes its sockets), back to the sign-in page.
async function logout() {
  store.leaving = true; // the socket's close that follows is no news to the player
  await store.api.logout().catch(() => {});
  location.hash = "";
  location.reload();
}

function header() {
  return html`<header class="top">
    <h1><a href="#" @click=${() => { location.hash = ""; }}>${t("title")}</a></h1>
    ${store.user ? html`<a class="nav" href="#" id="to-lobby">${t("lobby")}</a>` : nothing}
    <span class="spacer"></span>
    ${store.user ? html`<a id="who" href=${`#user/${encodeURIComponent(store.user.name)}`} title=${t("myProfile")}>${store.user.name}</a>
      <button id="logout" type="button" @click=${logout}>${t("logout")}</button>` : nothing}
    ${connectionDot()}
    <button id="mute" type="button" aria-label=${muted() ? t("soundOn") : t("soundOff")} aria-pressed=${String(muted())}
      @click=${() => { toggleMute(); changed(); }}>♪ ${muted() ? t("off") : t("on")}</button>
    <button id="notify" type="button" title=${t("notifyHelp")} aria-label=${t("notifyHelp")} aria-pressed=${String(notifying())}
      @click=${async () => { const refused = await toggleNotify(); if (refused) notify(refused); changed(); }}>${t("notifyShort")} ${notifying() ? t("on") : t("off")}</button>
    <button id="lang" type="button" @click=${() => { toggleLanguage(); changed(); }}>${t("language")}</button>
  </header>`;
}

// The connection's state for the page and for outside tools: exactly one element carries
// data-connection, the header's dot while online, the banner that says so while reconnecting.
function connectionDot() {
  const online = store.user && store.connection === "online";
  return html`<span class=${`connection ${store.connection}`} title=${t(online ? "connected" : "offline")}
    data-connection=${online ? "online" : nothing}></span>`;
}

function notice() {
  const n = store.notice;
  const here = n && n.view === store.view && (n.table ?? null) === (store.table?.id ?? null);
  const offline = store.user && store.connection === "offline";
  return html`${here ? html`<p id="notice" class=${`notice ${n.kind}`} role="status" @click=${() => notify(null)}>${n.text}</p>` : nothing}
    ${offline ? html`<p class="notice offline" id="offline" role="alert" data-connection="reconnecting">${t(store.crowded ? "tooManySockets" : "offline")}</p>` : nothing}
    ${store.backOnline && !offline ? html`<p class="notice online" id="online" role="status">${t("backOnline")}</p>` : nothing}`;
}

function modal() {
  const m = store.modal;
  if (!m) return nothing;
  const close = () => { store.modal = null; changed(); };
  return html`<div class="modal-back" @click=${close}><div class="modal card" role="dialog" @click=${(e) => e.stopPropagation()}>
    <p>${m.text}</p>
    <div class="buttons">
      <button id="modal-confirm" class="primary" @click=${() => { close(); m.onConfirm(); }}>${m.confirm}</button>
      <button id="modal-cancel" @click=${close}>${t("cancel")}</button>
    </div></div></div>`;
}

function view() {
  if (store.view === "login") return loginView(start);
  if (store.view === "table") return tableView();
  if (store.view === "replay") return replayView();
  if (store.view === "profile") return profileView();
  if (store.view === "rules") return rulesView();
  if (store.view === "guide") return guideView();
  return html`${guideOffer()}${lobbyView()}${friendDialog()}`;
}

// A page opened (a table, a replay, a profile…) starts at its top, not where the page before it
// had been scrolled to: a table entered from far down the lobby showed its board half gone.
let shownPage = null;
onChange(() => {
  document.title = pageTitle(yourTurnNow());
  render(html`${header()}${notice()}${store.user ? invitesView() : nothing}<main>${view()}</main>${modal()}`, root);
  followLog(store.view === "table" ? store.table?.follow : null);
  const page = `${store.view}/${store.table?.id ?? store.replay?.id ?? ""}`;
  if (page !== shownPage) { shownPage = page; scrollTo(0, 0); }
});

window.addEventListener("hashchange", route);
window.addEventListener("resize", changed);
window.addEventListener("keydown", replayKey);
// The clocks: looked at four times a second, the table redrawn only when a second it shows has
// changed (a whole redraw four times a second kept a phone's processor busy for nothing).
let shownSeconds = null;
setInterval(() => {
  if (store.view !== "table") return;
  tick();
  const snap = store.table?.snapshot, g = snap?.game, now = store.socket.now();
  const until = [g?.deadline, ...(g?.seats ?? []).map((s) => s?.raise_flag_by), ...(snap?.seats ?? []).map((s) => s?.away_until),
    g?.may?.surrender_from].filter((u) => typeof u === "number");
  // with no clock running, once a second all the same (chat bubbles end, a surrender opens)
  const seconds = until.length ? until.map((u) => Math.ceil(u - now)).join() : String(Math.floor(now));
  if (seconds !== shownSeconds) { shownSeconds = seconds; changed(); }
}, 250);
document.documentElement.lang = localStorage.getItem("junqi.lang") || "zh";
window.junqi = store; // for debugging and the browser tests
const said = sessionStorage.getItem("junqi.farewell");
sessionStorage.removeItem("junqi.farewell");
if (store.api.token) start();
else {
  store.view = "login";
  if (said) notify(said);
  changed();
}
