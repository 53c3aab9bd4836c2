// The lobby 大厅: rooms by variant with their tables, play now with bots, the player's friends
// (friends.js), record, the leaderboard, recent games (replays) and the lobby chat.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { command } from "./actions.js";
import { avatar, profileLink, rankBadge } from "./avatar.js";
import { ARMY_COLOURS, NEUTRAL } from "./board.js";
import { chatBox } from "./chat.js";
import { friendsPanel, friendsShortcut } from "./friends.js";
import { roomName, ruleText, t, unratedText, variantName } from "./i18n.js";
import { paceSelect, preferredPace } from "./pace.js";
import { quickCard } from "./quick.js";
import { changed, store, variantEntry } from "./store.js";
import { playerName } from "./seats.js";
import { openTable } from "./table.js";
import { backToFriendRoom, joinBox, openFriendDialog } from "./gathering.js";

const extras = { leaderboard: [], myGames: [], games: [], escapes: null, loadedAt: 0 };

export function enterLobby() {
  store.view = "lobby";
  if (Date.now() - extras.loadedAt > 5000) loadExtras();
  changed();
}

async function loadExtras() {
  extras.loadedAt = Date.now();
  const api = store.api;
  const get = (path) => api.call("GET", path).catch(() => null);
  const [me, leaderboard, games, escapes] = await Promise.all([
    get("/api/me"), get("/api/leaderboard?limit=10"), get("/api/games?limit=12"), get("/api/me/escapes"),
  ]);
  if (me) store.profile = me;
  extras.leaderboard = leaderboard ?? [];
  extras.games = (games ?? []).filter((g) => g.status === "finished");
  extras.escapes = escapes;
  if (store.user) extras.myGames = (await get(`/api/users/${encodeURIComponent(store.user.name)}/games?limit=5`)) ?? [];
  changed();
}

async function playNow(room) {
  const pace = preferredPace();
  const ok = await command({ type: "play_now", ...(room ? { room } : {}), ...(pace ? { pace } : {}) });
  if (ok) openTable(ok.table);
}

async function create(room) {
  const form = document.querySelector(`form.options[data-room="${CSS.escape(room)}"]`);
  const options = {};
  if (form) {
    const seconds = form.elements.move_seconds.value;
    if (seconds) options.move_seconds = Number(seconds);
    if (form.elements.engineer_scouting.value) options.engineer_scouting = form.elements.engineer_scouting.value;
  }
  const standIn = form?.elements.stand_in.checked ?? false;
  const pace = form?.elements.pace.value || preferredPace();
  const ok = await command({ type: "create_table", room, options, stand_in: standIn, ...(pace ? { pace } : {}) });
  if (!ok) return;
  await command({ type: "sit", table: ok.table, seat: 0 });
  openTable(ok.table);
}

async function sit(table, seat) {
  if (await command({ type: "sit", table, seat })) openTable(table);
}

// An unrated table's mark: why, in short (on a phone there is no tooltip), and in full on hover.
function unratedMark(table) {
  const why = unratedText(table.unrated_because, true);
  return html`<small class="unrated" title=${unratedText(table.unrated_because)}>${t("unratedShort")}${why ? ` · ${why}` : ""}</small>`;
}

// Where the chairs stand round a table of n seats, seat 0 nearest the viewer.
const PLACES = { 2: ["s", "n"], 3: ["s", "e", "w"], 4: ["s", "e", "n", "w"] };

// A chair's colour: the seat's army where a seat plays its own, grey while it is picked or
// found in play (the lobby does not follow the game; the table shows it).
function chairColour(table, seat) {
  return variantEntry(table.variant)?.capabilities?.colour === "seat" ? ARMY_COLOURS[seat] ?? NEUTRAL : NEUTRAL;
}

// One chair at a table: its sitter's avatar, name, 军衔 (a bot's mark instead) and ready mark;
// an empty one says 空位 and, between games, sits you there at a click.
function chair(table, s, place) {
  const colour = `--seat:${chairColour(table, s.seat)}`;
  if (!s.name) {
    const label = `${t("empty")} · ${t("seat", { n: s.seat + 1 })}`;
    return table.status === "playing"
      ? html`<div class=${`chair ${place} free`} data-seat=${s.seat} .style=${colour}><span class="chair-name">${t("empty")}</span></div>`
      : html`<button class=${`chair ${place} free sit`} data-table=${table.id} data-seat=${s.seat} aria-label=${label}
          .style=${colour} @click=${() => sit(table.id, s.seat)}>
          <span class="chair-name">${t("empty")}</span><small>${t("sitHere")}</small></button>`;
  }
  return html`<div class=${`chair ${place} taken${s.ready ? " ready" : ""}`} data-seat=${s.seat} data-name=${s.name}
      data-ready=${s.ready ? "1" : "0"} .style=${colour}>
    ${avatar(playerName(s, s.seat), 30)}
    <span class="chair-who"><span class="chair-name seat-name">${s.bot ? playerName(s, s.seat) : profileLink(s.name)}</span>
      ${s.bot ? html`<small class="bot-mark">${t(s.level ?? "normal")}</small>` : rankBadge(s.title, s.title_level)}</span>
    ${s.ready && table.status !== "playing" ? html`<span class="ready-mark" title=${t("isReady")}>✓</span>` : nothing}
  </div>`;
}

// A table as QQ游戏 draws it: the table in the middle (what it is, 旁观 on it), a chair at
// each side in its seat's colour.
function tableRow(table) {
  const places = PLACES[table.seats.length] ?? PLACES[4];
  return html`<li class="table-row" data-table=${table.id}>
    <div class=${`furniture seats-${table.seats.length}`}>
      <div class="table-top">
        <span class=${`status ${table.status}`}>${t(table.status)}</span>
        ${table.rated ? nothing : unratedMark(table)}
        ${mine(table) ? html`<button class="primary rejoin" @click=${() => openTable(table.id)}>${t("rejoin")}</button>` : nothing}
        <button class="watch" data-table=${table.id} @click=${() => openTable(table.id)}>${t("watch")} (${table.spectators})</button>
      </div>
      ${table.seats.map((s, i) => chair(table, s, places[i] ?? "s"))}
    </div>
  </li>`;
}

const mine = (table) => table.seats.some((s) => s.name === store.user?.name);
// a table worth listing: a game on, or somebody waiting at it for players
const active = (table) => table.status === "playing" || (table.status === "waiting" && table.seats.some((s) => s.name && !s.bot)) || mine(table);

function roomCard(room) {
  const shown = room.tables.filter(active);
  const rest = room.tables.filter((table) => !active(table));
  if (room.closed) { // closed by an admin: its running games are listed until they end
    return html`<section class="card room closed" data-room=${room.id}>
      <header><h3>${roomName(room)}</h3><span class="variant">${variantName(room.variant)}</span> <small class="closed">${t("closedRoom")}</small></header>
      <ul class="tables">${room.tables.map(tableRow)}</ul>
    </section>`;
  }
  return html`<section class="card room" data-room=${room.id}>
    <header><h3>${roomName(room)}</h3><span class="variant">${variantName(room.variant)}</span>
      <a class="rules-link" href=${`#rules/${encodeURIComponent(room.id)}`} data-rules=${room.id}>${ruleText("rulesTitle")}</a></header>
    <div class="buttons">
      <button class="play-bots primary" data-room=${room.id} @click=${() => playNow(room.id)}>${t("playBots")}</button>
      <button class="create" data-room=${room.id} @click=${() => create(room.id)}>${t("create")}</button>
      <button class="create-friend" data-room=${room.id} @click=${() => openFriendDialog(room.id)}>${t("createFriendRoom")}</button>
    </div>
    <details><summary>${t("options")}</summary>
      <form class="options" data-room=${room.id} @submit=${(e) => e.preventDefault()}>
        <label>${t("moveSeconds")} <input type="number" min="10" max="300" name="move_seconds" placeholder=${room.options.move_seconds ?? variantEntry(room.variant)?.rules.move_seconds ?? ""}></label>
        <label>${t("scouting")} <select name="engineer_scouting"><option value=""></option>
          <option value="off">${t("scoutOff")}</option><option value="all">${t("scoutAll")}</option><option value="team">${t("scoutTeam")}</option></select></label>
        <label title=${t("standInHelp")}><input type="checkbox" name="stand_in"> ${t("standIn")}</label>
        <p class="sub stand-in-help">${t("standInHelp")}</p>
        ${paceSelect(`pace-${room.id}`, preferredPace() ?? "normal")}
      </form></details>
    <ul class="tables">${shown.map(tableRow)}</ul>
    ${rest.length ? html`<details class="quiet-tables"><summary>${t("quietTables", { n: rest.length })}</summary>
      <ul class="tables">${rest.map(tableRow)}</ul></details>` : nothing}
  </section>`;
}

// The variant of the room play now takes (the server's default), null before the listing came.
const playNowVariant = () => store.lobby?.variants?.find((v) => v.play_now)?.key ?? null;

function sidebar() {
  const first = playNowVariant(); // shown even before a game of it
  const standings = (store.profile?.standings ?? []).filter((s) => s.wins + s.losses + s.draws > 0 || s.variant === first);
  const escapes = extras.escapes;
  return html`<aside class="side">
    ${friendsPanel()}
    <section class="card" id="profile"><h3>${t("profile")}</h3>
      <table><thead><tr><th></th><th>${t("points")}</th><th>${t("titleOf")}</th><th>${t("record")}</th></tr></thead>
      <tbody>${standings.map((s) => html`<tr><td>${variantName(s.variant)}</td><td>${s.points}</td><td>${rankBadge(s.title, s.level)}</td><td>${s.wins}/${s.losses}/${s.draws}</td></tr>`)}</tbody></table>
      ${escapes?.escapes ? html`<p id="escapes" class="warning">${escapes.banned_until
        ? `${t("escapeBan")} ${new Date(escapes.banned_until).toLocaleString()}` : `${t("escapeWarning")} (${escapes.escapes})`}</p>` : nothing}
      <h3>${t("myGames")}</h3>
      <ul id="my-games">${extras.myGames.map((g) => html`<li><a href=${`#replay/${g.game}`} class="replay-link">${variantName(g.variant)}</a>
        ${t(g.outcome === "draw" ? "drawn" : g.outcome)} <b>${g.points > 0 ? "+" : ""}${g.points}</b></li>`)}</ul>
    </section>
    <section class="card" id="leaderboard"><h3>${t("leaderboard")}</h3>
      <ol>${extras.leaderboard.map((r) => html`<li>${avatar(r.name, 24)} <b>${profileLink(r.name)}</b> ${rankBadge(r.title, r.level)} ${r.points} <small>${r.wins}/${r.losses}/${r.draws}</small></li>`)}</ol></section>
    <section class="card" id="games"><h3>${t("games")}</h3>
      <ul>${extras.games.map((g) => html`<li><a href=${`#replay/${g.id}`} class="replay-link" data-game=${g.id}>
        ${variantName(g.variant)} · ${g.players.map((p) => p.name ?? playerName({ bot: true }, p.seat)).join(" · ")}</a></li>`)}</ul></section>
    ${chatBox("lobby")}
  </aside>`;
}

export function lobbyView() {
  const lobby = store.lobby;
  const running = (lobby?.rooms ?? []).flatMap((r) => r.tables).filter((table) => table.status === "playing" && mine(table));
  const quick = playNowVariant();
  return html`<section class="lobby-view" id="lobby">
    <div class="rooms">
      ${running.map((table) => html`<p class="card back-to-game" data-table=${table.id}>${t("yourGameOn", { variant: variantName(table.variant) })}
        <button class="primary" @click=${() => openTable(table.id)}>${t("rejoin")}</button></p>`)}
      ${backToFriendRoom()}
      <section class="card welcome">
        <h2>${t("lobby")}</h2><p class="sub">${t("lobbyNote")}</p>
        <button id="play-now" class="primary big" @click=${() => playNow(null)}>${t("playNow")}${quick ? ` · ${variantName(quick)}` : ""}</button>
        ${friendsShortcut()}
        ${joinBox()}
      </section>
      ${quickCard()}
      ${lobby ? lobby.rooms.map(roomCard) : html`<p>…</p>`}
    </div>
    ${sidebar()}
  </section>`;
}
