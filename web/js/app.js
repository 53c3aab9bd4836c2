// The client: sign-in, lobby, table (deploy and play) and replays. It holds no rules: legal
// moves, layout problems and automatic layouts all come from the server.

import { Api, Socket } from "./api.js";
import { BoardView } from "./board.js";
import { RANK_SHORT, language, t, toggleLanguage } from "./i18n.js";

const api = new Api();
const main = document.querySelector("main");
const state = {
  user: null, socket: null, lobby: null, table: null, snapshot: null, boards: new Map(),
  draft: null, selected: null, problems: [], log: [], chat: [], view: null, replay: null,
};

const esc = (text) => String(text ?? "").replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
const $ = (sel) => main.querySelector(sel);

function notify(message) {
  const bar = document.querySelector("#notice");
  bar.textContent = message;
  bar.hidden = !message;
}

async function board(key) {
  if (!state.boards.has(key)) state.boards.set(key, await api.call("GET", `/api/boards/${key}`));
  return state.boards.get(key);
}

// --- header and sign-in -----------------------------------------------------------------------

function header() {
  document.querySelector("#lang").textContent = t("language");
  document.querySelector("#who").textContent = state.user ? state.user.name : "";
  document.title = t("title");
}

function showLogin() {
  state.view = "login";
  main.innerHTML = `
    <section class="panel" id="login">
      <h2>${t("title")}</h2>
      <button id="guest" class="primary">${t("guest")}</button>
      <form id="account">
        <label>${t("name")} <input name="name" autocomplete="username" required minlength="2"></label>
        <label>${t("password")} <input name="password" type="password" autocomplete="current-password" required minlength="6"></label>
        <button name="login">${t("login")}</button>
        <button name="register" type="button">${t("register")}</button>
      </form>
    </section>`;
  const form = $("#account");
  const enter = async (kind) => {
    try {
      state.user = await api.enter(kind, form.name.value, form.password.value);
      start();
    } catch (error) { notify(error.message); }
  };
  $("#guest").onclick = () => enter("guest");
  form.onsubmit = (e) => { e.preventDefault(); enter("login"); };
  form.register.onclick = () => enter("register");
}

async function start() {
  try {
    const me = await api.call("GET", "/api/me");
    state.user = me.user;
    state.profile = me;
  } catch {
    localStorage.removeItem("junqi.token");
    api.token = null;
    return showLogin();
  }
  header();
  state.socket = new Socket(api.token, onMessage);
  await state.socket.send({ type: "lobby" });
  const hash = location.hash;
  if (hash.startsWith("#replay/")) return showReplay(hash.slice(8));
  if (hash.startsWith("#table/")) return openTable(hash.slice(7));
  showLobby();
}

// --- messages from the server -----------------------------------------------------------------

function onMessage(m) {
  if (m.type === "lobby") {
    state.lobby = m.lobby;
    if (state.view === "lobby") showLobby();
  } else if ((m.type === "table" || m.type === "update") && m.table === state.table) {
    state.snapshot = m.snapshot;
    for (const e of m.events) state.log.push(e);
    if (state.view === "table") drawTable();
  } else if (m.type === "chat") {
    state.chat.push(m);
    if (state.view === "table" || state.view === "lobby") drawChat();
  }
}

// --- lobby ------------------------------------------------------------------------------------

function showLobby() {
  state.view = "lobby";
  location.hash = "";
  if (state.table) state.socket.send({ type: "close", table: state.table }).catch(() => {});
  state.table = null;
  const lobby = state.lobby;
  const profile = state.profile?.standings?.filter((s) => s.wins + s.losses + s.draws > 0 || s.variant === "siguo") ?? [];
  main.innerHTML = `
    <section class="panel" id="lobby">
      <h2>${t("lobby")} <button id="play-now" class="primary">${t("playNow")}</button></h2>
      ${!lobby ? "…" : lobby.rooms.map((room) => `
        <div class="room" data-room="${esc(room.id)}">
          <h3>${esc(room.name)} <small>${esc(room.variant)}</small>
            <button class="create" data-room="${esc(room.id)}">${t("create")}</button></h3>
          <details class="options"><summary>${t("options")}</summary>
            <label>${t("moveSeconds")} <input type="number" min="5" max="300" name="move_seconds" data-room="${esc(room.id)}" placeholder="${room.options.move_seconds ?? ""}"></label>
            <label>${t("information")} <select name="information" data-room="${esc(room.id)}"><option value=""></option>
              <option value="hidden">${t("hidden")}</option><option value="partners_open">${t("partnersOpen")}</option><option value="open">${t("open")}</option></select></label>
            <label>${t("scouting")} <select name="engineer_scouting" data-room="${esc(room.id)}"><option value=""></option>
              <option value="off">off</option><option value="all">all</option><option value="team">team</option></select></label>
            <label><input type="checkbox" class="stand-in" data-room="${esc(room.id)}"> ${t("standIn")}</label>
          </details>
          <ul class="tables">${room.tables.map((table) => `
            <li class="table-row" data-table="${table.id}">
              <span class="status ${table.status}">${t(table.status)}</span>
              ${table.seats.map((s) => s.name
                ? `<span class="seat-name">${esc(s.name)} <small>${esc(s.title)} ${s.points}</small>${s.ready ? " ✓" : ""}</span>`
                : `<button class="sit" data-table="${table.id}" data-seat="${s.seat}">${t("sit")} ${s.seat}</button>`).join("")}
              <button class="watch" data-table="${table.id}">${t("watch")} (${table.spectators})</button>
            </li>`).join("")}</ul>
        </div>`).join("")}
    </section>
    <section class="panel" id="profile">
      <h2>${t("profile")}</h2>
      <table><tr><th></th><th>${t("points")}</th><th>${t("titleOf")}</th><th>${t("record")}</th></tr>
      ${profile.map((s) => `<tr><td>${s.variant}</td><td>${s.points}</td><td>${s.title}</td><td>${s.wins}/${s.losses}/${s.draws}</td></tr>`).join("")}
      </table>
      <p id="escapes" class="warning" hidden></p>
      <h2>${t("myGames")}</h2><ul id="my-games"></ul>
      <h2>${t("games")}</h2><ul id="games"></ul>
    </section>
    <section class="panel" id="leaderboard"><h2>${t("leaderboard")}</h2><ol></ol></section>
    <section class="panel" id="chat"><h2>${t("chat")}</h2><div class="lines"></div>
      <form><input name="text" maxlength="200"><button>${t("send")}</button></form></section>`;
  $("#play-now").onclick = async () => {
    try {
      const ok = await state.socket.send({ type: "play_now" });
      openTable(ok.table);
    } catch (error) { notify(error.message); }
  };
  main.querySelectorAll("button.create").forEach((b) => { b.onclick = async () => {
    const options = {};
    main.querySelectorAll(`.options [data-room="${b.dataset.room}"]:not(.stand-in)`).forEach((field) => {
      if (field.value === "") return;
      options[field.name] = field.type === "number" ? Number(field.value) : field.value;
    });
    try {
      const standIn = main.querySelector(`.stand-in[data-room="${b.dataset.room}"]`)?.checked ?? false;
      const ok = await state.socket.send({ type: "create_table", room: b.dataset.room, options, stand_in: standIn });
      await state.socket.send({ type: "sit", table: ok.table, seat: 0 });
      openTable(ok.table);
    } catch (error) { notify(error.message); }
  }; });
  main.querySelectorAll("button.sit").forEach((b) => { b.onclick = async () => {
    try {
      await state.socket.send({ type: "sit", table: b.dataset.table, seat: Number(b.dataset.seat) });
      openTable(b.dataset.table);
    } catch (error) { notify(error.message); }
  }; });
  main.querySelectorAll("button.watch").forEach((b) => { b.onclick = () => openTable(b.dataset.table); });
  chatForm("lobby");
  drawChat();
  drawStandings();
  api.call("GET", "/api/games?limit=10").then((games) => {
    const list = $("#games");
    if (!list) return;
    list.innerHTML = games.filter((g) => g.status === "finished").map((g) =>
      `<li><a href="#replay/${g.id}" class="replay-link" data-game="${g.id}">${g.variant} ${g.players.map((p) => esc(p.name)).join(" · ")}</a></li>`).join("");
    list.querySelectorAll("a").forEach((a) => { a.onclick = (e) => { e.preventDefault(); showReplay(a.dataset.game); }; });
  });
}

function drawStandings() {
  api.call("GET", "/api/leaderboard?limit=10").then((ranks) => {
    const list = $("#leaderboard ol");
    if (list) list.innerHTML = ranks.map((r) =>
      `<li><b>${esc(r.name)}</b> ${r.points} <small>${esc(r.title)} ${r.wins}/${r.losses}/${r.draws}</small></li>`).join("");
  });
  api.call("GET", `/api/users/${encodeURIComponent(state.user.name)}/games?limit=5`).then((games) => {
    const list = $("#my-games");
    if (list) list.innerHTML = games.map((g) =>
      `<li>${esc(g.variant)} ${esc(t(g.outcome === "draw" ? "drawn" : g.outcome))} <b>${g.points > 0 ? "+" : ""}${g.points}</b> <small>${esc(g.reason ?? "")}</small></li>`).join("");
  });
  api.call("GET", "/api/me/escapes").then((standing) => {
    const box = $("#escapes");
    if (!box || !standing.escapes) return;
    box.hidden = false;
    box.textContent = standing.banned_until
      ? `${t("escapeBan")} ${new Date(standing.banned_until).toLocaleString()}`
      : `${t("escapeWarning")} (${standing.escapes})`;
  });
}

function chatForm(channel) {
  const form = main.querySelector("#chat form");
  if (!form) return;
  form.onsubmit = async (e) => {
    e.preventDefault();
    const text = form.text.value.trim();
    if (!text) return;
    const seated = state.snapshot?.you !== null && state.snapshot?.you !== undefined;
    const ch = channel === "lobby" ? "lobby" : seated ? "table" : "spectators";
    try {
      await state.socket.send({ type: "chat", channel: ch, table: state.table, text });
      form.text.value = "";
    } catch (error) { notify(error.message); }
  };
}

function drawChat() {
  const box = main.querySelector("#chat .lines");
  if (!box) return;
  const wanted = state.view === "lobby" ? (c) => c.channel === "lobby" : (c) => c.table === state.table;
  box.innerHTML = state.chat.filter(wanted).slice(-50).map((c) => `<p><b>${esc(c.from)}</b> ${esc(c.text)}</p>`).join("");
  box.scrollTop = box.scrollHeight;
}

// --- table ------------------------------------------------------------------------------------

async function openTable(id) {
  state.view = "table";
  state.table = id;
  state.log = [];
  state.draft = null;
  state.selected = null;
  location.hash = `#table/${id}`;
  main.innerHTML = `
    <section class="panel" id="table">
      <div class="bar"><button id="back">${t("back")}</button><span id="phase"></span><span id="clock"></span>
        <label class="level">${t("botLevel")} <select id="bot-level"><option value="easy">easy</option><option value="normal" selected>normal</option><option value="hard">hard</option></select></label></div>
      <div id="seats"></div>
      <div id="board-box"></div>
      <div id="controls"></div>
      <div id="problems"></div>
      <div id="result"></div>
    </section>
    <section class="panel" id="side"><h2>${t("chat")}</h2><div id="chat"><div class="lines"></div>
      <form><input name="text" maxlength="200"><button>${t("send")}</button></form></div>
      <ol id="log"></ol></section>`;
  $("#back").onclick = async () => {
    try { await state.socket.send({ type: "leave", table: id }); } catch { /* not seated */ }
    showLobby();
  };
  chatForm("table");
  try { await state.socket.send({ type: "open", table: id }); } catch (error) { notify(error.message); }
}

const game = () => state.snapshot?.game;

async function drawTable() {
  const snap = state.snapshot;
  if (!snap) return;
  const g = game();
  $("#phase").textContent = g ? t(g.phase) ?? g.phase : t(snap.status);
  tick();
  $("#seats").innerHTML = snap.seats.map((s) => {
    const info = g?.seats?.[s.seat];
    const out = info?.eliminated ? ` ${t("out")}` : "";
    const turn = g?.to_move === s.seat ? " to-move" : "";
    const away = s.away ? ` (${t("away")} <span class="countdown" data-until="${s.away_until}"></span>)` : "";
    if (!s.name && !g?.phase?.match(/picking|redealing|bidding|deploying|playing/)) {
      // only the table's players and its creator may seat bots (the server refuses others)
      const mayAdd = snap.you !== null || snap.creator === state.user?.name;
      const add = mayAdd ? ` <button class="add-bot" data-seat="${s.seat}">${t("addBot")}</button>` : "";
      return `<span class="seat" data-seat="${s.seat}">${s.seat}: ${t("empty")}${add}</span>`;
    }
    return `<span class="seat${turn}" data-seat="${s.seat}">${s.seat}: ${esc(s.name ?? t("empty"))}${s.ready ? " ✓" : ""}${away}${info ? ` · ${t("skips")} ${info.skips}` : ""}${out}</span>`;
  }).join("");
  main.querySelectorAll("button.add-bot").forEach((b) => { b.onclick = () =>
    state.socket.send({ type: "add_bot", table: state.table, seat: Number(b.dataset.seat), level: $("#bot-level").value }).catch((e) => notify(e.message)); });
  drawControls();
  if (!g || (g.phase !== "picking" && g.phase !== "redealing" && g.phase !== "bidding")) await drawBoard();
  drawResult();
  const shown = state.log.filter((e) => e.kind !== "turn" && e.kind !== "hand");
  $("#log").innerHTML = shown.slice(-12).map((e) => `<li>${esc(describe(e))}</li>`).join("");
  drawChat();
}

const OUTCOME = {
  zh: { attacker: "守方阵亡", defender: "攻方阵亡", both: "同归于尽" },
  en: { attacker: "the defender dies", defender: "the attacker dies", both: "both die" },
};

function describe(e) {
  if (e.kind === "moved") {
    const what = e.rank ? RANK_SHORT[e.rank] : "";
    const fight = e.outcome ? ` ⚔ ${OUTCOME[language()][e.outcome]}` : "";
    return `${e.seat}: ${what} ${e.origin} → ${e.target}${fight}`;
  }
  return `${e.kind} ${e.seat ?? ""}`;
}

function tick() {
  document.querySelectorAll(".countdown").forEach((span) => {
    span.textContent = `${Math.max(0, Math.ceil(Number(span.dataset.until) - Date.now() / 1000))}s`;
  });
  const clock = document.querySelector("#clock");
  const g = game();
  if (!clock) return;
  if (!g || !g.deadline || g.phase === "finished") { clock.textContent = ""; return; }
  const left = Math.max(0, Math.ceil(g.deadline - Date.now() / 1000));
  const who = g.phase === "playing" ? `${g.to_move} ${t("toMove")} · ` : "";
  clock.textContent = `${who}${t("deadline")} ${left}s`;
  clock.classList.toggle("urgent", left <= 5);
}
setInterval(tick, 500);

function drawControls() {
  const g = game(), snap = state.snapshot, me = snap.you;
  const box = $("#controls");
  const buttons = [];
  if (!g || g.phase === "finished") {
    if (me !== null) {
      const ready = snap.seats[me].ready;
      buttons.push(`<button id="ready" class="primary">${ready ? t("unready") : t("ready")}</button>`);
      buttons.push(`<button id="stand">${t("stand")}</button>`);
    }
  } else if (me !== null && g.phase === "deploying" && !g.seats[me].confirmed) {
    buttons.push(`<button id="auto">${t("auto")}</button>`, `<button id="confirm" class="primary">${t("confirm")}</button>`,
      `<button id="save">${t("save")}</button>`, `<select id="saved"><option value="">${t("load")}…</option></select>`,
      `<button id="export">${t("export")}</button>`, `<label class="file">${t("import")} <input id="import" type="file" accept=".txt,text/plain"></label>`);
  } else if (me !== null && g.phase === "picking" && g.deal.waiting.includes(me)) {
    for (let c = 0; c < 4; c++) if (!g.deal.picks.includes(c)) buttons.push(`<button class="pick" data-colour="${c}">${t("picking")} ${c}</button>`);
  } else if (me !== null && g.phase === "redealing" && g.deal.waiting.includes(me)) {
    if (g.deal.may_ask_redeal) buttons.push(`<button class="redeal" data-v="1">${t("redeal")}</button>`);
    buttons.push(`<button class="redeal" data-v="0">${t("keep")}</button>`);
  } else if (me !== null && g.phase === "bidding" && g.deal.waiting.includes(me)) {
    const top = Math.max(0, ...g.deal.bids.filter((b) => b !== null));
    buttons.push(`<button class="bid" data-level="0">${t("pass")}</button>`);
    for (let l = top + 1; l <= 3; l++) buttons.push(`<button class="bid" data-level="${l}">${t("bidding")} ${l}</button>`);
  } else if (me !== null && g.phase === "playing") {
    if (g.to_move === me) buttons.push(`<span class="your-turn">${t("yourTurn")}</span>`);
    if (g.proposal && g.proposal.waiting.includes(me)) {
      buttons.push(`<button class="answer" data-v="1">${t("accept")} (${g.proposal.kind})</button>`, `<button class="answer" data-v="0">${t("decline")}</button>`);
    } else {
      buttons.push(`<button id="draw">${t("draw")}</button>`, `<button id="surrender">${t("surrender")}</button>`);
    }
    if (g.seats[me].raise_flag_by) buttons.push(`<span class="raise">${t("raise")}: HQ</span>`);
  }
  box.innerHTML = buttons.join(" ");
  const act = (action) => state.socket.send({ type: "act", table: state.table, version: snap.version, action }).catch((e) => notify(e.message));
  box.querySelector("#ready")?.addEventListener("click", () => state.socket.send({ type: "ready", table: state.table, ready: !snap.seats[me].ready }).catch((e) => notify(e.message)));
  box.querySelector("#stand")?.addEventListener("click", () => state.socket.send({ type: "stand", table: state.table }).then(showLobby).catch((e) => notify(e.message)));
  box.querySelector("#auto")?.addEventListener("click", () => autoLayout());
  box.querySelector("#confirm")?.addEventListener("click", () => act({ type: "place_layout", layout: state.draft ?? {}, confirm: true }));
  box.querySelector("#export")?.addEventListener("click", () => exportLayout());
  box.querySelector("#save")?.addEventListener("click", () => saveLayout());
  const saved = box.querySelector("#saved");
  if (saved) fillSaved(saved);
  box.querySelector("#import")?.addEventListener("change", (e) => importLayout(e.target.files[0]));
  box.querySelectorAll(".pick").forEach((b) => b.addEventListener("click", () => act({ type: "pick_colour", colour: Number(b.dataset.colour) })));
  box.querySelectorAll(".redeal").forEach((b) => b.addEventListener("click", () => act({ type: "answer_redeal", redeal: b.dataset.v === "1" })));
  box.querySelectorAll(".bid").forEach((b) => b.addEventListener("click", () => act({ type: "bid", level: Number(b.dataset.level) })));
  box.querySelectorAll(".answer").forEach((b) => b.addEventListener("click", () => act({ type: "answer_proposal", accept: b.dataset.v === "1" })));
  box.querySelector("#draw")?.addEventListener("click", () => act({ type: "propose_draw" }));
  box.querySelector("#surrender")?.addEventListener("click", () => act({ type: "surrender" }));
}

function deployArgs() {
  const g = game(), me = state.snapshot.you;
  const hand = g.deal?.hand ? g.deal.hand.map((p) => [p.rank, p.army]) : null;
  return { variant: g.variant, seat: me, hand, banker: g.deal?.banker === me };
}

async function autoLayout() {
  try {
    state.draft = await api.call("POST", "/api/layouts/auto", { ...deployArgs(), layout: {}, seed: Math.floor(Math.random() * 1e6) });
    await checkDraft();
  } catch (error) { notify(error.message); }
}

async function checkDraft() {
  state.problems = await api.call("POST", "/api/layouts/check", { ...deployArgs(), layout: state.draft ?? {} });
  $("#problems").innerHTML = state.problems.length ? `<h3>${t("problems")}</h3><ul>${state.problems.map((p) => `<li class="problem-line">${esc(p.code)}: ${esc(p.detail)} ${p.stations.join(" ")}</li>`).join("")}</ul>` : "";
  drawBoard();
}

async function saveLayout() {
  const name = prompt(t("name"), "");
  if (!name) return;
  try {
    const text = await api.call("POST", "/api/layouts/format", { ...deployArgs(), layout: state.draft ?? {} });
    await api.call("POST", "/api/layouts", { name, variant: game().variant, text });
    const select = $("#saved");
    if (select) await fillSaved(select);
    notify(`${t("save")}: ${name}`);
  } catch (error) { notify(error.message); }
}

async function fillSaved(select) {
  const rows = await api.call("GET", "/api/layouts");
  while (select.options.length > 1) select.remove(1);
  for (const row of rows.filter((r) => r.variant === game()?.variant)) {
    const option = document.createElement("option");
    option.value = row.id;
    option.textContent = row.name;
    option.dataset.text = row.text;
    select.appendChild(option);
  }
  select.onchange = async () => {
    const option = select.selectedOptions[0];
    if (!option?.dataset.text) return;
    const parsed = await api.call("POST", `/api/layouts/parse?seat=${state.snapshot.you}`, { name: option.textContent, variant: game().variant, text: option.dataset.text });
    if (parsed.layout) { state.draft = parsed.layout; await checkDraft(); }
  };
}

async function exportLayout() {
  const text = await api.call("POST", "/api/layouts/format", { ...deployArgs(), layout: state.draft ?? {} });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  link.download = "junqi-layout.txt";
  link.click();
}

async function importLayout(file) {
  if (!file) return;
  try {
    const text = await file.text();
    const parsed = await api.call("POST", `/api/layouts/parse?seat=${state.snapshot.you}`, { name: file.name.slice(0, 60), variant: game().variant, text });
    if (parsed.error) throw new Error(parsed.error);
    state.draft = parsed.layout;
    await checkDraft();
  } catch (error) {
    $("#problems").innerHTML = `<h3>${t("problems")}</h3><ul><li class="problem-line">${esc(error.message)}</li></ul>`;
  }
}

function piecesToDraw() {
  const g = game(), me = state.snapshot.you;
  if (!g) return [];
  if (g.phase === "deploying") {
    const draft = state.draft ?? {};
    return Object.entries(draft).map(([station, key]) => {
      const [rank, army] = key.split("/");
      return { station, seat: me, army: army === undefined ? me : Number(army), rank };
    });
  }
  const specials = ["supreme_marshal", "missile", "fortress"];
  return (g.pieces ?? []).map((p) => ({ ...p, gold: p.seat === me && specials.includes(p.rank) }));
}

async function drawBoard() {
  const g = game();
  const data = await board(g ? g.board : state.snapshot.board);
  const box = $("#board-box");
  if (!box) return;
  if (!state.boardView || state.boardView.data !== data || !box.contains(state.boardView.svg)) {
    box.replaceChildren();
    state.boardView = new BoardView(box, data, { click: onStation, drop: onDrop });
  }
  const targets = new Set(state.selected && g?.legal_moves?.[state.selected] ? g.legal_moves[state.selected] : []);
  const problems = new Set(state.problems.flatMap((p) => p.stations));
  const moved = [...state.log].reverse().find((e) => e.kind === "moved");
  const me = state.snapshot.you;
  const fresh = moved && moved.seq !== state.animated;
  if (fresh) state.animated = moved.seq;
  state.boardView.render(me, piecesToDraw(), {
    selected: state.selected, targets, problems, last: moved ? [moved.origin, moved.target] : [],
    animate: fresh ? moved : null,
  });
}

function onStation(station) {
  const g = game();
  if (!g) return;
  if (g.phase === "deploying") {
    if (state.selected && state.selected !== station) return onDrop(state.selected, station);
    state.selected = state.selected === station ? null : station;
    return drawBoard();
  }
  if (g.phase !== "playing" || g.to_move !== state.snapshot.you) return;
  if (state.selected && g.legal_moves?.[state.selected]?.includes(station)) {
    const origin = state.selected;
    state.selected = null;
    state.socket.send({ type: "act", table: state.table, version: state.snapshot.version,
      action: { type: "move", origin, target: station } }).catch((e) => notify(e.message));
    return;
  }
  if (g.seats[state.snapshot.you]?.raise_flag_by) {
    state.socket.send({ type: "act", table: state.table, version: state.snapshot.version,
      action: { type: "raise_flag", station } }).catch((e) => notify(e.message));
  }
  state.selected = g.legal_moves?.[station] ? station : null;
  drawBoard();
}

function onDrop(from, to) {
  const g = game();
  if (g?.phase === "playing") { state.selected = from; return onStation(to); }
  if (g?.phase !== "deploying" || !state.draft) return;
  const draft = { ...state.draft };
  const a = draft[from], b = draft[to];
  delete draft[from]; delete draft[to];
  if (a !== undefined) draft[to] = a;
  if (b !== undefined) draft[from] = b;
  state.draft = draft;
  state.selected = null;
  checkDraft();
}

function drawResult() {
  const g = game(), box = $("#result");
  if (!g || g.phase !== "finished" || !g.result) { box.innerHTML = ""; return; }
  const points = state.snapshot.points ?? [];
  box.innerHTML = `<h3>${t("result")}: ${esc(g.result.reason)}</h3><ul>${g.result.seats.map((s) =>
    `<li class="outcome">${s.seat}: ${t(s.outcome === "draw" ? "drawn" : s.outcome)} (${points[s.seat] ?? s.points})</li>`).join("")}</ul>
    ${state.snapshot.game_id ? `<a href="#replay/${state.snapshot.game_id}" id="to-replay">${t("replay")}</a>` : ""}`;
  box.querySelector("#to-replay")?.addEventListener("click", (e) => { e.preventDefault(); showReplay(state.snapshot.game_id); });
}

// --- replays ----------------------------------------------------------------------------------

async function showReplay(gameId) {
  state.view = "replay";
  location.hash = `#replay/${gameId}`;
  main.innerHTML = `
    <section class="panel" id="replay">
      <div class="bar"><button id="back">${t("back")}</button>
        <button id="prev">${t("prev")}</button><span id="step"></span><button id="next">${t("next")}</button>
        <a id="share" href="#replay/${gameId}">${t("share")}</a></div>
      <div id="board-box"></div>
    </section>`;
  $("#back").onclick = showLobby;
  const record = await api.call("GET", `/api/games/${gameId}/record`);
  state.replay = { id: gameId, step: record.record.actions.length, steps: record.record.actions.length };
  const go = async (delta) => {
    const r = state.replay;
    r.step = Math.max(0, Math.min(r.steps, r.step + delta));
    const answer = await api.call("GET", `/api/games/${gameId}/replay/${r.step}`);
    $("#step").textContent = `${r.step} / ${r.steps}`;
    const data = await board(answer.state.board);
    const box = $("#board-box");
    box.replaceChildren();
    new BoardView(box, data, { click() {}, drop() {} }).render(null, answer.state.pieces ?? []);
  };
  $("#prev").onclick = () => go(-1);
  $("#next").onclick = () => go(1);
  go(0);
}

// --- start ------------------------------------------------------------------------------------

document.querySelector("#lang").onclick = () => {
  toggleLanguage();
  document.documentElement.lang = language();
  header();
  if (state.view === "lobby") showLobby();
  else if (state.view === "table") drawTable();
  else if (state.view === "login") showLogin();
};
document.documentElement.lang = language();
window.junqi = state; // for debugging and the browser tests
header();
if (api.token) start(); else showLogin();
