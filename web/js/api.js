// REST calls and the WebSocket connection (docs/protocol.md). Every failure becomes a
// ServerError with a stable code, which the interface puts in the player's words (i18n.js).
// The socket signs in by its first message (the token never goes in its URL, which proxies
// log), reconnects with backoff after any close but a refusal (4401, 4003) - one for being too
// far behind (4008) or for too many sockets (4429) too -, notices a silent one (a watchdog of
// pings) and reconnects the moment the browser is back online, resyncs every open table from
// the last event number it saw, and keeps the offset between this machine's clock and the server's
// (from its pongs). It names this browser by a device id of its own, kept in localStorage:
// seats that share a device play unrated, as seats that share an address do.

export class ServerError extends Error {
  constructor(code, message, field, kind, retryAfter) {
    super(message ?? code);
    this.code = code;
    this.field = field; // a refused input: which field,
    this.kind = kind; // and what is wrong with it (string_too_long, ...)
    this.retryAfter = retryAfter; // seconds to wait before trying again (login_wait, busy)
  }
}

const DEVICE = /^[A-Za-z0-9_-]{8,64}$/; // what the server takes as a device id

// This browser's device id: made once, then the same on every page and after every reload.
// crypto.randomUUID needs a secure context; getRandomValues does not (plain http to a LAN host).
export function deviceId() {
  let id = localStorage.getItem("junqi.device");
  if (id && DEVICE.test(id)) return id;
  id = globalThis.crypto?.randomUUID?.()
    ?? Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
  localStorage.setItem("junqi.device", id);
  return id;
}

const STATUS_CODES = { 401: "unauthorized", 403: "forbidden", 404: "not_found", 409: "conflict", 429: "rate_limited" };

// A refusal of the accounts' rules names its code in a header (X-Error-Code: name_reserved,
// login_wait, ...); else the status says what it is.
function restError(response, data) {
  const status = response.status, named = response.headers.get("X-Error-Code");
  const detail = data && typeof data === "object" ? data.detail : data;
  if (status === 422 && Array.isArray(detail)) {
    const loc = detail[0]?.loc ?? [];
    return new ServerError("validation", detail[0]?.msg, loc[loc.length - 1], detail[0]?.type);
  }
  const code = named || STATUS_CODES[status] || (status === 422 ? "validation" : "server");
  const wait = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
  return new ServerError(code, typeof detail === "string" ? detail : undefined, undefined, undefined,
    Number.isFinite(wait) ? wait : undefined);
}

export class Api {
  constructor() {
    this.token = localStorage.getItem("junqi.token");
  }

  async fetch(method, path, body) {
    const headers = { "Content-Type": "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    try {
      return await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch {
      throw new ServerError("network");
    }
  }

  async call(method, path, body) {
    const response = await this.fetch(method, path, body);
    const text = await response.text();
    let data = text;
    try { data = JSON.parse(text); } catch { /* plain text answers: layout files */ }
    if (!response.ok) throw restError(response, data);
    return data;
  }

  // A file the server makes (a layout file to download).
  async blob(method, path, body) {
    const response = await this.fetch(method, path, body);
    if (!response.ok) {
      const data = await response.json().catch(() => null);
      throw restError(response, data);
    }
    return response.blob();
  }

  async enter(kind, name, password) {
    const path = kind === "guest" ? "/api/auth/guest" : `/api/auth/${kind}`;
    const body = kind === "guest" ? undefined : { name, password };
    const answer = await this.call("POST", path, body);
    this.token = answer.token;
    localStorage.setItem("junqi.token", answer.token);
    return answer.user;
  }

  // A new password for this account (204); the server ends every other login of it, and this
  // one goes on.
  async changePassword(current, next) {
    await this.call("POST", "/api/auth/password", { current_password: current, new_password: next });
  }

  forget() {
    this.token = null;
    localStorage.removeItem("junqi.token");
  }

  // Log out: this token (or, everywhere, every token of the user) is revoked on the server,
  // which closes the sockets signed in with it; forgotten here even if the server is away.
  async logout(everywhere = false) {
    try {
      await this.call("POST", everywhere ? "/api/auth/logout-all" : "/api/auth/logout");
    } finally {
      this.forget();
    }
  }
}

// The watchdog's timings (ms): a ping after PING_AFTER of silence; a socket that then hears
// nothing for DEAD_AFTER more, or that is not signed in DEAD_AFTER after it was made, is given
// up at once (without waiting for a close handshake that a dead network never answers) and
// another made. So silence is noticed within about 4.5 s, whatever the browser's TCP does.
const PING_AFTER = 1500, DEAD_AFTER = 2500, WATCH_EVERY = 250;

export class Socket {
  // handlers: { message(m), status("online" | "offline", close code), refused(code, reason) }
  constructor(token, handlers) {
    this.token = token;
    this.handlers = handlers;
    this.counter = 0;
    this.waiting = new Map();
    this.open = new Map(); // table id -> last event seq seen
    this.snapshots = new Map(); // table id -> the snapshot as the last message left it
    this.epochs = new Map(); // table id -> the epoch of its owner (server) last heard
    this.delay = 250; // before the next attempt after a lost socket: doubled each time
    this.offset = 0; // server clock - this clock, in seconds
    this.up = false; // signed in on the current socket
    // what is sent while no socket is up waits for the next one's welcome
    this.ready = new Promise((resolve) => { this.signedIn = resolve; });
    this.connect();
    setInterval(() => this.checkLife(), WATCH_EVERY);
    // the network is back: try now, not at the end of a backoff; gone: say so now
    addEventListener("online", () => { if (!this.up) this.retryNow(); });
    addEventListener("offline", () => { if (this.ws) this.giveUp(); });
  }

  connect() {
    clearTimeout(this.retry);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = this.ws = new WebSocket(`${scheme}://${location.host}/ws`);
    this.made = this.heard = Date.now();
    this.pinged = null; // when the watchdog's ping went, until anything is heard
    ws.onopen = () => ws.send(JSON.stringify({ type: "auth", token: this.token, device: deviceId() }));
    ws.onmessage = (e) => {
      this.heard = Date.now(); // any message is a sign of life
      this.pinged = null;
      this.receive(JSON.parse(e.data));
    };
    ws.onclose = (e) => this.lost(e.code, e.reason);
  }

  // The socket is gone (closed, or given up by the watchdog): what waited for an answer on it
  // fails, what is sent from now on waits for the next socket, which comes after a backoff
  // (short while a table is open: a clock runs there).
  lost(code, reason) {
    const ws = this.ws;
    if (!ws) return;
    ws.onopen = ws.onmessage = ws.onclose = null;
    this.ws = null;
    for (const pending of this.waiting.values()) pending.reject(new ServerError("network"));
    this.waiting.clear();
    if (this.up) {
      this.up = false;
      this.ready = new Promise((resolve) => { this.signedIn = resolve; });
    }
    if (code === 4401 || code === 4003) return this.handlers.refused(code, reason);
    this.handlers.status("offline", code);
    this.retry = setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, this.open.size ? 1000 : 5000);
  }

  // Give the socket up without waiting for its close: on a silent network the close
  // handshake would take minutes.
  giveUp() {
    const ws = this.ws;
    this.lost(4000, "silent");
    try { ws?.close(4000, "silent"); } catch { /* closing already */ }
  }

  retryNow() {
    this.delay = 250;
    if (this.ws) this.giveUp(); // an attempt that may hang on the old network
    clearTimeout(this.retry);
    this.connect();
  }

  // Every WATCH_EVERY ms: ping a socket that has been quiet, give up one that stays so, or an
  // attempt that is not signed in in time. A tab the browser throttles only checks less often.
  checkLife() {
    if (!this.ws) return;
    const now = Date.now();
    if (!this.up) {
      if (now - this.made > PING_AFTER + DEAD_AFTER) this.giveUp();
    } else if (this.pinged !== null) {
      if (now - this.pinged > DEAD_AFTER) this.giveUp();
    } else if (now - this.heard > PING_AFTER) {
      this.pinged = now;
      this.ping();
    }
  }

  // Sent directly on the current socket (not waiting for its welcome): the resync.
  sendNow(message) {
    const id = ++this.counter;
    const answer = new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.ws.send(JSON.stringify({ id, ...message }));
    return answer;
  }

  ping() {
    const sent = Date.now() / 1000;
    this.sendNow({ type: "ping" }).then((pong) => {
      const now = Date.now() / 1000;
      this.offset = pong.at - (sent + now) / 2;
    }).catch(() => {});
  }

  // the server's clock now, in seconds (deadlines are the server's)
  now() {
    return Date.now() / 1000 + this.offset;
  }

  receive(message) {
    if (message.type === "welcome") {
      this.delay = 250;
      this.up = true;
      // the lobby and every open table again, from the last event seen, before anything
      // that waited for the socket (a move made meanwhile goes on the resynced table)
      if (this.welcomed) {
        this.sendNow({ type: "lobby" }).catch(() => {});
        for (const [table, since] of this.open) this.sendNow({ type: "open", table, since }).catch(() => {});
      }
      this.welcomed = true;
      this.handlers.status("online");
      this.signedIn();
      this.ping();
    }
    if (message.type === "table" || message.type === "update") {
      // what a server that lost the table still sent (an older epoch), or an update older
      // than the snapshot held: never shown (docs/protocol.md)
      const epoch = message.epoch ?? 0;
      const held = this.epochs.get(message.table) ?? epoch;
      const shown = this.snapshots.get(message.table);
      if (epoch < held) return;
      if (epoch === held && message.type === "update" && shown && message.version < shown.version) return;
      this.epochs.set(message.table, epoch);
      if (message.patch) {
        const before = this.snapshots.get(message.table);
        if (!before) return; // never so: the server sends a snapshot before any patch on it
        message.snapshot = applyPatch(before, message.patch);
      }
      this.snapshots.set(message.table, message.snapshot);
      const seen = message.events.reduce((m, e) => Math.max(m, e.seq), this.open.get(message.table) ?? 0);
      this.open.set(message.table, Math.max(seen, message.snapshot.seq || 0));
    }
    const pending = this.waiting.get(message.ref);
    if (pending && (message.type === "ok" || message.type === "error" || message.type === "pong")) {
      this.waiting.delete(message.ref);
      if (message.type === "error") pending.reject(new ServerError(message.code, message.message));
      else pending.resolve(message);
    }
    this.handlers.message(message);
  }

  // Send once signed in; while the connection is down, that is once it is back.
  async send(message) {
    await this.ready;
    if (this.ws?.readyState === WebSocket.OPEN) return this.sendNow(message);
    if (this.ws) this.giveUp(); // closing, and not noticed yet
    return this.send(message);
  }

  // Watch a table: the whole history of its game comes with the first snapshot (since 0).
  watch(table) {
    if (!this.open.has(table)) this.open.set(table, 0);
    return this.send({ type: "open", table, since: this.open.get(table) });
  }

  unwatch(table) {
    this.open.delete(table);
    this.epochs.delete(table);
    this.snapshots.delete(table);
    return this.send({ type: "close", table }).catch(() => {});
  }
}

// A patch on a table snapshot (server/updates.py): the whole game view but its pieces, the
// pieces of the stations that look different now (null: none there any more), the 记牌 counts
// only when they changed (else the last ones hold), the new version
// and event number and, if it changed, the table's listing.
export function applyPatch(snapshot, patch) {
  const pieces = new Map(snapshot.game.pieces.map((piece) => [piece.station, piece]));
  for (const [station, piece] of Object.entries(patch.pieces)) {
    if (piece === null) pieces.delete(station);
    else pieces.set(station, piece);
  }
  return {
    ...snapshot, ...(patch.listing || {}), version: patch.version, seq: patch.seq,
    // the 记牌 counts come only when they changed: the last ones hold until then
    game: { tracker: snapshot.game.tracker, ...patch.game, pieces: [...pieces.values()] },
  };
}
