// The game's history in words, and the result card at the end of a game.

import { html, nothing } from "../vendor/lit-html/lit-html.js";
import { colourName, eliminationText, outcomeText, rankName, reasonText, t } from "./i18n.js";

const nameOf = (snap, seat) => (seat === null || seat === undefined ? "?" : snap.seats[seat]?.name ?? t("seat", { n: seat }));

// One event as a line of the log, or null for those not worth a line.
export function describe(snap, e) {
  const who = nameOf(snap, e.seat);
  switch (e.kind) {
    case "moved": {
      const rank = e.rank ? `${rankName(e.rank)} ` : "";
      const fight = e.outcome
        ? ` ⚔ ${e.defender_rank ? rankName(e.defender_rank) : nameOf(snap, e.defender)}: ${outcomeText(e.outcome)}`
        : "";
      return `${who}: ${rank}${e.origin} → ${e.target}${fight}`;
    }
    case "flipped": return `${who}: ${t("flipped")} ${rankName(e.rank)} (${colourName(e.army)})`;
    case "colour_picked": return `${who}: ${t("picked")} ${colourName(e.colour)}`;
    case "bid": return `${who}: ${e.level === 0 ? t("pass") : t(`bid${e.level}`)}`;
    case "banker": return `${nameOf(snap, e.seat)}: ${t("banker")} · ${t(`bid${e.contract}`)}`;
    case "redealt": return `${t("redeal")} (${e.deal})`;
    case "deployed": return `${who}: ${t("deployed")}`;
    case "auto_deployed": return `${who}: ${t("autoLayout")}`;
    case "flag_revealed": return `${who}: ${t("shownFlag")} ${e.station}`;
    case "skipped": return `${who}: ${t("skipsUsed", { n: e.skips, max: snap.rules?.max_skips ?? 5 })}`;
    case "eliminated": return `${who}: ${t("out")} · ${eliminationText(e.reason)}`;
    case "proposal": return e.proposal === "draw" ? t("proposalDraw", { name: who }) : t("proposalSurrender", { name: who });
    case "proposal_accepted": return `${who}: ${t("accept")}`;
    case "proposal_declined": return `${who}: ${t("decline")}`;
    case "surrendered": return `${who}: ${t("surrender")}`;
    case "escaped": return `${who}: ${t("escape")}`;
    case "commander_died": return `${who}: ${rankName(e.rank)} ✝`;
    case "game_over": return `${t("gameOver")}: ${reasonText(e.result?.reason)}`;
    default: return null;
  }
}

export function logList(snap, events) {
  const lines = events.map((e) => ({ seq: e.seq, text: describe(snap, e) })).filter((l) => l.text);
  return html`<ol class="log" id="log">${lines.slice(-200).map((l) => html`<li data-seq=${l.seq}>${l.text}</li>`)}</ol>`;
}

// The end of a game: who won, why, and what each seat scored.
export function resultCard(snap, { onClose, onReady, onReplay, onLobby }) {
  const g = snap.game, result = g?.result;
  if (!result) return nothing;
  const me = snap.you;
  const mine = me !== null ? result.seats[me] : null;
  const drawn = result.winners.length === 0;
  const headline = mine
    ? mine.outcome === "win" ? t("youWon") : drawn && mine.outcome !== "escape" ? t("isDraw") : t("youLost")
    : drawn ? t("isDraw") : t("sideWon", { names: result.winners.map((s) => nameOf(snap, s)).join(" · ") });
  const points = snap.points ?? [];
  return html`<div class="result card" id="result" data-outcome=${mine?.outcome ?? (drawn ? "draw" : "decided")}>
    <h2>${headline}</h2>
    <p class="reason">${reasonText(result.reason)}</p>
    <table><tbody>${result.seats.map((s) => html`<tr class=${`outcome ${s.outcome}`} data-seat=${s.seat}>
      <td>${nameOf(snap, s.seat)}</td>
      <td>${t(s.outcome === "draw" ? "drawn" : s.outcome)}</td>
      <td>${s.elimination ? eliminationText(s.elimination.reason) : ""}</td>
      <td class="points">${(points[s.seat] ?? 0) > 0 ? "+" : ""}${points[s.seat] ?? 0}</td></tr>`)}</tbody></table>
    <div class="buttons">
      ${onReady ? html`<button id="again" class="primary" @click=${onReady}>${t("playAgain")}</button>` : nothing}
      ${snap.game_id ? html`<button id="to-replay" @click=${onReplay}>${t("replay")}</button>` : nothing}
      <button id="see-board" @click=${onClose}>${t("seeBoard")}</button>
      <button id="result-lobby" @click=${onLobby}>${t("back")}</button>
    </div>
  </div>`;
}
