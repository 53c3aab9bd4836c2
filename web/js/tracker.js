// 记牌: the piece tracker the server counts for this viewer (the game view's ``tracker``): for
// each army it counts, each rank with its total, the deaths proven and how many may remain.
// The counts come compact (docs/protocol.md): the ranks once, then per army its numbers in
// their order. Nothing is counted here but total less dead; a collapsible card so that a
// phone keeps the board in view. The table shows its viewer's, a replay its perspective's.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { colourName, rankName, t } from "./i18n.js";
import { playerName, seatArmy, seatColour } from "./seats.js";
import { store } from "./store.js";

// Who plays an army: its colour, and the player of the seat playing it when there is one.
function armyLabel(g, caps, army, nameOf) {
  const seat = g.seats.findIndex((_, s) => seatArmy(g, caps, s) === army);
  const name = seat >= 0 ? nameOf(seat) : null;
  return { text: name ? `${colourName(army)} · ${name}` : colourName(army), colour: seat >= 0 ? seatColour(g, caps, seat) : null };
}

// The table's card: its seats' names.
export function trackerPanel(snap) {
  return trackerCard(snap.game, snap.capabilities, (seat) => playerName(snap.seats[seat], seat));
}

// The card for a game view ``g`` of a variant with capabilities ``caps``, ``nameOf(seat)``
// naming the players.
export function trackerCard(g, caps, nameOf) {
  const counts = g?.tracker;
  if (!counts?.armies?.length) return nothing;
  const open = store.trackerOpen ?? !matchMedia("(pointer: coarse)").matches;
  const toggle = (e) => { store.trackerOpen = e.target.open; };
  return html`<details class="card tracker" data-tracker ?open=${open} @toggle=${toggle}>
    <summary><h3>${t("tracker")}</h3></summary>
    ${counts.armies.map((army) => {
      const label = armyLabel(g, caps, army.army, nameOf);
      return html`<table data-army=${army.army}>
        <caption><span class="dot" .style=${label.colour ? `background:${label.colour}` : ""}></span>${label.text}</caption>
        <thead><tr><th>${t("trackerRank")}</th><th>${t("trackerTotal")}</th><th>${t("trackerDead")}</th><th>${t("trackerLeft")}</th></tr></thead>
        <tbody>${counts.ranks.map((rank, i) => {
          const total = army.total[i], dead = army.dead[i], bound = army.at_most?.[i] ? "≤" : "";
          return total ? html`<tr data-rank=${rank} class=${total > dead ? "" : "all-dead"}>
            <th>${rankName(rank)}</th>
            <td data-total>${bound}${total}</td>
            <td data-dead>${dead}</td>
            <td data-left>${bound}${total - dead}</td>
          </tr>` : nothing;
        })}</tbody>
      </table>`;
    })}
    <p class="sub">${t("trackerHelp")}</p>
  </details>`;
}
