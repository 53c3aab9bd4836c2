// Sending what the player does: table commands and game actions, with every refusal put in
// the player's words. A game action made on a table version that moved on meanwhile (another
// seat acted first) is sent once more on the newer snapshot if it still makes sense.

import { errorText, t } from "./i18n.js";
import { changed, notify, store } from "./store.js";

// A table command (sit, ready, add_bot, ...); resolves to the answer, or to null if refused.
export async function command(message) {
  notify(null); // the player moved on: an old notice goes
  try {
    return await store.socket.send(message);
  } catch (error) {
    notify(errorText(error));
    return null;
  }
}

let waiters = [];

// The next snapshot of the open table newer than ``version`` (or the same after a while).
function newerThan(version) {
  return new Promise((resolve) => {
    const waiter = { version, resolve };
    waiters.push(waiter);
    setTimeout(() => { waiters = waiters.filter((w) => w !== waiter); resolve(); }, 1500);
  });
}

// table.js calls this on every snapshot of the open table
export function snapshotArrived(version) {
  const due = waiters.filter((w) => version > w.version);
  waiters = waiters.filter((w) => version <= w.version);
  for (const w of due) w.resolve();
}

// A game action for the open table; ``stillValid`` says, on a newer snapshot, whether to send
// it again after a stale_version. Resolves to true when the server took it. ``background``: the
// page sends it by itself (a deployment's draft, a moment after the last change), not the
// player, so an error the player has not read yet stays (it would vanish at once).
// Made while the connection is down, it waits for the next socket (which resyncs the table
// first) and the player is told so; one under way when the socket went is sent once more on the
// resynced table (a copy the server took already comes back stale). Never dropped unsaid.
export async function act(action, stillValid = () => true, { background = false } = {}) {
  const table = store.table;
  if (!table?.snapshot) return false;
  if (!background && store.notice?.kind === "error") notify(null);
  const say = (text, kind) => { if (!background) notify(text, kind); };
  let waited = !store.socket.up, lost = false, stale = false;
  if (waited) say(t("moveQueued"), "warn");
  for (;;) {
    const version = table.snapshot.version;
    try {
      await store.socket.send({ type: "act", table: table.id, version, action });
      if (waited && store.notice?.text === t("moveQueued")) notify(null);
      return true;
    } catch (error) {
      if (store.table !== table) return false;
      if (error.code === "network" && !lost) {
        lost = waited = true;
        say(t("moveQueued"), "warn");
        continue; // send waits for the next socket
      }
      if (error.code !== "stale_version" || stale) {
        say(errorText(error));
        changed();
        return false;
      }
      stale = true;
      if (table.snapshot.version === version) await newerThan(version);
      if (store.table !== table) return false;
      if (!stillValid()) {
        if (waited) say(t("moveNotSent")); // the board moved on meanwhile: said, not dropped
        return false;
      }
    }
  }
}
