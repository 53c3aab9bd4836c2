// The bots' pace at a table (fast / normal / slow: how long a bot waits at least before its
// move, the server's table option `pace`). No rule: it never makes a table unrated, and the
// table's creator may change it at any time. The last one chosen is remembered in this browser
// for the next table.

import { html } from "../vendor/lit-html/lit-html.js";
import { t } from "./i18n.js";

const PACES = ["fast", "normal", "slow"];
const WORDS = { fast: "paceFast", normal: "paceNormal", slow: "paceSlow" };

// The pace chosen last in this browser, or null (the server's default).
export function preferredPace() {
  const pace = localStorage.getItem("junqi.pace");
  return PACES.includes(pace) ? pace : null;
}

export const paceName = (pace) => t(WORDS[pace] ?? "paceNormal");

// A choice of pace, ``current`` selected; ``chosen(pace)`` hears of a change (remembered).
export function paceSelect(name, current, chosen = null) {
  const change = (e) => {
    localStorage.setItem("junqi.pace", e.target.value);
    chosen?.(e.target.value);
  };
  return html`<label class="pace" title=${t("paceHelp")}>${t("pace")} <select id=${name} name="pace" @change=${change}>
    ${PACES.map((p) => html`<option value=${p} ?selected=${p === current}>${paceName(p)}</option>`)}</select></label>`;
}
