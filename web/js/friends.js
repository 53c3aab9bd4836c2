// Friends (好友), follows (关注) and blocks (屏蔽): the lobby's friends panel (each friend with
// where they are and a button to go there, requests to answer, a friend to add by name), the
// buttons of a player's profile page and, on one's own, the list of those one blocks. Over REST
// (docs/protocol.md, "Friends, follows and blocks"); presence is polled while the panel shows.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { avatar, profileLink } from "./avatar.js";
import { errorText, t } from "./i18n.js";
import { changed, notify, store } from "./store.js";
import { openTable } from "./table.js";

const POLL_MS = 4000; // the lobby panel's presence is at most this old
const friends = { data: null, timer: null, message: null };
const registered = () => store.user && !store.user.guest;
const path = (name) => encodeURIComponent(name);

async function load() {
  try {
    friends.data = await store.api.call("GET", "/api/friends");
    store.friends = friends.data.friends; // a friend room's card offers them to invite
  } catch { /* kept as it was: the next poll tries again */ }
  changed();
}

// Polls while the lobby shows (main.js redraws; each draw of the panel makes sure of the timer).
function polling() {
  if (friends.timer || !registered()) return;
  load();
  friends.timer = setInterval(() => {
    if (store.view !== "lobby" || document.hidden) return;
    load();
  }, POLL_MS);
}

// A change over REST; its refusal in the player's words, under the panel or as a notice.
async function change(method, url, body, where = "panel") {
  friends.message = null;
  try {
    const answer = await store.api.call(method, url, body);
    await load();
    return answer || true; // a 204 answers ""
  } catch (error) {
    if (where === "panel") friends.message = { text: errorText(error), kind: "error" };
    else notify(errorText(error));
    changed();
    return null;
  }
}

async function addFriend(event) {
  event.preventDefault();
  const input = event.target.elements.name;
  const name = input.value.trim();
  if (!name) return;
  const answer = await change("POST", "/api/friends", { name });
  if (!answer) return;
  input.value = "";
  const message = friends.message = { text: t(answer.status === "friends" ? "friendMade" : "friendAsked", { name }), kind: "ok" };
  setTimeout(() => { if (friends.message === message) { friends.message = null; changed(); } }, 6000);
  changed();
}

// Where a friend is, in words, and the button that takes you there.
function whereabouts(presence) {
  const state = presence.state;
  const words = html`<small class=${`presence ${state}`} data-state=${state}>${t(`presence_${state}`)}</small>`;
  if (!presence.table) return words;
  const label = state === "seated" ? t("joinFriend") : t("watchFriend");
  return html`${words}<button class="mini go" data-table=${presence.table}
    @click=${() => openTable(presence.table)}>${label}</button>`;
}

function friendRow(friend) {
  return html`<li class="friend" data-name=${friend.name} data-state=${friend.presence.state}>
    ${avatar(friend.name, 24)} <b>${profileLink(friend.name)}</b> ${whereabouts(friend.presence)}</li>`;
}

function requestRow(person) {
  const name = person.name;
  return html`<li class="request" data-name=${name}>${avatar(name, 24)} <b>${profileLink(name)}</b>
    <button class="mini primary accept" @click=${() => change("POST", `/api/friends/${path(name)}/accept`)}>${t("friendAccept")}</button>
    <button class="mini decline" @click=${() => change("POST", `/api/friends/${path(name)}/decline`)}>${t("friendDecline")}</button></li>`;
}

function outgoingRow(person) {
  return html`<li class="asked" data-name=${person.name}>${profileLink(person.name)} <small>${t("waitingAnswer")}</small>
    <button class="mini withdraw" @click=${() => change("DELETE", `/api/friends/${path(person.name)}`)}>${t("withdraw")}</button></li>`;
}

// The lobby's 好友 panel.
export function friendsPanel() {
  if (!registered()) {
    return html`<section class="card" id="friends"><h3>${t("friends")}</h3><p class="sub">${t("friendsGuest")}</p></section>`;
  }
  polling();
  const data = friends.data;
  const message = friends.message;
  const online = (data?.friends ?? []).filter((f) => f.presence.state !== "offline").length;
  return html`<section class="card" id="friends">
    <h3>${t("friends")} <small>${data ? t("friendsOnline", { n: online, of: data.friends.length }) : "…"}</small></h3>
    ${data?.incoming.length ? html`<h4>${t("friendRequests")}</h4><ul class="requests">${data.incoming.map(requestRow)}</ul>` : nothing}
    <ul class="friend-list">${(data?.friends ?? []).map(friendRow)}</ul>
    ${data && !data.friends.length ? html`<p class="sub">${t("noFriends")}</p>` : nothing}
    ${data?.outgoing.length ? html`<ul class="outgoing">${data.outgoing.map(outgoingRow)}</ul>` : nothing}
    <form class="add-friend" @submit=${addFriend}>
      <input name="name" maxlength="20" autocomplete="off" placeholder=${t("friendName")} aria-label=${t("friendName")}>
      <button class="primary">${t("addFriend")}</button>
    </form>
    ${message ? html`<p class=${`form-message ${message.kind}`} role=${message.kind === "ok" ? "status" : "alert"}>${message.text}</p>` : nothing}
  </section>`;
}

// On a narrow screen the panel lies below the rooms: a button at the lobby's top leads to it,
// with how many friends are online and how many requests wait.
export function friendsShortcut() {
  const data = friends.data;
  if (!registered() || !data) return nothing;
  const online = data.friends.filter((f) => f.presence.state !== "offline").length;
  const go = () => document.querySelector("#friends")?.scrollIntoView({ behavior: "smooth" });
  return html`<button id="to-friends" class="to-friends" @click=${go}>${t("friends")} · ${t("friendsOnline", { n: online, of: data.friends.length })}
    ${data.incoming.length ? html`<b class="badge">${t("requestsWaiting", { n: data.incoming.length })}</b>` : nothing} ↓</button>`;
}

// --- the profile page ---------------------------------------------------------------------------

// What I am to the player of the open profile (GET /api/relations/NAME), and mine on my own.
export async function loadRelation(view) {
  if (!registered()) return;
  const own = view.name === store.user.name;
  try {
    if (own) view.blocked = (await store.api.call("GET", "/api/blocks")).blocked;
    else view.relation = await store.api.call("GET", `/api/relations/${path(view.name)}`);
  } catch { /* a missing player is said by the page */ }
  changed();
}

async function relate(view, method, url, body) {
  if (await change(method, url, body, "notice")) await loadRelation(view);
}

// 加好友 / 关注 / 屏蔽 and their undoing, on another player's page.
export function relationButtons(view) {
  const r = view.relation;
  if (!r || !registered()) return nothing;
  const name = view.name, body = { name };
  const friendButton = r.friend
    ? html`<button id="unfriend" @click=${() => relate(view, "DELETE", `/api/friends/${path(name)}`)}>${t("removeFriend")}</button>`
    : r.asks
      ? html`<button id="accept-friend" class="primary" @click=${() => relate(view, "POST", `/api/friends/${path(name)}/accept`)}>${t("acceptFriend")}</button>`
      : r.asked
        ? html`<button id="withdraw-friend" @click=${() => relate(view, "DELETE", `/api/friends/${path(name)}`)}>${t("withdrawFriend")}</button>`
        : html`<button id="add-friend" class="primary" ?disabled=${r.blocking} @click=${() => relate(view, "POST", "/api/friends", body)}>${t("addFriend")}</button>`;
  const followButton = r.following
    ? html`<button id="unfollow" @click=${() => relate(view, "DELETE", `/api/follows/${path(name)}`)}>${t("unfollow")}</button>`
    : html`<button id="follow" ?disabled=${r.blocking} @click=${() => relate(view, "POST", "/api/follows", body)}>${t("follow")}</button>`;
  const blockButton = r.blocking
    ? html`<button id="unblock" @click=${() => relate(view, "DELETE", `/api/blocks/${path(name)}`)}>${t("unblock")}</button>`
    : html`<button id="block" class="danger" @click=${() => relate(view, "POST", "/api/blocks", body)}>${t("block")}</button>`;
  return html`<div class="relation" id="relation">
    <p class="sub">${r.friend ? t("isFriend") : r.asks ? t("asksYou") : nothing} ${t("followersCount", { n: r.followers })}
      ${r.blocking ? html`· <b class="blocking">${t("youBlock")}</b>` : nothing}</p>
    <div class="buttons">${friendButton}${followButton}${blockButton}</div></div>`;
}

// On my own page: those I block, each to unblock.
export function blockedList(view) {
  if (!view.blocked) return nothing;
  return html`<section class="account" id="blocked-users"><h3>${t("blockedUsers")}</h3>
    ${view.blocked.length ? nothing : html`<p class="sub">${t("noneBlocked")}</p>`}
    <ul>${view.blocked.map((p) => html`<li data-name=${p.name}>${profileLink(p.name)}
      <button class="mini unblock" @click=${() => relate(view, "DELETE", `/api/blocks/${path(p.name)}`)}>${t("unblock")}</button></li>`)}</ul>
  </section>`;
}
