// REST calls and the WebSocket connection (docs/protocol.md). The socket reconnects with backoff
// and resyncs every open table from the last event number it saw.

export class Api {
  constructor() {
    this.token = localStorage.getItem("junqi.token");
  }

  async call(method, path, body) {
    const headers = { "Content-Type": "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let data = text;
    try { data = JSON.parse(text); } catch { /* plain text answers */ }
    if (!response.ok) {
      const detail = typeof data === "object" ? data.detail : data;
      throw new Error(typeof detail === "string" ? detail : JSON.stringify(detail));
    }
    return data;
  }

  async enter(kind, name, password) {
    const path = kind === "guest" ? "/api/auth/guest" : `/api/auth/${kind}`;
    const body = kind === "guest" ? undefined : { name, password };
    const answer = await this.call("POST", path, body);
    this.token = answer.token;
    localStorage.setItem("junqi.token", answer.token);
    return answer.user;
  }
}

export class Socket {
  constructor(token, onMessage) {
    this.token = token;
    this.onMessage = onMessage;
    this.counter = 0;
    this.waiting = new Map();
    this.open = new Map(); // table id -> last seq seen
    this.snapshots = new Map(); // table id -> the snapshot as the last message left it
    this.delay = 500;
    this.connect();
    setInterval(() => this.send({ type: "ping" }).catch(() => {}), 15000);
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.ws = new WebSocket(`${scheme}://${location.host}/ws?token=${this.token}`);
    this.ready = new Promise((resolve) => { this.ws.onopen = resolve; });
    this.ws.onmessage = (e) => this.receive(JSON.parse(e.data));
    this.ws.onclose = () => {
      setTimeout(() => this.reconnect(), this.delay);
      this.delay = Math.min(this.delay * 2, 8000);
    };
  }

  reconnect() {
    this.connect();
    this.ready.then(() => {
      this.delay = 500;
      this.send({ type: "lobby" });
      for (const [table, since] of this.open) this.send({ type: "open", table, since });
    });
  }

  receive(message) {
    if (message.type === "table" || message.type === "update") {
      if (message.patch) {
        const before = this.snapshots.get(message.table);
        if (!before) return; // never so: the server sends a snapshot before any patch on it
        message.snapshot = applyPatch(before, message.patch);
      }
      this.snapshots.set(message.table, message.snapshot);
      const seen = message.events.reduce((m, e) => Math.max(m, e.seq), this.open.get(message.table) || 0);
      this.open.set(message.table, Math.max(seen, message.snapshot.seq || 0));
    }
    const pending = this.waiting.get(message.ref);
    if (pending && (message.type === "ok" || message.type === "error" || message.type === "pong")) {
      this.waiting.delete(message.ref);
      if (message.type === "error") pending.reject(new Error(message.message));
      else pending.resolve(message);
    }
    this.onMessage(message);
  }

  async send(message) {
    await this.ready;
    const id = ++this.counter;
    this.ws.send(JSON.stringify({ id, ...message }));
    return new Promise((resolve, reject) => this.waiting.set(id, { resolve, reject }));
  }
}

// A patch on a table snapshot (server/updates.py): the whole game view but its pieces, the
// pieces of the stations that look different now (null: none there any more), the new version
// and event number and, if it changed, the table's listing.
export function applyPatch(snapshot, patch) {
  const pieces = new Map(snapshot.game.pieces.map((piece) => [piece.station, piece]));
  for (const [station, piece] of Object.entries(patch.pieces)) {
    if (piece === null) pieces.delete(station);
    else pieces.set(station, piece);
  }
  return {
    ...snapshot, ...(patch.listing || {}), version: patch.version, seq: patch.seq,
    game: { ...patch.game, pieces: [...pieces.values()] },
  };
}
