// Knowing it is your turn from another tab: the tab's title says so, and, if the player turned
// it on (the switch beside the sound's), a browser notification while the tab is hidden. The
// browser asks for permission only when the player turns it on. Remembered in this browser.

import { t } from "./i18n.js";

const supported = () => "Notification" in window;

export const notifying = () => supported() && localStorage.getItem("junqi.notify") === "1" && Notification.permission === "granted";

// The tab's title: "轮到你走棋" first while it is the player's turn.
export const pageTitle = (yourTurn) => (yourTurn ? `${t("turnTitle")} · ${t("title")}` : t("title"));

// The switch: on asks the browser's permission (once: a refusal is the browser's to undo);
// returns the words to tell the player when it cannot be turned on, else null.
export async function toggleNotify() {
  if (notifying()) { localStorage.setItem("junqi.notify", "0"); return null; }
  if (!supported()) return t("notifyUnsupported");
  const permission = Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  if (permission !== "granted") return t("notifyDenied");
  localStorage.setItem("junqi.notify", "1");
  return null;
}

let shown = null;

// The player's turn began (``text`` says where): a notification if the tab is hidden.
export function turnBegan(text) {
  if (!notifying() || document.visibilityState !== "hidden") return;
  try {
    shown = new Notification(t("turnTitle"), { body: text, tag: "junqi-turn" });
    shown.onclick = () => { focus(); shown?.close(); };
  } catch { /* a browser that allows notifications only from a service worker */ }
}

// Back on the tab: the notification has done its work.
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") { shown?.close(); shown = null; }
});
