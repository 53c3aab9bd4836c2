// Playing with people one knows: friend rooms (好友房) made and joined by code (and the
// #join/<code> link), invites sent and received, the host's seat arrangement, and the rematch
// (再来一局) on the result card. The server decides everything (docs/protocol.md, "Friend rooms,
// rematch and invites"); this draws it and sends what the player chose.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { command } from "./actions.js";
import { errorText, t, variantName } from "./i18n.js";
import { changed, notify, store, variantEntry } from "./store.js";
import { playerName } from "./seats.js";

const WATCHES = ["anyone", "friends", "nobody"];

// The link that opens a friend room from anywhere (a chat app): this page with #join/<code>.
export const joinLink = (code) => `${location.origin}${location.pathname}#join/${code}`;
const tableLink = (table) => `${location.origin}${location.pathname}#table/${table}`;

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    notify(t("linkCopied"), "info");
  } catch { // no clipboard (an insecure page): the text is shown to copy by hand
    notify(text, "info");
  }
}

// Join a friend room by its code (and password); opens its table. A room that asks a password
// the player did not give opens the join box with the code filled in.
export async function joinByCode(code, password = null) {
  notify(null);
  try {
    const ok = await store.socket.send({ type: "join", code, ...(password ? { password } : {}) });
    store.joinAsk = null;
    location.hash = `#table/${ok.table}`;
  } catch (error) {
    if (error.code === "room_password") store.joinAsk = { code };
    if (store.view !== "lobby" && store.view !== "table") store.view = "lobby";
    notify(error.code === "room_password" && !password ? t("needPassword") : errorText(error));
    changed();
  }
}

// --- the lobby -----------------------------------------------------------------------------------

// The friend room this page sits at (the lobby does not list it): noted from its snapshots, so
// that the lobby offers the way back.
export function noteFriendRoom(snap) {
  const room = snap.friend_room;
  const seated = snap.you !== null && snap.you !== undefined;
  if (room && seated) store.myFriendRoom = { code: room.code, table: snap.id, variant: snap.variant };
  else if (store.myFriendRoom?.table === snap.id) store.myFriendRoom = null;
}

export function backToFriendRoom() {
  const mine = store.myFriendRoom;
  if (!mine) return nothing;
  const back = async () => {
    await joinByCode(mine.code);
    if (store.view !== "table") store.myFriendRoom = null; // closed meanwhile
    changed();
  };
  return html`<p class="card back-to-game" id="back-to-friend-room">${t("yourFriendRoom", { code: mine.code, variant: variantName(mine.variant) })}
    <button class="primary" @click=${back}>${t("rejoin")}</button></p>`;
}

// The 输入房间号 box: a code, and a password if the room asks one.
export function joinBox() {
  const ask = store.joinAsk;
  const submit = (e) => {
    e.preventDefault();
    const form = e.target;
    const code = form.elements.code.value.trim();
    if (code) joinByCode(code, form.elements.password.value || null);
  };
  return html`<form class="join-code" id="join-code" @submit=${submit}>
    <label>${t("enterCode")} <input name="code" maxlength="16" autocomplete="off" autocapitalize="characters"
      spellcheck="false" placeholder="K7Q2MX" .value=${ask?.code ?? ""}></label>
    <label class=${ask ? "asked" : ""}>${t("passwordOptional")} <input name="password" type="password" maxlength="64" autocomplete="off"></label>
    <button class="primary" type="submit" id="join-button">${t("join")}</button>
  </form>`;
}

export function openFriendDialog(room) {
  store.friendDialog = { room };
  changed();
}

// The 创建好友房 dialog: password, seats kept for named friends, who may watch.
export function friendDialog() {
  const d = store.friendDialog;
  if (!d) return nothing;
  const room = store.lobby?.rooms?.find((r) => r.id === d.room);
  const seats = variantEntry(room?.variant)?.seats ?? 4;
  const close = () => { store.friendDialog = null; changed(); };
  const submit = async (e) => {
    e.preventDefault();
    const form = e.target;
    const reserved = {};
    for (let seat = 1; seat < seats; seat += 1) {
      const name = form.elements[`seat${seat}`].value.trim();
      if (name) reserved[seat] = name;
    }
    const password = form.elements.password.value;
    const ok = await command({ type: "create_table", room: d.room, private: true, reserved,
      watch: form.elements.watch.value, ...(password ? { password } : {}) });
    if (!ok) return;
    close();
    await command({ type: "sit", table: ok.table, seat: 0 });
    location.hash = `#table/${ok.table}`;
  };
  return html`<div class="modal-back" @click=${close}><div class="modal card friend-dialog" role="dialog" id="friend-dialog"
      @click=${(e) => e.stopPropagation()}>
    <h3>${t("createFriendRoom")} <small>${variantName(room?.variant)}</small></h3>
    <p class="sub">${t("friendRoomNote")}</p>
    <form @submit=${submit}>
      <label>${t("passwordOptional")} <input name="password" type="password" maxlength="64" autocomplete="new-password"></label>
      <fieldset><legend>${t("reserveSeats")}</legend>
        ${Array.from({ length: seats - 1 }, (_, i) => html`<label>${t("seat", { n: i + 2 })}
          <input name=${`seat${i + 1}`} maxlength="40" autocomplete="off" placeholder=${t("friendSeatName")}></label>`)}
      </fieldset>
      <label>${t("watchSetting")} <select name="watch">
        ${WATCHES.map((w) => html`<option value=${w}>${t(`watch_${w}`)}</option>`)}</select></label>
      <div class="buttons">
        <button class="primary" type="submit" id="friend-create">${t("createRoom")}</button>
        <button type="button" @click=${close}>${t("cancel")}</button>
      </div>
    </form></div></div>`;
}

// --- invites ---------------------------------------------------------------------------------------

// An ``invited`` notice: kept until joined or dismissed, shown wherever the player is.
export function invited(m) {
  store.invites = [...(store.invites ?? []).filter((i) => i.table !== m.table), m];
  changed();
}

function dismiss(invite) {
  store.invites = (store.invites ?? []).filter((i) => i !== invite);
  changed();
}

export function invitesView() {
  const invites = store.invites ?? [];
  if (!invites.length) return nothing;
  const go = (invite) => {
    dismiss(invite);
    if (invite.code) joinByCode(invite.code);
    else location.hash = `#table/${invite.table}`;
  };
  return html`<section class="invites" id="invites">${invites.map((invite) => html`<p class="card invite" data-table=${invite.table}>
    <span>${t("invitedBy", { name: invite.from, variant: variantName(invite.variant) })}</span>
    <button class="primary invite-join" @click=${() => go(invite)}>${t("join")}</button>
    <button class="invite-link" @click=${() => copy(invite.code ? joinLink(invite.code) : tableLink(invite.table))}>${t("copyLink")}</button>
    <button class="invite-dismiss" aria-label=${t("close")} @click=${() => dismiss(invite)}>✕</button></p>`)}</section>`;
}

// --- at the table ----------------------------------------------------------------------------------

async function invite(tableId, name) {
  if (await command({ type: "invite", table: tableId, user: name })) notify(t("inviteSent", { name }), "info");
}

// The friend room's card at the table: its code and link, its settings, invites and, for the
// host between games, moving players between seats (partners).
export function friendRoomCard(snap, tableId) {
  const room = snap.friend_room;
  const seated = snap.you !== null && snap.you !== undefined;
  const host = store.user?.name && snap.creator === store.user.name;
  if (!room && !seated) return nothing;
  const friends = store.friends ?? []; // the friends list, where the client has one
  const send = (e) => {
    e.preventDefault();
    const name = e.target.elements.user.value.trim();
    if (name) { invite(tableId, name); e.target.reset(); }
  };
  const arrange = (e) => {
    e.preventDefault();
    const f = e.target.elements;
    command({ type: "arrange", table: tableId, seat: Number(f.from.value), to: Number(f.to.value) });
  };
  const seatOptions = (chosen) => snap.seats.map((s) => html`<option value=${s.seat} ?selected=${s.seat === chosen}>
    ${t("seat", { n: s.seat + 1 })}${s.name ? ` · ${playerName(s, s.seat)}` : ""}</option>`);
  return html`<section class="card friend-room" id="friend-room" data-code=${room?.code ?? nothing}>
    ${room ? html`<h3>${t("friendRoom")}</h3>
      <p class="room-code"><span>${t("roomCode")}</span> <b id="room-code">${room.code}</b>
        <button class="small" id="copy-link" @click=${() => copy(joinLink(room.code))}>${t("copyLink")}</button></p>
      <p class="sub">${room.password ? `${t("hasPassword")} · ` : ""}${t("watchSetting")}: ${t(`watch_${room.watch}`)}</p>
      ${Object.entries(room.reserved).map(([seat, name]) => html`<p class="sub reserved" data-seat=${seat}>${t("reservedFor", { n: Number(seat) + 1, name })}</p>`)}` : nothing}
    <form class="invite-form" id="invite-form" @submit=${send}>
      <label>${t("inviteFriend")} <input name="user" maxlength="40" autocomplete="off" placeholder=${t("friendSeatName")}></label>
      <button type="submit" id="invite-button">${t("invite")}</button>
    </form>
    ${friends.length ? html`<p class="friend-list">${friends.map((f) => html`<button class="small" @click=${() => invite(tableId, f.name)}>${f.name}</button>`)}</p>` : nothing}
    ${host && snap.status !== "playing" ? html`<form class="arrange" id="arrange" @submit=${arrange}>
      <span>${t("arrange")}</span> <select name="from" aria-label=${t("arrange")}>${seatOptions(0)}</select> ↔
      <select name="to" aria-label=${t("arrangeTo")}>${seatOptions(1)}</select>
      <button type="submit" class="small">${t("arrangeGo")}</button></form>` : nothing}
  </section>`;
}

// 再来一局 on the result card: who agreed (bots at once), agree (or with a partner rotation
// where the variant has partners), or withdraw.
export function rematchBox(snap, tableId) {
  const r = snap.rematch;
  if (!r || snap.you === null || snap.you === undefined) return nothing;
  const names = r.agreed.map((seat) => playerName(snap.seats[seat], seat)); // bots agree at once
  const mine = r.agreed.includes(snap.you);
  const send = (agree, rotate = false) => command({ type: "rematch", table: tableId, agree, rotate });
  return html`<div class="rematch" id="rematch-box" data-agreed=${r.agreed.join(",")}>
    <p class="sub">${names.length ? t("rematchAgreed", { names: names.join(" · ") }) : t("rematchNone")}
      ${r.rotate.length ? html`<br>${t("rematchRotating", { n: r.rotate.length })}` : nothing}</p>
    <div class="buttons">${mine
      ? html`<span class="sub">${t("rematchWaiting")}</span><button id="rematch-withdraw" @click=${() => send(false)}>${t("rematchWithdraw")}</button>`
      : html`<button id="rematch" class="primary" @click=${() => send(true)}>${t("playAgain")}</button>
        ${r.rotation ? html`<button id="rematch-rotate" @click=${() => send(true, true)}>${t("rematchRotate")}</button>` : nothing}`}
    </div></div>`;
}
