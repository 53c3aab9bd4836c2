// The client's one state, and its redraw: every view draws from ``store`` alone, and whatever
// changes it calls ``changed()``, which redraws once on the next frame.

export const store = {
  user: null, // { id, name, role }
  profile: null, // GET /api/me
  view: "login", // login | lobby | table | replay
  lobby: null, // the lobby listing
  boards: new Map(), // board key -> board data (GET /api/boards/KEY)
  table: null, // the open table (table.js)
  replay: null, // the open replay (replay.js)
  quick: null, // the wait in quick match (quick.js)
  chat: [], // chat lines received
  notice: null, // { text, kind: "error" | "info", view }
  modal: null, // { text, confirm, onConfirm }
  connection: "connecting", // connecting | online | offline
  crowded: false, // the last close: this user has too many sockets open (4429)
  leaving: false, // logging out: the socket's close that follows is expected
  api: null,
  socket: null,
};

// A variant as the lobby lists it: { key, name, seats, capabilities, rules (its defaults),
// play_now }; null before the listing came or for a key it does not have.
export const variantEntry = (key) => store.lobby?.variants?.find((v) => v.key === key) ?? null;

let draw = () => {};
let due = false;

export function onChange(redraw) {
  draw = redraw;
}

export function changed() {
  if (due) return;
  due = true;
  requestAnimationFrame(() => {
    due = false;
    draw();
  });
}

// A message for the player, in their words; it belongs to the view it was raised in and goes
// when the player moves on (or after a while).
let noticeTimer = null;
export function notify(text, kind = "error") {
  store.notice = text ? { text, kind, view: store.view, table: store.table?.id } : null;
  clearTimeout(noticeTimer);
  if (text) noticeTimer = setTimeout(() => { store.notice = null; changed(); }, kind === "error" ? 6000 : 3000);
  changed();
}
