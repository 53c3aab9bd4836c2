// 记牌: the piece tracker the server counts for this viewer (the game view's ``tracker``): for
// each army it counts, each rank with its total, the deaths proven and how many may remain.
// Nothing is counted here; a collapsible card so that a phone keeps the board in view.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { colourName, rankName, t } from "./i18n.js";
import { seatArmy, seatColour } from "./seats.js";
import { store } from "./store.js";

// Who plays an army: its colour, and the player of the seat playing it when there is one.
function armyLabel(snap, caps, army) {
  const g = snap.game;
  const seat = g.seats.findIndex((_, s) => seatArmy(g, caps, s) === army);
  const name = seat >= 0 ? snap.seats[seat]?.name : null;
  return { text: name ? `${colourName(army)} · ${name}` : colourName(army), colour: seat >= 0 ? seatColour(g, caps, seat) : null };
}

export function trackerPanel(snap) {
  const caps = snap.capabilities;
  const counts = snap.game?.tracker;
  if (!counts?.length) return nothing;
  const open = store.trackerOpen ?? !matchMedia("(pointer: coarse)").matches;
  const toggle = (e) => { store.trackerOpen = e.target.open; };
  return html`<details class="card tracker" data-tracker ?open=${open} @toggle=${toggle}>
    <summary><h3>${t("tracker")}</h3></summary>
    ${counts.map((army) => {
      const label = armyLabel(snap, caps, army.army);
      return html`<table data-army=${army.army}>
        <caption><span class="dot" .style=${label.colour ? `background:${label.colour}` : ""}></span>${label.text}</caption>
        <thead><tr><th>${t("trackerRank")}</th><th>${t("trackerTotal")}</th><th>${t("trackerDead")}</th><th>${t("trackerLeft")}</th></tr></thead>
        <tbody>${Object.entries(army.ranks).map(([rank, row]) => html`<tr data-rank=${rank} class=${row.may_remain ? "" : "all-dead"}>
          <th>${rankName(rank)}</th>
          <td data-total>${row.at_most ? "≤" : ""}${row.total}</td>
          <td data-dead>${row.dead_known}</td>
          <td data-left>${row.at_most ? "≤" : ""}${row.may_remain}</td>
        </tr>`)}</tbody>
      </table>`;
    })}
    <p class="sub">${t("trackerHelp")}</p>
  </details>`;
}
